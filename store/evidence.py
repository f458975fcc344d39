"""The evidence an observation carries beyond its classification (SPEC 5a), checked once.

Every front end (API, CLI, ingest, library) hands the caller's ``published_at``,
``url`` and ``metadata`` to ``make_evidence``, which returns them in the one
form that is stored and hashed, or raises ``InvalidEvidenceError`` naming the field
and the limit (a 422, or a listed error of an ingest). ``decision_of`` takes
the decision evidence from a classification.

Canonical JSON (see docs/tracking.md): the store writes it with orjson, the
SPEC defines it as ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``. The two agree on strings, integers, booleans and null,
and on floats written the same by both. They differ on a few floats (orjson
writes ``1e-05`` as ``0.00001``, ``1e-07`` as ``1e-7``) and orjson cannot
write integers beyond 64 bits: metadata holding such a number is refused
(send it as a string), so that an exported record's attachment_hash is
recomputed with the standard library alone. The decision's one float,
``confidence``, is rounded to 3 decimals in [0, 1], where the two always agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import orjson

from engine.result import Classification
from store.chain import format_observed_at
from store.errors import StoreError

MAX_METADATA_BYTES = 4096
MAX_METADATA_DEPTH = 4
MAX_URL_CHARS = 2048
# Whitespace (Unicode's, as str.isspace) and C0/DEL controls: never part of a URL as given.
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
DEFAULT_MAX_FUTURE_SKEW_S = 300.0


class InvalidEvidenceError(StoreError, ValueError):
    """A published_at, url or metadata that breaks a rule of SPEC 5a; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field} {message}")
        self.field = field


@dataclass(frozen=True, slots=True)
class Evidence:
    """What an append stores beside the classification, already checked and canonical.

    ``published_at`` is None when the caller gave none (the append then uses its
    observed_at); ``metadata`` is the object's canonical JSON text.
    """

    published_at: str | None = None
    url: str | None = None
    metadata: str | None = None


NO_EVIDENCE = Evidence()


def parse_published_at(value: str | datetime, *, now: datetime, max_future_skew_s: float) -> str:
    """An ISO-8601 time with a time zone, no further ahead of ``now`` than the skew, in the
    stored ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` spelling."""
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidEvidenceError(
                "published_at",
                "must be an ISO-8601 date and time with a time zone, "
                "e.g. 2026-01-02T03:04:05Z or 2026-01-02T05:04:05+02:00",
            ) from None
    elif isinstance(value, datetime):
        moment = value
    else:
        raise InvalidEvidenceError("published_at", "must be an ISO-8601 string")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidEvidenceError(
            "published_at",
            "has no time zone: add Z or an offset such as +02:00 (a time without one "
            "cannot be placed on the timeline)",
        )
    try:
        ahead = (moment - now).total_seconds()
    except OverflowError:  # pragma: no cover - datetimes near year 1 or 9999
        ahead = 0.0
    if ahead > max_future_skew_s:
        raise InvalidEvidenceError(
            "published_at",
            f"lies {ahead:.0f} s in the future; at most {max_future_skew_s:g} s is allowed "
            "(HARMWATCH_MAX_FUTURE_SKEW_S)",
        )
    return format_observed_at(moment)


def check_url(value: object) -> str:
    """An absolute http(s) URL of at most MAX_URL_CHARS characters, kept exactly as given.

    The message never repeats the URL: it may carry a token in its query.
    """
    if not isinstance(value, str):
        raise InvalidEvidenceError("url", "must be a string")
    if len(value) > MAX_URL_CHARS:
        raise InvalidEvidenceError(
            "url", f"is {len(value)} characters long; the limit is {MAX_URL_CHARS}"
        )
    if _SPACE_OR_CONTROL.search(value):
        raise InvalidEvidenceError("url", "must not contain spaces or control characters")
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https"):
        raise InvalidEvidenceError("url", "must be an http:// or https:// URL")
    if not host:
        raise InvalidEvidenceError("url", "must name a host (http://HOST/...)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidEvidenceError(
            "url", "must be valid UTF-8 (it holds lone surrogates)"
        ) from None
    return value


def _shape(value: object) -> tuple[int, bool]:
    """Nesting depth (a scalar 0, an object or array 1 + its deepest member) and whether a
    float is anywhere inside (the one type whose spelling encoders may disagree on)."""
    if isinstance(value, dict):
        members: Iterable[object] = value.values()
    elif isinstance(value, list):
        members = value
    else:
        return 0, isinstance(value, float)
    deepest, floats = 0, False
    for member in members:
        depth, has_float = _shape(member)
        deepest = max(deepest, depth)
        floats = floats or has_float
    return 1 + deepest, floats


def canonical_metadata(value: object) -> str:
    """A JSON object of at most MAX_METADATA_BYTES (as canonical JSON) and depth
    MAX_METADATA_DEPTH, as its canonical JSON text."""
    if not isinstance(value, dict):
        raise InvalidEvidenceError("metadata", "must be a JSON object")
    depth, floats = _shape(value)
    if depth > MAX_METADATA_DEPTH:
        raise InvalidEvidenceError(
            "metadata",
            f"is nested {depth} levels deep; the limit is {MAX_METADATA_DEPTH} "
            "(the object itself is level 1)",
        )
    try:
        fast = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError) as exc:
        raise InvalidEvidenceError(
            "metadata",
            "must hold only JSON values with valid UTF-8 strings and integers of at most "
            f"64 bits ({exc})",
        ) from None
    if len(fast) > MAX_METADATA_BYTES:
        raise InvalidEvidenceError(
            "metadata",
            f"is {len(fast)} bytes as canonical JSON; the limit is {MAX_METADATA_BYTES} (4 KiB)",
        )
    if floats and not _same_spelling(value, fast):
        raise InvalidEvidenceError(
            "metadata",
            "holds a number without one canonical JSON spelling (NaN, infinity, or a float "
            "such as 1e-05 that JSON encoders write differently): send it as a string",
        )
    return fast.decode("utf-8")


def _same_spelling(value: dict[str, Any], fast: bytes) -> bool:
    """Whether the standard library writes ``value`` as orjson did (only floats can differ:
    strings, integers, booleans and null are written alike, which a test checks)."""
    try:
        reference = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        ).encode("utf-8")
    except (ValueError, TypeError):
        return False
    return reference == fast


def make_evidence(
    *,
    published_at: str | datetime | None = None,
    url: str | None = None,
    metadata: dict[str, Any] | None = None,
    now: datetime | None = None,
    max_future_skew_s: float = DEFAULT_MAX_FUTURE_SKEW_S,
) -> Evidence:
    """The caller's evidence checked and canonical; InvalidEvidenceError names what is wrong."""
    if published_at is None and url is None and metadata is None:
        return NO_EVIDENCE
    return Evidence(
        published_at=None
        if published_at is None
        else parse_published_at(
            published_at, now=now or datetime.now(UTC), max_future_skew_s=max_future_skew_s
        ),
        url=None if url is None else check_url(url),
        metadata=None if metadata is None else canonical_metadata(metadata),
    )


def _utf8(text: str) -> str:
    """A cue as valid UTF-8: a lone surrogate (which JSON cannot carry) becomes U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def decision_of(classification: Classification, taxonomy_digest: str | None) -> dict[str, Any]:
    """SPEC 5a's decision evidence of a classification: why it was judged as it was.

    ``row_id`` is the winning pattern's row (null when nothing won); ``spans`` are
    every surviving signal's, ``suppressions`` every suppressed signal's reason
    and cue, in the classification's order. ``confidence`` is rounded to 3
    decimals (the result's own precision), ``+ 0.0`` turning a -0.0 into 0.0.
    """
    winning = classification.matched_pattern
    row_id = next(
        (each.row_id for each in classification.signals_matched if each.pattern_id == winning),
        None,
    )
    return {
        "harm_category": classification.harm_category,
        "confidence": round(float(classification.confidence), 3) + 0.0,
        "matched_pattern": winning,
        "row_id": row_id,
        "spans": [[each.span[0], each.span[1]] for each in classification.signals_matched],
        "suppressions": [
            {"reason": str(each.suppressed_by.reason), "cue": _utf8(each.suppressed_by.cue)}
            for each in classification.signals_suppressed
            if each.suppressed_by is not None
        ],
        "language": classification.language,
        "taxonomy_digest": taxonomy_digest,
    }
