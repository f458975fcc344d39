"""The classification result and its parts (SPEC section 3).

Plain slotted dataclasses rather than pydantic models: a result is built on the
hot path of every classification, and the API layer owns the wire schema.
``to_dict`` gives the exact field names of the contract.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from engine.amplify.base import AmplificationResult

SignalSource = Literal["pattern", "dogwhistle"]
# The reason names of engine.pipeline.suppress.SUPPRESSORS, spelled out for the type
# checker and the API schema; tests/engine/test_suppress.py keeps the two equal.
SuppressionReason = Literal["negation", "counter_speech", "benign_context"]


@dataclass(frozen=True, slots=True)
class Suppression:
    """Why a matched signal was discarded: the reason, the cue and where it sits."""

    reason: SuppressionReason
    cue: str
    cue_span: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason, "cue": self.cue, "cue_span": list(self.cue_span)}


@dataclass(slots=True)
class Signal:
    """One pattern or coded term that matched, linked to a target group."""

    row_id: str
    harm_mechanism: str
    weight: float
    score: float
    matched_text: str
    span: tuple[int, int]
    source: SignalSource
    pattern_id: str
    severity: int
    identity_axis: str | None
    target_type: str | None
    suppressed_by: Suppression | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "row_id": self.row_id,
            "harm_mechanism": self.harm_mechanism,
            "weight": self.weight,
            "score": self.score,
            "matched_text": self.matched_text,
            "span": list(self.span),
            "source": self.source,
            "pattern_id": self.pattern_id,
        }
        if self.suppressed_by is not None:
            out["suppressed_by"] = self.suppressed_by.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class DogwhistleMatch:
    """A coded term found in the text, with its in-group meaning."""

    term: str
    canonical: str
    meaning: str
    identity_axis: str | None
    row_id: str
    span: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "term": self.term,
            "canonical": self.canonical,
            "meaning": self.meaning,
            "identity_axis": self.identity_axis,
            "row_id": self.row_id,
            "span": list(self.span),
        }


@dataclass(frozen=True, slots=True)
class LanguageDetection:
    """The language identified for a text sent with ``language: "auto"`` (SPEC section 3).

    ``code`` is the identifier's code even when harmwatch has no pack for it ("de"),
    or ``und`` when it named none; ``confidence`` is 0 to 1, 3 decimals.
    """

    code: str
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "confidence": self.confidence}


@dataclass(slots=True)
class Classification:
    """The full, explainable decision for one text (every field always present).

    Read-only by convention rather than ``frozen``: a frozen dataclass sets each of
    its twenty fields through ``object.__setattr__``, which alone would cost more
    than classifying a typical text.
    """

    is_harmful: bool
    harm_category: str
    confidence: float
    target_type: str | None
    identity_axis: str | None
    harm_mechanism: str | None
    signals_matched: tuple[Signal, ...]
    signals_suppressed: tuple[Signal, ...]
    decision_rationale: str
    taxonomy_version: str
    language: str
    language_confidence: str
    dogwhistle_matched: DogwhistleMatch | None
    counter_narrative_guidance: str | None
    content_hash: str
    matched_pattern: str | None
    amplification: AmplificationResult
    timestamp: str
    severity: int
    # Last and defaulted: the deciders build results positionally, and only a text
    # sent with language "auto" sets it (engine.classifier).
    language_detected: LanguageDetection | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as the contract's JSON object (SPEC section 3)."""
        return {
            "is_harmful": self.is_harmful,
            "harm_category": self.harm_category,
            "confidence": self.confidence,
            "target_type": self.target_type,
            "identity_axis": self.identity_axis,
            "harm_mechanism": self.harm_mechanism,
            "signals_matched": [s.to_dict() for s in self.signals_matched]
            if self.signals_matched
            else [],
            "signals_suppressed": [s.to_dict() for s in self.signals_suppressed]
            if self.signals_suppressed
            else [],
            "decision_rationale": self.decision_rationale,
            "taxonomy_version": self.taxonomy_version,
            "language": self.language,
            "language_confidence": self.language_confidence,
            "language_detected": (
                self.language_detected.to_dict() if self.language_detected else None
            ),
            "dogwhistle_matched": (
                self.dogwhistle_matched.to_dict() if self.dogwhistle_matched else None
            ),
            "counter_narrative_guidance": self.counter_narrative_guidance,
            "content_hash": self.content_hash,
            "matched_pattern": self.matched_pattern,
            "amplification": self.amplification.to_dict(),
            "timestamp": self.timestamp,
        }


def format_timestamp(moment: datetime) -> str:
    """ISO-8601 UTC with microseconds and a Z, the one format used everywhere."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


_second_cache: tuple[int, str] = (-1, "")
_THREE_DIGITS = tuple(f"{n:03d}" for n in range(1000))


def fast_timestamp() -> str:
    """``format_timestamp`` of now, formatting the date part once per second.

    Every result carries a timestamp; building a datetime for each text costs
    more than classifying most texts, and even a ``:06d`` format spec costs half
    of what the rest does, so the microseconds come from a table of digits.
    """
    global _second_cache
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    cached_second, prefix = _second_cache
    if seconds != cached_second:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds))
        _second_cache = (seconds, prefix)
    millis, micros = divmod(nanos // 1000, 1000)
    return f"{prefix}{_THREE_DIGITS[millis]}{_THREE_DIGITS[micros]}Z"


_SHA256 = hashlib.sha256()  # never updated: copied, which skips the digest lookup per text


def content_hash(text: str) -> str:
    """SHA-256 of the text as submitted (lone surrogates kept via surrogatepass)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    digest = _SHA256.copy()
    digest.update(data)
    return digest.hexdigest()
