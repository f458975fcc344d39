"""Recomputing a source's profile from its chain, so that an edited profile is caught.

The profile is derived data kept by each append, in publication order (SPEC
5a); anyone who can write the database could lower a source's risk, severity or
average and the chain would still verify. Verification therefore recomputes
every profile field from the records (constant memory: the window's severities)
and compares. Records are fed in publication order: in the same walk as the
chain when the chain's published_at never goes back (no backfill), else in a
second streaming read in publication order. Derived fields (label, average,
window, trend, risk) are recomputed with the tracking rules in force: a profile
written under other rules (a changed TRACKING_WINDOW, trend delta or taxonomy)
is reported too, and the reason says so, because nothing stored can tell such a
profile from an edited one.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from store.trend import Replay, TrackingRules, rolling_average, severity_counts

if TYPE_CHECKING:
    from store.tracking import SourceProfile


class ProfileCheck:
    """Fed every record in publication order (``published_at``, then seq); ``mismatch``
    names the first field that differs.

    With the rules, the risk after every step is replayed (``store.trend.Replay``),
    which is what ``last_escalation_at`` needs.
    """

    __slots__ = ("_count", "_first", "_last", "_mechanism", "_peak", "_recent", "_replay", "_rules")

    def __init__(self, rules: TrackingRules | None) -> None:
        self._rules = rules
        self._replay = Replay(rules) if rules is not None else None
        self._recent: deque[int] = (
            self._replay.recent if self._replay is not None else deque(maxlen=1)
        )
        self._count = 0
        self._first = ""
        self._last = ""
        self._peak = 0
        self._mechanism: str | None = None

    def add(self, published_at: str, seq: int, harm_mechanism: str | None, severity: int) -> None:
        if self._count == 0:
            self._first = published_at
        self._count += 1
        self._last = published_at
        self._mechanism = harm_mechanism
        if severity > self._peak:
            self._peak = severity
        if self._replay is not None:
            self._replay.step(published_at, seq, severity)
        else:
            self._recent.append(severity)

    def expected(self) -> list[tuple[str, Any]]:
        """``(field, value)`` pairs the chain gives, in SPEC order; rule-derived ones last."""
        current = self._recent[-1]
        fields: list[tuple[str, Any]] = [
            ("current_severity", current),
            ("first_observed_at", self._first),
            ("last_observed_at", self._last),
            ("peak_severity", self._peak),
        ]
        rules = self._rules
        replay = self._replay
        if rules is not None and replay is not None:
            severities = list(self._recent)
            trend = rules.trend(severities)
            risk = rules.risk(current, trend)
            escalation = replay.escalation
            fields += [
                ("current_severity_label", rules.label(self._mechanism, current)),
                ("rolling_average_severity", rolling_average(severities)),
                ("window", rules.window),
                ("trend", trend),
                ("risk_level", risk),
                ("risk_rank", rules.rank(risk)),
                ("recent_severities", ",".join(map(str, severities))),
                ("severity_counts", severity_counts(severities, rules.risk_by_severity)),
                ("last_escalation_at", escalation[0] if escalation else None),
                ("last_escalation_seq", escalation[1] if escalation else None),
            ]
        return fields

    def mismatch(self, profile: SourceProfile, internal: dict[str, Any]) -> str | None:
        """Why the stored profile is not the one the chain gives, or None when it is.

        ``internal`` holds the profile row's columns that are not SPEC fields
        (``risk_rank``, ``recent_severities``, ``last_escalation_seq``): they decide
        where the source is listed and what the next append computes from, so they
        are checked like SPEC fields.
        """
        if self._count == 0:
            return None
        stored = {**profile.to_dict(), **internal}
        for name, value in self.expected():
            if stored[name] != value:
                reason = (
                    f"profile field {name} is {stored[name]!r}, but the chain gives {value!r}: "
                    "the profile was edited"
                )
                if self._rules is not None and name not in _DATA_FIELDS:
                    reason += (
                        f", or the tracking rules (window {self._rules.window}, trend delta "
                        f"{self._rules.trend_delta}, taxonomy labels and risk levels) changed "
                        "after this source's last observation"
                    )
                return reason
        return None


# Fields that follow from the records alone, whatever the rules.
_DATA_FIELDS = frozenset(
    {"current_severity", "first_observed_at", "last_observed_at", "peak_severity"}
)
