"""The "record as observation" dialog: which source said the text on the Classify screen.

It only asks and checks: the id is validated against the store's rule here,
so a bad id is explained in the dialog (which stays open), and the dialog
returns the id for the Classify screen to write in its own worker. Known
sources are completed as you type, looked up in a thread.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label, Static

from workbench.tui.screens.base import WorkbenchModal

if TYPE_CHECKING:
    from workbench.tui.services import StoreService


class SourceIdSuggester(Suggester):
    """Completes a source id from the store (first id with that prefix, in id order)."""

    def __init__(self, store: StoreService) -> None:
        # Source ids are case-sensitive; the store changes while the app runs, so no cache.
        super().__init__(use_cache=False, case_sensitive=True)
        self._store = store

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        return await asyncio.to_thread(self._store.suggest_source_id, value)


class ObserveScreen(WorkbenchModal):
    """Dismisses with a valid source id, or ``None`` when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", show=True),
    ]

    def __init__(self, summary: str) -> None:
        super().__init__()
        self._summary = summary

    def compose(self) -> ComposeResult:
        with Vertical(id="observe-dialog"):
            yield Label("Record as an observation", id="observe-title")
            yield Static(self._summary, id="observe-summary", classes="muted")
            field = Input(
                placeholder="source id, e.g. forum:user-42",
                suggester=SourceIdSuggester(self.services.store),
                id="observe-source",
            )
            field.cursor_blink = self.workbench.cursor_blink
            yield field
            yield Static("", id="observe-error", classes="error-message")
            yield Static(
                "enter records · → accepts a suggestion · esc cancels",
                id="observe-hint",
                classes="muted",
            )

    def on_mount(self) -> None:
        self.query_one("#observe-source", Input).focus()

    @on(Input.Changed, "#observe-source")
    def _clear_error(self) -> None:
        self.query_one("#observe-error", Static).update("")

    @on(Input.Submitted, "#observe-source")
    def _submitted(self, event: Input.Submitted) -> None:
        source_id = event.value
        problem = self.services.store.check_source_id(source_id)
        if problem is not None:
            self.query_one("#observe-error", Static).update(problem)
            return
        # Dismissing at once means a second enter cannot submit again.
        event.input.disabled = True
        self.dismiss(source_id)

    def action_cancel(self) -> None:
        self.dismiss(None)
