"""Issue 11: the workbench's speed, measured as a user meets it (never asserted in tests).

The first frame and "ready to classify" are timed on a whole ``harmwatch tui``
process under a pseudo-terminal, from spawn to the bytes on the terminal: the
title bar for the first frame, the taxonomy version in it for ready. The rest
runs the real app headless through its pilot, over a real SQLite store.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from fcntl import ioctl
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HARMWATCH = Path(sys.executable).with_name("harmwatch")


def _spawn_under_pty(home: Path, columns: int = 120, rows: int = 40) -> dict[str, Any]:
    """Start ``harmwatch tui`` on a pty; seconds to its first frame and to ready; then quit."""
    master, slave = pty.openpty()
    ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    for name in ("TRACKING_DB_URL", "DATABASE_URL", "TEXTUAL_ANIMATIONS"):
        env.pop(name, None)
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(HARMWATCH), "tui"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=home,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    first_frame: float | None = None
    ready: float | None = None
    deadline = started + 60
    try:
        while time.perf_counter() < deadline and ready is None:
            readable, _, _ = select.select([master], [], [], 0.05)
            if not readable:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            now = time.perf_counter() - started
            if first_frame is None and b"harmwatch" in seen:
                first_frame = now
            if b"taxonomy 1." in seen or b"taxonomy failed" in seen:
                ready = now
        os.write(master, b"\x11")  # ctrl+q
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return {
        "first_frame_s": None if first_frame is None else round(first_frame, 3),
        "ready_to_classify_s": None if ready is None else round(ready, 3),
        "exit_code": process.returncode,
    }


def startup_figures(runs: int = 3) -> dict[str, Any]:
    """Cold starts (a fresh process and a fresh SQLite file each time); the best and each run."""
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="hw-tui-perf-") as home:
            results.append(_spawn_under_pty(Path(home)))
    frames = [r["first_frame_s"] for r in results if r["first_frame_s"] is not None]
    readies = [r["ready_to_classify_s"] for r in results if r["ready_to_classify_s"] is not None]
    first = min(frames) if frames else None
    ready = min(readies) if readies else None
    return {
        "runs": results,
        "first_frame_s": first,
        "ready_to_classify_s": ready,
        "targets": {
            "first_frame_s_max": 0.4,
            "ready_s_max": 3.0,
            "first_frame_met": first is not None and first <= 0.4,
            "ready_met": ready is not None and ready <= 3.0,
        },
    }


# -- in-process, through the pilot ---------------------------------------------------------

SOURCES = 100_000
CHAIN = 100_000
LONG_TEXT_CHARS = 2_000


class _Stopwatch:
    """When the app handled each kind of message; the app's own messages time the steps.

    Kept per message type, so that polling it costs next to nothing: a harness that
    scanned every message while a job runs would steal the job's processor.
    """

    def __init__(self) -> None:
        self.times: dict[type, list[float]] = {}

    def hook(self, message: object) -> None:
        self.times.setdefault(type(message), []).append(time.perf_counter())

    def first_after(self, kind: type, since: float) -> float | None:
        found = [
            stamp
            for seen_kind, stamps in self.times.items()
            if issubclass(seen_kind, kind)
            for stamp in stamps[-64:]
            if stamp >= since
        ]
        return min(found) if found else None


async def _until(pilot: Any, condition: Any, timeout: float = 60.0) -> None:
    """Poll on the app's own loop (``pilot.pause`` would wait for the app to go idle,
    which a job that keeps reporting postpones to its end)."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the workbench did not get there in time")
        await asyncio.sleep(0.002)


def _long_text() -> str:
    """A 2,000-character post naming a group and carrying a harmful claim in its middle."""
    from tests.perf.corpus import build_corpus

    pieces: list[str] = []
    for text in build_corpus():
        pieces.append(text)
        if sum(map(len, pieces)) > LONG_TEXT_CHARS:
            break
    return " ".join(pieces)[:LONG_TEXT_CHARS]


def _seed_sources(settings: Any, count: int) -> None:
    from store import open_store
    from store.tracking import profiles
    from tests.perf.store_perf import _load_chain, _profile_row

    store = open_store(settings)
    try:
        rows = [_profile_row(f"listed-{i:06d}", i, 1, "a" * 64) for i in range(count)]
        with store.transaction(write=True) as session:
            conn = session.connection()
            for start in range(0, count, 10_000):
                conn.execute(profiles.insert(), rows[start : start + 10_000])
        _load_chain(store, "chain-100k", CHAIN)
    finally:
        store.dispose()


async def _measure(settings: Any, triage_file: Path) -> dict[str, Any]:
    from textual import events
    from textual.widgets import TextArea

    from workbench.tui.app import create_app
    from workbench.tui.messages import (
        ChainVerified,
        ChainVerifyProgressed,
        JobCancelled,
        SourcesCounted,
        TimelineBinned,
    )
    from workbench.tui.screens.classify import DEBOUNCE_SECONDS, ClassifyScreen
    from workbench.tui.screens.source import SourceScreen
    from workbench.tui.screens.verify import VerifyScreen
    from workbench.tui.widgets.paged_table import PagedTable

    watch = _Stopwatch()
    app = create_app(settings, still=True)
    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 40), message_hook=watch.hook) as pilot:
        await _until(pilot, lambda: app.engine_ready and app.store_status == "open")
        await app.workers.wait_for_complete()

        # Keystroke to verdict: the engine call starts when the debounce ends; the
        # verdict is on screen when the screen has drawn it.
        screen = app.screen
        assert isinstance(screen, ClassifyScreen)
        engine = app.services.engine
        marks: dict[str, float] = {}
        classify = engine.classify
        show = screen._show_result

        def timed_classify(*args: Any, **kwargs: Any) -> Any:
            marks["start"] = time.perf_counter()
            return classify(*args, **kwargs)

        def timed_show() -> None:
            show()
            marks["shown"] = time.perf_counter()

        engine.classify = timed_classify  # type: ignore[method-assign]
        screen._show_result = timed_show  # type: ignore[method-assign]
        latencies = []
        text = _long_text()
        for round_ in range(5):
            marks.clear()
            typed = time.perf_counter()
            screen.query_one(TextArea).text = text + " " * round_
            await _until(pilot, lambda: "shown" in marks and marks["shown"] > marks["start"])
            await pilot.pause()
            latencies.append((marks["shown"] - marks["start"]) * 1000)
            out.setdefault("keystroke_to_verdict_ms", []).append(
                round((marks["shown"] - typed) * 1000, 1)
            )
        engine.classify = classify  # type: ignore[method-assign]
        out["verdict_after_debounce_ms"] = round(statistics.median(latencies), 1)
        out["debounce_ms"] = DEBOUNCE_SECONDS * 1000

        # Sources: first page, the last page (G), a page down from the middle.
        def page_loaded_since(since: float) -> Any:
            return lambda: watch.first_after(PagedTable.PageLoaded, since) is not None

        # The first page is read with the count and drawn with it (SourcesCounted).
        started = time.perf_counter()
        app.call_later(app.switch_mode, "sources")
        await _until(pilot, lambda: watch.first_after(SourcesCounted, started) is not None)
        mounted = watch.first_after(events.Mount, started)
        counted = watch.first_after(SourcesCounted, started)
        out["sources_first_page_ms"] = round((counted - started) * 1000, 1)  # type: ignore[operator]
        out["sources_first_page_after_screen_ms"] = round((counted - mounted) * 1000, 1)  # type: ignore[operator]
        await pilot.pause()
        # Pages anywhere: the last (G), then positions spread over the list, each an
        # uncached page, from the cursor move to the page drawn.
        table = app.screen.query_one(PagedTable)
        pages = []
        for index in (SOURCES - 1, *(SOURCES * k // 11 + 37 for k in range(1, 11))):
            started = time.perf_counter()
            app.call_later(table.move_to, index)
            await _until(pilot, page_loaded_since(started), timeout=10)
            pages.append((watch.first_after(PagedTable.PageLoaded, started) - started) * 1000)  # type: ignore[operator]
        out["sources_page_ms_median"] = round(statistics.median(pages), 1)
        out["sources_pages_ms"] = [round(p, 1) for p in pages]
        out["sources_any_page_ms_max"] = round(max(pages), 1)

        # Triage: a file of TRIAGE_LINES posts, while a timer measures how late the
        # event loop answers (what a key press would wait).
        from workbench.tui.messages import TriageFinished, TriageStarted
        from workbench.tui.screens.triage import TriageScreen
        from workbench.tui.triage_job import TriageOptions

        app.call_later(app.switch_mode, "triage")
        await _until(pilot, lambda: isinstance(app.screen, TriageScreen))
        await pilot.pause()
        lateness: list[float] = []
        loop = asyncio.get_running_loop()
        ticking = True

        def tick(expected: float) -> None:
            lateness.append(max(0.0, loop.time() - expected))
            if ticking:
                loop.call_at(expected + 0.02, tick, expected + 0.02)

        started = time.perf_counter()
        app.screen.start(TriageOptions(triage_file))  # type: ignore[attr-defined]
        loop.call_at(loop.time() + 0.02, tick, loop.time() + 0.02)
        await _until(pilot, lambda: watch.first_after(TriageFinished, started) is not None, 300)
        ticking = False
        began = watch.first_after(TriageStarted, started) or started
        finished = watch.first_after(TriageFinished, started)
        out["triage_lines"] = TRIAGE_LINES
        out["triage_texts_per_s"] = round(TRIAGE_LINES / (finished - began))  # type: ignore[operator]
        out["triage_ui_lag_ms_p95"] = round(sorted(lateness)[int(len(lateness) * 0.95)] * 1000, 1)
        out["triage_ui_lag_ms_max"] = round(max(lateness) * 1000, 1)
        out["triage_ui_lag_ms"] = [round(x * 1000) for x in lateness]

        # One source: the timeline of 100,000 records, then verify and cancel.
        started = time.perf_counter()
        app.call_later(app.open_source, "chain-100k")
        await _until(pilot, lambda: watch.first_after(TimelineBinned, started) is not None)
        out["timeline_100k_binned_ms"] = round(
            (watch.first_after(TimelineBinned, started) - started) * 1000,
            1,  # type: ignore[operator]
        )
        assert isinstance(app.screen, SourceScreen)
        store_service = app.services.store
        verify = store_service.verify
        walk: dict[str, float] = {}

        def timed_verify(*args: Any, **kwargs: Any) -> Any:
            walk["start"] = time.perf_counter()
            try:
                return verify(*args, **kwargs)
            finally:
                walk["end"] = time.perf_counter()

        store_service.verify = timed_verify  # type: ignore[method-assign]
        # Best of three walks, as the CLI's figure is a best of runs too.
        elapsed_runs, walked_runs = [], []
        for _ in range(3):
            pressed_at = time.perf_counter()
            await pilot.press("v")
            await _until(
                pilot, partial(lambda since: watch.first_after(ChainVerified, since), pressed_at)
            )
            done_at = watch.first_after(ChainVerified, pressed_at)
            elapsed_runs.append(done_at - pressed_at)  # type: ignore[operator]
            walked_runs.append(walk["end"] - walk["start"])
            await pilot.press("escape")
            await pilot.pause()
        out["verify_100k_from_key_s"] = round(min(elapsed_runs), 3)
        walked = min(walked_runs)
        out["verify_100k_s"] = round(walked, 3)
        out["verify_records_per_s"] = round(CHAIN / walked)
        started = time.perf_counter()
        # Not ``pilot.press``: it returns only once the app is idle, i.e. after the walk.
        source_screen = app.screen
        app.call_later(source_screen.action_verify)  # type: ignore[attr-defined]
        await _until(pilot, lambda: isinstance(app.screen, VerifyScreen))
        await _until(pilot, lambda: watch.first_after(ChainVerifyProgressed, started) is not None)
        pressed = time.perf_counter()
        app.call_later(app.screen.action_cancel_or_close)  # type: ignore[attr-defined]
        await _until(pilot, lambda: watch.first_after(JobCancelled, pressed) is not None)
        out["verify_cancel_ms"] = round(
            (watch.first_after(JobCancelled, pressed) - pressed) * 1000,
            1,  # type: ignore[operator]
        )
        await pilot.press("ctrl+q")
    return out


def _cli_verify_rate(settings: Any, home: Path) -> float:
    """``harmwatch track verify`` on the 100,000-record chain, less its start-up."""
    env = {**os.environ, "TRACKING_DB_URL": settings.tracking_db_url, "HOME": str(home)}

    def run(source: str) -> float:
        started = time.perf_counter()
        subprocess.run(
            [str(HARMWATCH), "track", "verify", source],
            env=env,
            check=False,  # the start-up probe's source has a profile but no records: exit 1
            capture_output=True,
            timeout=300,
        )
        return time.perf_counter() - started

    small = min(run("listed-000001") for _ in range(2))
    large = min(run("chain-100k") for _ in range(2))
    return CHAIN / max(1e-6, large - small)


TRIAGE_LINES = 20_000


def _triage_file(home: Path) -> Path:
    """TRIAGE_LINES posts of 280 characters as JSONL (the perf corpus, repeated)."""
    import orjson

    from tests.perf.corpus import build_corpus

    texts = build_corpus()
    path = home / "posts.jsonl"
    with path.open("wb") as out:
        for number in range(TRIAGE_LINES):
            out.write(orjson.dumps({"text": texts[number % len(texts)]}) + b"\n")
    return path


def _cli_classify_rate(path: Path, home: Path) -> float:
    """``harmwatch classify --input`` on the same file, less its start-up (a 1-line file)."""
    one = home / "one.jsonl"
    with path.open("rb") as source:
        one.write_bytes(source.readline())
    env = {**os.environ, "HOME": str(home)}

    def run(file: Path) -> float:
        started = time.perf_counter()
        subprocess.run(
            [str(HARMWATCH), "classify", "--input", str(file), "--output", os.devnull],
            env=env,
            check=True,
            capture_output=True,
            timeout=600,
        )
        return time.perf_counter() - started

    small = min(run(one) for _ in range(2))
    large = min(run(path) for _ in range(2))
    return TRIAGE_LINES / max(1e-6, large - small)


def in_app_figures() -> dict[str, Any]:
    from engine import Settings

    with tempfile.TemporaryDirectory(prefix="hw-tui-perf-") as scratch:
        home = Path(scratch)
        settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{home / 'track.db'}")
        _seed_sources(settings, SOURCES)
        triage_file = _triage_file(home)
        figures = asyncio.run(_measure(settings, triage_file))
        cli_rate = _cli_verify_rate(settings, home)
        cli_triage = _cli_classify_rate(triage_file, home)
    figures["classify_input_texts_per_s"] = round(cli_triage)
    triage_ratio = figures["triage_texts_per_s"] / cli_triage
    figures["triage_ratio_to_classify_input"] = round(triage_ratio, 2)
    figures["track_verify_records_per_s"] = round(cli_rate)
    ratio = figures["verify_records_per_s"] / cli_rate
    figures["verify_ratio_to_track_verify"] = round(ratio, 2)
    figures["targets"] = {
        "verdict_after_debounce_ms_max": 50,
        "sources_first_page_ms_max": 150,
        "sources_any_page_ms_max": 100,
        "timeline_100k_binned_ms_max": 1000,
        "verify_ratio_min": 0.9,
        "verify_cancel_ms_max": 200,
        "verdict_met": figures["verdict_after_debounce_ms"] <= 50,
        "first_page_met": figures["sources_first_page_ms"] <= 150,
        "any_page_met": (figures["sources_any_page_ms_max"] or 0) <= 100,
        "timeline_met": figures["timeline_100k_binned_ms"] <= 1000,
        "verify_met": ratio >= 0.9,
        "triage_ratio_min": 0.9,
        "triage_met": triage_ratio >= 0.9,
        "triage_ui_lag_ms_max_target": 33,
        "triage_ui_met": figures["triage_ui_lag_ms_p95"] <= 33,
        "cancel_met": figures["verify_cancel_ms"] <= 200,
    }
    return figures


def workbench_section() -> dict[str, Any]:
    return {"startup": startup_figures(), "in_app": in_app_figures()}


if __name__ == "__main__":
    import json

    print(json.dumps(workbench_section(), indent=2))
