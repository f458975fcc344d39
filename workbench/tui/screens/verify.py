"""Verify one source's chain, with progress, a cancel, and the break laid bare.

The store does the verifying (``store.verify_source``, the same walk as
``harmwatch track verify``); this modal runs it in a worker thread and shows
how far it got. The walk calls back every 2,000 records: the callback posts
progress at most every 100 ms and raises ``_Cancelled`` once the worker is
cancelled, which stops the walk with its cursor closed, so a cancel lands
within one batch. A broken chain is shown with the two records on each side
of the break, so the analyst sees which link no longer holds.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static
from textual.worker import get_current_worker

from workbench.tui.messages import ChainVerified, ChainVerifyProgressed, JobCancelled, JobFailed
from workbench.tui.screens.base import WorkbenchModal
from workbench.tui.widgets.job_progress import JobProgress

if TYPE_CHECKING:
    from pathlib import Path

    from store import Observation, VerifyResult

PROGRESS_INTERVAL = 0.1
"""Seconds between two progress messages (the final count always goes out)."""


class _Cancelled(Exception):  # noqa: N818 - private signal, not an error
    """Raised from the progress callback to stop the walk."""


class VerifyScreen(WorkbenchModal):
    """A modal over Sources or Source; ``escape`` cancels a running verify, else closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel_or_close", "Cancel / close"),
    ]

    def __init__(
        self, source_id: str, total: int | None = None, checkpoint_file: Path | None = None
    ) -> None:
        super().__init__()
        self.source_id = source_id
        self.expected = total
        # None: the latest checkpoint saved in HARMWATCH_CHECKPOINT_DIR, if any (as track verify).
        self.checkpoint_file = checkpoint_file
        self.result: VerifyResult | None = None
        self.records: list[Observation] = []
        self.cancelled = False
        self.failure: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="verify-dialog"):
            title = f"Verify chain · {self.source_id}"
            if self.checkpoint_file is not None:
                title += f" · against {self.checkpoint_file.name}"
            yield Label(title, id="verify-title")
            yield JobProgress(monotonic=self.services.clock.monotonic, unit="records")
            yield Static("", id="verify-outcome")
            with Horizontal(id="verify-records"):
                yield Static("", id="verify-before", classes="verify-record")
                yield Static("", id="verify-at", classes="verify-record")
            yield Static("esc closes", id="verify-hint")

    def on_mount(self) -> None:
        self.query_one(JobProgress).start(self.expected)
        self.query_one("#verify-hint", Static).update("esc cancels")
        # After the dialog's first paint: the walk then has the processor (and the GIL)
        # to itself instead of sharing it with the dialog's styling and layout.
        self.call_after_refresh(self._verify, self.source_id)

    @property
    def running(self) -> bool:
        return self.query_one(JobProgress).running

    # -- the job ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def _verify(self, source_id: str) -> None:
        from store import StoreError

        worker = get_current_worker()
        store = self.services.store
        last = 0.0

        def progress(checked: int, total: int) -> None:
            nonlocal last
            if worker.is_cancelled:
                raise _Cancelled
            now = time.monotonic()
            if now - last >= PROGRESS_INTERVAL or checked == total:
                last = now
                self.post_message(ChainVerifyProgressed(checked, total))

        try:
            # The rules recompute the profile's derived fields (loads the taxonomy if need be).
            rules = self.services.engine.tracking_rules()
            result = store.verify(
                source_id, progress=progress, rules=rules, checkpoint_file=self.checkpoint_file
            )
            records: list[Observation] = []
            broken = result.first_broken_seq
            if not result.intact and broken is not None:
                records = store.observations_between(source_id, broken - 1, broken)
        except _Cancelled:
            self.post_message(JobCancelled("verify"))
            return
        except (StoreError, ValueError) as exc:  # ValueError: a checkpoint that cannot be used
            self.post_message(JobFailed("verify", _first_line(exc)))
            return
        except OSError as exc:
            self.post_message(JobFailed("verify", f"{exc.filename}: {exc.strerror}"))
            return
        self.post_message(ChainVerified(result, records))

    def cancel_job(self) -> bool:
        """Cancel a running verify (``escape``, or the app's cancel); whether one ran."""
        if not self.running or self.cancelled:
            return False
        self.cancelled = True
        self.workers.cancel_group(self, "verify")
        self.query_one("#verify-hint", Static).update("cancelling…")
        return True

    def action_cancel_or_close(self) -> None:
        # A second escape while the walk winds down closes anyway: the thread's
        # late messages then go to a screen that is gone, and are dropped.
        if not self.cancel_job():
            self.dismiss(self.result)

    # -- outcomes -----------------------------------------------------------------------

    @on(ChainVerifyProgressed)
    def _progressed(self, message: ChainVerifyProgressed) -> None:
        message.stop()
        if self.running:
            self.query_one(JobProgress).advance_to(message.checked, message.total)

    @on(ChainVerified)
    def _verified(self, message: ChainVerified) -> None:
        message.stop()
        self.result = message.result
        self.records = message.records
        result = message.result
        progress = self.query_one(JobProgress)
        progress.advance_to(result.checked)
        outcome = self.query_one("#verify-outcome", Static)
        if result.intact:
            noun = "record" if result.checked == 1 else "records"
            summary = f"intact, {result.checked:,} {noun}"
            progress.finish("done")
            outcome.update(Text(f"✓ {summary}", style="bold"))
            outcome.set_class(True, "-intact")
        else:
            seq = result.first_broken_seq
            summary = f"broken at seq {seq}"
            progress.finish("broken")
            text = Text(f"✗ {summary}", style="bold")
            text.append(f"\n{result.reason or 'no reason given'}", style="not bold")
            outcome.update(text)
            outcome.set_class(True, "-broken")
            self.query_one("#verify-hint", Static).update("esc closes")
            self._show_records(seq or 0, message.records)
            return
        self.query_one("#verify-hint", Static).update("esc closes")

    @on(JobCancelled)
    def _cancelled(self, message: JobCancelled) -> None:
        if message.job != "verify":
            return
        message.stop()
        progress = self.query_one(JobProgress)
        progress.finish("cancelled")
        self.query_one("#verify-outcome", Static).update(
            f"cancelled after {progress.done:,} records: nothing was concluded"
        )
        self.query_one("#verify-hint", Static).update("esc closes")

    @on(JobFailed)
    def _failed(self, message: JobFailed) -> None:
        if message.job != "verify":
            return
        message.stop()
        self.failure = message.reason
        self.query_one(JobProgress).finish("failed")
        outcome = self.query_one("#verify-outcome", Static)
        outcome.update(message.reason)
        outcome.set_class(True, "-broken")
        self.query_one("#verify-hint", Static).update("esc closes")

    def _show_records(self, seq: int, records: list[Observation]) -> None:
        by_seq = {record.seq: record for record in records}
        before = by_seq.get(seq - 1)
        at = by_seq.get(seq)
        self.query_one("#verify-records").add_class("-shown")
        self.query_one("#verify-before", Static).update(
            _record_text(seq - 1, before, "record_hash", before.record_hash if before else None)
            if seq > 1
            else Text("seq 0: the chain's start\nprev_hash of seq 1 must be 64 zeros")
        )
        self.query_one("#verify-at", Static).update(
            _record_text(seq, at, "prev_hash", at.prev_hash if at else None)
        )
        if before is not None and at is not None:
            links = at.prev_hash == before.record_hash
            note = "links to" if links else "does NOT link to"
            hint = f"seq {seq} {note} seq {seq - 1} · esc closes"
            self.query_one("#verify-hint", Static).update(hint)


def _record_text(seq: int, record: Observation | None, field: str, value: str | None) -> Text:
    """One side of the break: the record's fields, with the hash that must link in bold."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"seq {seq}\n", style="bold")
    if record is None:
        text.append("not in the store")
        return text
    text.append(f"observed    {record.observed_at[:19].replace('T', ' ')}\n")
    text.append(f"mechanism   {record.harm_mechanism or '—'}\n")
    text.append(f"severity    {record.severity}\n")
    text.append(f"{field:<12}", style="bold")
    text.append(_short_hash(value), style="bold")
    if field == "prev_hash":
        text.append(f"\nrecord_hash {_short_hash(record.record_hash)}", style="dim")
    return text


def _short_hash(value: str | None) -> str:
    """Sixteen hex digits: enough to see two hashes differ, short enough for 80 columns."""
    return f"{value[:16]}…" if value else "—"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
