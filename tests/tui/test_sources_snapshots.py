"""Snapshots of Sources, Source and Verify over a seeded store (fixed clock, fixed times).

Each store is seeded through the store's own ``append`` with fixed observation
times, so the listing, relative times, record hashes and timeline are the
same on every machine. Review changes with ``--snapshot-update`` and read the
SVGs under ``__snapshots__/test_sources_snapshots/``.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import Settings
from tests.tui.conftest import SIZE, WIDE, AppFactory, seed, settle, wait_ready
from tests.tui.test_sources_pilot import RANKED, tamper
from workbench.tui.services import EngineService


@pytest.fixture
def ranked(tui_settings: Settings, engine_service: EngineService) -> Settings:
    seed(tui_settings, engine_service, RANKED)
    return tui_settings


async def to_sources(pilot: Any) -> None:
    await wait_ready(pilot)
    await pilot.press("f4")
    await settle(pilot)


async def to_rising(pilot: Any) -> None:
    await to_sources(pilot)
    await pilot.press("slash", *"forum:ris", "enter")
    await settle(pilot)


async def verify_rising(pilot: Any) -> None:
    await to_rising(pilot)
    await pilot.press("v")
    await settle(pilot)


def test_sources_empty_store(snap_compare: Any, make_app: AppFactory) -> None:
    """An empty store at 80x24.

    You should see the header "all sources · 0 sources" and the table's line
    "no sources yet: record one from Classify (f10) or harmwatch track observe".
    """
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=to_sources)


def test_sources_ranked(snap_compare: Any, make_app: AppFactory, ranked: Settings) -> None:
    """Seven sources at 80x24, riskiest first.

    You should see forum:threat (critical, DIRECT_VIOLENCE_CALL (4)) on the
    first, highlighted row, then forum:rising (critical, escalating ↑), the
    elevated forum:vermin, the watch forum:disease, and the low sources last,
    each risk in its severity colour and "27 d ago" or so in last seen.
    """
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=to_sources)


def test_sources_ranked_wide(snap_compare: Any, make_app: AppFactory, ranked: Settings) -> None:
    """The same list at 120x36.

    You should see the same seven rows with the source id column wider.
    """
    assert snap_compare(make_app(), terminal_size=WIDE, run_before=to_sources)


def test_source_with_timeline(snap_compare: Any, make_app: AppFactory, ranked: Settings) -> None:
    """forum:rising, opened by jumping to "forum:ris".

    You should see the profile card (risk CRITICAL, trend ↑ escalating,
    severity ANIMALIZATION (3), 5 obs, first/last times, head hash, and "peak 3
    window 0:2 1:1 2:1 3:1 4:0 rose 27 d ago chain ✓ intact"), a strip of
    five blocks rising from ▁ to ▆ above the rolling-average sparkline and the
    date 2026-02-01, and five observations newest first with their texts.
    """
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=to_rising)


def test_verify_intact(snap_compare: Any, make_app: AppFactory, ranked: Settings) -> None:
    """Verify over forum:rising's untouched chain.

    You should see the dialog "Verify chain · forum:rising" with a full bar,
    "5/5 records" and "✓ intact, 5 records".
    """
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=verify_rising)


def test_verify_broken_chain(snap_compare: Any, make_app: AppFactory, ranked: Settings) -> None:
    """Verify after seq 4 of forum:rising was edited in the database.

    You should see "✗ broken at seq 4", the reason "record_hash of seq 4 does
    not match its fields", and records seq 3 and seq 4 side by side (seq 4's
    severity now 0), with "seq 4 links to seq 3" below.
    """
    tamper(ranked, "forum:rising", 4)
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=verify_rising)
