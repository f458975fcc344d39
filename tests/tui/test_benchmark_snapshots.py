"""Snapshots of the Benchmark screen: a full run, the failures-only view, failing cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from tests.tui.benchmark_support import write_failing_suite
from tests.tui.conftest import SIZE, AppFactory, settle, wait_ready
from workbench.tui.screens.benchmark import BenchmarkScreen


async def run_benchmark(pilot: Pilot[None], suite: Path | None = None) -> None:
    await wait_ready(pilot)
    await pilot.press("f5")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, BenchmarkScreen)
    screen.suite_path = suite
    await pilot.press("r")
    await settle(pilot)


def test_benchmark_result(snap_compare: Any, make_app: AppFactory) -> None:
    """The shipped suite after a full run.

    You should see the summary (suite 1.0.0, 194/194 passed, 100.0%, baseline
    suite-1.0.0@194/194 ✓, the legacy gate PASSED at 100.0% of a required 90.0%),
    the progress line at 194/194, the capability table (animalization first, all
    ok), the case table (all ✓) and the first case's detail.
    """
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_benchmark)


def test_benchmark_failures_only_empty(snap_compare: Any, make_app: AppFactory) -> None:
    """The shipped suite, failures only (f).

    You should see "Failures only · all languages · 0 of 194" and the table's
    message "No failures: every case passed."
    """

    async def run_before(pilot: Pilot[None]) -> None:
        await run_benchmark(pilot)
        await pilot.press("f")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_benchmark_failures(snap_compare: Any, make_app: AppFactory, tmp_path: Path) -> None:
    """A suite whose expectations are partly wrong, failures only (f).

    You should see suite 0.9.0 at 3/5 passed (60.0%), "2 below baseline" in the
    summary and on the progress line, weather and weather_es flagged "below
    baseline" in the capability table, the two failing cases (✗ wx.wrong/1 en,
    ✗ wx.es.wrong/1 es: expected a mechanism, got NONE (0)) and the first one's
    detail with the engine's rationale.
    """
    suite = write_failing_suite(tmp_path)

    async def run_before(pilot: Pilot[None]) -> None:
        await run_benchmark(pilot, suite)
        await pilot.press("f")
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)
