"""Sources, Source and Verify, driven by keys over a real SQLite store.

The list must be the store's listing order; the risk filter, the jump by id
prefix, opening a source (profile and a binned timeline), verifying an intact
and a tampered chain, cancelling a long verify, ``G`` over a large list and a
store that cannot be opened are each exercised end to end.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Input, Static

from engine import Settings
from store import VerifyResult, append, list_profiles, make_evidence, open_store
from tests.tui.conftest import SIZE, T0, AppFactory, seed, settle, wait_ready
from workbench.tui.app import WorkbenchApp
from workbench.tui.messages import (
    ChainVerified,
    ChainVerifyProgressed,
    JobCancelled,
    SourcesCounted,
    TimelineBinned,
)
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.screens.source import ObservationRow, SourceScreen
from workbench.tui.screens.sources import EMPTY_STORE, ProfileRow, SourcesScreen
from workbench.tui.screens.verify import VerifyScreen
from workbench.tui.services import EngineService, StoreService
from workbench.tui.widgets.paged_table import PagedTable
from workbench.tui.widgets.profile_card import ProfileCard
from workbench.tui.widgets.severity_timeline import SeverityTimeline

pytestmark = pytest.mark.anyio

BENIGN = ("The bus was late again", "I had coffee with my neighbour")
SEV1 = "Jews control the banks"
SEV2 = "Immigrants are a disease"
SEV3 = "Muslims are vermin"
SEV4 = "We should kill all the refugees"

RANKED: list[tuple[str, str]] = [
    ("forum:calm", BENIGN[0]),
    ("forum:rumours", SEV1),
    ("forum:rising", BENIGN[0]),
    ("forum:vermin", SEV3),
    ("forum:disease", SEV2),
    ("forum:rising", BENIGN[1]),
    ("forum:calm", BENIGN[1]),
    ("forum:threat", SEV4),
    ("forum:rising", SEV1),
    ("forum:rumours", SEV1),
    ("forum:rising", SEV2),
    ("forum:vermin", SEV3),
    ("forum:rising", SEV3),
    ("forum:quiet", BENIGN[0]),
]
"""Six sources, one per risk level and then some (texts only ever appear in tests)."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def ranked(tui_settings: Settings, engine_service: EngineService) -> Settings:
    seed(tui_settings, engine_service, RANKED)
    return tui_settings


def store_order(settings: Settings, risk: str | None = None) -> list[str]:
    store = open_store(settings)
    try:
        with store.transaction() as session:
            return [p.source_id for p in list_profiles(session=session, risk=risk, limit=1000)]
    finally:
        store.dispose()


def table_ids(table: PagedTable) -> list[str]:
    ids = []
    for index in range(table.total):
        row = table.row_at(index)
        assert isinstance(row, ProfileRow), f"row {index} is not loaded"
        ids.append(row.profile.source_id)
    return ids


def static_text(app: WorkbenchApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def open_sources(pilot: Any) -> PagedTable:
    await wait_ready(pilot)
    await pilot.press("f4")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SourcesScreen)
    return screen.query_one("#sources-table", PagedTable)


# Screens are pushed through ``call_later`` so that they start inside the app's context,
# as a key press would, and the pilot's message hook sees their messages.


async def until(pilot: Any, done: Callable[[], bool], what: str) -> None:
    for _ in range(500):
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def seed_long_chain(engine: EngineService, settings: Settings, source_id: str, n: int) -> None:
    """``n`` records in one write transaction (one commit: fast), severities cycling 0..4.

    Five texts are classified once and recorded over and over: a chain may repeat a text.
    """
    texts = (BENIGN[0], SEV1, SEV2, SEV3, SEV4)
    results = [engine.classify(text) for text in texts]
    rules = engine.tracking_rules()
    store = open_store(settings)
    try:
        with store.transaction(write=True) as session:
            for index in range(n):
                append(
                    source_id,
                    results[index % 5],
                    text=texts[index % 5],
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=T0,
                )
    finally:
        store.dispose()


def seed_profiles(settings: Settings, n: int) -> None:
    """``n`` profile rows straight into the table (no chains): a large list, in a second."""
    open_store(settings).dispose()  # creates and migrates the file
    path = str(settings.tracking_db_url).removeprefix("sqlite:///")
    risks = ("low", "watch", "elevated", "critical")
    rows = [
        (
            f"bulk:{index:06d}",
            1 + index % 7,
            index % 5,
            f"LABEL ({index % 5})",
            (index % 17) / 4,
            20,
            "stable",
            risks[index % 4],
            index % 4,
            "2026-02-01T09:00:00.000000Z",
            f"2026-02-{1 + index % 27:02d}T09:00:00.000000Z",
            "0" * 64,
            "",
        )
        for index in range(n)
    ]
    with sqlite3.connect(path) as conn:
        conn.executemany(
            "INSERT INTO source_profiles (source_id, observation_count, current_severity,"
            " current_severity_label, rolling_average_severity, window_size, trend, risk_level,"
            " risk_rank, first_observed_at, last_observed_at, head_hash, recent_severities)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


# -- Sources ----------------------------------------------------------------------------


async def test_the_list_is_the_stores_listing_order(make_app: AppFactory, ranked: Settings) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        table = await open_sources(pilot)
        assert any(isinstance(m, SourcesCounted) and m.total == 7 for m in seen)
        assert table.total == 7
        assert table_ids(table) == store_order(ranked)
        assert table_ids(table)[0] == "forum:threat"
        assert "all sources · 7 sources" in static_text(app, "#sources-header")


async def test_r_cycles_the_risk_filter_and_the_total_follows(
    make_app: AppFactory, ranked: Settings
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = await open_sources(pilot)
        screen = app.screen
        assert isinstance(screen, SourcesScreen)
        totals: dict[str | None, int] = {None: table.total}
        for _ in range(4):
            await pilot.press("r")
            await settle(pilot)
            assert screen.risk is not None
            totals[screen.risk] = table.total
            assert table_ids(table) == store_order(ranked, screen.risk)
            assert f"risk {screen.risk}" in static_text(app, "#sources-header")
        assert list(totals) == [None, "critical", "elevated", "watch", "low"]
        assert sum(totals[level] for level in ("critical", "elevated", "watch", "low")) == 7
        assert totals["low"] < totals[None]
        await pilot.press("r")
        await settle(pilot)
        assert screen.risk is None
        assert table.total == 7


async def test_slash_jumps_to_the_first_source_with_that_prefix(
    make_app: AppFactory, ranked: Settings
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sources(pilot)
        await pilot.press("slash")
        jump = app.screen.query_one("#sources-jump", Input)
        assert jump.has_focus
        assert jump.cursor_blink is False
        await pilot.press(*"forum:ver", "enter")
        await settle(pilot)
        assert isinstance(app.screen, SourceScreen)
        assert app.screen.source_id == "forum:vermin"


async def test_a_jump_that_matches_nothing_says_so(make_app: AppFactory, ranked: Settings) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_sources(pilot)
        await pilot.press("slash", *"nobody", "enter")
        await settle(pilot)
        assert isinstance(app.screen, SourcesScreen)
        assert any("no source id starts with 'nobody'" in n.message for n in app._notifications)


async def test_enter_opens_the_source_with_profile_and_timeline(
    make_app: AppFactory, ranked: Settings
) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_sources(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        second = store_order(ranked)[1]
        assert screen.source_id == second
        card = screen.query_one(ProfileCard)
        assert card.profile is not None and card.profile.source_id == second
        binned = [m for m in seen if isinstance(m, TimelineBinned)]
        assert binned and binned[-1].source_id == second
        assert screen.query_one(SeverityTimeline).bins == binned[-1].bins
        assert len(binned[-1].bins) == card.profile.observation_count
        observations = screen.query_one("#source-observations", PagedTable)
        assert observations.total == card.profile.observation_count
        newest = observations.row_at(0)
        assert isinstance(newest, ObservationRow)
        assert newest.observation.seq == card.profile.observation_count
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SourcesScreen)


async def test_a_backfilled_sources_timeline_follows_publication_time(
    make_app: AppFactory, tui_settings: Settings, engine_service: EngineService
) -> None:
    """An archive loaded after the live records: the strip is drawn in publication order
    (the escalation the source went through in 2025 first, today's calm last), as the
    profile reads it, and the table shows each record's publication time."""
    appended = [  # (text, published_at), in append order
        (BENIGN[0], "2026-02-01T09:00:00Z"),
        (BENIGN[1], "2026-02-02T09:00:00Z"),
        (SEV1, "2025-06-01T00:00:00Z"),
        (SEV2, "2025-06-02T00:00:00Z"),
        (SEV4, "2025-06-03T00:00:00Z"),
    ]
    rules = engine_service.tracking_rules()
    store = open_store(tui_settings)
    try:
        with store.transaction(write=True) as session:
            for step, (text, when) in enumerate(appended):
                append(
                    "archive:late",
                    engine_service.classify(text),
                    text=text,
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=T0 + timedelta(days=30, minutes=step),
                    evidence=make_evidence(published_at=when, now=T0 + timedelta(days=31)),
                )
    finally:
        store.dispose()
    severities = {text: engine_service.classify(text).severity for text, _ in appended}
    assert severities[SEV4] > severities[SEV1] > 0 == severities[BENIGN[0]]
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.open_source, "archive:late")
        await settle(pilot)
        binned = [m for m in seen if isinstance(m, TimelineBinned)]
        assert binned and binned[-1].source_id == "archive:late"
        timeline = binned[-1]
        by_publication = sorted(appended, key=lambda pair: pair[1])
        assert timeline.bins == [severities[text] for text, _ in by_publication]
        assert (timeline.first, timeline.last) == (
            "2025-06-01T00:00:00.000000Z",
            "2026-02-02T09:00:00.000000Z",
        )
        screen = app.screen
        assert isinstance(screen, SourceScreen)
        assert screen.query_one(SeverityTimeline).bins == timeline.bins
        table = screen.query_one("#source-observations", PagedTable)
        newest = table.row_at(0)  # the table stays in chain order: seq 5 first
        assert isinstance(newest, ObservationRow)
        assert newest.observation.seq == 5
        assert newest[0] == "2025-06-03 00:00"  # its publication time, not its append time
        profile = screen.query_one(ProfileCard).profile
        assert profile is not None and profile.current_severity == severities[BENIGN[1]]


async def test_enter_on_an_observation_opens_its_text_in_classify(
    make_app: AppFactory, ranked: Settings
) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        app.call_later(app.open_source, "forum:vermin")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ClassifyScreen)
        assert app.screen.query_one("#classify-editor").text == SEV3  # type: ignore[attr-defined]


async def test_an_empty_store_says_how_to_start(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = await open_sources(pilot)
        assert table.total == 0
        assert table.empty == EMPTY_STORE


async def test_an_unusable_store_is_named_and_nothing_crashes(
    make_app: AppFactory, tmp_path: Path
) -> None:
    settings = Settings(tracking_db_url=f"sqlite:///{tmp_path / 'missing' / 'dir' / 'track.db'}")
    app = make_app(settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        table = await open_sources(pilot)
        assert app.store_status == "unavailable"
        assert table.total == 0 and "unavailable" in table.empty
        header = static_text(app, "#sources-header")
        assert header == f"tracking store unavailable: {app.store_reason}"
        assert "track.db" in header  # the reason names the database
        for key in ("r", "slash", "v", "ctrl+r", "enter", "G"):
            await pilot.press(key)
            await settle(pilot)
        assert app.is_running


async def test_a_file_that_is_not_a_database_is_named(make_app: AppFactory, tmp_path: Path) -> None:
    junk = tmp_path / "notes.db"
    junk.write_text("these are notes, not a database\n" * 50)
    app = make_app(settings=Settings(tracking_db_url=f"sqlite:///{junk}"))
    async with app.run_test(size=SIZE) as pilot:
        table = await open_sources(pilot)
        assert app.store_status == "unavailable"
        assert "unavailable" in table.empty
        assert "notes.db" in static_text(app, "#sources-header")


async def test_g_on_a_large_list_lands_on_the_last_row(
    make_app: AppFactory, tui_settings: Settings
) -> None:
    total = 100_000
    seed_profiles(tui_settings, total)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        started = time.perf_counter()
        table = await open_sources(pilot)
        assert table.total == total
        assert isinstance(table.row_at(0), ProfileRow)
        assert time.perf_counter() - started < 5  # includes warm-up; the perf suite times it
        await pilot.press("G")
        await settle(pilot)
        assert table.cursor_row == total - 1
        last = table.row_at(total - 1)
        assert isinstance(last, ProfileRow)
        store = open_store(tui_settings)
        try:
            with store.transaction() as session:
                expected = list_profiles(session=session, offset=total - 1, limit=1)
        finally:
            store.dispose()
        assert last.profile == expected[0]
        await pilot.press("g")
        await settle(pilot)
        assert table.cursor_row == 0


# -- Verify -----------------------------------------------------------------------------


def gate_verify(
    monkeypatch: pytest.MonkeyPatch, calls: list[int], *, hold_last: bool
) -> threading.Event:
    """Make every real verify wait at its progress calls until the returned event is set.

    Each call's ``checked`` is appended to ``calls``. With ``hold_last`` false, the
    final call (checked == total) passes at once, so an uncancelled walk can end.
    A test then cancels a walk that is certainly running, without racing it.
    """
    pressed = threading.Event()
    real_verify = StoreService.verify

    def gated_verify(
        self: StoreService,
        source_id: str,
        progress: Callable[[int, int], None] | None = None,
        **options: Any,
    ) -> VerifyResult:
        assert progress is not None

        def gate(checked: int, total: int) -> None:
            calls.append(checked)
            if hold_last or checked < total:
                assert pressed.wait(10)
            progress(checked, total)

        return real_verify(self, source_id, progress=gate, **options)

    monkeypatch.setattr(StoreService, "verify", gated_verify)
    return pressed


def tamper(settings: Settings, source_id: str, seq: int) -> None:
    path = str(settings.tracking_db_url).removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        changed = conn.execute(
            "UPDATE observations SET severity = 0, harm_mechanism = NULL"
            " WHERE source_id = ? AND seq = ?",
            (source_id, seq),
        ).rowcount
    assert changed == 1


async def test_verify_an_intact_chain(make_app: AppFactory, ranked: Settings) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.open_source, "forum:rising")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, VerifyScreen)
        verified = [m for m in seen if isinstance(m, ChainVerified)]
        assert len(verified) == 1 and verified[0].result.intact
        assert verified[0].result.checked == 5
        assert "intact, 5 records" in static_text(app, "#verify-outcome")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SourceScreen)


async def test_verify_from_the_list_uses_the_highlighted_source(
    make_app: AppFactory, ranked: Settings
) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_sources(pilot)
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, VerifyScreen)
        assert app.screen.source_id == store_order(ranked)[0]
        assert any(isinstance(m, ChainVerified) and m.result.intact for m in seen)


async def test_verify_a_tampered_chain_shows_where_it_breaks(
    make_app: AppFactory, ranked: Settings
) -> None:
    tamper(ranked, "forum:rising", 4)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.open_source, "forum:rising")
        await settle(pilot)
        await pilot.press("v")
        await settle(pilot)
        verified = [m for m in seen if isinstance(m, ChainVerified)]
        assert len(verified) == 1
        result: VerifyResult = verified[0].result
        assert not result.intact and result.first_broken_seq == 4
        assert [record.seq for record in verified[0].records] == [3, 4]
        outcome = static_text(app, "#verify-outcome")
        assert "broken at seq 4" in outcome
        assert "record_hash of seq 4 does not match its fields" in outcome
        assert "seq 3" in static_text(app, "#verify-before")
        assert "seq 4" in static_text(app, "#verify-at")
        assert "seq 4 links to seq 3" in static_text(app, "#verify-hint")


async def test_escape_cancels_a_long_verify(
    make_app: AppFactory,
    tui_settings: Settings,
    engine_service: EngineService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real walk of 6,000 records whose first progress call waits for the escape key."""
    seed_long_chain(engine_service, tui_settings, "forum:long", 6000)
    calls: list[int] = []
    pressed = gate_verify(monkeypatch, calls, hold_last=False)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.open_source, "forum:long")
        await settle(pilot)
        await pilot.press("v")
        await until(pilot, lambda: bool(calls), "the first progress call")
        screen = app.screen
        assert isinstance(screen, VerifyScreen) and screen.running
        await pilot.press("escape")
        pressed.set()
        await settle(pilot)
        assert any(isinstance(m, JobCancelled) and m.job == "verify" for m in seen)
        assert not any(isinstance(m, ChainVerified) for m in seen)
        assert calls == [2000]  # stopped at the first batch, not walked to the end
        assert "cancelled" in static_text(app, "#verify-outcome")
        assert isinstance(app.screen, VerifyScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SourceScreen)


async def test_app_cancel_jobs_cancels_a_verify(
    make_app: AppFactory,
    tui_settings: Settings,
    engine_service: EngineService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seed_long_chain(engine_service, tui_settings, "forum:long", 2500)
    pressed = gate_verify(monkeypatch, [], hold_last=True)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.push_screen, VerifyScreen("forum:long", 2500))
        await pilot.pause()
        assert app.cancel_jobs() is True
        pressed.set()
        await until(pilot, lambda: any(isinstance(m, JobCancelled) for m in seen), "JobCancelled")
        await pilot.pause()
        await settle(pilot)
        assert any(isinstance(m, JobCancelled) for m in seen)
        assert app.cancel_jobs() is False


async def test_verify_progress_is_throttled_and_ends_with_the_total(
    make_app: AppFactory, tui_settings: Settings, engine_service: EngineService
) -> None:
    seed_long_chain(engine_service, tui_settings, "forum:long", 4500)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        app.call_later(app.push_screen, VerifyScreen("forum:long", 4500))
        await until(pilot, lambda: any(isinstance(m, ChainVerified) for m in seen), "a verdict")
        await settle(pilot)
        progressed = [m for m in seen if isinstance(m, ChainVerifyProgressed)]
        assert progressed and (progressed[-1].checked, progressed[-1].total) == (4500, 4500)
        assert "intact, 4,500 records" in static_text(app, "#verify-outcome")


async def test_a_new_theme_recolours_the_rows(make_app: AppFactory, ranked: Settings) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        table = await open_sources(pilot)
        await pilot.press("down")
        before = table.row_at(0)
        assert isinstance(before, ProfileRow) and before.profile.risk_level == "critical"
        await pilot.press("ctrl+t")
        await settle(pilot)
        after = table.row_at(0)
        assert isinstance(after, ProfileRow)
        assert isinstance(after[0], Text) and isinstance(before[0], Text)
        assert str(after[0].style) != str(before[0].style)
        assert app.theme_variables["sev-4"] in str(after[0].style)
        assert table.cursor_row == 1
        await pilot.press("escape")  # no jump box open: the key is not the list's
        await settle(pilot)
        assert isinstance(app.screen, SourcesScreen)
