"""`make screenshots`: SVG pictures of every workbench screen, for the README.

Each picture is the real app (``create_app``, the factory ``harmwatch tui`` and
the tests use) run headless through its pilot, with the session's kind of
fixtures: a fixed clock, a fresh SQLite store seeded with fixed times, and
still rendering. The flows are the snapshot tests' own (imported from them),
so a screenshot shows exactly a state the tests check. Example texts come
from the tests, never from UI code.

    python -m tests.tui.screenshots --output screenshots
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from engine import Classifier, Settings, load_taxonomy
from tests.tui.conftest import FIXED_CLOCK, seed, settle, wait_ready
from tests.tui.test_benchmark_snapshots import run_benchmark
from tests.tui.test_classify_snapshots import ReleasingStore, StillLoading, showing
from tests.tui.test_palette_help import open_palette
from tests.tui.test_sources_pilot import RANKED, tamper
from tests.tui.test_sources_snapshots import to_rising, to_sources, verify_rising
from tests.tui.test_triage_snapshots import TEXTS, triage_screen, write_jsonl
from workbench.tui.app import create_app
from workbench.tui.services import EngineService, Services, StoreService
from workbench.tui.triage_job import TriageOptions

SIZE = (120, 36)
Flow = Callable[[Pilot[None]], Awaitable[None]]
Prepare = Callable[[Settings, EngineService, Path], Flow]


@dataclass(frozen=True)
class Shot:
    name: str
    what: str
    prepare: Prepare
    theme: str = "harmwatch-dark"


def _plain(flow: Flow) -> Prepare:
    return lambda _settings, _engine, _scratch: flow


def _ranked(flow: Flow, *, broken: bool = False) -> Prepare:
    def prepare(settings: Settings, engine: EngineService, _scratch: Path) -> Flow:
        seed(settings, engine, RANKED)
        if broken:
            tamper(settings, "forum:rising", 4)
        return flow

    return prepare


def _triage(settings: Settings, engine: EngineService, scratch: Path) -> Flow:
    path = write_jsonl(scratch / "posts.jsonl", TEXTS)

    async def flow(pilot: Pilot[None]) -> None:
        screen = await triage_screen(pilot)
        screen.start(TriageOptions(path))
        await settle(pilot)

    return flow


def _palette(settings: Settings, engine: EngineService, _scratch: Path) -> Flow:
    seed(settings, engine, RANKED)

    async def flow(pilot: Pilot[None]) -> None:
        await wait_ready(pilot)
        await open_palette(pilot, "forum")

    return flow


async def _help(pilot: Pilot[None]) -> None:
    await wait_ready(pilot)
    await pilot.press("f1")
    await settle(pilot)


SHOTS: tuple[Shot, ...] = (
    Shot(
        "classify-harmful",
        "Classify: a harmful text",
        _plain(showing("Honestly, those migrants are vermin.", "en")),
    ),
    Shot(
        "classify-suppressed",
        "Classify: a negated text, details open",
        _plain(showing("The refugees are not vermin, and saying so is wrong.", "en", "f8")),
    ),
    Shot(
        "classify-coded",
        "Classify: a coded term",
        _plain(showing("The globalists run the media.", "en")),
    ),
    Shot("classify-arabic", "Classify: Arabic", _plain(showing("بصراحة المهاجرون حشرات", "ar"))),
    Shot(
        "classify-light",
        "Classify in the light theme",
        _plain(showing("Honestly, those migrants are vermin.", "en")),
        theme="harmwatch-light",
    ),
    Shot("triage", "Triage: a file classified", _triage),
    Shot("sources", "Sources ranked by risk", _ranked(to_sources)),
    Shot("source", "One source: profile, timeline, observations", _ranked(to_rising)),
    Shot("verify-broken", "Verify: a tampered chain", _ranked(verify_rising, broken=True)),
    Shot("benchmark", "Benchmark and legacy gate", _plain(run_benchmark)),
    Shot("palette", "Command palette: jump to a source", _palette),
    Shot("help", "Keys, from the live bindings", _plain(_help)),
)


async def _shoot(shot: Shot, engine: EngineService, output: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix="hw-shot-") as scratch:
        folder = Path(scratch)
        settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{folder / 'track.db'}")
        flow = shot.prepare(settings, engine, folder)
        services = Services(engine, StoreService(settings), FIXED_CLOCK)
        app = create_app(settings, services=services, theme=shot.theme, still=True)
        async with app.run_test(size=SIZE) as pilot:
            await flow(pilot)
            await settle(pilot)
            return Path(app.save_screenshot(filename=f"{shot.name}.svg", path=str(output)))


async def _loading(output: Path) -> Path:
    """The first frame, before the taxonomy has loaded."""
    released = threading.Event()
    with tempfile.TemporaryDirectory(prefix="hw-shot-") as scratch:
        settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{scratch}/track.db")
        services = Services(
            StillLoading(settings, released), ReleasingStore(settings, released), FIXED_CLOCK
        )
        app = create_app(settings, services=services, still=True)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                return Path(app.save_screenshot(filename="loading.svg", path=str(output)))
        finally:
            released.set()


async def _all(output: Path, only: set[str] | None) -> list[Path]:
    stamp = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    classifier = Classifier(load_taxonomy(), clock=lambda: stamp)
    engine = EngineService(Settings(_env_file=None), classifier=classifier)
    engine.load()
    written = []
    if only is None or "loading" in only:
        written.append(await _loading(output))
    for shot in SHOTS:
        if only is None or shot.name in only:
            written.append(await _shoot(shot, engine, output))
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--output", type=Path, default=Path("screenshots"))
    parser.add_argument("--only", action="append", help="a shot's name (repeatable)")
    args = parser.parse_args(argv)
    args.output.mkdir(parents=True, exist_ok=True)
    for path in asyncio.run(_all(args.output, set(args.only) if args.only else None)):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
