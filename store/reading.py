"""Reading a source's record back: pages by seq, a publication-time range, the JSONL stream.

What the observations route, ``track show --since/--until`` and the export
(HTTP and CLI) read. Every function takes the caller's ``session=`` like the
rest of the store. Pages are seq ranges, never a deep OFFSET: seqs are dense
from 1, so the page at any offset of a million-record chain is an index range
scan of its own length.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any, Literal

import orjson
from sqlalchemy import bindparam, select

from store.chain import OBSERVATION_FIELDS, SIGNATURE_FIELDS, format_observed_at
from store.tracking import (
    _EXPORT,
    _JSON_POSITIONS,
    _OBSERVATION_COLUMNS,
    MAX_LIMIT,
    STREAM_BATCH,
    Observation,
    SessionLike,
    _connection,
    _DriverStatement,
    _observation,
    get_profile,
    observations,
    observations_between,
)

Order = Literal["asc", "desc"]
_EXPORT_ROWS = _DriverStatement(_EXPORT)
_KEY_ID = len(OBSERVATION_FIELDS) + SIGNATURE_FIELDS.index("key_id")
_SIGNATURE = len(OBSERVATION_FIELDS) + SIGNATURE_FIELDS.index("signature")
# Bytes gathered before a piece of the export stream is handed on: large enough that
# a response is a few hundred writes for 100,000 records, small enough to stay flat.
CHUNK_BYTES = 64 * 1024

_PUBLISHED = (
    select(*_OBSERVATION_COLUMNS)
    .where(
        observations.c.source_id == bindparam("sid"),
        observations.c.published_at >= bindparam("since"),
        observations.c.published_at <= bindparam("until"),
    )
    .order_by(observations.c.published_at.desc(), observations.c.seq.desc())
    .limit(bindparam("limit"))
)
# Far enough apart to hold every stored timestamp (they are fixed-width text).
EARLIEST = "0000-01-01T00:00:00.000000Z"
LATEST = "9999-12-31T23:59:59.999999Z"


def observations_page(
    source_id: str,
    *,
    session: SessionLike,
    order: Order = "desc",
    limit: int = 50,
    offset: int = 0,
) -> tuple[int, list[Observation]]:
    """``(total, page)``: the source's observation count and ``limit`` records from
    ``offset``, by seq newest first (``desc``) or oldest first (``asc``).

    UnknownSource when nothing was ever observed for the source.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")
    total = get_profile(source_id, session=session).observation_count
    if offset >= total:
        return total, []
    if order == "asc":
        first, last = offset + 1, min(total, offset + limit)
        return total, observations_between(source_id, first, last, session=session)
    last = total - offset
    first = max(1, last - limit + 1)
    page = observations_between(source_id, first, last, session=session)
    page.reverse()
    return total, page


def published_between(
    source_id: str,
    *,
    session: SessionLike,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 10,
) -> list[Observation]:
    """The latest ``limit`` observations published in ``[since, until]`` (either end open),
    newest publication first (ties: the later seq first). UnknownSource as above."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    low = format_observed_at(since) if since is not None else EARLIEST
    high = format_observed_at(until) if until is not None else LATEST
    if low > high:
        raise ValueError(f"since ({low}) is after until ({high})")
    get_profile(source_id, session=session)
    rows = _connection(session).execute(
        _PUBLISHED, {"sid": source_id, "since": low, "until": high, "limit": limit}
    )
    return [_observation(row) for row in rows]


def _line(row: Any) -> bytes:
    """One export line from a driver row of ``_OBSERVATION_COLUMNS``: what
    ``orjson.dumps(Observation.to_dict())`` writes (a test holds the two to the same
    bytes), without building the Observation: half of the export's time."""
    values = list(row)
    for index in _JSON_POSITIONS:
        if values[index] is not None:
            values[index] = orjson.loads(values[index])
    fields = dict(zip(OBSERVATION_FIELDS, values, strict=False))
    if values[_SIGNATURE] is not None:
        fields["key_id"] = values[_KEY_ID]
        fields["signature"] = values[_SIGNATURE]
    return orjson.dumps(fields) + b"\n"


def export_lines(source_id: str, *, session: SessionLike) -> Iterator[bytes]:
    """The chain as JSONL, oldest first, in pieces of about ``CHUNK_BYTES``.

    Every field of every record (``Observation.to_dict``: the hashed ones of
    its record version, text, url, metadata and the ``redacted`` marker), read
    ``STREAM_BATCH`` rows at a time (a server-side cursor on PostgreSQL):
    memory stays flat at any chain length. UnknownSource is raised on the
    first ``next()``, before anything is yielded.
    """
    get_profile(source_id, session=session)
    pending: list[bytes] = []
    size = 0
    rows = _EXPORT_ROWS.stream(_connection(session), {"sid": source_id})
    try:
        for row in rows:
            line = _line(row)
            pending.append(line)
            size += len(line)
            if size >= CHUNK_BYTES:
                yield b"".join(pending)
                pending, size = [], 0
    finally:
        rows.close()  # a client that leaves mid-stream must not leave a server-side cursor open
    if pending:
        yield b"".join(pending)


__all__ = [
    "CHUNK_BYTES",
    "STREAM_BATCH",
    "Order",
    "export_file_name",
    "export_lines",
    "observations_page",
    "published_between",
]


def export_file_name(source_id: str) -> str:
    """A portable file name for a source's export: ``<readable prefix>-<16 hex>.jsonl``.

    Source ids may hold characters no file system takes (``:``, ``\\``, ``*``,
    any script) and two ids may read alike once those are replaced, so the
    name is the checkpoint archive's: the id's safe characters (at most 64),
    then 16 hex digits of its sha256, unique per id. Pure ASCII, so it also
    fits a Content-Disposition header.
    """
    from store.checkpoints import source_directory_name

    return f"{source_directory_name(source_id)}.jsonl"
