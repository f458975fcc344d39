"""The Triage screen driven by keys: open, classify, filter, open in Classify, record, follow,
cancel, and errors shown rather than raised."""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static, Switch

from engine import Settings
from store import get_profile, open_store
from tests.tui.conftest import SIZE, AppFactory, settle, wait_ready
from workbench.tui.messages import (
    JobCancelled,
    TriageBatchClassified,
    TriageFinished,
    TriageNotice,
    TriageStarted,
)
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.screens.open_file import OpenFileDialog, suggest_path
from workbench.tui.screens.triage import TriageScreen
from workbench.tui.triage_job import TriageOptions

pytestmark = pytest.mark.anyio

HARMFUL = [
    "Those refugees are cockroaches infesting our cities",
    "Muslims are a disease spreading through Europe",
    "All immigrants are vermin and should be exterminated",
]
BENIGN = [
    "The train was late again this morning",
    "Our new neighbours brought us a cake",
    "The weather is lovely today",
]
NEGATED = "It is not true that immigrants are vermin"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
    return path


def mixed(count: int) -> list[dict[str, object]]:
    """``count`` rows: every third harmful, the others benign or negated."""
    texts = [*HARMFUL, *BENIGN, NEGATED]
    return [{"text": texts[number % len(texts)]} for number in range(count)]


async def open_triage(pilot: Pilot[None]) -> TriageScreen:
    await wait_ready(pilot)
    await pilot.press("f3")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TriageScreen)
    return screen


async def wait_for(pilot: Pilot[None], condition: object, seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if callable(condition) and condition():
            return
        await pilot.pause(0.02)
    raise AssertionError("condition not met in time")


async def run_file(pilot: Pilot[None], options: TriageOptions) -> TriageScreen:
    screen = await open_triage(pilot)
    screen.start(options)
    await settle(pilot)
    return screen


def status(screen: TriageScreen) -> str:
    return str(screen.query_one("#triage-status", Static).render())


async def test_a_thousand_rows_are_all_classified(make_app: AppFactory, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "feed.jsonl", mixed(1000))
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await run_file(pilot, TriageOptions(path))
        started = [m for m in seen if isinstance(m, TriageStarted)]
        assert [(m.path, m.total) for m in started] == [("feed.jsonl", 1000)]
        finished = [m for m in seen if isinstance(m, TriageFinished)]
        assert len(finished) == 1 and finished[0].done == 1000 and finished[0].error is None
        batches = [m for m in seen if isinstance(m, TriageBatchClassified)]
        assert sum(len(m.rows) for m in batches) == 1000
        assert len(batches) <= 11  # a message per batch at most, never one per row
        assert len(screen.rows) == 1000
        assert [row.line for row in screen.rows] == list(range(1, 1001))
        assert screen.progress.done == 1000 and screen.progress.total == 1000
        assert screen.table.total == 1000
        assert screen.harmful == sum(row.result.is_harmful for row in screen.rows) > 0
        assert "1,000 rows" in status(screen)


async def test_h_shows_harmful_rows_only(make_app: AppFactory, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "feed.jsonl", mixed(14))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_file(pilot, TriageOptions(path))
        harmful = [row.line for row in screen.rows if row.result.is_harmful]
        assert 0 < len(harmful) < 14
        await pilot.press("h")
        await pilot.pause()
        assert screen.table.total == len(harmful)
        shown = [screen.table.row_at(index) for index in range(screen.table.total)]
        assert [int(str(row[0])) for row in shown if row] == harmful
        assert all(str(row[1]) == "HARMFUL" for row in shown if row)
        await pilot.press("h")
        await pilot.pause()
        assert screen.table.total == 14
        await pilot.press("s")
        await pilot.pause()
        assert screen.table.total == sum(bool(r.result.signals_suppressed) for r in screen.rows)
        await pilot.press("s", "m")
        await pilot.pause()
        first = sorted(screen.mechanisms)[0]
        assert screen.mechanism == first
        assert screen.table.total == screen.mechanisms[first]


async def test_enter_opens_the_row_in_classify(
    make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[tuple[str, str | None]] = []
    monkeypatch.setattr(
        ClassifyScreen, "load_text", lambda self, text, language: loaded.append((text, language))
    )
    path = tmp_path / "posts.csv"
    path.write_text(f"body,lang\n{BENIGN[0]},en\n{HARMFUL[0]},en\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_file(pilot, TriageOptions(path, text_col="body", language_col="lang"))
        screen.table.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ClassifyScreen)
        assert loaded == [(HARMFUL[0], "en")]


async def test_rows_are_recorded_into_their_sources(
    make_app: AppFactory, tmp_path: Path, tui_settings: Settings
) -> None:
    records: list[dict[str, object]] = []
    for number in range(30):
        source = ["acct-a", "acct-b", "acct-c"][number % 3]
        records.append({"text": (HARMFUL + BENIGN)[number % 6], "src": source})
    records.append({"text": BENIGN[0], "src": "not a valid id!"})
    records.append({"text": BENIGN[1], "src": ""})
    path = write_jsonl(tmp_path / "feed.jsonl", records)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await run_file(pilot, TriageOptions(path, source_col="src", record=True))
        finished = [m for m in seen if isinstance(m, TriageFinished)]
        assert [(m.done, m.recorded, m.error) for m in finished] == [(32, 30, None)]
        assert screen.not_recorded == 2
        assert "30 recorded, 2 not" in status(screen)
        problems = str(screen.query_one("#triage-error", Static).render())
        assert problems.startswith("not recorded: line 31: ")
    store = open_store(tui_settings)
    try:
        with store.transaction() as session:
            counts = {
                source: get_profile(source, session=session).observation_count
                for source in ("acct-a", "acct-b", "acct-c")
            }
    finally:
        store.dispose()
    assert counts == {"acct-a": 10, "acct-b": 10, "acct-c": 10}


async def test_a_followed_file_is_classified_as_it_grows(
    make_app: AppFactory, tmp_path: Path
) -> None:
    path = tmp_path / "feed.jsonl"

    def lines(*texts: str) -> bytes:
        return b"".join(orjson.dumps({"text": text}) + b"\n" for text in texts)

    path.write_bytes(lines("first", HARMFUL[0]))
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_triage(pilot)
        screen.start(TriageOptions(path, follow=True))
        await wait_for(pilot, lambda: len(screen.rows) == 2)
        with path.open("ab") as out:
            out.write(lines("third")[:6])  # half a line: waits for its newline
        await pilot.pause(0.3)
        assert len(screen.rows) == 2
        with path.open("ab") as out:
            out.write(lines("third")[6:] + lines("fourth"))
        await wait_for(pilot, lambda: len(screen.rows) == 4)
        path.write_bytes(lines("fifth"))  # truncated
        await wait_for(pilot, lambda: len(screen.rows) == 5)
        path.replace(tmp_path / "feed.jsonl.1")  # rotated
        path.write_bytes(lines("sixth", HARMFUL[1]))
        await wait_for(pilot, lambda: len(screen.rows) == 7)
        assert screen.running
        assert screen.progress.total is None and screen.progress.done == 7
        await pilot.press("escape")
        await settle(pilot)
        assert not screen.running
        texts = [row.text for row in screen.rows]
        assert texts == ["first", HARMFUL[0], "third", "fourth", "fifth", "sixth", HARMFUL[1]]
        notices = [m.text for m in seen if isinstance(m, TriageNotice)]
        assert notices == [
            "feed.jsonl was truncated; reading it again from its start",
            "feed.jsonl was replaced; reading the new file from its start",
        ]
        assert any(isinstance(m, JobCancelled) and m.job == "triage" for m in seen)
        assert "replaced" in status(screen)


async def test_escape_cancels_a_big_job(make_app: AppFactory, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "big.jsonl", mixed(200_000))
    seen: list[object] = []
    cancelled_at: list[float] = []

    def hook(message: object) -> None:
        seen.append(message)
        if isinstance(message, JobCancelled):
            cancelled_at.append(time.monotonic())

    app = make_app()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = await open_triage(pilot)
        screen.start(TriageOptions(path))
        await wait_for(pilot, lambda: len(screen.rows) > 0)
        assert screen.running
        pressed = time.monotonic()
        await pilot.press("escape")
        await settle(pilot)
        assert cancelled_at and cancelled_at[0] - pressed < 0.5  # 200 ms is the target
        assert any(isinstance(m, JobCancelled) and m.job == "triage" for m in seen)
        assert not any(isinstance(m, TriageFinished) for m in seen)
        assert 0 < len(screen.rows) < 200_000
        assert not screen.progress.running


async def test_quit_while_a_job_runs(make_app: AppFactory, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "big.jsonl", mixed(100_000))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_triage(pilot)
        screen.start(TriageOptions(path, follow=True))
        await wait_for(pilot, lambda: len(screen.rows) > 0)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_a_malformed_file_shows_its_error(make_app: AppFactory, tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_bytes(b'{"text": "fine"}\n{"text": "cut off\n')
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await run_file(pilot, TriageOptions(path))
        error = str(screen.query_one("#triage-error", Static).render())
        assert error.startswith("broken.jsonl:2: invalid JSON")
        assert str(tmp_path) not in error
        assert [row.text for row in screen.rows] == ["fine"]


async def test_the_dialog_opens_a_file_and_reports_mistakes(
    make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "posts.jsonl", [{"text": BENIGN[0]}, {"text": HARMFUL[0]}])
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        screen = await open_triage(pilot)
        await pilot.press("o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, OpenFileDialog)
        await pilot.press(*"missing.jsonl", "enter")
        await pilot.pause()
        error = str(dialog.query_one("#open-error").render())
        assert error == "missing.jsonl: no such file"
        dialog.query_one("#open-record", Switch).value = True
        dialog.query_one("#open-path", Input).value = "posts.jsonl"
        await pilot.press("enter")
        await pilot.pause()
        assert "needs a source column" in str(dialog.query_one("#open-error").render())
        dialog.query_one("#open-record", Switch).value = False
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert len(screen.rows) == 2
        assert screen.options is not None and screen.options.path == Path("posts.jsonl")


async def test_w_writes_the_results(
    make_app: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_jsonl(tmp_path / "posts.jsonl", mixed(5))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await run_file(pilot, TriageOptions(path))
        await pilot.press("w")
        await pilot.pause()
        assert app.screen.query_one("#export-path", Input).value == "posts.results.jsonl"
        await pilot.press("enter")
        await settle(pilot)
    lines = (tmp_path / "posts.results.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["line"] for line in lines] == [1, 2, 3, 4, 5]


def test_path_suggestions(tmp_path: Path) -> None:
    (tmp_path / "feed.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "folder").mkdir()
    (tmp_path / ".hidden.jsonl").write_text("", encoding="utf-8")
    assert suggest_path(f"{tmp_path}/fe") == f"{tmp_path}/feed.jsonl"
    assert suggest_path(f"{tmp_path}/fo") == f"{tmp_path}/folder/"
    assert suggest_path(f"{tmp_path}/x") is None
    assert suggest_path(f"{tmp_path}/") == f"{tmp_path}/feed.jsonl"
    assert suggest_path(f"{tmp_path}/.h") == f"{tmp_path}/.hidden.jsonl"
