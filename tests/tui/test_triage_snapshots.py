"""Snapshots of the Triage screen: results of a small file, a followed file, the open dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.pilot import Pilot

from tests.tui.conftest import SIZE, AppFactory, settle, wait_ready
from workbench.tui.screens.triage import TriageScreen
from workbench.tui.triage_job import TriageOptions

TEXTS = [
    "Those refugees are cockroaches infesting our cities",
    "The train was late again this morning",
    "It is not true that immigrants are vermin",
    "Muslims are a disease spreading through Europe",
    "Our new neighbours brought us a cake",
    "All immigrants are vermin and should be exterminated",
    "Saying that immigrants are vermin is disgusting and wrong",
    "The weather is lovely today",
]


def write_jsonl(path: Path, texts: list[str]) -> Path:
    path.write_bytes(b"".join(orjson.dumps({"text": text}) + b"\n" for text in texts))
    return path


async def triage_screen(pilot: Pilot[None]) -> TriageScreen:
    await wait_ready(pilot)
    await pilot.press("f3")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TriageScreen)
    return screen


def test_triage_results(snap_compare: Any, make_app: AppFactory, tmp_path: Path) -> None:
    """Eight rows of a JSONL file, triaged.

    You should see "posts.jsonl · 8 rows · 3 harmful · 2 suppressed",
    the progress line "8/8 rows · 0/s · done", the counters (animalization 1 ·
    demonization 1 · direct_call_to_violence 1), and the table: lines 1-8 with
    HARMFUL on lines 1, 4 and 6, a suppressed count of 1 on lines 3 and 7.
    """
    path = write_jsonl(tmp_path / "posts.jsonl", TEXTS)

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await triage_screen(pilot)
        screen.start(TriageOptions(path))
        await settle(pilot)

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_triage_following(snap_compare: Any, make_app: AppFactory, tmp_path: Path) -> None:
    """A followed file after it grew from four lines to six.

    You should see "posts.jsonl · 6 rows · 3 harmful · 1 suppressed", the
    progress line "following · 6 rows seen · 0/s · esc cancels", and six rows
    in the table (lines 1-6, HARMFUL on 1, 4 and 6).
    """
    path = write_jsonl(tmp_path / "posts.jsonl", TEXTS[:4])

    async def run_before(pilot: Pilot[None]) -> None:
        screen = await triage_screen(pilot)
        screen.start(TriageOptions(path, follow=True))
        await until(pilot, lambda: len(screen.rows) == 4)
        with path.open("ab") as out:
            out.write(b"".join(orjson.dumps({"text": t}) + b"\n" for t in TEXTS[4:6]))
        await until(pilot, lambda: len(screen.rows) == 6)
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


def test_open_dialog_with_an_error(
    snap_compare: Any, make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open-file dialog after asking for a file that does not exist.

    You should see the dialog "Open a file to triage (.jsonl or .csv)" with
    "missing.jsonl" in the path field, the column fields (text column "text",
    the others empty), the two switches off, and the error
    "missing.jsonl: no such file" above the Open and Cancel buttons.
    """
    monkeypatch.chdir(tmp_path)

    async def run_before(pilot: Pilot[None]) -> None:
        await triage_screen(pilot)
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"missing.jsonl", "enter")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=SIZE, run_before=run_before)


async def until(pilot: Pilot[None], condition: Any) -> None:
    for _ in range(500):
        if condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not met in time")
