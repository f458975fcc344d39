"""The app shell: warm-up, modes, help, theme, quitting, and the CLI command."""

from __future__ import annotations

import pytest

from tests.tui.conftest import SIZE, AppFactory, wait_ready
from workbench.tui.messages import ClassifierReady, StoreOpened
from workbench.tui.screens.benchmark import BenchmarkScreen
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.sources import SourcesScreen
from workbench.tui.screens.triage import TriageScreen

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_warm_up_reports_engine_and_store(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        assert app.engine_ready
        assert app.store_status == "open"
        assert any(isinstance(m, ClassifierReady) for m in seen)
        assert any(isinstance(m, StoreOpened) for m in seen)
        assert isinstance(app.screen, ClassifyScreen)


@pytest.mark.parametrize(
    ("key", "screen"),
    [("f3", TriageScreen), ("f4", SourcesScreen), ("f5", BenchmarkScreen), ("f2", ClassifyScreen)],
)
async def test_function_keys_switch_modes(make_app: AppFactory, key: str, screen: type) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, screen)


async def test_help_opens_and_closes(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ClassifyScreen)


async def test_theme_toggles(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        assert app.theme == "harmwatch-dark"
        await pilot.press("ctrl+t")
        assert app.theme == "harmwatch-light"


async def test_quit_key_exits_from_any_mode(make_app: AppFactory) -> None:
    for key in ("f2", "f3", "f4", "f5"):
        app = make_app()
        async with app.run_test(size=SIZE) as pilot:
            await wait_ready(pilot)
            await pilot.press(key)
            await pilot.press("ctrl+q")
            await pilot.pause()
        assert app.return_code == 0
