"""The Sources mode (placeholder until its screen is built)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer, Header, Static

from workbench.tui.screens.base import WorkbenchScreen


class SourcesScreen(WorkbenchScreen):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Sources")
        yield Footer()
