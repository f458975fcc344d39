"""The Classify screen driven by keys: live verdict, language, context, copy, observe.

Real engine (the session's classifier) and a real SQLite store in tmp_path;
assertions are on the messages the workers post and on what the widgets show.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TypeVar

import orjson
import pytest
from rich.style import Style
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static, TextArea

from engine import Settings
from tests.tui.conftest import FIXED_CLOCK, SIZE, AppFactory, settle, wait_ready
from workbench.tui.app import WorkbenchApp, create_app
from workbench.tui.messages import ClassifyFailed, TextClassified, TextObserved
from workbench.tui.screens import classify
from workbench.tui.screens.classify import ClassifyScreen
from workbench.tui.screens.observe import ObserveScreen
from workbench.tui.services import EngineService, Services, StoreService
from workbench.tui.themes import THEMES
from workbench.tui.widgets.signal_list import SignalList
from workbench.tui.widgets.span_view import SpanView
from workbench.tui.widgets.verdict_bar import VerdictBar

pytestmark = pytest.mark.anyio

T = TypeVar("T")
LIGHT_SEV_3 = next(theme for theme in THEMES if theme.name == "harmwatch-light").variables["sev-3"]
HARMFUL = "Those migrants are vermin."
BENIGN = "Newcomers opened a bakery on our street."


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def shown(widget: Static) -> str:
    content = widget.content
    return content.plain if isinstance(content, Text) else str(content)


def verdict_of(app: WorkbenchApp) -> str:
    return shown(app.screen.query_one("#classify-verdict", VerdictBar))


def spans_of(app: WorkbenchApp) -> str:
    return shown(app.screen.query_one(SpanView).query_one("#span-text", Static))


def signals_of(app: WorkbenchApp) -> str:
    return shown(app.screen.query_one(SignalList).query_one("#signal-lines", Static))


def of_type(seen: list[object], kind: type[T]) -> list[T]:
    """Messages of one type, each once (a message bubbling to the app is seen twice)."""
    unique = {id(message): message for message in seen if isinstance(message, kind)}
    return list(unique.values())


def notices(app: WorkbenchApp) -> list[str]:
    """The toasts on screen (textual keeps them on the app)."""
    return [notification.message for notification in app._notifications]


def classify_screen(app: WorkbenchApp) -> ClassifyScreen:
    screen = app.screen
    assert isinstance(screen, ClassifyScreen)
    return screen


async def show(pilot: Pilot[None], text: str, language: str | None = None) -> None:
    classify_screen(pilot.app).load_text(text, language)  # type: ignore[arg-type]
    await settle(pilot)


async def test_opens_on_the_focused_text_box(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        editor = app.screen.query_one("#classify-editor", TextArea)
        assert app.focused is editor
        assert editor.tab_behavior == "focus"
        assert "Type or paste" in verdict_of(app)
        assert app.screen.query_one("#classify-language", Select).value == "en"


async def test_typing_quickly_classifies_once_for_the_last_text(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A long debounce keeps a busy test machine from classifying between two keys.
    monkeypatch.setattr(classify, "DEBOUNCE_SECONDS", 0.5)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"vermin")
        await settle(pilot)
        screen = classify_screen(app)
        editor = app.screen.query_one("#classify-editor", TextArea)
        assert editor.text == "vermin"
        classified = of_type(seen, TextClassified)
        assert len(classified) == 1
        assert classified[0].generation == screen.generation
        assert classified[0].text == "vermin"
        assert screen.result_text == "vermin"


async def test_a_harmful_and_a_benign_text(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        verdict = verdict_of(app)
        assert verdict.lstrip().startswith("HARMFUL")
        assert "0.850 ≥ 0.650" in verdict
        assert "ANIMALIZATION (3)" in verdict
        assert "migration_status" in verdict
        assert "D2.4a-001" in signals_of(app)
        assert spans_of(app) == HARMFUL

        await show(pilot, BENIGN)
        assert verdict_of(app).lstrip().startswith("NOT HARMFUL")
        assert "< 0.650" in verdict_of(app)
        assert "no signal matched" in signals_of(app)


async def test_empty_text_clears_the_verdict(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await show(pilot, "   \n ")
        assert classify_screen(app).result is None
        assert "Type or paste" in verdict_of(app)
        assert spans_of(app) == ""


async def test_text_over_the_limit_names_the_limit(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        limit = app.services.engine.max_text_chars
        await show(pilot, "x" * (limit + 1))
        assert any(isinstance(m, ClassifyFailed) for m in seen)
        verdict = verdict_of(app)
        assert verdict.startswith("Cannot classify this text:")
        assert f"the limit is {limit}" in verdict
        assert classify_screen(app).result is None


async def test_load_text_sets_the_language_and_classifies(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await show(pilot, "بصراحة المهاجرون حشرات", "ar")
        screen = classify_screen(app)
        assert screen.language == "ar"
        assert app.screen.query_one("#classify-language", Select).value == "ar"
        classified = of_type(seen, TextClassified)
        assert classified[-1].result.language == "ar"
        assert classified[-1].result.is_harmful
        assert "language ar" in verdict_of(app)


async def test_f6_opens_the_languages_and_a_choice_reclassifies(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("f6")
        await pilot.pause()
        select = app.screen.query_one("#classify-language", Select)
        assert select.expanded
        second = app.services.engine.languages[1]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert select.value == second
        assert app.focused is app.screen.query_one("#classify-editor", TextArea)
        assert classify_screen(app).language == second
        assert f"language {second}" in verdict_of(app)


async def test_f6_auto_identifies_the_language_of_the_text(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press("f6")
        await pilot.pause()
        select = app.screen.query_one("#classify-language", Select)
        await pilot.press(*["down"] * len(app.services.engine.languages), "enter")
        await settle(pilot)
        assert select.value == "auto"
        await show(pilot, "El autobús llegó tarde otra vez esta mañana, así que fuimos andando.")
        result = classify_screen(app).result
        assert result is not None and result.language == "es"
        assert result.language_detected is not None and result.language_detected.code == "es"
        assert "language es (verified) · identified es 0." in verdict_of(app)


async def test_a_theme_switch_recolours_the_spans(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("ctrl+t")
        await settle(pilot)
        assert app.theme == "harmwatch-light"
        body = app.screen.query_one(SpanView).query_one("#span-text", Static).content
        assert isinstance(body, Text)
        backgrounds = {
            str(span.style.bgcolor.name)
            for span in body.spans
            if isinstance(span.style, Style) and span.style.bgcolor is not None
        }
        assert backgrounds == {LIGHT_SEV_3}


async def test_f7_context_names_the_target_of_a_pronoun(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, "They are vermin.")
        assert verdict_of(app).lstrip().startswith("NOT HARMFUL")
        await pilot.press("f7")
        await pilot.pause()
        field = app.screen.query_one("#classify-context", Input)
        assert field.display and app.focused is field
        field.value = "More refugees arrived in town today."
        await settle(pilot)
        assert verdict_of(app).lstrip().startswith("HARMFUL")


async def test_f8_details_and_f9_copies_the_json(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        result = classify_screen(app).result
        assert result is not None
        assert "content hash" not in verdict_of(app)
        await pilot.press("f8")
        await pilot.pause()
        assert f"content hash {result.content_hash[:12]}…" in verdict_of(app)
        assert "taxonomy 1.0.0" in verdict_of(app)
        await pilot.press("f9")
        await pilot.pause()
        assert orjson.loads(app.clipboard) == result.to_dict()


async def test_f10_records_the_text_as_an_observation(make_app: AppFactory) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("f10")
        await pilot.pause()
        assert isinstance(app.screen, ObserveScreen)
        app.screen.query_one("#observe-source", Input).value = "forum-alice"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ClassifyScreen)
        observed = of_type(seen, TextObserved)
        assert len(observed) == 1
        assert observed[0].observation.seq == 1
        assert observed[0].observation.source_id == "forum-alice"
        profile = await asyncio.to_thread(app.services.store.profile, "forum-alice")
        assert profile.observation_count == 1
        assert profile.current_severity == 3
        assert f"recorded as seq 1 of forum-alice; risk {profile.risk_level}" in notices(app)


async def test_f10_records_an_optional_publication_time_and_url(make_app: AppFactory) -> None:
    """The dialog's two optional fields go into the record as observe's evidence; a bad
    value is explained in the dialog, naming the field, and nothing is recorded until fixed.
    (The app's clock is fixed at 2026-03-01 12:00 UTC, so a later time is in the future.)"""
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("f10")
        await pilot.pause()
        assert isinstance(app.screen, ObserveScreen)
        dialog = app.screen
        dialog.query_one("#observe-source", Input).value = "forum-carol"
        published = dialog.query_one("#observe-published", Input)
        url = dialog.query_one("#observe-url", Input)
        for bad_time, bad_url, needle in [
            ("2026-01-02 03:04", "", "published_at has no time zone"),
            ("yesterday", "", "published_at must be an ISO-8601"),
            ("2026-03-02T12:00:00Z", "", "published_at lies 86400 s in the future"),
            ("", "ftp://example.org/x", "url must be an http:// or https:// URL"),
        ]:
            published.value, url.value = bad_time, bad_url
            published.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert app.screen is dialog
            assert shown(dialog.query_one("#observe-error", Static)).startswith(needle)
        assert not of_type(seen, TextObserved)
        published.value = "2026-02-10T08:30:00+01:00"
        url.value = "https://example.org/thread/7"
        url.focus()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ClassifyScreen)
        observed = of_type(seen, TextObserved)
        assert len(observed) == 1
        observation = observed[0].observation
        assert (observation.source_id, observation.seq) == ("forum-carol", 1)
        assert observation.published_at == "2026-02-10T07:30:00.000000Z"
        assert observation.url == "https://example.org/thread/7"
        assert observation.record_version == 2
        profile = await asyncio.to_thread(app.services.store.profile, "forum-carol")
        assert profile.last_observed_at == "2026-02-10T07:30:00.000000Z"
        # Blank fields: published "now" (the append's own clock), no url.
        await pilot.press("f10")
        await pilot.pause()
        app.screen.query_one("#observe-source", Input).value = "forum-carol"
        await pilot.press("enter")
        await settle(pilot)
        second = of_type(seen, TextObserved)[-1].observation
        assert second.seq == 2 and second.url is None
        assert second.published_at == second.observed_at


async def test_f10_completes_a_known_source(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("f10")
        app.screen.query_one("#observe-source", Input).value = "forum-bob"
        await pilot.press("enter")
        await settle(pilot)
        await show(pilot, BENIGN)
        await pilot.press("f10")
        await pilot.pause()
        await pilot.press(*"forum-b")
        await settle(pilot)
        await pilot.press("right")
        field = app.screen.query_one("#observe-source", Input)
        assert field.value == "forum-bob"
        await pilot.press("enter")
        await settle(pilot)
        profile = await asyncio.to_thread(app.services.store.profile, "forum-bob")
        assert profile.observation_count == 2


@pytest.mark.parametrize(("source_id", "problem"), [("two words", "whitespace"), ("a/b", "'/'")])
async def test_f10_refuses_an_invalid_source_id(
    make_app: AppFactory, source_id: str, problem: str
) -> None:
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        await show(pilot, HARMFUL)
        await pilot.press("f10")
        await pilot.pause()
        app.screen.query_one("#observe-source", Input).value = source_id
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ObserveScreen)
        error = shown(app.screen.query_one("#observe-error", Static))
        assert error.startswith("source_id must not contain")
        assert problem in error
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ClassifyScreen)
        assert not any(isinstance(m, TextObserved) for m in seen)
        assert await asyncio.to_thread(app.services.store.count_sources) == 0


async def test_f10_with_the_store_unavailable_writes_nothing(
    tmp_path: Path, make_app: AppFactory
) -> None:
    not_a_db = tmp_path / "notes.db"
    not_a_db.write_bytes(b"not a database\n" * 100)
    app = make_app(settings=Settings(tracking_db_url=f"sqlite:///{not_a_db}"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        assert app.store_status == "unavailable"
        await show(pilot, HARMFUL)
        await pilot.press("f10")
        await pilot.pause()
        assert isinstance(app.screen, ClassifyScreen)
        (notice,) = [n for n in notices(app) if "nothing was recorded" in n]
        assert notice.startswith("The tracking store is unavailable (")
    assert not_a_db.read_bytes() == b"not a database\n" * 100


async def test_escape_cancels_a_pending_classification(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(classify, "DEBOUNCE_SECONDS", 5.0)
    seen: list[object] = []
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await wait_ready(pilot)
        screen = classify_screen(app)
        assert not screen.cancel_job()
        screen.load_text(HARMFUL, None)
        await pilot.pause()
        assert screen.cancel_job()
        await pilot.pause(0.2)
        assert not any(isinstance(m, TextClassified) for m in seen)
        assert not screen.cancel_job()


class NeverLoads(EngineService):
    """An engine whose taxonomy cannot be read."""

    def load(self):  # type: ignore[no-untyped-def]
        raise OSError("taxonomy_v1.yaml: permission denied")


async def test_a_taxonomy_that_failed_to_load_is_said(tmp_path: Path) -> None:
    settings = Settings(tracking_db_url=f"sqlite:///{tmp_path / 'track.db'}")
    services = Services(NeverLoads(settings), StoreService(settings), FIXED_CLOCK)
    app = create_app(settings, services=services, still=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        await pilot.press(*"abc")
        await settle(pilot)
        verdict = verdict_of(app)
        assert verdict.startswith("The taxonomy failed to load:")
        assert "permission denied" in verdict
