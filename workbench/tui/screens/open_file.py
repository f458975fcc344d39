"""The Triage screen's dialogs: which file to triage (and how), and where to write results.

The open-file dialog checks what it can before closing (the path exists, is a
file, can be opened and has a known format; the columns are named; recording
has a source column), so most mistakes are shown next to the field that
caused them. Problems inside the file (a malformed line, a missing column)
are found while reading and shown on the Triage screen with their line.
Messages name the file, never its directory.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label, Static, Switch

from workbench.samples import SampleFileError
from workbench.tui.screens.base import WorkbenchModal
from workbench.tui.triage_job import TriageOptions, check_file, shown

SUGGESTED_ENTRIES = 2000
"""A directory with more entries than this is not searched for suggestions."""


class PathSuggester(Suggester):
    """Completes the last part of a path from the directory's entries (directories get a /).

    The directory is listed in a thread, so a slow disk never stalls typing.
    """

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        return await asyncio.to_thread(suggest_path, value)


def suggest_path(value: str) -> str | None:
    """The first entry (sorted) that extends ``value``; hidden files only when asked for."""
    head, _, prefix = value.rpartition("/")
    folder = Path(head + "/" if head or value.startswith("/") else ".").expanduser()
    try:
        with os.scandir(folder) as entries:
            names = []
            for number, entry in enumerate(entries):
                if number >= SUGGESTED_ENTRIES:
                    break
                if entry.name.startswith(prefix) and entry.name != prefix:
                    if entry.name.startswith(".") and not prefix.startswith("."):
                        continue
                    names.append(entry.name + ("/" if entry.is_dir() else ""))
    except OSError:
        return None
    if not names:
        return None
    return (head + "/" if head or value.startswith("/") else "") + min(names)


def resolve(value: str) -> Path:
    """The path as typed: ``~`` expanded, relative to the working directory."""
    return Path(value.strip()).expanduser()


class OpenFileDialog(WorkbenchModal):
    """Asks for a JSONL or CSV file and its columns; dismisses with ``TriageOptions`` or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(self, initial: TriageOptions | None = None) -> None:
        super().__init__()
        self.initial = initial

    def compose(self) -> ComposeResult:
        start = self.initial
        with Vertical(id="open-dialog"):
            yield Static("Open a file to triage (.jsonl or .csv)", id="open-title")
            yield self._field(str(start.path) if start else "", "path/to/file.jsonl", "open-path")
            with Grid(id="open-columns"):
                yield Label("text column")
                yield self._field(start.text_col if start else "text", "text", "open-text")
                yield Label("language column")
                yield self._field(
                    start.language_col if start else None, "optional", "open-language"
                )
                yield Label("default language")
                # Empty means the default language (en, with the script check); "auto" identifies.
                yield self._field(
                    start.default_language if start else None, "en (or auto)", "open-default"
                )
                yield Label("source column")
                yield self._field(start.source_col if start else None, "optional", "open-source")
            with Horizontal(id="open-switches"):
                yield Switch(bool(start and start.follow), id="open-follow")
                yield Label("follow (like tail -f)")
                yield Switch(bool(start and start.record), id="open-record")
                yield Label("record into sources")
            yield Label("", id="open-error", classes="error-message")
            with Horizontal(id="open-buttons"):
                yield Button("Open", variant="primary", id="open-ok", compact=True)
                yield Button("Cancel", id="open-cancel", compact=True)

    def _field(self, value: str | None, placeholder: str, id: str) -> Input:
        suggester = PathSuggester() if id == "open-path" else None
        field = Input(
            value or "", placeholder=placeholder, suggester=suggester, id=id, compact=True
        )
        field.cursor_blink = self.workbench.cursor_blink
        return field

    def on_mount(self) -> None:
        self.query_one("#open-path", Input).focus()

    def _text(self, id: str) -> str | None:
        return self.query_one(f"#{id}", Input).value.strip() or None

    def options(self) -> TriageOptions:
        """The options as filled in; raises ``ValueError`` with what to fix."""
        raw = self.query_one("#open-path", Input).value
        if not raw.strip():
            raise ValueError("type the path of a .jsonl or .csv file")
        path = resolve(raw)
        try:
            check_file(path)
        except SampleFileError as exc:
            raise ValueError(shown(exc, path)) from None
        text_col = self._text("open-text")
        if text_col is None:
            raise ValueError("name the text column")
        source_col = self._text("open-source")
        record = self.query_one("#open-record", Switch).value
        if record and source_col is None:
            raise ValueError("recording into sources needs a source column")
        return TriageOptions(
            path=path,
            text_col=text_col,
            language_col=self._text("open-language"),
            default_language=self._text("open-default"),
            source_col=source_col,
            follow=self.query_one("#open-follow", Switch).value,
            record=record,
        )

    def show_error(self, text: str) -> None:
        self.query_one("#open-error", Label).update(text)

    @on(Input.Submitted)
    @on(Button.Pressed, "#open-ok")
    def _submit(self) -> None:
        try:
            options = self.options()
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.dismiss(options)

    @on(Button.Pressed, "#open-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)


class ExportDialog(WorkbenchModal):
    """Asks where to write the results as JSONL; dismisses with a ``Path`` or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Close")]

    def __init__(
        self, suggested: str, count: int, *, title: str | None = None, verb: str = "Write"
    ) -> None:
        super().__init__()
        self.suggested = suggested
        self.count = count
        # Also asks for a checkpoint file on the Source screen, with its own title and verb.
        self.title_text = title
        self.verb = verb

    def compose(self) -> ComposeResult:
        with Vertical(id="export-dialog"):
            yield Static(
                self.title_text
                or f"Write {self.count:,} results as JSONL (the classify --output format)",
                id="export-title",
            )
            field = Input(self.suggested, suggester=PathSuggester(), id="export-path", compact=True)
            field.cursor_blink = self.workbench.cursor_blink
            yield field
            yield Label("", id="export-error", classes="error-message")
            with Horizontal(id="export-buttons"):
                yield Button(self.verb, variant="primary", id="export-ok", compact=True)
                yield Button("Cancel", id="export-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#export-ok")
    def _submit(self) -> None:
        raw = self.query_one("#export-path", Input).value
        if not raw.strip():
            self.query_one("#export-error", Label).update("type a file name")
            return
        path = resolve(raw)
        if path.is_dir():
            self.query_one("#export-error", Label).update(f"{path.name} is a directory")
            return
        self.dismiss(path)

    @on(Button.Pressed, "#export-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
