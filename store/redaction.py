"""Redacting one record and forgetting a whole source (SPEC 5a; data-protection requests).

A redaction removes what a record *says* (its stored text, url and metadata)
and keeps what it *proves*: every hashed field, so the chain still verifies,
and the hashes that commit to the removed values (``content_hash``,
``attachment_hash``), so a copy of the text kept elsewhere can still be shown
to be the one observed. The record is marked ``redacted: {at, reason}``
(outside the hash), which verify and every export show. Forgetting deletes a
source's records and profile outright; the caller removes its saved
checkpoints (``forget_checkpoints``) once the deletion is committed.

Both run inside the caller's write transaction and never commit. The record is
read and changed under a row lock (PostgreSQL ``FOR UPDATE``; SQLite's write
transaction holds the database), so two redactions of one record cannot both
succeed.
"""

from __future__ import annotations

import contextlib
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import bindparam, delete, func, select, update

from store.chain import format_observed_at
from store.errors import AlreadyRedacted, StoreError, UnknownObservation
from store.tracking import (
    Observation,
    SessionLike,
    _connection,
    get_profile,
    observations,
    observations_between,
    profiles,
)

if TYPE_CHECKING:
    from store.checkpoints import CheckpointArchive

MAX_REASON_CHARS = 500

_MARKER = select(observations.c.redacted).where(
    observations.c.source_id == bindparam("sid"), observations.c.seq == bindparam("seq")
)
_REDACT = (
    update(observations)
    .where(observations.c.source_id == bindparam("sid"), observations.c.seq == bindparam("n"))
    .values(
        {
            observations.c.text: None,
            observations.c.url: None,
            observations.c["metadata"]: None,
            observations.c.redacted: bindparam("marker"),
        }
    )
)
_COUNT = (
    select(func.count())
    .select_from(observations)
    .where(observations.c.source_id == bindparam("sid"))
)
_DELETE_RECORDS = delete(observations).where(observations.c.source_id == bindparam("sid"))
_DELETE_PROFILE = delete(profiles).where(profiles.c.source_id == bindparam("sid"))


class InvalidReasonError(StoreError, ValueError):
    """A redaction reason that is missing, too long or holds control characters (HTTP 422)."""


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What ``forget`` deleted (the API's and CLI's answer)."""

    source_id: str
    deleted_observations: int
    deleted_checkpoints: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "deleted_observations": self.deleted_observations,
            "deleted_checkpoints": self.deleted_checkpoints,
        }


def check_reason(reason: str) -> str:
    """The reason, stripped; InvalidReasonError naming the rule otherwise.

    Bounded because it is stored with the record and shown wherever the record
    is; control and format characters are refused because they could rewrite
    what an analyst sees in a terminal.
    """
    stripped = reason.strip()
    if not stripped:
        raise InvalidReasonError("reason is required: say why the record is redacted")
    if len(stripped) > MAX_REASON_CHARS:
        raise InvalidReasonError(
            f"reason must be at most {MAX_REASON_CHARS} characters, not {len(stripped)}"
        )
    for char in stripped:
        if unicodedata.category(char) in ("Cc", "Cf", "Cs"):
            raise InvalidReasonError(
                f"reason must not contain control or format characters (found U+{ord(char):04X})"
            )
    return stripped


def redact(
    source_id: str,
    seq: int,
    reason: str,
    *,
    session: SessionLike,
    at: datetime | None = None,
) -> Observation:
    """Remove the stored text, url and metadata of record ``seq``, mark it redacted; the
    record as it now stands.

    UnknownSource, UnknownObservation for a seq the chain does not have,
    AlreadyRedacted for a second redaction, InvalidReasonError for a bad reason.
    """
    text = check_reason(reason)
    get_profile(source_id, session=session)
    conn = _connection(session)
    params = {"sid": source_id, "seq": seq}
    found = conn.execute(_MARKER.with_for_update(), params).one_or_none()
    if found is None:
        raise UnknownObservation(source_id, seq)
    if found[0] is not None:
        earlier = orjson.loads(found[0])
        raise AlreadyRedacted(source_id, seq, str(earlier.get("at", "?")))
    stamp = format_observed_at(at or datetime.now(UTC))
    marker = orjson.dumps({"at": stamp, "reason": text}, option=orjson.OPT_SORT_KEYS).decode()
    conn.execute(_REDACT, {"sid": source_id, "n": seq, "marker": marker})
    return observations_between(source_id, seq, seq, session=session)[0]


def forget(source_id: str, *, session: SessionLike) -> Forgotten:
    """Delete every record and the profile of ``source_id``; UnknownSource if there is none."""
    get_profile(source_id, session=session)
    conn = _connection(session)
    params = {"sid": source_id}
    count = int(conn.execute(_COUNT, params).scalar_one())
    conn.execute(_DELETE_RECORDS, params)
    conn.execute(_DELETE_PROFILE, params)
    return Forgotten(source_id, count)


def forget_checkpoints(archive: CheckpointArchive | None, source_id: str) -> int:
    """Remove the source's saved checkpoints (after ``forget`` committed); how many.

    Otherwise ``verify --all`` would rightly report the source as deleted
    behind the store's back. Only the archive's own files are removed.
    """
    if archive is None:
        return 0
    from store.checkpoints import source_directory_name

    folder = archive.directory / source_directory_name(source_id)
    removed = 0
    try:
        files = list(folder.iterdir())
    except FileNotFoundError:
        return 0
    for path in files:
        if path.is_file() and path.suffix == ".json":
            path.unlink()
            removed += 1
    with contextlib.suppress(OSError):  # something else lives there: left alone
        folder.rmdir()
    return removed
