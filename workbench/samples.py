"""Labelled samples read from a JSONL or CSV file, one at a time, for validation runs.

A validation run is only worth its numbers if every row was read as the user
meant it, so a malformed row (bad JSON, a missing column, non-UTF-8 bytes, an
empty or over-long text) aborts the run with ``<file>:<line>: <problem>``
rather than being skipped and silently changing the denominator. A label that
is neither a positive nor a negative value is not an error: the row is
classified and reported as "not scored", which is how evaluation sets mark
cases that are hateful yet outside harmwatch's definition of harm.

Files are read in binary, line by line, with a per-line byte cap, so memory stays
constant however large the file and a line number is known for every problem.
The workbench's triage reads files the same way with no label column
(``Columns(label=None)``), and hands ``SampleReader.samples`` the lines of a
file that is still being written. ``harmwatch classify --input`` reads with no label
column too, through ``SampleReader.records``: there a bad row becomes an error record
and the run goes on, and plain text (one text a line) is a third format.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import IO

import orjson

from engine.validation import Sample
from workbench.output import visible

DEFAULT_POSITIVE = ("true", "1", "yes", "harmful")
DEFAULT_NEGATIVE = ("false", "0", "no", "not_harmful")

# Room on a line for the fields around a text (label, group, id, ...).
_LINE_SLACK = 64 * 1024
# A JSON-escaped character takes at most 12 bytes (a surrogate pair of \\uXXXX escapes).
_BYTES_PER_CHAR = 12
# How many column names an error message lists before eliding the rest.
_LISTED_COLUMNS = 30

TextCheck = Callable[[str, str | None], None]


class SampleFileError(ValueError):
    """A problem with the sample file; ``str()`` is ``<file>:<line>: <problem>``.

    ``item_id`` is the row's id when it could be read (for an error record).
    """

    def __init__(
        self, path: Path, line: int | None, problem: str, item_id: str | None = None
    ) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem
        self.item_id = item_id


class SampleFormat(StrEnum):
    CSV = "csv"
    JSONL = "jsonl"
    TXT = "txt"
    """One text a line, nothing else: for ``classify --input``, which needs no labels."""


class LabelledFormat(StrEnum):
    """The formats that can carry a label column (``validate custom --format``)."""

    CSV = "csv"
    JSONL = "jsonl"


LABELLED = (SampleFormat.CSV, SampleFormat.JSONL)


def detect_format(
    path: Path, override: SampleFormat | None, allowed: tuple[SampleFormat, ...] = LABELLED
) -> SampleFormat:
    """The explicit format, else the one the extension names among ``allowed``; anything
    else is an error."""
    if override is not None:
        return override
    suffix = path.suffix.lower().lstrip(".")
    if suffix in allowed:
        return SampleFormat(suffix)
    shown = f"'.{suffix}'" if suffix else "no extension"
    names = [f".{fmt.value}" for fmt in allowed]
    listed = f"{', '.join(names[:-1])} or {names[-1]}"
    raise SampleFileError(
        path, None, f"unknown format ({shown}); name a {listed} file or pass --format"
    )


@dataclass(frozen=True, slots=True)
class Labels:
    """Which label values count as harmful and which as not (compared case-insensitively)."""

    positive: frozenset[str]
    negative: frozenset[str]

    @classmethod
    def of(cls, positive: Iterable[str], negative: Iterable[str]) -> Labels:
        labels = cls(
            frozenset(fold_label(value) for value in positive),
            frozenset(fold_label(value) for value in negative),
        )
        both = sorted(labels.positive & labels.negative)
        if both:
            raise ValueError(f"label value(s) given as both positive and negative: {both}")
        return labels

    def expected(self, label: str) -> bool | None:
        """True/False for a positive/negative value, None for "report, do not score"."""
        folded = fold_label(label)
        if folded in self.positive:
            return True
        if folded in self.negative:
            return False
        return None


def fold_label(value: str) -> str:
    """Labels compare without case or surrounding blanks: "Positive " is "positive"."""
    return value.strip().casefold()


@dataclass(frozen=True, slots=True)
class Columns:
    """Where each field lives. ``None`` for an optional field means its default name,
    used only when present; a name the user gave must exist."""

    text: str = "text"
    label: str | None = "expected_harmful"
    """``None``: the file has no labels (a triage run); every sample is "not scored"."""
    group: str | None = None
    language: str | None = None
    mechanism: str | None = None
    id: str | None = None
    context: str | None = None
    default_language: str | None = None
    default_context: str | None = None

    def optional(self) -> dict[str, tuple[str, bool]]:
        """field -> (column name, whether the user named it explicitly)."""
        defaults = {
            "group": (self.group, "group"),
            "language": (self.language, "language"),
            "mechanism": (self.mechanism, "expected_mechanism"),
            "id": (self.id, "id"),
            "context": (self.context, "context"),
        }
        return {
            field: (given, True) if given is not None else (default, False)
            for field, (given, default) in defaults.items()
        }


_OPTION_OF = {
    "text": "--text-col",
    "label": "--label-col",
    "group": "--group-col",
    "language": "--language-col",
    "mechanism": "--mechanism-col",
    "id": "--id-col",
    "context": "--context-col",
}


def count_lines(path: Path) -> int:
    """Lines in the file (a last line without a newline counts), read in 1 MiB blocks."""
    count, last = 0, b"\n"
    with path.open("rb") as stream:
        for block in iter(partial(stream.read, 1 << 20), b""):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def line_cap(max_text_chars: int) -> int:
    """The most bytes a valid line can need: a text and a context at the limit, escaped,
    plus the rest."""
    return 2 * _BYTES_PER_CHAR * max_text_chars + _LINE_SLACK


class SampleReader:
    """Iterates the samples of one file; ``line`` is the last physical line read so far.

    ``check`` is the classifier's input check (text, language), so an empty or
    over-long text is reported with the engine's own wording plus the line.
    """

    def __init__(
        self,
        path: Path,
        fmt: SampleFormat,
        columns: Columns,
        labels: Labels,
        *,
        check: TextCheck,
        max_text_chars: int,
    ) -> None:
        self.path = path
        self.fmt = fmt
        self.columns = columns
        self.labels = labels
        self.line = 0
        self._check = check
        self._max_text_chars = max_text_chars
        self._cap = line_cap(max_text_chars)
        self._optional_columns = columns.optional()

    def __iter__(self) -> Iterator[Sample]:
        with self.path.open("rb") as stream:
            yield from self.samples(self.raw_lines(stream))

    def raw_lines(self, stream: IO[bytes]) -> Iterator[bytes]:
        """The stream's physical lines as ``samples`` and ``records`` take them."""
        return iter(partial(stream.readline, self._cap + 1), b"")

    def samples(self, raw_lines: Iterable[bytes]) -> Iterator[Sample]:
        """The samples in physical lines read elsewhere (a file that is still growing).

        Each line is read as ``readline(line_cap(...) + 1)`` would return it, so a
        longer one is reported rather than decoded; ``line`` counts them.
        """
        for _, item in self._rows(raw_lines, lenient=False):
            assert isinstance(item, Sample)  # strict: a bad row raised
            yield item

    def records(self, raw_lines: Iterable[bytes]) -> Iterator[tuple[int, Sample | SampleFileError]]:
        """(line, sample) for each row, or (line, error) for a row that cannot be read, and
        the reading goes on: a bad row of a file classified for a pipeline should cost
        that row, not the run. A problem with the file as a whole (bytes that are not
        UTF-8, a CSV header without a named column, malformed CSV quoting) still raises.
        An empty file has no rows and is no error here.
        """
        yield from self._rows(raw_lines, lenient=True)

    def _rows(
        self, raw_lines: Iterable[bytes], *, lenient: bool
    ) -> Iterator[tuple[int, Sample | SampleFileError]]:
        lines = self._decoded(raw_lines, lenient=lenient and self.fmt is not SampleFormat.CSV)
        if self.fmt is SampleFormat.CSV:
            yield from self._csv_samples(_raising(lines), lenient=lenient)
        elif self.fmt is SampleFormat.TXT:
            yield from self._text_samples(lines, lenient=lenient)
        else:
            yield from self._jsonl_samples(lines, lenient=lenient)

    def error(self, problem: str, line: int | None = None) -> SampleFileError:
        """A problem on ``line`` (default: the line just read)."""
        return SampleFileError(self.path, self.line if line is None else line, problem)

    def file_error(self, problem: str) -> SampleFileError:
        """A problem with the file as a whole, which no one line is to blame for."""
        return SampleFileError(self.path, None, problem)

    # -- physical lines ----------------------------------------------------------------

    def _decoded(
        self, raw_lines: Iterable[bytes], *, lenient: bool = False
    ) -> Iterator[str | SampleFileError]:
        """Each physical line as text (newline kept, for the csv module), capped in bytes.

        ``lenient``: a line over the cap is yielded as an error and skipped unread
        (the rest of it comes in further chunks) instead of raised.
        """
        chunks = iter(raw_lines)
        for raw in chunks:
            self.line += 1
            if len(raw) > self._cap:
                error = self.error(
                    f"line is over {self._cap} bytes, more than a text and a context of "
                    f"{self._max_text_chars} characters each (HARMWATCH_MAX_TEXT_CHARS) can need"
                )
                if not lenient:
                    raise error
                while not raw.endswith(b"\n"):
                    raw = next(chunks, b"\n")
                yield error
                continue
            if self.line == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise self.error(
                    f"not valid UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8"
                ) from None

    # -- JSONL -------------------------------------------------------------------------

    def _jsonl_samples(
        self, lines: Iterator[str | SampleFileError], *, lenient: bool
    ) -> Iterator[tuple[int, Sample | SampleFileError]]:
        optional = self._optional_columns
        unseen = {field for field, (_, explicit) in optional.items() if explicit}
        first_keys: list[str] | None = None
        for text in lines:
            item: Sample | SampleFileError
            if isinstance(text, SampleFileError):
                item = text
            elif not text.strip():
                continue
            else:
                try:
                    record = self._json_object(text)
                    if first_keys is None:
                        first_keys = list(record)
                    unseen -= {field for field in unseen if optional[field][0] in record}
                    item = self._sample(record)
                except SampleFileError as exc:
                    if not lenient:
                        raise
                    item = exc
            yield self.line, item
        if first_keys is None:
            if lenient:
                return
            raise self.file_error("the file has no samples (it is empty or blank)")
        if unseen:
            field = sorted(unseen)[0]
            name = optional[field][0]
            raise self.file_error(
                f"column {name!r} ({_OPTION_OF[field]}) is in no line; "
                f"the first sample has: {_listing(first_keys)}"
            )

    def _json_object(self, text: str) -> dict[str, object]:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise self.error(f"invalid JSON: {exc}") from None
        if isinstance(value, str) and self.columns.label is None:
            return {self.columns.text: value}  # a bare string is a text, when no label is read
        if not isinstance(value, dict):
            raise self.error(f"a line must be a JSON object, not {_json_kind(value)}")
        return value

    # -- CSV ---------------------------------------------------------------------------

    def _csv_samples(
        self, lines: Iterator[str], *, lenient: bool
    ) -> Iterator[tuple[int, Sample | SampleFileError]]:
        reader = csv.reader(lines)
        header = self._csv_row(reader)
        while header is not None and not header:  # blank lines before the header
            header = self._csv_row(reader)
        if header is None:
            if lenient:
                return
            raise self.file_error("the file is empty; a CSV file needs a header row")
        names = [name.strip() for name in header]
        header_line = self.line
        self._require_columns(names, header_line)
        rows = 0
        while True:
            start = self.line + 1
            row = self._csv_row(reader)
            if row is None:
                break
            if not row:
                continue
            rows += 1
            item: Sample | SampleFileError
            try:
                if len(row) != len(names):
                    raise self.error(
                        f"the row has {len(row)} fields, the header has {len(names)}", line=start
                    )
                item = self._sample(dict(zip(names, row, strict=True)), line=start)
            except SampleFileError as exc:
                if not lenient:
                    raise
                item = exc
            yield start, item
        if not rows and not lenient:
            raise self.file_error("the file has a header row but no samples")

    # -- plain text --------------------------------------------------------------------

    def _text_samples(
        self, lines: Iterator[str | SampleFileError], *, lenient: bool
    ) -> Iterator[tuple[int, Sample | SampleFileError]]:
        """One text a line, as written (only the line break removed); blank lines skipped."""
        rows = 0
        for line in lines:
            item: Sample | SampleFileError
            if isinstance(line, SampleFileError):
                item = line
            elif not line.strip():
                continue
            else:
                try:
                    item = self._sample({self.columns.text: line.rstrip("\r\n")})
                except SampleFileError as exc:
                    if not lenient:
                        raise
                    item = exc
            rows += 1
            yield self.line, item
        if not rows and not lenient:
            raise self.file_error("the file has no texts (it is empty or blank)")

    def _csv_row(self, reader: Iterator[list[str]]) -> list[str] | None:
        try:
            return next(reader, None)
        except csv.Error as exc:
            raise self.error(f"malformed CSV: {exc}") from None

    def _require_columns(self, names: list[str], line: int) -> None:
        """Every column the user named (and the text and label ones) must be in the header."""
        wanted = {"text": self.columns.text}
        if self.columns.label is not None:
            wanted["label"] = self.columns.label
        for field, (name, explicit) in self.columns.optional().items():
            if explicit:
                wanted[field] = name
        for field, name in wanted.items():
            if name not in names:
                raise self.error(
                    f"no column {name!r} ({_OPTION_OF[field]}); the header has: {_listing(names)}",
                    line=line,
                )

    # -- one record --------------------------------------------------------------------

    def _sample(self, record: Mapping[str, object], line: int | None = None) -> Sample:
        """A record (CSV row or JSON object) as a Sample; ``line`` is where it starts.

        A problem carries the record's id when it has a readable one, so that an error
        record of ``classify --input`` can be matched to its input.
        """
        try:
            return self._read_sample(record, line)
        except SampleFileError as exc:
            raw_id = record.get(self._optional_columns["id"][0])
            if isinstance(raw_id, str) and raw_id.strip():
                exc.item_id = raw_id.strip()
            elif isinstance(raw_id, int) and not isinstance(raw_id, bool):
                exc.item_id = str(raw_id)
            raise

    def _read_sample(self, record: Mapping[str, object], line: int | None) -> Sample:
        where = self.line if line is None else line
        text = self._required(record, "text", self.columns.text, where)
        if not isinstance(text, str):
            raise self.error(f"the text must be a string, not {_json_kind(text)}", where)
        label, expected = self._label(record, where)
        optional = {
            field: self._optional(record, field, name, where)
            for field, (name, _) in self._optional_columns.items()
        }
        language = optional["language"] or self.columns.default_language
        try:
            self._check(text, language)
        except (TypeError, ValueError) as exc:
            raise self.error(str(exc), where) from None
        return Sample(
            text=text,
            expected_harmful=expected,
            id=optional["id"],
            language=language,
            expected_mechanism=optional["mechanism"],
            group=optional["group"],
            label=label,
            context=optional["context"] or self.columns.default_context,
        )

    def _required(self, record: Mapping[str, object], field: str, name: str, line: int) -> object:
        if name not in record:
            raise self.error(
                f"no column {name!r} ({_OPTION_OF[field]}); the line has: {_listing(record)}",
                line,
            )
        return record[name]

    def _label(self, record: Mapping[str, object], line: int) -> tuple[str, bool | None]:
        """The raw label and what it means; JSON true/false mean positive/negative."""
        if self.columns.label is None:
            return "", None
        value = self._required(record, "label", self.columns.label, line)
        if isinstance(value, bool):
            return ("true" if value else "false"), value
        if value is None:
            return "", self.labels.expected("")
        if not isinstance(value, str | int | float):
            raise self.error(
                f"the label ({self.columns.label!r}) must be a string, number or true/false, "
                f"not {_json_kind(value)}",
                line,
            )
        label = str(value).strip()
        return label, self.labels.expected(label)

    def _optional(
        self, record: Mapping[str, object], field: str, name: str, line: int
    ) -> str | None:
        """A present, non-empty string (or integer id) cell, else None."""
        value = record.get(name)
        if value is None:
            return None
        if field == "id" and isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise self.error(
                f"column {name!r} ({_OPTION_OF[field]}) must be a string, not {_json_kind(value)}",
                line,
            )
        return value.strip() or None


_JSON_KINDS = {list: "an array", dict: "an object", int: "a number", float: "a number"}


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return _JSON_KINDS.get(type(value), type(value).__name__)


def _raising(lines: Iterator[str | SampleFileError]) -> Iterator[str]:
    """The lines for the csv module, which cannot be handed an error in their place."""
    for line in lines:
        if isinstance(line, SampleFileError):
            raise line
        yield line


def _listing(names: Iterable[str]) -> str:
    """Column names for an error message, elided after a few dozen."""
    shown = [visible(name) if name.isidentifier() else repr(visible(name)) for name in names]
    if not shown:
        return "(no columns)"
    if len(shown) > _LISTED_COLUMNS:
        return ", ".join(shown[:_LISTED_COLUMNS]) + f", … ({len(shown)} in all)"
    return ", ".join(shown)
