"""Every signal behind a decision, one line each, suppressed ones with their reason.

Plain data in (a ``Classification``), lines from ``formatting.signal_lines``
out; it scrolls when there are more signals than rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from workbench.tui.formatting import Palette, signal_lines

if TYPE_CHECKING:
    from engine import Classification


class SignalList(VerticalScroll):
    """row, pattern, mechanism, weight, score, matched text; ``reason: "cue"`` if suppressed."""

    DEFAULT_CSS = """
    SignalList > #signal-lines { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="signal-lines")

    def show(self, result: Classification | None, palette: Palette) -> None:
        lines = signal_lines(result, palette) if result is not None else []
        if result is not None and not lines:
            body = Text("no signal matched", style="dim")
        else:
            body = Text("\n").join(lines)
        self.query_one("#signal-lines", Static).update(body)
