"""The hash chain of SPEC section 5: canonical JSON, record_hash, and streaming verification.

Pure functions over plain values, so the same code checks rows read from the
database and lines read from an exported file, and ``docs/tracking.md`` can
show an independent re-implementation in a few lines of ``hashlib`` and ``json``.

Canonical JSON is produced with orjson: with sorted keys it writes exactly what
``json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
writes for these value types (strings, integers, null), five times faster —
verification speed is a target (200,000 records/s), and a test checks the two
encoders agree on arbitrary strings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import orjson

if TYPE_CHECKING:
    from store.checkpoints import Checkpoint
    from store.signing import KeyRing

GENESIS_HASH = "0" * 64
RECORD_VERSION = 2  # what an append writes (SPEC 5a); version-1 records keep verifying
# The fields a version-1 record_hash covers (SPEC section 5).
HASHED_FIELDS: tuple[str, ...] = (
    "source_id",
    "seq",
    "observed_at",
    "content_hash",
    "harm_mechanism",
    "severity",
    "taxonomy_version",
    "prev_hash",
)
# The fields a version-2 record_hash covers (SPEC 5a); ``decision`` is a nested object.
HASHED_FIELDS_V2: tuple[str, ...] = (
    "record_version",
    "source_id",
    "seq",
    "observed_at",
    "published_at",
    "content_hash",
    "attachment_hash",
    "harm_mechanism",
    "severity",
    "decision",
    "taxonomy_version",
    "prev_hash",
)
# The keys of ``decision`` (SPEC 5a), each always present.
DECISION_FIELDS: tuple[str, ...] = (
    "harm_category",
    "confidence",
    "matched_pattern",
    "row_id",
    "spans",
    "suppressions",
    "language",
    "taxonomy_digest",
)
# Every field of an observation, in SPEC order: the export's line layout. A version-1
# record has them all too: record_version 1, published_at = observed_at, null evidence.
OBSERVATION_FIELDS: tuple[str, ...] = (
    "source_id",
    "seq",
    "observed_at",
    "text",
    "content_hash",
    "harm_mechanism",
    "severity",
    "taxonomy_version",
    "prev_hash",
    "record_hash",
    "record_version",
    "published_at",
    "url",
    "metadata",
    "attachment_hash",
    "decision",
    "redacted",
)
# The version-1 layout (what an export written before record version 2 holds).
V1_OBSERVATION_FIELDS: tuple[str, ...] = OBSERVATION_FIELDS[:10]
# With a signing key, a record also carries these, outside the hash (SPEC section 5a).
# A record written without a key has neither: an export line then has exactly the fields above.
SIGNATURE_FIELDS: tuple[str, ...] = ("key_id", "signature")
# A line of an exported file can be no longer than a 20,000-character text at 12
# bytes a character (JSON escapes) would need; far beyond that is not an export.
MAX_LINE_BYTES = 64 * 1024 * 1024


class ChainRecord(NamedTuple):
    """The fields verification reads, in the order the store selects them.

    ``decision`` and ``metadata`` are canonical JSON text (what the store keeps
    and what was hashed), not parsed objects: the hash is recomputed over the
    stored bytes themselves, so a record whose JSON was re-spelled does not verify.
    """

    source_id: str
    seq: int
    observed_at: str
    content_hash: str
    harm_mechanism: str | None
    severity: int
    taxonomy_version: str
    prev_hash: str
    record_hash: str
    text: str | None
    key_id: str | None = None
    signature: str | None = None
    record_version: int = 1
    published_at: str | None = None
    attachment_hash: str | None = None
    decision: str | None = None
    url: str | None = None
    metadata: str | None = None
    # Outside the hash: the redaction marker (any non-null value), and whether the append
    # stored the text (None: not known, as in an exported file).
    redacted: object = None
    text_kept: int | None = None


def format_observed_at(moment: datetime) -> str:
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` in UTC: the one spelling that is hashed and stored.

    Built field by field rather than with strftime, whose ``%Y`` does not pad
    years below 1000 on every platform.
    """
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("observed_at must be a timezone-aware datetime")
    m = moment.astimezone(UTC)
    return (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
        f".{m.microsecond:06d}Z"
    )


def _canonical(
    source_id: str,
    seq: int,
    observed_at: str,
    content_hash: str,
    harm_mechanism: str | None,
    severity: int,
    taxonomy_version: str,
    prev_hash: str,
) -> bytes:
    # Positional and private: verification calls it once per record.
    return orjson.dumps(
        {
            "source_id": source_id,
            "seq": seq,
            "observed_at": observed_at,
            "content_hash": content_hash,
            "harm_mechanism": harm_mechanism,
            "severity": severity,
            "taxonomy_version": taxonomy_version,
            "prev_hash": prev_hash,
        },
        option=orjson.OPT_SORT_KEYS,
    )


def canonical_json(
    *,
    source_id: str,
    seq: int,
    observed_at: str,
    content_hash: str,
    harm_mechanism: str | None,
    severity: int,
    taxonomy_version: str,
    prev_hash: str,
) -> bytes:
    """The exact bytes that are hashed: the eight fields, keys sorted, no spaces, UTF-8."""
    return _canonical(
        source_id,
        seq,
        observed_at,
        content_hash,
        harm_mechanism,
        severity,
        taxonomy_version,
        prev_hash,
    )


def record_hash(
    *,
    source_id: str,
    seq: int,
    observed_at: str,
    content_hash: str,
    harm_mechanism: str | None,
    severity: int,
    taxonomy_version: str,
    prev_hash: str,
) -> str:
    """sha256 hex of ``canonical_json`` of the eight fields (SPEC section 5)."""
    return hashlib.sha256(
        canonical_json(
            source_id=source_id,
            seq=seq,
            observed_at=observed_at,
            content_hash=content_hash,
            harm_mechanism=harm_mechanism,
            severity=severity,
            taxonomy_version=taxonomy_version,
            prev_hash=prev_hash,
        )
    ).hexdigest()


def _canonical_v2(
    source_id: str,
    seq: int,
    observed_at: str,
    published_at: str | None,
    content_hash: str,
    attachment_hash: str | None,
    harm_mechanism: str | None,
    severity: int,
    decision: str | None,
    taxonomy_version: str,
    prev_hash: str,
) -> bytes:
    # ``decision`` is already canonical JSON text: embedded as is (orjson.Fragment),
    # never parsed and re-serialized, so the hash covers exactly the stored bytes.
    # Keys written in sorted order (orjson keeps insertion order): no sort per record.
    return orjson.dumps(
        {
            "attachment_hash": attachment_hash,
            "content_hash": content_hash,
            "decision": orjson.Fragment(decision) if decision is not None else None,
            "harm_mechanism": harm_mechanism,
            "observed_at": observed_at,
            "prev_hash": prev_hash,
            "published_at": published_at,
            "record_version": 2,
            "seq": seq,
            "severity": severity,
            "source_id": source_id,
            "taxonomy_version": taxonomy_version,
        }
    )


def record_hash_v2(
    *,
    source_id: str,
    seq: int,
    observed_at: str,
    published_at: str,
    content_hash: str,
    attachment_hash: str | None,
    harm_mechanism: str | None,
    severity: int,
    decision: str,
    taxonomy_version: str,
    prev_hash: str,
) -> str:
    """sha256 hex of the canonical JSON of a version-2 record's twelve fields (SPEC 5a).

    ``decision`` is its canonical JSON text (``canonical_decision``).
    """
    return hashlib.sha256(
        _canonical_v2(
            source_id,
            seq,
            observed_at,
            published_at,
            content_hash,
            attachment_hash,
            harm_mechanism,
            severity,
            decision,
            taxonomy_version,
            prev_hash,
        )
    ).hexdigest()


def recompute_hash(record: ChainRecord) -> str | None:
    """The record_hash a stored record's fields give under its version's rule (None for
    an unknown version): what an append checks of the head it extends."""
    if record[12] == 2:
        return hashlib.sha256(
            _canonical_v2(
                record[0],
                record[1],
                record[2],
                record[13],
                record[3],
                record[14],
                record[4],
                record[5],
                record[15],
                record[6],
                record[7],
            )
        ).hexdigest()
    if record[12] == 1:
        return hashlib.sha256(_canonical(*record[:8])).hexdigest()
    return None


def hash_fields(fields: Mapping[str, Any]) -> str:
    """The record_hash of a record given as a mapping of its fields (an export line,
    a dict of an Observation): the version-1 or version-2 rule by its record_version,
    with ``decision`` as an object (canonicalized here)."""
    if fields.get("record_version", 1) == 1:
        return record_hash(**{name: fields[name] for name in HASHED_FIELDS})
    values = {name: fields[name] for name in HASHED_FIELDS_V2 if name != "record_version"}
    values["decision"] = canonical_decision(fields["decision"])
    return record_hash_v2(**values)


def canonical_decision(decision: Mapping[str, Any]) -> str:
    """A decision object's canonical JSON text (keys sorted at every level, no spaces).

    Its only float is ``confidence``, held to three decimals; for every such value in
    [0, 1] orjson and ``json.dumps`` write the same shortest spelling (Python's repr:
    ``0.85``, ``1.0``), which a test checks for all 1,001 of them. See docs/tracking.md.
    """
    return orjson.dumps(decision, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def attachment_canonical(url: str | None, metadata: str | None) -> bytes:
    """Canonical JSON of ``{metadata, url}``, ``metadata`` given as its canonical JSON text."""
    return b"".join(
        (
            b'{"metadata":',
            metadata.encode("utf-8") if metadata is not None else b"null",
            b',"url":',
            orjson.dumps(url),
            b"}",
        )
    )


def attachment_hash(url: str | None, metadata: str | None) -> str | None:
    """SPEC 5a's attachment_hash: sha256 of canonical ``{metadata, url}``; None when both are."""
    if url is None and metadata is None:
        return None
    return hashlib.sha256(attachment_canonical(url, metadata)).hexdigest()


def text_hash(text: str) -> str:
    """The engine's content_hash of a text (lone surrogates kept, as the engine does)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class VerifyResult:
    """What a verification found (the API's and CLI's verify object).

    ``checked`` counts the records that verified, so the chain is intact up to
    seq ``checked``; ``head_hash`` is the record_hash of the last of them (the
    genesis hash when none did); ``first_broken_seq`` is ``checked + 1`` when
    broken, the position where the chain stops holding, and ``reason`` says
    what was found there.
    """

    source_id: str | None
    intact: bool
    checked: int
    head_hash: str
    first_broken_seq: int | None
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "intact": self.intact,
            "checked": self.checked,
            "head_hash": self.head_hash,
            "first_broken_seq": self.first_broken_seq,
            "reason": self.reason,
        }


class ChainVerifier:
    """Checks records one at a time in constant memory; stops at the first break.

    Rules, in the order they are applied to the record at position ``n``
    (1-based): its seq is ``n``; its source_id is the chain's; its prev_hash is
    the previous record's record_hash (64 zeros for ``n = 1``); its record_hash
    is the hash of its own eight fields; a stored text hashes to its
    content_hash; with ``keys``, it is signed by one of them (every record:
    see docs/tracking.md for why an unsigned record is never let through);
    and where a checkpoint names its seq, its record_hash is the checkpoint's
    head_hash. ``end()`` then checks that no checkpoint lies beyond the chain.
    """

    __slots__ = (
        "_broken",
        "_checked",
        "_checkpoints",
        "_given",
        "_head",
        "_keys",
        "_matched",
        "_next_checkpoint",
        "_previous",
        "_reason",
        "_version",
        "source_id",
    )

    def __init__(
        self,
        source_id: str | None = None,
        *,
        keys: KeyRing | None = None,
        checkpoints: Iterable[Checkpoint] = (),
    ) -> None:
        self.source_id = source_id
        self._checked = 0
        self._head = GENESIS_HASH
        self._previous = GENESIS_HASH
        self._broken = False
        self._reason: str | None = None
        self._version = 1
        self._keys = keys
        # Pending checkpoints, highest seq first (popped from the end as the walk reaches them).
        self._checkpoints = sorted(checkpoints, key=lambda each: each.seq, reverse=True)
        self._given = len(self._checkpoints)
        self._matched = 0
        self._next_checkpoint = 0
        if source_id is not None:
            self._keep_checkpoints_of(source_id)

    def _keep_checkpoints_of(self, source_id: str) -> None:
        """Only the checkpoints of this chain's source apply (a file may hold many sources')."""
        self._checkpoints = [each for each in self._checkpoints if each.source_id == source_id]
        self._matched = len(self._checkpoints)
        self._next_checkpoint = self._checkpoints[-1].seq if self._checkpoints else 0

    @property
    def broken(self) -> bool:
        return self._broken

    @property
    def checked(self) -> int:
        return self._checked

    @property
    def head_hash(self) -> str:
        return self._head

    def fail(self, reason: str) -> None:
        """Mark the chain broken at the next position (a rule outside the records failed)."""
        if not self._broken:
            self._broken = True
            self._reason = reason

    def reject_head(self, reason: str) -> None:
        """Withdraw the last accepted record: it fits the chain but not an outside check
        (the profile's head_hash), so the chain is broken at its seq."""
        if not self._broken and self._checked > 0:
            self._checked -= 1
            self._head = self._previous
        self.fail(reason)

    def feed(self, record: ChainRecord) -> bool:
        """Check one record; False (and the chain is broken) when it does not fit."""
        if self._broken:
            return False
        source_id = record[0]
        seq = record[1]
        prev_hash = record[7]
        stored_hash = record[8]
        expected = self._checked + 1
        if seq != expected:
            if seq > expected:
                self.fail(f"seq {expected} is missing or out of order (found seq {seq})")
            else:
                self.fail(f"seq {expected} expected, found seq {seq} again or out of order")
            return False
        if self.source_id is None:
            self.source_id = source_id
            if self._given:
                self._keep_checkpoints_of(source_id)
        elif source_id != self.source_id:
            self.fail(f"seq {seq} belongs to source {source_id!r}, not {self.source_id!r}")
            return False
        if prev_hash != self._head:
            if expected == 1:
                self.fail("prev_hash of seq 1 is not the genesis hash (64 zeros)")
            else:
                self.fail(f"prev_hash of seq {seq} does not match the record_hash of seq {seq - 1}")
            return False
        version = record[12]
        if version == 2:
            computed = hashlib.sha256(
                _canonical_v2(
                    source_id,
                    seq,
                    record[2],
                    record[13],
                    record[3],
                    record[14],
                    record[4],
                    record[5],
                    record[15],
                    record[6],
                    prev_hash,
                )
            ).hexdigest()
        elif version == 1 and self._version < 2:
            if not self._plain_v1(record):
                return False
            computed = hashlib.sha256(
                _canonical(
                    source_id,
                    seq,
                    record[2],
                    record[3],
                    record[4],
                    record[5],
                    record[6],
                    prev_hash,
                )
            ).hexdigest()
        elif version == 1:
            self.fail(
                f"seq {seq} is a version-1 record after a version-2 one: "
                "version-1 records were only written before version 2 existed"
            )
            return False
        else:
            self.fail(f"seq {seq} has record_version {version!r}, which is neither 1 nor 2")
            return False
        if computed != stored_hash:
            self.fail(f"record_hash of seq {seq} does not match its fields")
            return False
        text = record[9]
        if text is not None and text_hash(text) != record[3]:
            self.fail(f"text of seq {seq} does not match its content_hash")
            return False
        url = record[16]
        metadata = record[17]
        if (url is not None or metadata is not None) and attachment_hash(url, metadata) != record[
            14
        ]:
            self.fail(f"url or metadata of seq {seq} does not match its attachment_hash")
            return False
        if len(record) > 18 and record[18] is None and not self._unredacted_intact(record):
            return False
        if self._keys is not None and not self._signed(seq, stored_hash, record[10], record[11]):
            return False
        self._version = version
        self._previous = self._head
        self._head = stored_hash
        self._checked = expected
        if expected == self._next_checkpoint:
            return self._at_checkpoint(seq, stored_hash)
        return True

    def _plain_v1(self, record: ChainRecord) -> bool:
        """A version-1 record carries no evidence its hash does not cover: its published_at
        (what the profile orders by) is its observed_at, and it has no decision, url,
        metadata or attachment_hash."""
        seq = record[1]
        if record[13] is not None and record[13] != record[2]:
            self.fail(
                f"published_at of seq {seq} differs from its observed_at, but a version-1 "
                "record_hash does not cover it"
            )
            return False
        if (
            record[14] is not None
            or record[15] is not None
            or record[16] is not None
            or (record[17] is not None)
        ):
            self.fail(
                f"seq {seq} is a version-1 record but carries a decision, url, metadata or "
                "attachment_hash, which a version-1 record_hash does not cover"
            )
            return False
        return True

    def _unredacted_intact(self, record: ChainRecord) -> bool:
        """A record without a redaction marker still holds what its append stored.

        Redaction (store.redaction) removes text, url and metadata and marks the record;
        removing them without the marker is tampering: the url and metadata are
        gone while ``attachment_hash`` still commits to them, or the text is gone
        from a record whose append kept it (``text_kept``, known in the store only).
        """
        seq = record[1]
        if record[16] is None and record[17] is None and record[14] is not None:
            self.fail(
                f"url and metadata of seq {seq} were removed without a redaction marker "
                "(its attachment_hash commits to them)"
            )
            return False
        if record[9] is None and len(record) > 19 and record[19]:
            self.fail(
                f"text of seq {seq} was removed without a redaction marker (the append stored it)"
            )
            return False
        return True

    def _signed(
        self, seq: int, stored_hash: str, key_id: str | None, signature: str | None
    ) -> bool:
        keys = self._keys
        assert keys is not None
        if signature is None or key_id is None:
            self.fail(
                f"seq {seq} is not signed: with a signing key every record must be signed "
                "(it was written without the key, or its signature was removed)"
            )
            return False
        key = keys.get(key_id)
        if key is None:
            self.fail(f"seq {seq} is signed by key {key_id}, which is not {keys.describe()}")
            return False
        if not key.verify(stored_hash.encode("utf-8"), signature):
            self.fail(
                f"signature of seq {seq} does not verify with key {key_id}: "
                "the record was forged or re-hashed without the key"
            )
            return False
        return True

    def _at_checkpoint(self, seq: int, stored_hash: str) -> bool:
        pending = self._checkpoints
        while pending and pending[-1].seq == seq:
            checkpoint = pending.pop()
            if checkpoint.head_hash != stored_hash:
                self.reject_head(
                    f"the record at seq {seq} is not the one {checkpoint.describe()} "
                    "attests (its record_hash differs): the chain was rewritten after it"
                )
                return False
        self._next_checkpoint = pending[-1].seq if pending else 0
        return True

    def end(self) -> None:
        """After the last record: a checkpoint beyond the chain's end means records were cut."""
        if self._broken:
            return
        if self._given and not self._matched:
            self.fail(
                f"none of the {self._given} checkpoints given is of source {self.source_id!r}"
            )
            return
        if not self._checkpoints:
            return
        checkpoint = self._checkpoints[0]  # the highest seq
        self.fail(
            f"the chain ends at seq {self._checked}, but {checkpoint.describe()} attests "
            f"seq {checkpoint.seq}: records were removed from the end"
        )

    def result(self) -> VerifyResult:
        return VerifyResult(
            source_id=self.source_id,
            intact=not self._broken,
            checked=self._checked,
            head_hash=self._head,
            first_broken_seq=self._checked + 1 if self._broken else None,
            reason=self._reason,
        )


def verify_records(
    records: Iterable[ChainRecord],
    source_id: str | None = None,
    *,
    keys: KeyRing | None = None,
    checkpoints: Iterable[Checkpoint] = (),
) -> VerifyResult:
    """Verify records given in chain order; reads no further than the first break."""
    verifier = ChainVerifier(source_id, keys=keys, checkpoints=checkpoints)
    feed = verifier.feed
    for record in records:
        if not feed(record):
            break
    verifier.end()
    return verifier.result()


# -- exported files ---------------------------------------------------------------------

_STRING_FIELDS = ("source_id", "observed_at", "content_hash", "taxonomy_version", "prev_hash")


class MalformedLineError(ValueError):
    """A line of an exported file that is not an observation record."""


def record_from_json(value: object) -> ChainRecord:
    """An exported line's object as a ChainRecord, or MalformedLineError naming the field.

    Types are checked strictly (``true`` is not a seq) so that a value the
    store could never have written cannot hash the same as one it did. A line
    without ``record_version`` is a version-1 record (an export written before
    version 2). ``decision`` must have exactly SPEC 5a's shape, so that its
    canonical JSON is the same whichever conforming encoder writes it.
    """
    if not isinstance(value, dict):
        raise MalformedLineError("is not a JSON object")
    missing = [name for name in V1_OBSERVATION_FIELDS if name not in value and name != "text"]
    if missing:
        raise MalformedLineError(f"lacks {', '.join(missing)}")
    for name in (*_STRING_FIELDS, "record_hash"):
        if type(value[name]) is not str:
            raise MalformedLineError(f"field {name} must be a string")
    for name in ("seq", "severity"):
        if type(value[name]) is not int:
            raise MalformedLineError(f"field {name} must be an integer")
    for name in ("harm_mechanism", "text", *SIGNATURE_FIELDS, "published_at", "url"):
        field = value.get(name)
        if field is not None and type(field) is not str:
            raise MalformedLineError(f"field {name} must be a string or null")
    version = value.get("record_version", 1)
    if type(version) is not int or version not in (1, 2):
        raise MalformedLineError("field record_version must be 1 or 2")
    attachment = value.get("attachment_hash")
    if attachment is not None and type(attachment) is not str:
        raise MalformedLineError("field attachment_hash must be a string or null")
    metadata = value.get("metadata")
    if metadata is not None and type(metadata) is not dict:
        raise MalformedLineError("field metadata must be an object or null")
    decision = value.get("decision")
    if version == 2:
        if type(value.get("published_at")) is not str:
            raise MalformedLineError("field published_at must be a string")
        decision_text: str | None = canonical_decision(_checked_decision(decision))
    elif decision is not None:
        raise MalformedLineError("field decision must be null on a version-1 record")
    else:
        decision_text = None
    return ChainRecord(
        value["source_id"],
        value["seq"],
        value["observed_at"],
        value["content_hash"],
        value["harm_mechanism"],
        value["severity"],
        value["taxonomy_version"],
        value["prev_hash"],
        value["record_hash"],
        value.get("text"),
        value.get("key_id"),
        value.get("signature"),
        version,
        value.get("published_at"),
        attachment,
        decision_text,
        value.get("url"),
        None if metadata is None else canonical_metadata(metadata),
        _marker(value.get("redacted")),
    )


def _marker(redacted: object) -> object:
    """An exported line's ``redacted``: null or ``{at, reason}`` (MalformedLineError else)."""
    if redacted is None:
        return None
    if type(redacted) is not dict or not {"at", "reason"} <= redacted.keys():
        raise MalformedLineError("field redacted must be null or an object with at and reason")
    return redacted


def canonical_metadata(metadata: Mapping[str, Any]) -> str:
    """SPEC's canonical JSON of a metadata object, written by the standard library itself.

    Appends accept only metadata that orjson writes the same way (see
    ``store.evidence``), so the store's stored text equals this for every record it wrote.
    """
    return json.dumps(metadata, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _checked_decision(decision: object) -> dict[str, Any]:
    """The decision object of an exported version-2 line, its shape checked field by field."""
    if type(decision) is not dict:
        raise MalformedLineError("field decision must be an object")
    if set(decision) != set(DECISION_FIELDS):
        raise MalformedLineError(f"field decision must have exactly {', '.join(DECISION_FIELDS)}")
    for name in ("harm_category", "language"):
        if type(decision[name]) is not str:
            raise MalformedLineError(f"field decision.{name} must be a string")
    for name in ("matched_pattern", "row_id", "taxonomy_digest"):
        if decision[name] is not None and type(decision[name]) is not str:
            raise MalformedLineError(f"field decision.{name} must be a string or null")
    confidence = decision["confidence"]
    if (
        type(confidence) is not float
        or not 0.0 <= confidence <= 1.0
        or (round(confidence, 3) != confidence)
    ):
        raise MalformedLineError(
            "field decision.confidence must be a number from 0.0 to 1.0 with 3 decimals"
        )
    spans = decision["spans"]
    if type(spans) is not list or not all(
        type(span) is list and len(span) == 2 and all(type(end) is int for end in span)
        for span in spans
    ):
        raise MalformedLineError("field decision.spans must be a list of [start, end] integers")
    suppressions = decision["suppressions"]
    if type(suppressions) is not list or not all(
        type(each) is dict
        and set(each) == {"reason", "cue"}
        and all(type(part) is str for part in each.values())
        for each in suppressions
    ):
        raise MalformedLineError(
            "field decision.suppressions must be a list of {reason, cue} strings"
        )
    return decision


def _file_records(stream: IO[bytes], verifier: ChainVerifier) -> Iterator[ChainRecord]:
    """Records of a JSONL stream; a bad line marks the chain broken and ends the stream."""
    number = 0
    while line := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            verifier.fail(f"line {number} is longer than {MAX_LINE_BYTES} bytes")
            return
        if not line.strip():
            continue
        try:
            yield record_from_json(orjson.loads(line))
        except orjson.JSONDecodeError as exc:
            verifier.fail(f"line {number} is not valid JSON ({exc})")
            return
        except MalformedLineError as exc:
            verifier.fail(f"line {number} {exc}")
            return


def verify_jsonl(
    stream: IO[bytes],
    *,
    keys: KeyRing | None = None,
    checkpoints: Iterable[Checkpoint] = (),
) -> VerifyResult:
    """Verify an exported chain (one JSON record per line) with no database at all.

    An empty file is not an intact chain: every exported chain has at least
    its genesis record, so an empty one can only be a truncated copy. With
    ``keys`` (a public key is enough for Ed25519) every record's signature is
    checked; with ``checkpoints`` (already authenticated, of this chain's
    source) the chain must extend each of them.
    """
    verifier = ChainVerifier(keys=keys, checkpoints=checkpoints)
    feed = verifier.feed
    for record in _file_records(stream, verifier):
        if not feed(record):
            break
    if not verifier.broken and verifier.checked == 0:
        verifier.fail("the file holds no records")
    verifier.end()
    return verifier.result()
