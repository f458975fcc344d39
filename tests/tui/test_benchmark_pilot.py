"""The Benchmark screen: a run, its cancellation, failure browsing, and its error states."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Settings
from tests.tui.benchmark_support import hold_benchmark, write_failing_suite
from tests.tui.conftest import FIXED_CLOCK, SIZE, AppFactory, settle, wait_ready
from workbench.tui.app import WorkbenchApp, create_app
from workbench.tui.messages import (
    BenchmarkFinished,
    BenchmarkProgressed,
    JobCancelled,
    JobFailed,
)
from workbench.tui.screens.benchmark import BenchmarkScreen
from workbench.tui.services import EngineService, Services, StoreService
from workbench.tui.widgets.paged_table import PagedTable

pytestmark = pytest.mark.anyio
BROKEN = Path(__file__).resolve().parents[1] / "data" / "broken_taxonomy"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def benchmark_screen(app: WorkbenchApp) -> BenchmarkScreen:
    screen = app.screen
    assert isinstance(screen, BenchmarkScreen)
    return screen


def screen_text(screen: BenchmarkScreen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def test_r_runs_the_suite_and_the_gate(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5")
        await pilot.press("r")
        await settle(pilot)
        screen = benchmark_screen(app)
        finished = [m for m in seen if isinstance(m, BenchmarkFinished)]
        assert finished, "no BenchmarkFinished"
        message = finished[0]
        assert message.report["pass_rate"] == 1.0
        assert message.regressions == []
        assert message.gate is not None and message.gate["passed"]
        total = message.report["total"]
        # Throttled (every 1 % of the cases or 100 ms), not one per case. The hook sees
        # each message twice (the screen, then the app it bubbles to).
        progressed = {id(m): m for m in seen if isinstance(m, BenchmarkProgressed)}
        assert len(progressed) < total
        assert max(m.done for m in progressed.values()) == total
        summary = screen_text(screen, "#benchmark-summary")
        assert f"{total}/{total} passed (100.0%)" in summary
        assert "PASSED" in summary
        capabilities = screen.query_one("#benchmark-capabilities")
        assert capabilities.row_count == len(message.report["capabilities"])  # type: ignore[attr-defined]
        cases = screen.query_one("#benchmark-cases", PagedTable)
        assert cases.total == total
        assert not screen.running


async def test_escape_during_a_run_cancels_it(
    make_app: AppFactory, engine_service: EngineService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run is held in its first step until escape has been pressed."""
    pressed = hold_benchmark(engine_service, monkeypatch)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5")
        await pilot.press("r")
        await pilot.pause()
        screen = benchmark_screen(app)
        assert screen.running
        await pilot.press("escape")
        pressed.set()
        await settle(pilot)
        assert any(isinstance(m, JobCancelled) and m.job == "benchmark" for m in seen)
        assert not any(isinstance(m, BenchmarkFinished) for m in seen)
        assert not screen.running
        assert "cancelled" in screen_text(screen, "#benchmark-progress #job-counts")


async def test_failures_are_browsable_and_open_in_classify(
    make_app: AppFactory, tmp_path: Path
) -> None:
    suite = write_failing_suite(tmp_path)
    seen: list[object] = []
    app = make_app()
    opened: list[tuple[str, str | None]] = []
    open_in_classify = app.open_in_classify

    def record(text: str, language: str | None = None) -> None:
        opened.append((text, language))
        open_in_classify(text, language)

    app.open_in_classify = record  # type: ignore[method-assign]
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5")
        screen = benchmark_screen(app)
        screen.suite_path = suite
        await pilot.press("r")
        await settle(pilot)
        message = next(m for m in seen if isinstance(m, BenchmarkFinished))
        assert message.report["passed"] == 3
        assert message.report["failed"] == 2
        assert {r.capability for r in message.regressions} == {"weather", "weather_es"}
        assert "below baseline" in screen_text(screen, "#benchmark-summary")
        cases = screen.query_one("#benchmark-cases", PagedTable)
        assert cases.total == 5

        await pilot.press("f")
        await pilot.pause()
        assert cases.total == 2
        assert "Failures only" in screen_text(screen, "#benchmark-filter")
        await pilot.press("l")  # all languages -> en
        await pilot.pause()
        assert screen.language == "en"
        assert cases.total == 1
        detail = screen_text(screen, "#benchmark-detail")
        assert "wx.wrong/1" in detail
        assert "got NONE (0)" in detail
        await pilot.press("l")  # en -> es
        await pilot.pause()
        assert screen.language == "es"
        assert cases.total == 1
        await pilot.press("enter")
        await pilot.pause()
        assert opened == [("Hace buen tiempo esta tarde.", "es")]
        assert app.current_mode == "classify"


async def test_a_bad_suite_file_is_a_message(make_app: AppFactory, tmp_path: Path) -> None:
    bad = tmp_path / "bad_suite.yaml"
    bad.write_text('suite_version: "one"\nbaselines: {}\ncapabilities: []\n', encoding="utf-8")
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press("f5")
        screen = benchmark_screen(app)
        screen.suite_path = bad
        await pilot.press("r")
        await settle(pilot)
        failed = [m for m in seen if isinstance(m, JobFailed)]
        assert failed and "bad_suite.yaml" in failed[0].reason
        assert "could not run" in screen_text(screen, "#benchmark-summary")
        assert not screen.running


async def test_a_broken_taxonomy_is_said_and_r_does_nothing(tmp_path: Path) -> None:
    broken = sorted(BROKEN.glob("*.yaml"))[0]
    settings = Settings(taxonomy_path=broken, tracking_db_url=f"sqlite:///{tmp_path / 't.db'}")
    services = Services(EngineService(settings), StoreService(settings), FIXED_CLOCK)
    app = create_app(settings, services=services, still=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            if app.engine_reason:
                break
            await pilot.pause(0.02)
        await pilot.press("f5")
        await pilot.press("r")
        await pilot.pause()
        screen = benchmark_screen(app)
        assert not screen.running
        assert "The taxonomy failed to load" in screen_text(screen, "#benchmark-summary")
