"""The app under bad settings: a broken taxonomy, a store that cannot be opened.

Each shows a message naming what is wrong and leaves the app running; nothing
crashes and nothing is written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Settings
from tests.tui.conftest import FIXED_CLOCK, SIZE, AppFactory, wait_ready
from workbench.tui.app import create_app
from workbench.tui.messages import ClassifierFailed, StoreUnavailable
from workbench.tui.services import EngineService, Services, StoreService

pytestmark = pytest.mark.anyio
BROKEN = Path(__file__).resolve().parents[1] / "data" / "broken_taxonomy"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_broken_taxonomy_is_reported_and_the_app_keeps_running(tmp_path: Path) -> None:
    broken = sorted(BROKEN.glob("*.yaml"))[0]
    settings = Settings(taxonomy_path=broken, tracking_db_url=f"sqlite:///{tmp_path / 'track.db'}")
    services = Services(EngineService(settings), StoreService(settings), FIXED_CLOCK)
    seen: list[object] = []
    app = create_app(settings, services=services, still=True)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        failed = [m for m in seen if isinstance(m, ClassifierFailed)]
        assert len(failed) == 1
        assert broken.name in failed[0].reason
        assert not app.engine_ready
        assert app.sub_title == "taxonomy failed to load"
        await pilot.press("f4")
        await pilot.press("f2")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_a_file_that_is_not_a_database_is_reported(
    tmp_path: Path, make_app: AppFactory
) -> None:
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_bytes(b"this is not an SQLite database, only some text\n" * 50)
    settings = Settings(tracking_db_url=f"sqlite:///{not_a_db}")
    seen: list[object] = []
    app = make_app(settings=settings)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        assert app.store_status == "unavailable"
        assert any(isinstance(m, StoreUnavailable) for m in seen)
        assert app.store_reason
        assert "Traceback" not in app.store_reason
    assert not_a_db.read_bytes().startswith(b"this is not an SQLite database")


async def test_a_password_in_the_database_url_is_never_shown(make_app: AppFactory) -> None:
    settings = Settings(
        tracking_db_url="postgresql+psycopg://harmwatch:S3cretMarker@127.0.0.1:1/none"
    )
    app = make_app(settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        assert app.store_status == "unavailable"
        assert "S3cretMarker" not in app.store_reason
