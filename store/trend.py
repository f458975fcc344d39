"""Trend and risk of a source (SPEC section 5) as pure functions of their parameters.

The parameters come from the taxonomy's ``tracking:`` block, with
``TRACKING_WINDOW`` and ``TRACKING_TREND_DELTA`` winning when set; nothing here
reads settings or the database, so the rule table is tested case by case.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Literal

from engine.rules.models import Taxonomy
from engine.settings import Settings

Trend = Literal["escalating", "stable", "de-escalating"]
TRENDS: tuple[Trend, ...] = ("escalating", "stable", "de-escalating")
NONE_LABEL = "NONE (0)"


def trend_of(severities: Sequence[int], *, delta: float, min_observations: int) -> Trend:
    """Trend over the latest k severities, oldest first (k = min(n, window), already cut).

    Fewer than ``min_observations`` → stable. The first half is the oldest
    ⌊k/2⌋, the second the newest ⌊k/2⌋ (odd k leaves the middle one out).
    Both halves have the same size h, so ``mean(second) − mean(first) ≥ delta``
    is compared exactly as ``sum(second) − sum(first) ≥ delta·h`` with delta
    read as the decimal it was written as: 0.5 sits *on* the boundary, never a
    rounding error either side of it.
    """
    k = len(severities)
    if k < min_observations or k < 2:
        return "stable"
    half = k // 2
    diff = sum(severities[k - half :]) - sum(severities[:half])
    numerator, denominator = _exact(delta)
    # diff ≥ (numerator / denominator) · half, in integers.
    if diff * denominator >= numerator * half:
        return "escalating"
    if -diff * denominator >= numerator * half:
        return "de-escalating"
    return "stable"


@lru_cache(maxsize=64)
def _exact(delta: float) -> tuple[int, int]:
    """The delta as the decimal it was written as (0.1 is 1/10, not the nearest binary)."""
    exact = Fraction(str(delta))
    return exact.numerator, exact.denominator


def rolling_average(severities: Sequence[int]) -> float:
    """Mean severity over the window (0.0 for an empty window, which an append never has)."""
    return sum(severities) / len(severities) if severities else 0.0


def risk_of(
    current_severity: int,
    trend: Trend,
    *,
    levels: Sequence[str],
    by_severity: Mapping[int, str],
    escalation_raise: int,
) -> str:
    """Base level from the current severity; escalating raises it, capped at the top level."""
    base = levels.index(by_severity[current_severity])
    if trend == "escalating":
        base = min(base + escalation_raise, len(levels) - 1)
    return levels[base]


@dataclass(frozen=True, slots=True)
class TrackingRules:
    """Everything an append needs to derive a profile, resolved once per front end."""

    window: int
    trend_delta: float
    min_observations: int
    risk_levels: tuple[str, ...]
    risk_by_severity: Mapping[int, str]
    escalation_raise: int
    # mechanism -> "ANIMALIZATION (3)", the taxonomy's wording for current_severity_label.
    labels: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_taxonomy(cls, taxonomy: Taxonomy, settings: Settings | None = None) -> TrackingRules:
        """The taxonomy's defaults, with the settings' window and delta winning when set."""
        tracking = taxonomy.tracking
        window = settings.tracking_window if settings is not None else None
        delta = settings.tracking_trend_delta if settings is not None else None
        return cls(
            window=window or tracking.window,
            trend_delta=delta or tracking.trend_delta,
            min_observations=tracking.trend_min_observations,
            risk_levels=tuple(tracking.risk_levels),
            risk_by_severity=MappingProxyType(dict(tracking.risk_by_severity)),
            escalation_raise=tracking.escalation_raise,
            labels=MappingProxyType(
                {
                    str(name): f"{mechanism.display} ({mechanism.severity})"
                    for name, mechanism in taxonomy.mechanisms.items()
                }
            ),
        )

    def rank(self, level: str) -> int:
        """Position of a risk level, low = 0: what the listing sorts on."""
        return self.risk_levels.index(level)

    def label(self, harm_mechanism: str | None, severity: int) -> str:
        """``DIRECT_VIOLENCE_CALL (4)``; a mechanism unknown to this taxonomy keeps its severity."""
        if harm_mechanism is None:
            return NONE_LABEL
        return self.labels.get(harm_mechanism, f"{harm_mechanism.upper()} ({severity})")

    def trend(self, severities: Sequence[int]) -> Trend:
        return trend_of(severities, delta=self.trend_delta, min_observations=self.min_observations)

    def risk(self, current_severity: int, trend: Trend) -> str:
        return risk_of(
            current_severity,
            trend,
            levels=self.risk_levels,
            by_severity=self.risk_by_severity,
            escalation_raise=self.escalation_raise,
        )


class Replay:
    """A source's risk walked observation by observation in publication order (SPEC 5a).

    ``last_escalation_at`` is the publication time of the latest observation at
    which the risk level rose, so it depends on the risk after *every* step,
    not only on the current window. A replay starts from a known point (the
    window of severities before it, oldest first, and the risk rank there;
    an empty window and rank 0, ``low``, before a source's first observation,
    so a first observation above ``low`` is an escalation) and is fed the
    following observations in ``(published_at, seq)`` order. Appends, bulk
    ingest, the 0003 migration and verify's profile check all use it, so the
    rule is written once.
    """

    __slots__ = ("escalation", "rank", "recent", "rules")

    def __init__(self, rules: TrackingRules, window: Sequence[int] = (), rank: int = 0) -> None:
        self.rules = rules
        self.recent: deque[int] = deque(window, maxlen=rules.window)
        self.rank = rank
        # (published_at, seq) of the latest escalation seen by this replay, or None.
        self.escalation: tuple[str, int] | None = None

    def step(self, published_at: str, seq: int, severity: int) -> int:
        """Move past one observation; its risk rank (also kept as ``rank``)."""
        recent = self.recent
        recent.append(severity)
        rules = self.rules
        rank = rules.rank(rules.risk(severity, rules.trend(list(recent))))
        if rank > self.rank:
            self.escalation = (published_at, seq)
        self.rank = rank
        return rank


def severity_counts(severities: Sequence[int], levels: Iterable[int]) -> dict[str, int]:
    """How many of the window's observations sit at each severity, every level listed.

    Keys are the severities as strings (JSON object keys), in ascending order:
    the levels the rules know (0 and every mechanism's), plus any severity of
    the window they do not (a chain written under another taxonomy).
    """
    counts = dict.fromkeys(sorted({*levels, *severities}), 0)
    for severity in severities:
        counts[severity] += 1
    return {str(level): count for level, count in counts.items()}
