"""Fixtures of the workbench tests: deterministic apps over a real engine and a real store.

Every app here is built by ``create_app`` (the factory ``harmwatch tui`` uses)
with ``still=True`` (no animation, no cursor blink), a fixed clock, the
session's classifier (fixed result timestamps) and an SQLite store in
``tmp_path``. Stores are seeded through the store's own ``append`` with fixed
``observed_at`` times, so record hashes, and so snapshots, are identical on
every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.pilot import Pilot

from engine import Classifier, Settings
from store import TrackingRules, append, open_store
from workbench.tui.app import WorkbenchApp, create_app
from workbench.tui.services import Clock, EngineService, Services, StoreService

SIZE = (80, 24)
WIDE = (120, 36)
NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
T0 = datetime(2026, 2, 1, 9, 0, 0, tzinfo=UTC)
FIXED_CLOCK = Clock(now=lambda: NOW, monotonic=lambda: 100.0)


@pytest.fixture(scope="session")
def engine_service(classifier: Classifier) -> EngineService:
    """One loaded engine for every app of the session (building one takes seconds)."""
    service = EngineService(Settings(), classifier=classifier)
    service.load()
    return service


@pytest.fixture
def tui_settings(tmp_path: Path) -> Settings:
    return Settings(tracking_db_url=f"sqlite:///{tmp_path / 'track.db'}")


AppFactory = Callable[..., WorkbenchApp]


@pytest.fixture
def make_app(tui_settings: Settings, engine_service: EngineService) -> AppFactory:
    """``make_app(theme=..., settings=...)``: a still app over the test store."""

    def build(*, settings: Settings | None = None, theme: str = "harmwatch-dark") -> WorkbenchApp:
        chosen = settings or tui_settings
        services = Services(engine_service, StoreService(chosen), FIXED_CLOCK)
        return create_app(chosen, services=services, theme=theme, still=True)

    return build


async def wait_ready(pilot: Pilot[None]) -> None:
    """Until the warm-up worker has loaded the engine and opened (or failed) the store."""
    app = pilot.app
    assert isinstance(app, WorkbenchApp)
    for _ in range(400):
        if app.engine_ready and app.store_status != "opening":
            break
        await pilot.pause(0.02)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def settle(pilot: Pilot[None]) -> None:
    """Until every worker has finished and its messages are handled."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def seed(
    settings: Settings,
    engine: EngineService,
    observations: Iterable[tuple[str, str]],
    *,
    start: datetime = T0,
    step: timedelta = timedelta(hours=1),
    language: str | None = None,
) -> None:
    """Append ``(source_id, text)`` pairs in order, at ``start``, ``start + step``, ..."""
    store = open_store(settings)
    rules: TrackingRules = engine.tracking_rules()
    try:
        for number, (source_id, text) in enumerate(observations):
            result = engine.classify(text, language=language)
            with store.transaction(write=True) as session:
                append(
                    source_id,
                    result,
                    text=text,
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=start + number * step,
                )
    finally:
        store.dispose()
