"""A source's history in three rows: severity blocks, rolling-average sparkline, dates.

The owning screen bins the chain, in publication order, in a worker
(``workbench.tui.timeline``) and hands this widget the bins; the widget only
draws. Row one is one block per bin, ``▁▂▄▆█`` for severity 0..4 in that
severity's theme colour, so a single harmful record in a long quiet stretch
still shows. Row two is Textual's ``Sparkline`` of the rolling average per
bin, the same width as the strip, so the two line up. Row three gives the
first and last publication dates.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Sparkline, Static

from workbench.tui.timeline import BLOCKS, short_date
from workbench.tui.widgets.profile_card import severity_style


class SeverityStrip(Widget):
    """One block per bin, coloured by severity (read from the theme when drawn)."""

    DEFAULT_CSS = "SeverityStrip { height: 1; width: 1fr; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.bins: list[int] = []
        self.note = "loading timeline…"

    def show(self, bins: Sequence[int], note: str = "") -> None:
        self.bins = list(bins)
        self.note = note
        self.refresh()

    def render(self) -> RenderResult:
        if not self.bins:
            return Text(self.note, style="dim")
        variables = self.app.theme_variables
        text = Text(no_wrap=True, end="")
        for severity in self.bins:
            level = min(max(severity, 0), len(BLOCKS) - 1)
            text.append(BLOCKS[level], severity_style(variables, level))
        return text


class SeverityTimeline(Vertical):
    """Severity per bin, rolling average per bin, first and last dates: 3 rows."""

    DEFAULT_CSS = """
    SeverityTimeline { height: 3; }
    SeverityTimeline Sparkline { height: 1; width: 1fr; }
    SeverityTimeline #timeline-dates { height: 1; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield SeverityStrip(id="timeline-strip")
        yield Sparkline([], id="timeline-average")
        yield Static("", id="timeline-dates")

    @property
    def bins(self) -> list[int]:
        return self.query_one(SeverityStrip).bins

    def show(
        self,
        bins: Sequence[int],
        averages: Sequence[float],
        first: str | None,
        last: str | None,
        records: int = 0,
    ) -> None:
        """Draw a binned series (an empty one reads "no observations")."""
        strip = self.query_one(SeverityStrip)
        sparkline = self.query_one(Sparkline)
        dates = self.query_one("#timeline-dates", Static)
        if not bins:
            strip.show([], "no observations")
            sparkline.data = []
            dates.update("")
            return
        strip.show(bins)
        strip.styles.width = len(bins)
        sparkline.styles.width = len(bins)
        sparkline.data = list(averages)
        left, right = short_date(first), short_date(last)
        per_column = records / len(bins) if records else 1.0
        if per_column <= 1:
            scale = "one record per column"
        else:
            amount = f"{per_column:,.0f}" if per_column >= 10 else f"{per_column:.1f}"
            scale = f"~{amount} records per column (max severity)"
        if len(bins) >= len(left) + len(right) + 2:
            dates.update(f"{left}{right.rjust(len(bins) - len(left))} · {scale}")
        else:
            dates.update(f"{left} → {right} · {scale}")

    def show_failure(self, reason: str) -> None:
        self.query_one(SeverityStrip).show([], reason)
