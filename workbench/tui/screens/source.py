"""One source (placeholder until its screen is built)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer, Header, Static

from workbench.tui.screens.base import WorkbenchScreen


class SourceScreen(WorkbenchScreen):
    def __init__(self, source_id: str) -> None:
        super().__init__()
        self.source_id = source_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(self.source_id)
        yield Footer()
