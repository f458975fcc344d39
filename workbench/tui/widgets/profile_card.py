"""A source's standing at a glance: risk, severity, average, trend, counts, times, head,
and what an analyst asks next: the peak, the window by severity, the last escalation
and whether the chain verifies.

Fed a ``SourceProfile`` (plain data read by the screen's worker), the clock's
"now" and, once the screen's verify worker is done, the chain's status; it
decides nothing, it only lays the fields out in four lines that fit 80
columns. Colours are theme variables read when drawn, so switching theme
recolours the card.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual.app import RenderResult
from textual.widget import Widget

from workbench.tui.themes import RISK_CLASSES, TREND_ARROWS, VARIABLE_DEFAULTS
from workbench.tui.timeline import relative_time, short_time

if TYPE_CHECKING:
    from store import SourceProfile


def severity_style(variables: Mapping[str, str], severity: int, *, bold: bool = False) -> Style:
    """The style of severity 0..4 in the current theme (``$sev-N``)."""
    name = f"sev-{min(max(severity, 0), 4)}"
    return Style(color=variables.get(name, VARIABLE_DEFAULTS[name]), bold=bold)


def risk_style(variables: Mapping[str, str], risk: str, *, bold: bool = False) -> Style:
    """The style of a risk level: the severity colour ``themes.RISK_CLASSES`` maps it to."""
    name = RISK_CLASSES.get(risk, "sev-0")
    return Style(color=variables.get(name, VARIABLE_DEFAULTS[name]), bold=bold)


def trend_text(trend: str) -> str:
    """``↑ escalating``; an unknown trend reads as itself."""
    arrow = TREND_ARROWS.get(trend)
    return f"{arrow} {trend}" if arrow else trend


class ProfileCard(Widget):
    """Four lines: who and how risky; how severe and where it is heading; when and which
    head; the peak, the window's severities, the last escalation and the chain's status."""

    DEFAULT_CSS = "ProfileCard { height: 4; padding: 0 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.profile: SourceProfile | None = None
        self.now: datetime | None = None
        self.note = "loading profile…"
        # None while the chain is being checked; then (intact, what to say).
        self.chain: tuple[bool, str] | None = None

    def show(self, profile: SourceProfile, now: datetime) -> None:
        self.profile = profile
        self.now = now
        self.chain = None
        self.refresh()

    def show_chain(self, intact: bool, summary: str) -> None:
        """The verify worker's verdict on the profile shown: ``✓ intact`` or why not."""
        self.chain = (intact, summary)
        self.refresh()

    def show_note(self, note: str) -> None:
        """A message instead of a profile (an unknown source, a store that went away)."""
        self.profile = None
        self.note = note
        self.refresh()

    def render(self) -> RenderResult:
        profile = self.profile
        if profile is None or self.now is None:
            return Text(self.note, style="dim")
        variables = self.app.theme_variables
        muted = Style(dim=True)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(profile.source_id, Style(bold=True))
        text.append("  risk ", muted)
        text.append(
            profile.risk_level.upper(), risk_style(variables, profile.risk_level, bold=True)
        )
        text.append("  trend ", muted)
        text.append(trend_text(profile.trend))
        text.append("\n")
        text.append("severity ", muted)
        text.append(
            profile.current_severity_label, severity_style(variables, profile.current_severity)
        )
        text.append("  avg ", muted)
        text.append(f"{profile.rolling_average_severity:.2f}")
        text.append(f" / last {profile.window}", muted)
        text.append("  ", muted)
        text.append(f"{profile.observation_count:,}")
        text.append(" obs", muted)
        text.append("\n")
        text.append("first ", muted)
        text.append(short_time(profile.first_observed_at))
        text.append("  last ", muted)
        text.append(short_time(profile.last_observed_at))
        text.append(f" ({relative_time(profile.last_observed_at, self.now)})", muted)
        text.append("  head ", muted)
        text.append(profile.head_hash[:12])
        text.append("\n")
        text.append("peak ", muted)
        text.append(str(profile.peak_severity), severity_style(variables, profile.peak_severity))
        text.append("  window ", muted)
        for index, (severity, count) in enumerate(profile.severity_counts.items()):
            if index:
                text.append(" ", muted)
            text.append(f"{severity}:", muted)
            text.append(str(count), severity_style(variables, int(severity)) if count else muted)
        # When the risk level last rose (relative, as "last" above: the card is 80 columns).
        text.append("  rose ", muted)
        escalated = profile.last_escalation_at
        text.append(relative_time(escalated, self.now) if escalated is not None else "never")
        text.append("  chain ", muted)
        if self.chain is None:
            text.append("checking…", muted)
        else:
            intact, summary = self.chain
            text.append(summary, severity_style(variables, 0 if intact else 4, bold=not intact))
        return text
