"""The Classify mode: type or paste a text and see the engine's verdict, explained.

The verdict follows the text as you type. Each edit bumps ``generation`` and
restarts one exclusive async worker that waits out a short debounce, runs the
engine in a thread and posts ``TextClassified`` (or ``ClassifyFailed`` with
the engine's own message). Answers for an older generation are dropped, so
the screen only ever shows the verdict of the text in the box.

The screen decides nothing: verdict, spans and signals are the engine's,
drawn by pure functions in ``formatting``. ``f10`` records the text and its
verdict into a source's chain through the store, in a thread.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, ClassVar

import orjson
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Header, Input, Label, Select, TextArea

from engine.languages import AUTO
from workbench.tui.formatting import Palette, palette_from
from workbench.tui.messages import ClassifyFailed, JobFailed, TextClassified, TextObserved
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.screens.observe import ObserveChoice, ObserveScreen
from workbench.tui.widgets.signal_list import SignalList
from workbench.tui.widgets.span_view import SpanView
from workbench.tui.widgets.verdict_bar import VerdictBar

if TYPE_CHECKING:
    from engine import Classification

DEBOUNCE_SECONDS = 0.15
"""Quiet time after the last keystroke before classifying (each keystroke restarts it)."""

LOADING = "Loading the taxonomy… the verdict appears here once it is ready."
AUTO_LABEL = f"{AUTO} (identify)"
EMPTY = "Type or paste a text above to see its verdict."


class ClassifyScreen(WorkbenchScreen):
    """Paste box, verdict, highlighted spans and the signals behind the decision."""

    AUTO_FOCUS = "#classify-editor"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f6", "language", "Language", show=True, priority=True),
        Binding("f7", "context", "Context", show=True, priority=True),
        Binding("f8", "details", "Details", show=True),
        Binding("f9", "copy_json", "Copy JSON", show=True),
        Binding("f10", "observe", "Observe", show=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.generation = 0
        """Bumped by every request; answers carrying an older one are stale."""
        self.language: str | None = None
        """The chosen language code; None until the engine names its default."""
        self.result: Classification | None = None
        """The verdict on screen, for ``result_text``."""
        self.result_text = ""
        self.error: str | None = None
        self.details = False
        self._pending = False
        self._observing = False
        self._queued: tuple[str, str | None] | None = None
        self._picking_language = False

    # -- layout -------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="classify-options"):
            yield Label("language", classes="muted")
            yield Select[str](
                [], prompt="…", allow_blank=True, compact=True, id="classify-language"
            )
            yield Label("context", id="classify-context-label", classes="muted")
            context = Input(
                placeholder="the text this one replies to (optional)",
                compact=True,
                id="classify-context",
            )
            context.cursor_blink = self.workbench.cursor_blink
            yield context
            yield Label("f7 adds context", id="classify-context-hint", classes="muted")
        with Horizontal(id="classify-top"):
            with Vertical(id="classify-left"):
                editor = TextArea(
                    tab_behavior="focus",
                    placeholder="Type or paste a text to classify…",
                    id="classify-editor",
                )
                editor.cursor_blink = self.workbench.cursor_blink
                yield editor
                yield VerdictBar(LOADING, id="classify-verdict", classes="verdict")
            yield SpanView(id="classify-spans")
        # At >=120 columns the verdict runs full width under editor and spans; the
        # stylesheet shows one of the two bars, both always hold the same verdict.
        yield VerdictBar(LOADING, id="classify-verdict-wide", classes="verdict")
        yield SignalList(id="classify-signals")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.app, "engine_ready", self._engine_ready_changed)
        # The app sets ``engine_reason`` when loading fails and changes the subtitle in
        # the same handler; watching the subtitle is how this screen hears of it.
        self.watch(self.app, "sub_title", self._engine_state_changed, init=False)
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        if self._queued is not None:
            text, language = self._queued
            self._queued = None
            self.load_text(text, language)

    # -- public -------------------------------------------------------------------------

    def load_text(self, text: str, language: str | None) -> None:
        """Show a text from elsewhere (triage, a benchmark failure, a record) and classify it."""
        if not self.is_mounted:
            self._queued = (text, language)
            return
        if language:
            self._set_language(language)
        # load_text posts TextArea.Changed, which requests the classification.
        self.query_one("#classify-editor", TextArea).load_text(text)

    def cancel_job(self) -> bool:
        """Escape: drop a classification still waiting or running (nothing else to cancel)."""
        if not self._pending:
            return False
        self.generation += 1
        self._pending = False
        self.workers.cancel_group(self, "classify")
        return True

    # -- engine state -------------------------------------------------------------------

    def _engine_ready_changed(self, ready: bool) -> None:
        if not ready:
            self._engine_state_changed()
            return
        engine = self.services.engine
        languages = engine.languages
        if self.language is None or self.language not in languages:
            self.language = self.language or languages[0]
        options = _language_options(languages)
        if self.language not in languages and self.language != AUTO:
            options.append((self.language, self.language))
        select = self.query_one("#classify-language", Select)
        with self.prevent(Select.Changed):
            select.set_options(options)
            select.value = self.language
        self._request()

    def _engine_state_changed(self, *_: Any) -> None:
        if self.workbench.engine_ready:
            return
        reason = self.workbench.engine_reason
        for verdict in self.query(VerdictBar):
            if reason:
                verdict.show_message(
                    f"The taxonomy failed to load: {reason}. Nothing can be classified.",
                    kind="error",
                )
            else:
                verdict.show_message(LOADING)

    # -- requests -----------------------------------------------------------------------

    @on(TextArea.Changed, "#classify-editor")
    def _text_changed(self) -> None:
        self._request()

    @on(Input.Changed, "#classify-context")
    def _context_changed(self) -> None:
        self._request()

    @on(Select.Changed, "#classify-language")
    def _language_chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.language = event.value
            self._request()
        if self._picking_language:
            # Picked from the list that f6 opened: back to the text, to keep typing
            # (after the Select has taken the focus back from its list).
            self._picking_language = False
            self.call_after_refresh(self.query_one("#classify-editor", TextArea).focus)

    def _request(self) -> None:
        """Classify what is in the box now (debounced); empty text clears the verdict."""
        self.generation += 1
        if not self.workbench.engine_ready:
            return
        text = self.query_one("#classify-editor", TextArea).text
        if not text.strip():
            self.workers.cancel_group(self, "classify")
            self._pending = False
            self.result, self.result_text, self.error = None, "", None
            self._show_result()
            return
        context = self.query_one("#classify-context", Input).value.strip() or None
        self._pending = True
        self._classify(self.generation, text, context, self.language)

    @work(exclusive=True, group="classify", exit_on_error=False)
    async def _classify(
        self, generation: int, text: str, context: str | None, language: str | None
    ) -> None:
        """Wait out the debounce, then classify in a thread; one message either way."""
        await asyncio.sleep(DEBOUNCE_SECONDS)
        engine = self.services.engine
        try:
            result = await asyncio.to_thread(
                engine.classify, text, context=context, language=language
            )
        except (ValueError, TypeError) as exc:
            self.post_message(ClassifyFailed(generation, str(exc)))
            return
        self.post_message(TextClassified(generation, text, result))

    @on(TextClassified)
    def _classified(self, message: TextClassified) -> None:
        if message.generation != self.generation:
            return
        self._pending = False
        self.result, self.result_text, self.error = message.result, message.text, None
        self._show_result()

    @on(ClassifyFailed)
    def _refused(self, message: ClassifyFailed) -> None:
        if message.generation != self.generation:
            return
        self._pending = False
        self.result, self.result_text = None, ""
        self.error = message.reason
        self._show_result()

    # -- rendering ----------------------------------------------------------------------

    def _palette(self) -> Palette:
        return palette_from(self.app.theme_variables)

    def _theme_changed(self, *_: Any) -> None:
        if self.workbench.engine_ready:
            self._show_result()

    def _show_result(self) -> None:
        verdicts = list(self.query(VerdictBar))
        spans = self.query_one(SpanView)
        signals = self.query_one(SignalList)
        palette = self._palette()
        result = self.result
        if result is None:
            for verdict in verdicts:
                if self.error is not None:
                    verdict.show_message(f"Cannot classify this text: {self.error}", kind="error")
                else:
                    verdict.show_message(EMPTY)
            spans.show(None, "", palette)
            signals.show(None, palette)
            return
        engine = self.services.engine
        for verdict in verdicts:
            verdict.show_result(
                result,
                threshold=engine.threshold,
                severity_label=engine.severity_label(result.harm_mechanism),
                palette=palette,
                details=self.details,
            )
        spans.show(result, self.result_text, palette)
        signals.show(result, palette)

    # -- actions ------------------------------------------------------------------------

    def _set_language(self, code: str) -> None:
        self.language = code
        if not self.workbench.engine_ready:
            return
        select = self.query_one("#classify-language", Select)
        languages = self.services.engine.languages
        if code not in languages and code != AUTO:
            options = [*_language_options(languages), (code, code)]
            with self.prevent(Select.Changed):
                select.set_options(options)
        with self.prevent(Select.Changed):
            select.value = code

    def action_language(self) -> None:
        """Open the language list (pick with the arrows and enter)."""
        select = self.query_one("#classify-language", Select)
        if not self.workbench.engine_ready:
            self.notify("The languages are known once the taxonomy has loaded.")
            return
        self._picking_language = True
        select.focus()
        select.expanded = True

    def action_context(self) -> None:
        """Show the context field and focus it; again to go back to the text."""
        field = self.query_one("#classify-context", Input)
        if not self.has_class("-context"):
            self.add_class("-context")
            field.focus()
        elif field.has_focus:
            if not field.value:
                self.remove_class("-context")
            self.query_one("#classify-editor", TextArea).focus()
        else:
            field.focus()

    def action_details(self) -> None:
        """Show or hide guidance, content hash and taxonomy version."""
        self.details = not self.details
        if self.result is not None:
            self._show_result()

    def action_copy_json(self) -> None:
        """The full result as JSON, as the CLI prints it, onto the clipboard."""
        if self.result is None:
            self.notify("Nothing to copy yet: classify a text first.", severity="warning")
            return
        payload = orjson.dumps(self.result.to_dict()).decode()
        self.app.copy_to_clipboard(payload)
        self.notify(f"Copied the result JSON ({len(payload):,} characters).", title="Copied")

    def action_observe(self) -> None:
        """Ask which source said this text, then record it with its verdict."""
        status = self.workbench.store_status
        if status == "unavailable":
            reason = self.workbench.store_reason or "it could not be opened"
            self.notify(
                f"The tracking store is unavailable ({reason}); nothing was recorded.",
                title="Observe",
                severity="error",
            )
            return
        if status != "open":
            self.notify("The tracking store is still opening; try again in a moment.")
            return
        if self._observing:
            self.notify("Still recording the previous observation.", severity="warning")
            return
        editor_text = self.query_one("#classify-editor", TextArea).text
        result = self.result
        if result is None or self._pending or self.result_text != editor_text:
            self.notify(
                "Nothing to record yet: wait for the verdict of this text.", severity="warning"
            )
            return
        text = self.result_text
        verdict = "harmful" if result.is_harmful else "not harmful"
        summary = f"{len(text):,} characters, {verdict}, severity {result.severity}."

        def chosen(choice: ObserveChoice | None) -> None:
            if choice is not None and not self._observing:
                self._observing = True
                self._observe(choice, text, result)

        self.app.push_screen(ObserveScreen(summary), chosen)

    @work(thread=True, exclusive=True, group="observe", exit_on_error=False)
    def _observe(self, choice: ObserveChoice, text: str, result: Classification) -> None:
        """Append the text, verdict and evidence to the source's chain (one write transaction)."""
        from store import StoreError

        services = self.services
        try:
            observation, profile = services.store.observe(
                choice.source_id,
                text,
                result,
                services.engine.tracking_rules(),
                choice.evidence,
            )
        except (StoreError, OSError) as exc:
            lines = str(exc).strip().splitlines()
            self.post_message(JobFailed("observe", lines[0] if lines else type(exc).__name__))
            return
        self.post_message(TextObserved(observation, profile))

    @on(TextObserved)
    def _observed(self, message: TextObserved) -> None:
        self._observing = False
        observation, profile = message.observation, message.profile
        self.notify(
            f"recorded as seq {observation.seq} of {observation.source_id}; "
            f"risk {profile.risk_level}",
            title="Observed",
        )

    @on(JobFailed)
    def _job_failed(self, message: JobFailed) -> None:
        if message.job != "observe":
            return
        self._observing = False
        self.notify(
            f"Not recorded: {message.reason}", title="Observe", severity="error", timeout=15
        )


def _language_options(languages: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """The f6 list: each language the taxonomy has, then ``auto`` to identify the text's."""
    return [*((code, code) for code in languages), (AUTO_LABEL, AUTO)]
