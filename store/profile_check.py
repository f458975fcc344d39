"""Recomputing a source's profile from its chain, so that an edited profile is caught.

The profile is derived data kept by each append; anyone who can write the
database could lower a source's risk, severity or average and the chain would
still verify. Verification therefore recomputes every profile field from the
records as it walks them (constant memory: the window's severities) and
compares. Derived fields (label, average, window, trend, risk) are recomputed
with the tracking rules in force: a profile written under other rules (a
changed TRACKING_WINDOW, trend delta or taxonomy) is reported too, and the
reason says so, because nothing stored can tell such a profile from an edited
one.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from store.trend import TrackingRules, rolling_average

if TYPE_CHECKING:
    from store.tracking import SourceProfile


class ProfileCheck:
    """Fed every record in chain order; ``mismatch`` names the first field that differs."""

    __slots__ = ("_count", "_first", "_last", "_mechanism", "_recent", "_rules")

    def __init__(self, rules: TrackingRules | None) -> None:
        self._rules = rules
        self._recent: deque[int] = deque(maxlen=rules.window if rules is not None else 1)
        self._count = 0
        self._first = ""
        self._last = ""
        self._mechanism: str | None = None

    def add(self, observed_at: str, harm_mechanism: str | None, severity: int) -> None:
        if self._count == 0:
            self._first = observed_at
        self._count += 1
        self._last = observed_at
        self._mechanism = harm_mechanism
        self._recent.append(severity)

    def expected(self) -> list[tuple[str, Any]]:
        """``(field, value)`` pairs the chain gives, in SPEC order; rule-derived ones last."""
        current = self._recent[-1]
        fields: list[tuple[str, Any]] = [
            ("current_severity", current),
            ("first_observed_at", self._first),
            ("last_observed_at", self._last),
        ]
        rules = self._rules
        if rules is not None:
            severities = list(self._recent)
            trend = rules.trend(severities)
            risk = rules.risk(current, trend)
            fields += [
                ("current_severity_label", rules.label(self._mechanism, current)),
                ("rolling_average_severity", rolling_average(severities)),
                ("window", rules.window),
                ("trend", trend),
                ("risk_level", risk),
                ("risk_rank", rules.rank(risk)),
                ("recent_severities", ",".join(map(str, severities))),
            ]
        return fields

    def mismatch(self, profile: SourceProfile, internal: dict[str, Any]) -> str | None:
        """Why the stored profile is not the one the chain gives, or None when it is.

        ``internal`` holds the profile row's listing columns (``risk_rank``,
        ``recent_severities``): they decide where the source is listed and what
        the next append computes from, so they are checked like SPEC fields.
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
                if self._rules is not None and name not in (
                    "current_severity",
                    "first_observed_at",
                    "last_observed_at",
                ):
                    reason += (
                        f", or the tracking rules (window {self._rules.window}, trend delta "
                        f"{self._rules.trend_delta}, taxonomy labels and risk levels) changed "
                        "after this source's last observation"
                    )
                return reason
        return None
