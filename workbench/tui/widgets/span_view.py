"""The classified text again, with what matched, what was suppressed and why.

A ``Static`` fed the rich ``Text`` that ``formatting.render_spans`` builds, in
a scrolling container so that a long text stays readable at 80x24.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.tui.formatting import Palette, render_spans

if TYPE_CHECKING:
    from engine import Classification


class SpanView(VerticalScroll):
    """Matched spans highlighted, suppressed ones struck with a numbered cue legend."""

    DEFAULT_CSS = """
    SpanView { height: auto; }
    SpanView > #span-text { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="span-text")

    def show(self, result: Classification | None, text: str, palette: Palette) -> None:
        """Render ``text`` with ``result``'s spans; nothing when there is no result."""
        body = render_spans(result, text, palette) if result is not None else Text("")
        self.query_one("#span-text", Static).update(body)
