"""The "record as observation" dialog: which source said the text on the Classify screen,
and optionally when it was published and where.

It only asks and checks: the id, the publication time and the url are
validated against the store's rules here, so a bad value is explained in the
dialog (which stays open), and the dialog returns them for the Classify
screen to write in its own worker. Known sources are completed as you type,
looked up in a thread. A blank time means "now", as in every observe.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Label, Static

from workbench.tui.screens.base import WorkbenchModal

if TYPE_CHECKING:
    from store import Evidence
    from workbench.tui.services import StoreService


@dataclass(frozen=True, slots=True)
class ObserveChoice:
    """What the dialog returns: a valid source id and the checked evidence (published_at
    and url; none when both fields were left blank)."""

    source_id: str
    evidence: Evidence | None = None


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
    """Dismisses with an ``ObserveChoice``, or ``None`` when cancelled."""

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
            fields = (
                Input(
                    placeholder="source id, e.g. forum:user-42",
                    suggester=SourceIdSuggester(self.services.store),
                    id="observe-source",
                ),
                Input(
                    placeholder="published at (optional), e.g. 2026-01-02T03:04:05Z",
                    id="observe-published",
                ),
                Input(placeholder="url (optional), https://…", id="observe-url"),
            )
            for field in fields:
                field.cursor_blink = self.workbench.cursor_blink
                yield field
            yield Static("", id="observe-error", classes="error-message")
            yield Static(
                "enter records · tab next field · → completes · esc cancels",
                id="observe-hint",
                classes="muted",
            )

    def on_mount(self) -> None:
        self.query_one("#observe-source", Input).focus()

    @on(Input.Changed)
    def _clear_error(self) -> None:
        self.query_one("#observe-error", Static).update("")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter in any field records, once the three values pass observe's checks."""
        store = self.services.store
        source_id = self.query_one("#observe-source", Input).value
        problem = store.check_source_id(source_id)
        evidence: Evidence | str | None = None
        if problem is None:
            evidence = store.check_evidence(
                self.query_one("#observe-published", Input).value,
                self.query_one("#observe-url", Input).value,
                self.services.clock.now(),
            )
            if isinstance(evidence, str):
                problem = evidence
        if problem is not None:
            self.query_one("#observe-error", Static).update(problem)
            return
        assert not isinstance(evidence, str)
        # Dismissing at once means a second enter cannot submit again.
        for field in self.query(Input):
            field.disabled = True
        self.dismiss(ObserveChoice(source_id, evidence))

    def action_cancel(self) -> None:
        self.dismiss(None)
