"""What the Classify screen looks like: loading, verdicts, suppression, coded terms, errors.

80x24 unless the test says otherwise; the engine is the session's classifier,
so every verdict, span and hash on screen is the same on every machine.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from engine import Classifier, Settings
from tests.tui.conftest import FIXED_CLOCK, SIZE, WIDE, AppFactory, settle, wait_ready
from workbench.tui.app import create_app
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.services import EngineService, Services, StoreService

SnapCompare = Callable[..., bool]
RunBefore = Callable[[Pilot[None]], Awaitable[None]]


def showing(text: str, language: str | None = None, *keys: str) -> RunBefore:
    """A ``run_before`` that loads ``text`` into Classify, waits for the verdict, presses keys."""

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_ready(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ClassifyScreen)
        screen.load_text(text, language)
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
        await settle(pilot)

    return run_before


class StillLoading(EngineService):
    """An engine that is still loading when the snapshot is taken.

    ``load`` waits until the app closes the store on the way out (so the
    warm-up thread ends with the app) and then reports a failure nobody sees.
    """

    def __init__(self, settings: Settings, released: threading.Event) -> None:
        super().__init__(settings)
        self._released = released

    def load(self) -> Classifier:
        self._released.wait(timeout=60)
        raise OSError("the test app closed before the taxonomy loaded")


class ReleasingStore(StoreService):
    def __init__(self, settings: Settings, released: threading.Event) -> None:
        super().__init__(settings)
        self._released = released

    def close(self) -> None:
        self._released.set()
        super().close()


def test_loading(snap_compare: SnapCompare, tmp_path: Path) -> None:
    """Before the taxonomy has loaded.

    You should see the empty text box, no language yet ("…") and the verdict
    area saying that the taxonomy is loading.
    """
    released = threading.Event()
    settings = Settings(tracking_db_url=f"sqlite:///{tmp_path / 'track.db'}")
    services = Services(
        StillLoading(settings, released), ReleasingStore(settings, released), FIXED_CLOCK
    )
    app = create_app(settings, services=services, still=True)

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        released.set()


def test_harmful(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A harmful English text.

    You should see "HARMFUL  0.850 ≥ 0.650  animalization  ANIMALIZATION (3)",
    the target and language line and the rationale; below, the text with the
    whole match highlighted, and one signal line for row D2.4a-001.
    """
    run_before = showing("Honestly, those migrants are vermin.", "en")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_suppressed_by_negation(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A negated text, with the details (f8) open.

    You should see "NOT HARMFUL  0.000 < 0.650", the match struck through with
    "not" underlined and marked ¹, the legend line '¹ negation: "not"', the
    guidance, short content hash and taxonomy version, and the suppressed
    signal line ending '¹ negation: "not"'.
    """
    run_before = showing("The refugees are not vermin, and saying so is wrong.", "en", "f8")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_coded_term(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A coded term inside a harmful claim.

    You should see "HARMFUL  0.700 ≥ 0.650  false_attribution", the term
    "globalists" in italics inside the highlighted match, the line
    'coded term "globalists" (globalist): ...' naming religion, and two signal
    lines (the pattern and the coded term).
    """
    run_before = showing("The globalists run the media.", "en")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_arabic(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """An Arabic text, language ar.

    You should see "language ar" in the options row, "HARMFUL", "language ar
    (verified)", and the text with its last two words highlighted (the first
    word is outside the match).
    """
    run_before = showing("بصراحة المهاجرون حشرات", "ar")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_text_over_the_limit(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A text one character over the engine's limit.

    You should see the text box full of x and, in red, "Cannot classify this
    text: text is 20001 characters; the limit is 20000
    (HARMWATCH_MAX_TEXT_CHARS)"; no spans and no signals.
    """
    run_before = showing("x" * 20_001, "en")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_observe_refuses_an_invalid_source_id(
    snap_compare: SnapCompare, make_app: AppFactory
) -> None:
    """The observe dialog (f10) after entering an id with a space.

    You should see the dialog "Record as an observation" over the screen, the
    source field holding "two words", the two optional fields (published at,
    url) showing their placeholders and, in red, "source_id must not contain
    whitespace (U+0020 at character 4; ...)".
    """
    load = showing("Honestly, those migrants are vermin.", "en", "f10")

    async def run_before(pilot: Pilot[None]) -> None:
        await load(pilot)
        pilot.app.screen.query_one("#observe-source", Input).value = "two words"
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_harmful_wide(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A harmful text at 120x36.

    You should see the text box and the highlighted text side by side, the
    verdict across the full width under them, then the signal line.
    """
    run_before = showing("Honestly, those migrants are vermin.", "en")
    assert snap_compare(make_app(), terminal_size=WIDE, run_before=run_before)


def test_harmful_light_theme(snap_compare: SnapCompare, make_app: AppFactory) -> None:
    """A harmful text in the light theme.

    You should see the same screen as test_harmful on a light background, the
    highlight and severity label in the light theme's severity-3 red.
    """
    run_before = showing("Honestly, those migrants are vermin.", "en")
    app = make_app(theme="harmwatch-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
