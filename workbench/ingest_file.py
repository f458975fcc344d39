"""The rows of a ``track ingest`` file (JSONL or CSV), each with its line number.

A file is read twice. The first pass (``IngestFile.scan``) reads every line
before anything is appended: bytes that are not UTF-8, a CSV header without a
column that is needed, or a column named with an option that no JSONL line
has are problems with the file as a whole (``SampleFileError``, exit 2) and
must stop the run while nothing is written. The second pass (``rows``)
yields one ``IngestRow`` per row, or an ``IngestError`` for a row that cannot
be read (bad JSON, a wrong number of CSV fields, a line over the size cap):
those are listed with their line numbers and skipped, and the run goes on.
Both passes read line by line with a byte cap, so memory stays flat.

Columns: ``source_id`` and ``text`` are required; ``published_at``, ``url``,
``language`` and ``metadata`` are read when present under their default
names. A column named with an option (``--text-col`` ...) must exist. Columns
nobody asked for are ignored. In CSV an empty cell is a missing value, and
the metadata cell holds a JSON object.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO

import orjson

from store.ingest import IngestError, IngestRow
from workbench.samples import SampleFileError, SampleFormat, line_cap

FIELDS = ("source_id", "text", "published_at", "url", "language", "metadata")
REQUIRED = ("source_id", "text")
OPTION_OF = {
    "source_id": "--source-col",
    "text": "--text-col",
    "published_at": "--published-col",
    "url": "--url-col",
    "language": "--language-col",
    "metadata": "--metadata-col",
}
# Room on a line beyond the text: metadata (4 KiB, escaped), a url, the rest.
_SLACK = 128 * 1024


@dataclass(frozen=True, slots=True)
class IngestColumns:
    """The column (CSV) or key (JSONL) of each field; None: its default name, if present."""

    source_id: str | None = None
    text: str | None = None
    published_at: str | None = None
    url: str | None = None
    language: str | None = None
    metadata: str | None = None

    def names(self) -> dict[str, tuple[str, bool]]:
        """field -> (column name, whether it must exist)."""
        out: dict[str, tuple[str, bool]] = {}
        for field in FIELDS:
            given = getattr(self, field)
            out[field] = (given, True) if given is not None else (field, field in REQUIRED)
        return out


class IngestFile:
    """One ingest file: ``scan`` it (file-level problems raise), then iterate ``rows``."""

    def __init__(
        self, path: Path, fmt: SampleFormat, columns: IngestColumns, max_text_chars: int
    ) -> None:
        self.path = path
        self.fmt = fmt
        self.columns = columns.names()
        self._cap = line_cap(max_text_chars) + _SLACK

    # -- pass 1 -------------------------------------------------------------------------

    def scan(self) -> int:
        """Read the whole file once; the number of rows, or SampleFileError (exit 2)."""
        with self.path.open("rb") as stream:
            if self.fmt is SampleFormat.CSV:
                return self._scan_csv(stream)
            return self._scan_jsonl(stream)

    def _scan_csv(self, stream: IO[bytes]) -> int:
        reader = csv.reader(self._text_lines(stream))
        self._header(reader)
        count = 0
        while (row := self._csv_row(reader, None)) is not None:
            count += bool(row)
        if not count:
            raise SampleFileError(self.path, None, "the file has a header row but no rows")
        return count

    def _scan_jsonl(self, stream: IO[bytes]) -> int:
        seen: set[str] = set()
        count = 0
        for _, text in self._numbered(stream):
            if text is None or not text.strip():
                count += text is None
                continue
            count += 1
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError:
                continue  # a row error, listed by the second pass
            if isinstance(value, dict):
                seen.update(name for name in value if isinstance(name, str))
        if not count:
            raise SampleFileError(self.path, None, "the file has no rows (it is empty or blank)")
        for field, (name, needed) in self.columns.items():
            if needed and name not in seen:
                raise SampleFileError(
                    self.path,
                    None,
                    f"column {name!r} ({OPTION_OF[field]}) is in no line of the file",
                )
        return count

    # -- pass 2 -------------------------------------------------------------------------

    def rows(self) -> Iterator[IngestRow | IngestError]:
        with self.path.open("rb") as stream:
            if self.fmt is SampleFormat.CSV:
                yield from self._csv_rows(stream)
            else:
                yield from self._jsonl_rows(stream)

    def _jsonl_rows(self, stream: IO[bytes]) -> Iterator[IngestRow | IngestError]:
        for line, text in self._numbered(stream):
            if text is None:
                yield IngestError(line, f"the line is over {self._cap} bytes")
                continue
            if not text.strip():
                continue
            try:
                value = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                yield IngestError(line, f"invalid JSON: {exc}")
                continue
            if not isinstance(value, dict):
                yield IngestError(line, "a line must be a JSON object")
                continue
            missing = [
                name
                for field, (name, _) in self.columns.items()
                if field in REQUIRED
                if name not in value
            ]
            if missing:
                yield IngestError(line, f"the line has no {' or '.join(map(repr, missing))}")
                continue
            yield self._row(line, value)

    def _csv_rows(self, stream: IO[bytes]) -> Iterator[IngestRow | IngestError]:
        reader = csv.reader(self._text_lines(stream))
        header = self._header(reader)
        while True:
            start = self._line + 1
            row = self._csv_row(reader, start)
            if row is None:
                return
            if isinstance(row, IngestError):
                yield row
                continue
            if not row:
                continue
            if len(row) != len(header):
                yield IngestError(
                    start, f"the row has {len(row)} fields, the header has {len(header)}"
                )
                continue
            record: dict[str, object] = {}
            for name, cell in zip(header, row, strict=True):
                record[name] = cell if cell.strip() else None
            metadata_name = self.columns["metadata"][0]
            raw = record.get(metadata_name)
            if isinstance(raw, str):
                try:
                    record[metadata_name] = orjson.loads(raw)
                except orjson.JSONDecodeError as exc:
                    yield IngestError(start, f"metadata is not valid JSON: {exc}")
                    continue
            yield self._row(start, record)

    def _row(self, line: int, record: dict[str, object]) -> IngestRow:
        def value(field: str) -> object:
            return record.get(self.columns[field][0])

        return IngestRow(
            position=line,
            source_id=value("source_id"),
            text=value("text"),
            language=value("language"),
            published_at=value("published_at"),
            url=value("url"),
            metadata=value("metadata"),
        )

    # -- lines --------------------------------------------------------------------------

    _line = 0

    def _numbered(self, stream: IO[bytes]) -> Iterator[tuple[int, str | None]]:
        """(line number, text) for each physical line; text None for one over the cap."""
        self._line = 0
        chunks = iter(partial(stream.readline, self._cap + 1), b"")
        for raw in chunks:
            self._line += 1
            if len(raw) > self._cap:
                while not raw.endswith(b"\n"):
                    raw = next(chunks, b"\n")
                yield self._line, None
                continue
            if self._line == 1:
                raw = raw.removeprefix(codecs.BOM_UTF8)
            try:
                yield self._line, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise SampleFileError(
                    self.path,
                    self._line,
                    f"not valid UTF-8 (byte {exc.start + 1} of the line); save the file as UTF-8",
                ) from None

    def _text_lines(self, stream: IO[bytes]) -> Iterator[str]:
        """Lines for the csv module; a line over the cap is a problem with the whole file
        here (a CSV row may span lines, so it cannot be skipped on its own)."""
        for line, text in self._numbered(stream):
            if text is None:
                raise SampleFileError(self.path, line, f"the line is over {self._cap} bytes")
            yield text

    def _header(self, reader: Iterator[list[str]]) -> list[str]:
        header = self._csv_row(reader, None)
        while header is not None and not header:
            header = self._csv_row(reader, None)
        if header is None or isinstance(header, IngestError):
            raise SampleFileError(self.path, None, "the file is empty; a CSV file needs a header")
        names = [name.strip() for name in header]
        for field, (name, needed) in self.columns.items():
            if needed and name not in names:
                raise SampleFileError(
                    self.path,
                    self._line,
                    f"no column {name!r} ({OPTION_OF[field]}); the header has: "
                    f"{', '.join(map(repr, names[:30]))}",
                )
        return names

    def _csv_row(
        self, reader: Iterator[list[str]], start: int | None
    ) -> list[str] | IngestError | None:
        try:
            return next(reader, None)
        except csv.Error as exc:
            if start is None:
                raise SampleFileError(self.path, self._line, f"malformed CSV: {exc}") from None
            return IngestError(start, f"malformed CSV: {exc}")
