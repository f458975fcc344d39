"""Keys help (placeholder until built from the live bindings)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Static

from workbench.tui.screens.base import WorkbenchModal


class HelpScreen(WorkbenchModal):
    BINDINGS: ClassVar[list[BindingType]] = [("escape", "dismiss", "Close")]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        yield Static("Keys")
