"""A triage run without the UI: read rows from a JSONL or CSV file (or follow one), classify
them in batches, optionally record them, and write the results out.

Reading is ``workbench.samples.SampleReader`` with no label column, so a file
is read exactly as ``validate custom`` reads it (same columns, same errors
naming the file and line). Following a file that is still being written is
``Follower``: it hands the reader the file's lines as they arrive, one
segment per opening of the file, and starts a new segment when the file is
truncated or replaced (log rotation).

Nothing here imports textual: the Triage screen runs ``TriageJob.run`` in a
worker thread and turns its callbacks into messages, and the tests drive the
same code with a real file and plain callbacks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from workbench.samples import (
    Columns,
    Labels,
    SampleFileError,
    SampleFormat,
    SampleReader,
    TextCheck,
    count_lines,
    detect_format,
    line_cap,
)

if TYPE_CHECKING:
    from engine import Classification
    from engine.validation import Sample

BATCH = 100
"""Texts per ``classify_many`` call (and per recording writer)."""
EMIT_INTERVAL = 0.25
"""Seconds between two progress reports; the last report always goes out."""
POLL = 0.2
"""Seconds between two looks at a followed file that has nothing new."""
STOP_CHECK = 0.05
"""A follower's wait is cut into slices this long, so cancelling takes effect at once."""

ClassifyMany = Callable[[Sequence[tuple[str, str | None, str | None]]], list["Classification"]]

# The dialog names the fields the CLI calls options; errors use the dialog's words.
_DIALOG_WORDS = {
    "--text-col": "text column",
    "--language-col": "language column",
    "--group-col": "source column",
    "--id-col": "id column",
    "--mechanism-col": "expected_mechanism column",
    "or pass --format": "(the format comes from the extension)",
}


class JobStopped(Exception):  # noqa: N818 - it is not a bug, it is how a job ends early
    """A failure that ends the job (the store went away); ``str()`` is fit to show."""


@dataclass(frozen=True, slots=True)
class TriageOptions:
    """What the open-file dialog asks: the file, its columns, and how to run."""

    path: Path
    text_col: str = "text"
    language_col: str | None = None
    default_language: str | None = None
    source_col: str | None = None
    follow: bool = False
    record: bool = False

    @property
    def columns(self) -> Columns:
        """The reader's columns: no label; the source column is read as the group."""
        return Columns(
            text=self.text_col,
            label=None,
            language=self.language_col,
            group=self.source_col,
            default_language=self.default_language,
        )


@dataclass(slots=True)
class TriageRow:
    """One classified row: where it was, what it said, and the engine's verdict."""

    line: int
    text: str
    language: str | None
    source: str | None
    item_id: str | None
    result: Classification
    not_recorded: str | None = None
    """Why the row was not recorded into its source (when recording), else None."""


@dataclass(slots=True)
class TriageOutcome:
    done: int = 0
    recorded: int = 0
    not_recorded: int = 0
    error: str | None = None
    cancelled: bool = False


def shown(exc: BaseException, path: Path) -> str:
    """An error as the UI shows it: the file's name (never its directory), line and problem."""
    if isinstance(exc, SampleFileError):
        where = exc.path.name if exc.line is None else f"{exc.path.name}:{exc.line}"
        text = f"{where}: {exc.problem}"
    elif isinstance(exc, OSError):
        reason = exc.strerror or type(exc).__name__
        text = f"{path.name}: {reason.lower() if reason[:1].isupper() else reason}"
    else:
        text = str(exc)
    for option, words in _DIALOG_WORDS.items():
        text = text.replace(option, words)
    return text


def check_file(path: Path) -> SampleFormat:
    """The file's format if it can be opened; raises ``SampleFileError`` saying why not."""
    fmt = detect_format(path, None)
    if not path.exists():
        raise SampleFileError(path, None, "no such file")
    if path.is_dir():
        raise SampleFileError(path, None, "is a directory, not a file")
    try:
        with path.open("rb"):
            pass
    except OSError as exc:
        raise SampleFileError(path, None, (exc.strerror or "cannot be read").lower()) from None
    return fmt


def expected_rows(path: Path, fmt: SampleFormat) -> int:
    """The progress bar's total: the file's lines, less a CSV header (blank lines included)."""
    lines = count_lines(path)
    return max(0, lines - 1) if fmt is SampleFormat.CSV else lines


class Follower:
    """A file's lines as it is written, like ``tail -F`` from its first line.

    ``segments()`` yields one iterator of raw lines per opening of the file.
    A segment ends when the file shrinks below what was read (truncated: the
    file is read again from its start) or when the path names another file
    (rotated: the old file is read to its end first), or when ``should_stop``
    says so. A last line without its newline is held until the newline comes
    (a rotated file's unfinished last line is given as it is). ``on_idle`` is
    called whenever nothing new has arrived, before each wait, so the reader
    can deal with what it has; ``on_notice`` hears why a segment ended.
    """

    def __init__(
        self,
        path: Path,
        *,
        cap: int,
        should_stop: Callable[[], bool],
        on_idle: Callable[[], None] = lambda: None,
        on_notice: Callable[[str], object] = lambda text: None,
        poll: float = POLL,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.path = path
        self.cap = cap
        self.should_stop = should_stop
        self.on_idle = on_idle
        self.on_notice = on_notice
        self.poll = poll
        self.sleep = sleep
        self.reopened = 0
        self._ended: str | None = None

    def segments(self) -> Iterator[Iterator[bytes]]:
        stream: IO[bytes] | None = self.path.open("rb")
        try:
            while stream is not None:
                self._ended = None
                yield self._lines(stream)
                stream.close()
                if self._ended is None:  # stopped
                    return
                self.reopened += 1
                self.on_notice(self._ended)
                stream = self._reopen()
        finally:
            if stream is not None:
                stream.close()

    def _lines(self, stream: IO[bytes]) -> Iterator[bytes]:
        pending = b""
        rotated = False
        while True:
            chunk = stream.readline(self.cap + 1)
            if chunk.endswith(b"\n"):
                yield pending + chunk
                pending = b""
                continue
            if chunk:
                pending += chunk
                if len(pending) > self.cap:  # the reader reports an over-long line
                    yield pending
                    pending = b""
                continue
            # At the end of what has been written so far.
            if rotated:
                if pending:
                    yield pending
                self._ended = f"{self.path.name} was replaced; reading the new file from its start"
                return
            if os.fstat(stream.fileno()).st_size < stream.tell():
                self._ended = f"{self.path.name} was truncated; reading it again from its start"
                return
            if self._replaced(stream):
                rotated = True  # read the old file to its end, then the new one
                continue
            self.on_idle()
            if not self._wait():
                return

    def _replaced(self, stream: IO[bytes]) -> bool:
        try:
            now = self.path.stat()
        except FileNotFoundError:
            return False  # moved away and not yet recreated: wait for the new one
        held = os.fstat(stream.fileno())
        return (now.st_ino, now.st_dev) != (held.st_ino, held.st_dev)

    def _wait(self) -> bool:
        """Sleep one poll interval in short slices; False once asked to stop."""
        waited = 0.0
        while waited < self.poll:
            if self.should_stop():
                return False
            step = min(STOP_CHECK, self.poll - waited)
            self.sleep(step)
            waited += step
        return not self.should_stop()

    def _reopen(self) -> IO[bytes] | None:
        while True:
            try:
                return self.path.open("rb")
            except FileNotFoundError:
                if not self._wait():
                    return None


@dataclass
class TriageJob:
    """One triage run: ``run()`` blocks (call it in a worker thread) and reports by callbacks.

    ``emit(done, rows, recorded)`` hears the rows classified since its last
    call, at most every ``interval`` seconds (and always at the end, when a
    followed file goes quiet, and before an error or a cancel is reported).
    ``record(rows)`` records a classified batch and returns how many rows it
    recorded, marking the others' ``not_recorded``; it raises ``JobStopped``
    when recording cannot go on. ``should_stop`` is read between batches.
    """

    options: TriageOptions
    classify_many: ClassifyMany
    check: TextCheck
    max_text_chars: int
    emit: Callable[[int, list[TriageRow], int], object]
    should_stop: Callable[[], bool]
    record: Callable[[list[TriageRow]], int] | None = None
    notice: Callable[[str], object] = lambda text: None
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    poll: float = POLL
    batch: int = BATCH
    interval: float = EMIT_INTERVAL
    outcome: TriageOutcome = field(default_factory=TriageOutcome)
    _pending: list[tuple[int, Sample]] = field(default_factory=list)
    _ready: list[TriageRow] = field(default_factory=list)
    _last_emit: float = 0.0

    def run(self) -> TriageOutcome:
        path = self.options.path
        self._last_emit = self.monotonic()
        try:
            fmt = check_file(path)
            if self.options.follow:
                self._follow(fmt)
            else:
                self._read(fmt)
        except (SampleFileError, OSError) as exc:
            self._finish_pending()
            self.outcome.error = shown(exc, path)
        except JobStopped as exc:
            self._emit()
            self.outcome.error = str(exc)
        return self.outcome

    def _reader(self, fmt: SampleFormat) -> SampleReader:
        return SampleReader(
            self.options.path,
            fmt,
            self.options.columns,
            Labels.of((), ()),
            check=self.check,
            max_text_chars=self.max_text_chars,
        )

    def _read(self, fmt: SampleFormat) -> None:
        reader = self._reader(fmt)
        for sample in reader:
            self._pending.append((reader.line, sample))
            if len(self._pending) >= self.batch:
                self._classify_pending()
                if self.should_stop():
                    self._stop()
                    return
        self._finish_pending()

    def _follow(self, fmt: SampleFormat) -> None:
        follower = Follower(
            self.options.path,
            cap=line_cap(self.max_text_chars),
            should_stop=self.should_stop,
            on_idle=self._finish_pending,
            on_notice=self.notice,
            poll=self.poll,
            sleep=self.sleep,
        )
        for segment in follower.segments():
            reader = self._reader(fmt)
            try:
                for sample in reader.samples(segment):
                    self._pending.append((reader.line, sample))
                    if len(self._pending) >= self.batch:
                        self._classify_pending()
                        if self.should_stop():
                            self._stop()
                            return
            except SampleFileError as exc:
                if exc.line is not None:
                    raise
                # "no samples" or "a column in no line": not an error for a file still growing.
            if self.should_stop():
                self._stop()
                return
        self._finish_pending()

    def _stop(self) -> None:
        """Cancelled between batches: report what was classified; drop the unclassified rest."""
        self._pending.clear()
        self._emit()
        self.outcome.cancelled = True

    def _finish_pending(self) -> None:
        if self._pending:
            self._classify_pending()
        self._emit()

    def _classify_pending(self) -> None:
        pending, self._pending = self._pending, []
        items = [(sample.text, None, sample.language) for _, sample in pending]
        results = self.classify_many(items)
        rows = [
            TriageRow(line, sample.text, sample.language, sample.group, sample.id, result)
            for (line, sample), result in zip(pending, results, strict=True)
        ]
        if self.record is not None:
            self.outcome.recorded += self.record(rows)
            self.outcome.not_recorded += sum(row.not_recorded is not None for row in rows)
        self.outcome.done += len(rows)
        self._ready.extend(rows)
        if self.monotonic() - self._last_emit >= self.interval:
            self._emit()

    def _emit(self) -> None:
        if not self._ready:
            return
        rows, self._ready = self._ready, []
        self._last_emit = self.monotonic()
        self.emit(self.outcome.done, rows, self.outcome.recorded)


ObserveMany = Callable[[list[tuple[str, str, "Classification"]]], list[str | None]]


def recorder(observe_many: ObserveMany) -> Callable[[list[TriageRow]], int]:
    """``TriageJob.record`` over a store's ``observe_many``: rows without a source are refused."""

    def record(rows: list[TriageRow]) -> int:
        items = [(row.source, row.text, row.result) for row in rows if row.source]
        outcomes = iter(observe_many(items) if items else [])
        recorded = 0
        for row in rows:
            if not row.source:
                row.not_recorded = "no source id (the source column is empty)"
                continue
            row.not_recorded = next(outcomes)
            recorded += row.not_recorded is None
        return recorded

    return record


def export_jsonl(rows: Sequence[TriageRow], target: Path, source: Path | None = None) -> int:
    """Write results as ``harmwatch classify --output`` does: ``{"id", "line", ...result}``.

    The id is the row's id column when it has one, else its line number (as
    the CLI does). Refuses to overwrite the file that was triaged.
    """
    from workbench.output import json_bytes

    if source is not None and target.exists() and target.samefile(source):
        raise ValueError(f"{target.name} is the file being triaged; choose another name")
    with target.open("wb") as out:
        for row in rows:
            ident: str | int = row.line if row.item_id is None else row.item_id
            out.write(json_bytes({"id": ident, "line": row.line, **row.result.to_dict()}))
    return len(rows)
