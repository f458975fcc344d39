"""The analyst workbench: four modes (Classify, Triage, Sources, Benchmark), one engine and store.

``create_app`` is the one factory that ``harmwatch tui``, the tests and the
screenshot script use. This module imports only textual and the workbench's
own screens: the engine and the store are loaded by the warm-up worker after
the first frame, so the app paints at once and says that it is loading.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from workbench.tui.commands import JobProvider, NavigationProvider, SourceProvider
from workbench.tui.messages import (
    ClassifierFailed,
    ClassifierReady,
    StoreOpened,
    StoreUnavailable,
)
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.services import Clock, Services
from workbench.tui.themes import DARK, LIGHT, THEMES, VARIABLE_DEFAULTS

if TYPE_CHECKING:
    from engine import Settings


class WorkbenchApp(App[None]):
    """harmwatch's Textual workbench; build it with ``create_app``."""

    TITLE = "harmwatch"
    CSS_PATH = "workbench.tcss"
    # Classify is the first screen; the other modes are imported when first opened,
    # so the first frame does not wait for their modules.
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {
        "classify": ClassifyScreen,
        "triage": lambda: _screen("triage", "TriageScreen")(),
        "sources": lambda: _screen("sources", "SourcesScreen")(),
        "benchmark": lambda: _screen("benchmark", "BenchmarkScreen")(),
    }
    DEFAULT_MODE = "classify"
    COMMANDS = App.COMMANDS | {NavigationProvider, SourceProvider, JobProvider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Keys"),
        Binding("f2", "mode('classify')", "Classify"),
        Binding("f3", "mode('triage')", "Triage"),
        Binding("f4", "mode('sources')", "Sources"),
        Binding("f5", "mode('benchmark')", "Benchmark"),
        Binding("ctrl+t", "toggle_theme", "Theme", show=False),
        Binding("escape", "cancel_or_back", "Cancel / back", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012 - Textual declares it

    engine_ready: reactive[bool] = reactive(False)
    """True once the classifier is loaded; screens watch it."""
    store_status: reactive[str] = reactive("opening")
    """``opening``, ``open`` or ``unavailable``; screens watch it."""

    def __init__(self, services: Services, *, theme: str = DARK, still: bool = False) -> None:
        super().__init__()
        self.services = services
        self.cursor_blink = not still
        """Screens build their TextArea and Input with this (off for snapshots)."""
        if still:
            self.animation_level = "none"
        self.store_reason = ""
        self.engine_reason = ""
        self._initial_theme = theme

    # -- start-up -----------------------------------------------------------------------

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def on_mount(self) -> None:
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self._initial_theme
        self.sub_title = "loading taxonomy…"
        self.call_after_refresh(self._warm_up)

    @work(thread=True, exclusive=True, group="warmup", exit_on_error=False)
    def _warm_up(self) -> None:
        """Load the engine, then open the store; each outcome is one message."""
        from engine import TaxonomyError

        try:
            self.services.engine.load()
        except (TaxonomyError, OSError, ValueError) as exc:
            self.post_message(ClassifierFailed(_first_line(exc)))
        else:
            # The compiled taxonomy lives as long as the app: keep the collector from
            # walking its objects in every full collection (a 20 ms pause each).
            gc.freeze()
            engine = self.services.engine
            self.post_message(ClassifierReady(engine.taxonomy_version, engine.languages))
        self.open_store()

    def open_store(self) -> None:
        """(Re)open the store; called from a worker thread."""
        from store import StoreError

        try:
            url = self.services.store.open()
        except StoreError as exc:
            self.post_message(StoreUnavailable(_first_line(exc)))
        else:
            self.post_message(StoreOpened(url))

    @on(ClassifierReady)
    def _classifier_ready(self, message: ClassifierReady) -> None:
        self.engine_ready = True
        self.sub_title = f"taxonomy {message.taxonomy_version}"

    @on(ClassifierFailed)
    def _classifier_failed(self, message: ClassifierFailed) -> None:
        self.engine_reason = message.reason
        self.sub_title = "taxonomy failed to load"
        self.notify(message.reason, title="Taxonomy", severity="error", timeout=30)

    @on(StoreOpened)
    def _store_opened(self, message: StoreOpened) -> None:
        self.store_status = "open"

    @on(StoreUnavailable)
    def _store_unavailable(self, message: StoreUnavailable) -> None:
        self.store_reason = message.reason
        self.store_status = "unavailable"
        self.notify(message.reason, title="Tracking store", severity="error", timeout=30)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """The one error path: an unexpected worker failure is a toast and a log line."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            reason = _first_line(event.worker.error)
            self.log.error(f"worker {event.worker.name!r} failed: {reason}")
            self.notify(reason, title="Something went wrong", severity="error", timeout=15)

    # -- navigation ---------------------------------------------------------------------

    def action_mode(self, mode: str) -> None:
        self.switch_mode(mode)

    def action_help(self) -> None:
        from workbench.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK

    def open_in_classify(self, text: str, language: str | None = None) -> None:
        """Show a text (a triage row, a benchmark failure, a record) in Classify."""
        self.switch_mode("classify")
        screen = self.screen
        if isinstance(screen, ClassifyScreen):
            screen.load_text(text, language)

    def open_source(self, source_id: str) -> None:
        """Show one source, over the Sources list so that escape goes back to it."""
        from workbench.tui.screens.source import SourceScreen

        self.switch_mode("sources")
        while isinstance(self.screen, SourceScreen):
            self.pop_screen()
        self.push_screen(SourceScreen(source_id))

    def action_cancel_or_back(self) -> None:
        """Escape, when no screen or widget took it: cancel the running job, else go back."""
        if not self.cancel_jobs() and len(self.screen_stack) > 1:
            self.pop_screen()

    def cancel_jobs(self) -> bool:
        """Cancel the current screen's running job, if any; whether there was one."""
        cancel = getattr(self.screen, "cancel_job", None)
        return bool(cancel()) if callable(cancel) else False

    def on_unmount(self) -> None:
        self.services.store.close()


def _screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A mode's screen class, from its module (imported on first use)."""
    loaded: Callable[[], Screen[Any]] = getattr(
        importlib.import_module(f"workbench.tui.screens.{module}"), name
    )
    return loaded


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def create_app(
    settings: Settings,
    *,
    services: Services | None = None,
    clock: Clock | None = None,
    theme: str = DARK,
    still: bool = False,
) -> WorkbenchApp:
    """The workbench for these settings; tests pass their own services and clock.

    ``still`` turns off animation and cursor blinking, so that two renderings of
    the same state are identical (snapshot tests, the screenshot script).
    """
    if services is None:
        services = Services.from_settings(settings, clock=clock)
    elif clock is not None:
        services.clock = clock
    return WorkbenchApp(services, theme=theme, still=still)
