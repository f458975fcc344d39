"""The Classify mode (placeholder until its screen is built)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer, Header, Static

from workbench.tui.screens.base import WorkbenchScreen


class ClassifyScreen(WorkbenchScreen):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Classify")
        yield Footer()

    def load_text(self, text: str, language: str | None) -> None:
        """Show a text from elsewhere (triage, a benchmark failure, a record)."""
