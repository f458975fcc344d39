"""Keys help (f1) and the command palette (ctrl+p): pilot tests and snapshots."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerState

from engine import Settings
from tests.tui.benchmark_support import hold_benchmark
from tests.tui.conftest import SIZE, AppFactory, settle, wait_ready
from tests.tui.conftest import seed as seed_store
from workbench.tui.commands import running_job
from workbench.tui.messages import BenchmarkFinished, JobCancelled
from workbench.tui.screens.benchmark import BenchmarkScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.source import SourceScreen
from workbench.tui.services import EngineService

SOURCES = [
    ("source-alpha", "The morning market opens at eight."),
    ("source-beta", "Our library extends its hours this week."),
    ("other-feed", "Rain is expected on Sunday."),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def seeded(tui_settings: Settings, engine_service: EngineService) -> None:
    seed_store(tui_settings, engine_service, SOURCES)


async def open_palette(pilot: Pilot[None], query: str = "") -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert CommandPalette.is_open(pilot.app)
    # The palette's own input blinks; a still app must not (snapshots).
    pilot.app.screen.query_one(Input).cursor_blink = False
    if query:
        await pilot.press(*query)
    # The palette gathers hits in a worker and shows them after a short delay.
    for _ in range(3):
        await settle(pilot)
        await pilot.pause(0.2)


# -- help ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_help_lists_the_live_keys_of_the_screen_below(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5")
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.plain_text()
        for key, description in [
            ("f2", "Classify"),
            ("f3", "Triage"),
            ("f4", "Sources"),
            ("f5", "Benchmark"),
            ("r", "Run"),
            ("f", "Failures only"),
            ("l", "Language"),
            ("esc", "Cancel"),
            ("^p", "palette"),
        ]:
            assert f"  {key}  {description}" in text, (key, description)
        titles = [title for title, _rows in help_screen.key_groups()]
        assert titles[:2] == ["This screen", "Everywhere"]
        assert "ctrl+p opens the command palette" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, BenchmarkScreen)


# -- palette ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_palette_go_to_sources_switches_mode(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await open_palette(pilot, "go to sources")
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "sources"


@pytest.mark.anyio
async def test_palette_source_search_opens_the_source(make_app: AppFactory, seeded: None) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await open_palette(pilot, "source-al")
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "sources"
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        assert screen.source_id == "source-alpha"


@pytest.mark.anyio
async def test_palette_runs_the_benchmark_from_another_mode(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await open_palette(pilot, "run the benchmark")
        await pilot.press("enter")
        await settle(pilot)
        await settle(pilot)
        assert app.current_mode == "benchmark"
        assert any(isinstance(m, BenchmarkFinished) for m in seen)


@pytest.mark.anyio
async def test_palette_cancels_the_running_job(
    make_app: AppFactory, engine_service: EngineService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The benchmark is held in its first step while the palette offers "Cancel benchmark"."""
    release = hold_benchmark(engine_service, monkeypatch)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5", "r")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.press(*"cancel bench")
        for _ in range(3):
            await pilot.pause(0.2)
        await pilot.press("enter")
        await pilot.pause()
        release.set()
        await settle(pilot)
        assert any(isinstance(m, JobCancelled) and m.job == "benchmark" for m in seen)


def test_running_job_names_only_a_running_job_of_that_screen() -> None:
    screen, other = object(), object()

    def worker(node: object, group: str, state: WorkerState) -> Any:
        return SimpleNamespace(node=node, group=group, state=state)

    assert running_job(screen, []) is None
    assert running_job(screen, [worker(screen, "benchmark", WorkerState.RUNNING)]) == "benchmark"
    assert running_job(screen, [worker(screen, "verify", WorkerState.PENDING)]) == (
        "chain verification"
    )
    assert running_job(screen, [worker(other, "benchmark", WorkerState.RUNNING)]) is None
    assert running_job(screen, [worker(screen, "benchmark", WorkerState.SUCCESS)]) is None
    assert running_job(screen, [worker(screen, "paged-table", WorkerState.RUNNING)]) is None


# -- snapshots -------------------------------------------------------------------------


def test_help_snapshot(snap_compare: Any, make_app: AppFactory) -> None:
    """Keys help over the Benchmark screen.

    You should see a bordered dialog "Keys · Benchmark" with the screen's keys
    (r Run, f Failures only, l Language, esc Cancel), then "Everywhere" (f1..f5,
    ^q Quit, ^t Theme, ^p palette), and the hint about ctrl+p at the bottom.
    """

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_ready(pilot)
        await pilot.press("f5")
        await settle(pilot)  # the screen has focused its first table: its keys are listed too
        await pilot.press("f1")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_palette_source_hits_snapshot(
    snap_compare: Any, make_app: AppFactory, seeded: None
) -> None:
    """The palette over the Benchmark screen, "sou" typed, a store of three sources.

    You should see "Go to Sources" and the two sources whose id starts with
    "sou" (source-alpha, source-beta), each with "Open this source's profile and
    chain"; other-feed is not listed.
    """

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_ready(pilot)
        await pilot.press("f5")
        await open_palette(pilot, "sou")

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_palette_light_theme_snapshot(snap_compare: Any, make_app: AppFactory) -> None:
    """The palette over the Benchmark screen with "go to" typed, in the light theme.

    You should see Go to Classify, Triage, Sources and Benchmark with their
    f-keys, on a light background. (An empty query lists every provider's
    commands in the order they arrive, which varies; a query sorts by score.)
    """

    async def run_before(pilot: Pilot[None]) -> None:
        await wait_ready(pilot)
        await pilot.press("f5")
        await open_palette(pilot, "go to")

    app = make_app(theme="harmwatch-light")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
