"""Bulk ingest: many observations of many sources, classified together, appended by source.

The CLI's ``track ingest FILE`` and ``POST /tracking/ingest`` both hand their
rows to ``ingest``. A row is checked in full first (source_id, text, language,
published_at, url, metadata, and that the text can be stored): a bad row is
reported with its position (a file's line number, a request's index) and
never reaches the database, while the valid rows go on. Valid rows are
classified with ``classify_many`` a batch at a time, then appended source by
source in chunks (``store.tracking.append_chunks``: one lock and one profile
update per source chunk, one insert for all of a transaction's records),
several sources' chunks sharing a transaction of at most ``CHUNK`` records (a
feed of many sources would otherwise pay a commit, an fsync on SQLite, for a
handful of records). Appends to a source stay serialized through its profile
row's lock, so concurrent ingests and observes of one source form one unbroken
chain on SQLite and PostgreSQL, and a chunk is written whole or not at all.

Within a source, rows keep their order in the input: the chain is append
order, the profile places each record by its published_at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice
from typing import TYPE_CHECKING, Any

from engine.classifier import Classifier
from store.evidence import Evidence, make_evidence
from store.source_id import validate_source_id
from store.tracking import Entry, Observation, TamperedHeadError, append_chunks

if TYPE_CHECKING:
    from store.database import Store
    from store.signing import SigningKey
    from store.trend import TrackingRules

MAX_ITEMS = 1000  # items of one POST /tracking/ingest
BATCH = 5000  # rows classified together (and held in memory) at a time
CHUNK = 1000  # records per transaction (of one source or several)


@dataclass(frozen=True, slots=True)
class IngestRow:
    """One row as read: ``position`` is how errors name it (line number or index).

    Values are as the input gave them and are checked by ``ingest``; a wrong
    type (a number for a text) is reported like any other bad value.
    """

    position: int
    source_id: object
    text: object
    language: object = None
    published_at: object = None
    url: object = None
    metadata: object = None


@dataclass(frozen=True, slots=True)
class IngestError:
    position: int
    detail: str


@dataclass(slots=True)
class IngestReport:
    """What an ingest did: records appended, rows skipped as already there, rows refused."""

    appended: int = 0
    skipped: int = 0
    errors: list[IngestError] = field(default_factory=list)
    sources: set[str] = field(default_factory=set)

    def to_dict(self, position_name: str = "index") -> dict[str, Any]:
        return {
            "appended": self.appended,
            "skipped": self.skipped,
            "errors": [
                {position_name: error.position, "detail": error.detail} for error in self.errors
            ],
        }


@dataclass(frozen=True, slots=True)
class _Ready:
    position: int
    source_id: str
    text: str
    language: str | None
    evidence: Evidence


def ingest(
    rows: Iterable[IngestRow | IngestError],
    *,
    classifier: Classifier,
    store: Store,
    rules: TrackingRules,
    store_text: bool,
    max_future_skew_s: float,
    skip_existing: bool = False,
    signer: SigningKey | None = None,
    after_commit: Callable[[list[Observation]], object] | None = None,
    progress: Callable[[int], None] | None = None,
    now: Callable[[], datetime] | None = None,
) -> IngestReport:
    """Check, classify and append ``rows``; never raises for a bad row (it is listed).

    ``rows`` may also yield an ``IngestError`` for a row its reader could not
    parse: it is listed in order with the others. ``progress(n)`` is called with
    the number of rows dealt with after each batch; ``after_commit`` with the
    records of each committed chunk (a due checkpoint is saved then).
    A source whose head record no longer matches its hash gets none of its rows
    appended (each is listed, ``TamperedHeadError``'s message); the others go on.
    Database failures (``StoreUnavailable``) propagate: what was committed
    before stays, and a rerun with ``skip_existing`` appends only the rest.
    """
    report = IngestReport()
    clock = now or (lambda: datetime.now(UTC))
    digest = classifier.taxonomy.digest
    postgres = store.backend == "postgresql"

    def commit(group: list[_Piece]) -> None:
        """One transaction for the group: each source's chunk under its lock, its profile
        updated once. A tampered head fails the transaction; its sources are then
        retried one transaction each, so only that source's rows are refused."""
        try:
            with writer.transaction() as conn:
                outcomes = append_chunks(
                    [(source_id, [entry for _, entry in chunk]) for source_id, chunk in group],
                    store_text=store_text,
                    rules=rules,
                    session=conn,
                    signer=signer,
                    taxonomy_digest=digest,
                    skip_existing=skip_existing,
                )
        except TamperedHeadError as exc:
            if len(group) > 1:
                for piece in group:
                    commit([piece])
                return
            report.errors.extend(IngestError(position, str(exc)) for position, _ in group[0][1])
            return
        for (source_id, chunk), written in zip(group, outcomes, strict=True):
            report.appended += len(written)
            report.skipped += len(chunk) - len(written)
            if written:
                report.sources.add(source_id)
                if after_commit is not None:
                    after_commit(written)

    def classified(batch: list[IngestRow | IngestError]) -> list[list[_Piece]]:
        """Check and classify a batch, and pack it into transactions: each a list of
        source chunks, sources in id order, at most CHUNK records (every transaction
        locks its sources in ascending order, so concurrent ingests and the API's group
        commit cannot deadlock)."""
        ready: list[_Ready] = []
        moment = clock()
        for row in batch:
            if isinstance(row, IngestError):
                report.errors.append(row)
                continue
            checked = _checked(
                row, classifier, store_text, max_future_skew_s, moment, postgres=postgres
            )
            if isinstance(checked, IngestError):
                report.errors.append(checked)
            else:
                ready.append(checked)
        results = classifier.classify_many((each.text, None, each.language) for each in ready)
        by_source: dict[str, list[tuple[int, Entry]]] = {}
        for each, result in zip(ready, results, strict=True):
            by_source.setdefault(each.source_id, []).append(
                (each.position, Entry(result, each.text, each.evidence))
            )
        groups: list[list[_Piece]] = []
        group: list[_Piece] = []
        size = 0
        for source_id in sorted(by_source):
            for chunk in _chunks(by_source[source_id]):
                if group and size + len(chunk) > CHUNK:
                    groups.append(group)
                    group, size = [], 0
                group.append((source_id, chunk))
                size += len(chunk)
        if group:
            groups.append(group)
        return groups

    # Batches one after the other: handing a batch's appends to a thread while the next
    # is classified was measured and dropped. The appender waits on the database
    # without the GIL but needs it back after every statement, while classification
    # holds it for whole switch intervals: PostgreSQL gained at most a tenth, SQLite
    # lost a fifth.
    with store.writer() as writer:
        iterator = iter(rows)
        while batch := list(islice(iterator, BATCH)):
            for group in classified(batch):
                commit(group)
            if progress is not None:
                progress(len(batch))
    report.errors.sort(key=lambda error: error.position)
    return report


_Piece = tuple[str, list[tuple[int, Entry]]]


def _chunks(entries: list[tuple[int, Entry]]) -> Iterator[list[tuple[int, Entry]]]:
    for start in range(0, len(entries), CHUNK):
        yield entries[start : start + CHUNK]


def _checked(
    row: IngestRow,
    classifier: Classifier,
    store_text: bool,
    max_future_skew_s: float,
    now: datetime,
    *,
    postgres: bool,
) -> _Ready | IngestError:
    """The row ready to classify, or the first problem found, named by field."""
    position = row.position
    try:
        if not isinstance(row.source_id, str):
            return IngestError(position, "source_id must be a string")
        validate_source_id(row.source_id)
        language = row.language
        if language is not None and not isinstance(language, str):
            return IngestError(position, "language must be a string or null")
        classifier.check_input(row.text, None, language)
        text = row.text
        assert isinstance(text, str)  # check_input refuses anything else
        if store_text:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return IngestError(
                    position, "text holds lone surrogates, which cannot be stored as UTF-8"
                )
            if postgres and "\x00" in text:
                return IngestError(
                    position, "text holds a NUL character, which PostgreSQL cannot store"
                )
        published_at = row.published_at
        if published_at is not None and not isinstance(published_at, str):
            return IngestError(position, "published_at must be a string or null")
        url = row.url
        if url is not None and not isinstance(url, str):
            return IngestError(position, "url must be a string or null")
        metadata = row.metadata
        if metadata is not None and not isinstance(metadata, dict):
            return IngestError(position, "metadata must be a JSON object or null")
        evidence = make_evidence(
            published_at=published_at,
            url=url,
            metadata=metadata,
            now=now,
            max_future_skew_s=max_future_skew_s,
        )
    except (TypeError, ValueError) as exc:  # InvalidSourceId, InputError, InvalidEvidenceError
        return IngestError(position, str(exc))
    return _Ready(position, row.source_id, text, language, evidence)
