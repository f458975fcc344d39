"""The Source screen issues and checks signed checkpoints (issue 13).

``c`` signs a checkpoint of the source's head into HARMWATCH_CHECKPOINT_DIR, or
asks for a file when none is set; ``v`` verifies against the latest saved one
(as ``track verify``), ``V`` against a file the analyst chooses. An insider who
rewrites the chain with the key is caught by the checkpoint issued before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from engine import Settings
from store import append, open_store
from store.trust import Trust
from tests.tamper_support import rewrite, rows
from tests.tui.conftest import SIZE, T0, AppFactory, settle, wait_ready
from workbench.tui.messages import ChainVerified, CheckpointIssued, JobFailed
from workbench.tui.screens.open_file import ExportDialog
from workbench.tui.screens.source import SourceScreen
from workbench.tui.screens.verify import VerifyScreen
from workbench.tui.services import EngineService

SOURCE = "forum:vermin"
TEXTS = ("Muslims are vermin", "The bus was late again", "We should kill all the refugees")
SECRET = "tui-hmac-secret-" + "3" * 24


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def signed(settings: Settings, **extra: Any) -> Settings:
    return Settings(tracking_db_url=settings.tracking_db_url, signing_key=SECRET, **extra)


def seed_signed(settings: Settings, engine: EngineService) -> None:
    trust = Trust.from_settings(settings)
    store = open_store(settings)
    rules = engine.tracking_rules()
    try:
        for number, text in enumerate(TEXTS):
            with store.transaction(write=True) as session:
                append(
                    SOURCE,
                    engine.classify(text),
                    text=text,
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=T0.replace(hour=number),
                    signer=trust.signer,
                )
    finally:
        store.dispose()


def insider_rewrite(settings: Settings, engine: EngineService) -> None:
    """Every record softened to severity 0, re-signed with the key, the profile recomputed."""
    store = open_store(settings)
    try:
        records = rows(store, SOURCE)
        softened = [{**r, "severity": 0, "harm_mechanism": None} for r in records]
        rewrite(
            store,
            engine.tracking_rules(),
            softened,
            signer=Trust.from_settings(settings).signer,
            source=SOURCE,
        )
    finally:
        store.dispose()


def outcome(app: Any) -> str:
    return str(app.screen.query_one("#verify-outcome", Static).render())


async def open_source(pilot: Any) -> None:
    await wait_ready(pilot)
    pilot.app.call_later(pilot.app.open_source, SOURCE)
    await settle(pilot)
    assert isinstance(pilot.app.screen, SourceScreen)


@pytest.mark.anyio
async def test_c_saves_into_the_checkpoint_dir_and_v_catches_a_rewrite_with_the_key(
    make_app: AppFactory, tui_settings: Settings, engine_service: EngineService, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoints"
    settings = signed(tui_settings, checkpoint_dir=folder)
    seed_signed(settings, engine_service)
    seen: list[object] = []
    app = make_app(settings=settings)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_source(pilot)
        await pilot.press("c")
        await settle(pilot)
        issued = [m for m in seen if isinstance(m, CheckpointIssued)]
        assert [(m.source_id, m.seq) for m in issued] == [(SOURCE, 3)]
        saved = json.loads(Path(issued[0].path).read_text())
        assert saved["seq"] == 3 and saved["algorithm"] == "hmac-sha256"
        assert Path(issued[0].path).parent.parent == folder
        await pilot.press("v")
        await settle(pilot)
        assert isinstance(app.screen, VerifyScreen)
        assert "intact, 3 records" in outcome(app)
        await pilot.press("escape")
        await settle(pilot)
        insider_rewrite(settings, engine_service)
        await pilot.press("v")
        await settle(pilot)
        verified = [m for m in seen if isinstance(m, ChainVerified)][-1]
        assert not verified.result.intact
        assert verified.result.first_broken_seq == 3
        assert "checkpoint of seq 3" in (verified.result.reason or "")
        assert "broken at seq 3" in outcome(app)


@pytest.mark.anyio
async def test_without_a_dir_c_asks_for_a_file_and_shift_v_verifies_against_it(
    make_app: AppFactory, tui_settings: Settings, engine_service: EngineService, tmp_path: Path
) -> None:
    settings = signed(tui_settings)
    seed_signed(settings, engine_service)
    target = tmp_path / "cp.json"
    seen: list[object] = []
    app = make_app(settings=settings)
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await open_source(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)
        assert "signed checkpoint" in str(app.screen.query_one("#export-title", Static).render())
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SourceScreen)
        assert json.loads(target.read_text())["seq"] == 3
        # V: verify against that very file.
        await pilot.press("V")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)
        app.screen.query_one("#export-path", Input).value = str(target)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, VerifyScreen)
        assert "against cp.json" in str(app.screen.query_one("#verify-title").render())
        assert "intact, 3 records" in outcome(app)
        await pilot.press("escape")
        await settle(pilot)
        # A checkpoint altered by someone without the key is refused, not trusted.
        forged = tmp_path / "forged.json"
        forged.write_text(json.dumps({**json.loads(target.read_text()), "seq": 2}))
        await pilot.press("V")
        await settle(pilot)
        app.screen.query_one("#export-path", Input).value = str(forged)
        await pilot.press("enter")
        await settle(pilot)
        failures = [m for m in seen if isinstance(m, JobFailed) and m.job == "verify"]
        assert failures and "does not verify" in failures[-1].reason
        assert "does not verify" in outcome(app)


@pytest.mark.anyio
async def test_c_without_a_signing_key_says_how_to_get_one(
    make_app: AppFactory, tui_settings: Settings, engine_service: EngineService
) -> None:
    seed_signed(tui_settings, engine_service)  # no key: unsigned records
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await open_source(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, SourceScreen)
        messages = [n.message for n in app._notifications]
        assert any("HARMWATCH_SIGNING_KEY" in m for m in messages)
