"""Group commit for observations: the appends that arrive together are committed together.

An observation is acknowledged (201) only once it is committed, and a commit
costs a disk flush (SQLite ``synchronous=FULL``: 0.2–1 ms here), which alone
would cap a worker near 1,000 observations a second. So a worker does what
databases do with their own log: appends that arrive while a batch is being
written wait for the next batch, and that one commits them all at once.

- ``GroupCommit.append`` queues an append and awaits its outcome. The first
  append of an idle writer schedules a flush; everything queued by the time
  the flush runs (up to MAX_BATCH) goes into one transaction and one commit.
  With no concurrency every batch holds one append: nothing waits for company.
- If anything in a batch fails, its transaction is rolled back (nothing of it
  was written) and each append is retried in a transaction of its own, so a
  failure is only ever its own request's. (A savepoint per append would do the
  same on the happy path at three times the cost of the appends themselves.)
- Appends to one source keep their arrival order. A batch is sorted by
  source_id (a stable sort), so batches in other workers lock PostgreSQL
  profile rows in the same order and cannot deadlock; on SQLite a batch holds
  the database's write lock, which other workers wait for (busy timeout).

Where a batch is written depends on the backend. On SQLite it is written on the
event loop: the work is local and short, and doing it in a thread would only add
GIL hand-offs (re2 releases the GIL on every match, so a second busy thread slows
classification several-fold; measured, the thread costs a third of the
throughput). On PostgreSQL, whose batches mostly wait on the network, it is
written in one dedicated thread while the loop goes on serving.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from api.metrics import Metrics
from engine import Classification
from store import Observation, SourceProfile, Store, TrackingRules, Writer, append
from store.evidence import NO_EVIDENCE, Evidence
from store.trust import Trust

log = logging.getLogger(__name__)

MAX_BATCH = 64
Appended = tuple[Observation, SourceProfile]
Outcome = Appended | Exception


@dataclass(frozen=True, slots=True)
class PendingAppend:
    source_id: str
    result: Classification
    text: str
    evidence: Evidence = NO_EVIDENCE


class GroupCommit:
    """The process's appender; created and used on one event loop."""

    def __init__(
        self,
        store: Callable[[], Store],
        rules: TrackingRules,
        *,
        store_text: bool,
        on_loop: bool,
        metrics: Metrics | None = None,
        trust: Trust | None = None,
        taxonomy_digest: str | None = None,
    ) -> None:
        self._store = store
        self._taxonomy_digest = taxonomy_digest
        self._rules = rules
        self._store_text = store_text
        self._metrics = metrics
        # Signs each record; saves the checkpoints that come due once their batch committed.
        self._trust = trust or Trust()
        self._executor = (
            None if on_loop else ThreadPoolExecutor(1, thread_name_prefix="harmwatch-append")
        )
        self._pending: list[tuple[PendingAppend, asyncio.Future[Appended]]] = []
        self._busy = False
        # One connection for every batch (see store.Writer), made on the first one.
        self._writer: Writer | None = None

    async def append(
        self,
        source_id: str,
        result: Classification,
        text: str,
        evidence: Evidence = NO_EVIDENCE,
    ) -> Appended:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Appended] = loop.create_future()
        self._pending.append((PendingAppend(source_id, result, text, evidence), future))
        if not self._busy:
            self._busy = True
            loop.call_soon(self._flush)
        return await future

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True)
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    # -- on the event loop -------------------------------------------------------------
    def _flush(self) -> None:
        batch, self._pending = self._pending[:MAX_BATCH], self._pending[MAX_BATCH:]
        items = [item for item, _ in batch]
        if self._executor is None:
            self._finish(batch, self.write(items))
            return
        done = asyncio.get_running_loop().run_in_executor(self._executor, self.write, items)
        done.add_done_callback(lambda task: self._finish(batch, _outcomes(task, len(batch))))

    def _finish(
        self,
        batch: list[tuple[PendingAppend, asyncio.Future[Appended]]],
        outcomes: list[Outcome],
    ) -> None:
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():  # the request was cancelled (client gone); the append stands
                continue
            if isinstance(outcome, Exception):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)
        if self._pending:
            asyncio.get_running_loop().call_soon(self._flush)
        else:
            self._busy = False

    # -- wherever the batch is written -------------------------------------------------
    def write(self, items: list[PendingAppend]) -> list[Outcome]:
        """One transaction for the batch; on any failure, one transaction per append."""
        order = sorted(range(len(items)), key=lambda index: items[index].source_id)
        try:
            written = self._transaction([items[index] for index in order])
        except Exception as exc:
            if len(items) == 1:
                return [exc]
            return [self.write([item])[0] for item in items]
        by_index: dict[int, Outcome] = dict(zip(order, written, strict=True))
        return [by_index[index] for index in range(len(items))]

    def _transaction(self, items: list[PendingAppend]) -> list[Appended]:
        if self._writer is None:
            self._writer = Writer(self._store())
        started = time.perf_counter()
        signer = self._trust.signer
        with self._writer.transaction() as session:
            written = [
                append(
                    item.source_id,
                    item.result,
                    text=item.text,
                    store_text=self._store_text,
                    rules=self._rules,
                    session=session,
                    signer=signer,
                    evidence=item.evidence,
                    taxonomy_digest=self._taxonomy_digest,
                )
                for item in items
            ]
        if self._metrics is not None:
            self._metrics.appended(len(written), time.perf_counter() - started)
        self._trust.after_commit(observation for observation, _ in written)
        return written


def _outcomes(task: asyncio.Future[list[Outcome]], size: int) -> list[Outcome]:
    """The thread's outcomes; should the thread itself fail, that failure for each append."""
    if task.cancelled():
        return [RuntimeError("the append was cancelled")] * size
    exc = task.exception()
    if exc is not None:
        failure = exc if isinstance(exc, Exception) else RuntimeError(str(exc))
        return [failure] * size
    return task.result()
