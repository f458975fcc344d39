"""Evidence on read-only media (issue 14): reading a tracking file never changes it.

A chain is written, the file copied and frozen (the file chmod 0444, or its
directory 0555), and ``track list/show/verify/export`` run on it through the
CLI: each must answer, and the file's sha256 and its directory's listing must
be what they were (no ``-wal``/``-shm`` appears). A rollback-journal copy is
included because a plain open switched such a copy to WAL mode, rewriting its
header. Permission bits, not ``os.access``, decide what is frozen, so these
tests mean the same run as root or as a user.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from api import create_app
from engine import Classifier, Settings
from store import StoreMisconfigured, StoreReadOnly, TrackingRules, append, open_store
from tests.cli_support import isolate_cli
from tests.store_fixtures import at, classified
from workbench.cli import app

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest_plugins = ["tests.store_fixtures"]

SOURCES = {"acct:1": [0, 2, 3, 4, 1], "acct:2": [4, 4]}


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier, rules: TrackingRules
) -> None:
    isolate_cli(monkeypatch, tmp_path)
    monkeypatch.setattr("workbench.commands.track.build_classifier", lambda _s: classifier)
    # The shipped taxonomy's rules, loaded once (each command would load the taxonomy again).
    monkeypatch.setattr("workbench.commands.track._rules", lambda _s: rules)


def _write_chain(path: Path, rules: TrackingRules) -> None:
    store = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{path}"))
    try:
        step = 0
        for source, severities in SOURCES.items():
            for severity in severities:
                step += 1
                text = f"{source} text {step}"
                with store.transaction(write=True) as session:
                    append(
                        source,
                        classified(severity, text),
                        text=text,
                        store_text=True,
                        rules=rules,
                        session=session,
                        observed_at=at(step),
                    )
    finally:
        store.dispose()


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory, rules: TrackingRules) -> Path:
    path = tmp_path_factory.mktemp("original") / "tracking.sqlite3"
    _write_chain(path, rules)
    return path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _journal_mode(path: Path) -> str:
    """The mode the file's header records (bytes 18-19: 2 = WAL, 1 = rollback)."""
    return "wal" if path.read_bytes()[18] == 2 else "delete"


@pytest.fixture
def frozen_copy(request: pytest.FixtureRequest, original: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the chain, frozen as ``request.param`` says: "file-wal", "file-delete",
    "directory-wal"; the permissions are restored at teardown so tmp_path can be removed."""
    how, journal = request.param.split("-")
    directory = tmp_path / "evidence"
    directory.mkdir()
    copy = directory / "tracking.sqlite3"
    shutil.copyfile(original, copy)
    if journal == "delete":
        with sqlite3.connect(copy) as conn:
            conn.execute("PRAGMA journal_mode = DELETE")
        conn.close()
    assert _journal_mode(copy) == journal
    if how == "file":
        copy.chmod(0o444)
    else:
        directory.chmod(0o555)
    try:
        yield copy
    finally:
        directory.chmod(0o755)
        copy.chmod(0o644)


def run(args: list[str], path: Path, **kwargs: Any) -> Result:
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{path}")
    return CliRunner().invoke(app, args, obj=settings, **kwargs)


def ok_json(args: list[str], path: Path) -> Any:
    result = run([*args, "--json"], path)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return orjson.loads(result.stdout)


FROZEN = ["file-wal", "file-delete", "directory-wal"]


@pytest.mark.parametrize("frozen_copy", FROZEN, indirect=True)
def test_reading_a_frozen_copy_changes_nothing(frozen_copy: Path, tmp_path: Path) -> None:
    before = _sha256(frozen_copy)
    listing = sorted(p.name for p in frozen_copy.parent.iterdir())

    assert ok_json(["track", "list"], frozen_copy)["total"] == 2
    shown = ok_json(["track", "show", "acct:1"], frozen_copy)
    assert shown["profile"]["observation_count"] == 5
    assert [o["seq"] for o in shown["observations"]] == [5, 4, 3, 2, 1]
    every = ok_json(["track", "verify", "--all"], frozen_copy)
    assert (every["intact"], every["sources"]) == (True, 2)
    assert ok_json(["track", "verify", "acct:2"], frozen_copy)["checked"] == 2
    exported = run(["track", "export", "acct:1"], frozen_copy)
    assert exported.exit_code == 0, exported.stderr
    assert [orjson.loads(line)["seq"] for line in exported.stdout.splitlines()] == [1, 2, 3, 4, 5]
    target = tmp_path / "acct1.jsonl"
    assert ok_json(["track", "export", "acct:1", "-o", str(target)], frozen_copy)["records"] == 5

    assert _sha256(frozen_copy) == before
    assert sorted(p.name for p in frozen_copy.parent.iterdir()) == listing  # no -wal, no -shm


@pytest.mark.parametrize("frozen_copy", FROZEN, indirect=True)
def test_a_write_to_a_frozen_copy_is_one_line(frozen_copy: Path) -> None:
    before = _sha256(frozen_copy)
    result = run(["track", "observe", "acct:1", "A lovely walk today."], frozen_copy)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "is read-only" in lines[0]
    assert "Traceback" not in result.output
    assert _sha256(frozen_copy) == before


def test_a_writable_copy_is_read_without_changing_it(original: Path, tmp_path: Path) -> None:
    """The issue's case: a copy in rollback-journal mode that a verify used to switch to WAL."""
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(original, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    before = _sha256(copy)
    assert ok_json(["track", "verify", "--all"], copy)["intact"]
    assert ok_json(["track", "show", "acct:2"], copy)["profile"]["observation_count"] == 2
    assert _sha256(copy) == before
    assert _journal_mode(copy) == "delete"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("copy.sqlite3-")]


def test_a_write_ahead_log_with_records_is_read_not_ignored(
    original: Path, tmp_path: Path, rules: TrackingRules
) -> None:
    """A frozen file whose -wal holds committed records: opened mode=ro (reading the log),
    never immutable, which would silently show the older state without them."""
    live = tmp_path / "live" / "tracking.sqlite3"
    live.parent.mkdir()
    shutil.copyfile(original, live)
    store = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{live}"))
    try:
        with store.engine.connect() as held:
            held.exec_driver_sql("PRAGMA wal_autocheckpoint = 0")
            with store.transaction(write=True) as session:
                append(
                    "acct:3",
                    classified(2, "late"),
                    text="late",
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=at(99),
                )
            evidence = tmp_path / "evidence"
            evidence.mkdir()
            for suffix in ("", "-wal"):
                shutil.copyfile(f"{live}{suffix}", evidence / f"tracking.sqlite3{suffix}")
    finally:
        store.dispose()
    copy = evidence / "tracking.sqlite3"
    assert (evidence / "tracking.sqlite3-wal").stat().st_size > 0
    copy.chmod(0o444)
    try:
        assert ok_json(["track", "list"], copy)["total"] == 3
        assert ok_json(["track", "verify", "acct:3"], copy)["intact"]
    finally:
        copy.chmod(0o644)


def test_a_schema_behind_is_an_error_not_a_migration(original: Path, tmp_path: Path) -> None:
    copy = tmp_path / "old.sqlite3"
    shutil.copyfile(original, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    conn.close()
    copy.chmod(0o444)
    before = _sha256(copy)
    try:
        result = run(["track", "list"], copy)
        assert result.exit_code == 2, result.stdout
        assert "opened read-only" in result.stderr and "revision 0001" in result.stderr
        assert "harmwatch db upgrade" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        with pytest.raises(StoreMisconfigured, match="revision 0001"):
            open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{copy}"))
    finally:
        copy.chmod(0o644)
    assert _sha256(copy) == before


def test_the_store_says_why_it_is_read_only(original: Path, tmp_path: Path) -> None:
    copy = tmp_path / "frozen.sqlite3"
    shutil.copyfile(original, copy)
    copy.chmod(0o444)
    try:
        store = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{copy}"))
        try:
            assert store.read_only == "nobody may write the file (mode 0444)"
            refused = pytest.raises(StoreReadOnly, match="is read-only: nothing can be recorded")
            with refused, store.transaction(write=True):
                pass
            with pytest.raises(StoreReadOnly), store.writer() as writer, writer.transaction():
                pass
        finally:
            store.dispose()
    finally:
        copy.chmod(0o644)
    writable = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{copy}"))
    assert writable.read_only is None
    writable.dispose()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o644


@pytest.mark.parametrize("frozen_copy", ["file-wal"], indirect=True)
def test_the_api_reads_a_frozen_copy_and_refuses_a_write(
    frozen_copy: Path, classifier: Classifier
) -> None:
    before = _sha256(frozen_copy)
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{frozen_copy}")
    with TestClient(create_app(settings, classifier=classifier)) as client:
        assert client.get("/tracking/acct:1").json()["observation_count"] == 5
        assert client.get("/tracking/acct:1/verify").json()["intact"]
        refused = client.post("/tracking/acct:1/observe", json={"text": "A lovely walk today."})
        assert refused.status_code == 503
        assert refused.json() == {
            "detail": "the tracking database is read-only on this server: nothing can be recorded"
        }
    assert _sha256(frozen_copy) == before
