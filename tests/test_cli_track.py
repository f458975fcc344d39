"""`harmwatch track` and `harmwatch db` through typer's CliRunner.

Each test gets its own SQLite file (and, for the round trip, its own
PostgreSQL schema), passed in as the invocation's settings or, where a test is
about the environment, through TRACKING_DB_URL. Rich is pinned to 100 columns
and the engine's shared classifier (fixed clock) stands in for building one
per command.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from engine import Classifier, Settings
from store.migrations import head_revision
from tests.cli_support import isolate_cli
from workbench.cli import app

pytest_plugins = ["tests.store_fixtures"]

VERMIN = "Muslims are vermin."  # animalization, 3
KILL = "Kill all Muslims."  # direct_call_to_violence, 4
EVIL = "Muslims are evil."  # demonization, 2
CALM = "I had a lovely walk along the river today."  # not harmful

OBSERVATION_FIELDS = [
    "source_id",
    "seq",
    "observed_at",
    "text",
    "content_hash",
    "harm_mechanism",
    "severity",
    "taxonomy_version",
    "prev_hash",
    "record_hash",
    "record_version",
    "published_at",
    "url",
    "metadata",
    "attachment_hash",
    "decision",
    "redacted",
]
PROFILE_FIELDS = {
    "source_id",
    "observation_count",
    "current_severity",
    "current_severity_label",
    "rolling_average_severity",
    "window",
    "trend",
    "risk_level",
    "first_observed_at",
    "last_observed_at",
    "head_hash",
    "peak_severity",
    "severity_counts",
    "last_escalation_at",
}
VERIFY_FIELDS = {"source_id", "intact", "checked", "head_hash", "first_broken_seq", "reason"}


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier
) -> Iterator[None]:
    """Clean environment, 100 columns, no .env, the shared classifier."""
    isolate_cli(monkeypatch, tmp_path)
    monkeypatch.setattr("workbench.commands.track.build_classifier", lambda _s: classifier)
    yield


@pytest.fixture
def sqlite_settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/cli.sqlite3")


def run(args: list[str], settings: Settings | None = None, **kwargs: Any) -> Result:
    return CliRunner().invoke(app, args, obj=settings, **kwargs)


def ok(args: list[str], settings: Settings | None = None, **kwargs: Any) -> Result:
    result = run(args, settings, **kwargs)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def as_json(args: list[str], settings: Settings | None = None, **kwargs: Any) -> Any:
    return orjson.loads(ok([*args, "--json"], settings, **kwargs).stdout)


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


def assert_clean_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.stderr


# -- observe ------------------------------------------------------------------------------


def test_observe_shows_the_decision_and_the_profile(sqlite_settings: Settings) -> None:
    out = flat(ok(["track", "observe", "acct:1", VERMIN], sqlite_settings).stdout)
    assert "observed acct:1 · seq 1" in out
    assert "HARMFUL · ANIMALIZATION (3)" in out
    assert "Risk elevated" in out
    assert "Current severity ANIMALIZATION (3)" in out


def test_observe_json_is_observation_classification_profile(sqlite_settings: Settings) -> None:
    data = as_json(["track", "observe", "acct:1", KILL], sqlite_settings)
    assert set(data) == {"observation", "classification", "profile"}
    assert list(data["observation"]) == OBSERVATION_FIELDS
    assert data["observation"]["text"] == KILL
    assert data["observation"]["harm_mechanism"] == "direct_call_to_violence"
    assert data["classification"]["content_hash"] == data["observation"]["content_hash"]
    assert set(data["profile"]) == PROFILE_FIELDS
    assert data["profile"]["current_severity_label"] == "DIRECT_VIOLENCE_CALL (4)"
    assert data["profile"]["risk_level"] == "critical"


def test_observe_reads_stdin(sqlite_settings: Settings) -> None:
    data = as_json(["track", "observe", "acct:1", "-"], sqlite_settings, input=VERMIN + "\n")
    assert data["observation"]["text"] == VERMIN


def test_a_not_harmful_text_is_recorded_as_none(sqlite_settings: Settings) -> None:
    data = as_json(["track", "observe", "acct:1", CALM], sqlite_settings)
    assert (data["observation"]["harm_mechanism"], data["observation"]["severity"]) == (None, 0)
    assert data["profile"]["current_severity_label"] == "NONE (0)"


def test_store_text_false_keeps_only_the_hash(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TRACKING_DB_URL", f"sqlite:///{tmp_path}/env.sqlite3")
    monkeypatch.setenv("HARMWATCH_STORE_TEXT", "false")
    data = as_json(["track", "observe", "acct:1", VERMIN])
    assert data["observation"]["text"] is None
    line = orjson.loads(ok(["track", "export", "acct:1"]).stdout)
    assert line["text"] is None
    assert line["content_hash"] == data["classification"]["content_hash"]
    assert "(not kept)" in ok(["track", "show", "acct:1"]).stdout


# -- show and list ------------------------------------------------------------------------


def test_show_profile_and_latest_observations(sqlite_settings: Settings) -> None:
    for text in (CALM, CALM, EVIL, VERMIN, KILL):
        ok(["track", "observe", "acct:1", text], sqlite_settings)
    out = ok(["track", "show", "acct:1", "--limit", "3"], sqlite_settings).stdout
    assert "Latest 3 of 5 observations" in out
    # A row starts with its seq and a timestamp (the whole record hash folds onto more lines).
    rows = [line for line in out.splitlines() if re.match(r"\s*\d+\s+\d{4}-", line)]
    assert [row.split()[0] for row in rows] == ["5", "4", "3"]
    assert "DIRECT_VIOLENCE_CALL (4)" in rows[0]
    assert "ANIMALIZATION (3)" in rows[1]
    assert "DEMONIZATION (2)" in rows[2]
    facts = flat(out)
    assert "Trend ↑ escalating" in facts
    assert "Risk critical" in facts
    data = as_json(["track", "show", "acct:1", "-n", "2"], sqlite_settings)
    assert set(data["profile"]) == PROFILE_FIELDS
    assert [o["seq"] for o in data["observations"]] == [5, 4]


def test_list_in_listing_order_with_risk_filter(sqlite_settings: Settings) -> None:
    for source, text in (("calm", CALM), ("evil", EVIL), ("kill", KILL), ("vermin", VERMIN)):
        ok(["track", "observe", source, text], sqlite_settings)
    data = as_json(["track", "list"], sqlite_settings)
    assert data["total"] == 4
    assert [p["source_id"] for p in data["profiles"]] == ["kill", "vermin", "evil", "calm"]
    assert all(set(p) == PROFILE_FIELDS for p in data["profiles"])
    page = as_json(["track", "list", "--limit", "2", "--offset", "1"], sqlite_settings)
    assert [p["source_id"] for p in page["profiles"]] == ["vermin", "evil"]
    watch = as_json(["track", "list", "--risk", "watch"], sqlite_settings)
    assert (watch["total"], [p["source_id"] for p in watch["profiles"]]) == (1, ["evil"])
    table = ok(["track", "list"], sqlite_settings).stdout
    assert "Sources (1–4 of 4)" in table
    lines = [line.split()[0] for line in table.splitlines()[3:] if line.strip()]
    assert lines == ["kill", "vermin", "evil", "calm"]
    assert "DIRECT_VIOLENCE_CALL (4)" in table


def test_list_refuses_an_unknown_risk_level(sqlite_settings: Settings) -> None:
    result = run(["track", "list", "--risk", "extreme"], sqlite_settings)
    assert_clean_error(result, "--risk must be one of low, watch, elevated, critical")


def test_an_empty_store_lists_nothing(sqlite_settings: Settings) -> None:
    assert as_json(["track", "list"], sqlite_settings)["profiles"] == []
    assert "none of 0" in ok(["track", "list"], sqlite_settings).stdout


# -- verify and export --------------------------------------------------------------------


def _tamper(settings: Settings, statement: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(settings.tracking_db_url or "")
    with engine.begin() as conn:
        conn.execute(text(statement))
    engine.dispose()


def test_verify_intact_then_broken(sqlite_settings: Settings) -> None:
    for text in (CALM, EVIL, VERMIN):
        ok(["track", "observe", "acct:1", text], sqlite_settings)
    ok(["track", "observe", "acct:2", KILL], sqlite_settings)
    data = as_json(["track", "verify", "acct:1"], sqlite_settings)
    assert set(data) == VERIFY_FIELDS
    assert (data["intact"], data["checked"]) == (True, 3)
    assert "intact" in ok(["track", "verify", "acct:1"], sqlite_settings).stdout

    _tamper(
        sqlite_settings,
        "UPDATE observations SET severity = 0 WHERE seq = 2 AND source_id = 'acct:1'",
    )
    broken = run(["track", "verify", "acct:1", "--json"], sqlite_settings)
    assert broken.exit_code == 1
    data = orjson.loads(broken.stdout)
    assert (data["intact"], data["first_broken_seq"], data["checked"]) == (False, 2, 1)
    assert data["reason"] == "record_hash of seq 2 does not match its fields"
    human = run(["track", "verify", "acct:1"], sqlite_settings)
    assert human.exit_code == 1
    assert "BROKEN" in human.stdout and "seq 2:" in flat(human.stdout)

    every = run(["track", "verify", "--all", "--json"], sqlite_settings)
    assert every.exit_code == 1
    summary = orjson.loads(every.stdout)
    assert (summary["intact"], summary["sources"], summary["broken"]) == (False, 2, 1)
    assert [r["intact"] for r in summary["results"]] == [False, True]


@pytest.mark.parametrize(
    "args",
    [
        ["track", "verify"],
        ["track", "verify", "acct:1", "--all"],
        ["track", "verify", "--all", "--file", "x.jsonl"],
    ],
)
def test_verify_needs_exactly_one_target(sqlite_settings: Settings, args: list[str]) -> None:
    assert_clean_error(run(args, sqlite_settings), "exactly one of SOURCE, --all or --file")


def test_export_then_verify_the_file(sqlite_settings: Settings, tmp_path: Path) -> None:
    for text in (CALM, EVIL, VERMIN, KILL):
        ok(["track", "observe", "acct:1", text], sqlite_settings)
    target = tmp_path / "chain.jsonl"
    summary = as_json(["track", "export", "acct:1", "-o", str(target)], sqlite_settings)
    assert (summary["records"], summary["output"]) == (4, str(target))
    lines = [orjson.loads(line) for line in target.read_bytes().splitlines()]
    assert [list(line) for line in lines] == [OBSERVATION_FIELDS] * 4
    assert [line["seq"] for line in lines] == [1, 2, 3, 4]
    assert summary["head_hash"] == lines[-1]["record_hash"]

    # The file alone, no database settings at all.
    data = as_json(["track", "verify", "--file", str(target)])
    assert (data["intact"], data["checked"], data["head_hash"]) == (
        True,
        4,
        lines[-1]["record_hash"],
    )
    from_stdin = as_json(["track", "verify", "--file", "-"], input=target.read_bytes())
    assert from_stdin["intact"]

    lines[2]["severity"] = 0
    target.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    broken = run(["track", "verify", "--file", str(target), "--json"])
    assert broken.exit_code == 1
    assert orjson.loads(broken.stdout)["first_broken_seq"] == 3


def test_export_to_stdout_is_jsonl(sqlite_settings: Settings) -> None:
    for text in (CALM, KILL):
        ok(["track", "observe", "acct:1", text], sqlite_settings)
    out = ok(["track", "export", "acct:1"], sqlite_settings).stdout
    assert [orjson.loads(line)["seq"] for line in out.splitlines()] == [1, 2]


def test_a_missing_file_is_a_clean_error() -> None:
    assert_clean_error(run(["track", "verify", "--file", "nope.jsonl"]), "nope.jsonl")


# -- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["track", "show", "ghost"],
        ["track", "verify", "ghost"],
        ["track", "export", "ghost"],
        ["track", "export", "ghost", "-o", "out.jsonl"],
    ],
)
def test_unknown_source_is_a_clean_error(sqlite_settings: Settings, args: list[str]) -> None:
    assert_clean_error(run(args, sqlite_settings), "unknown source 'ghost'")
    assert not Path("out.jsonl").exists()


@pytest.mark.parametrize(
    ("source", "rule"),
    [
        ("a b", "must not contain whitespace"),
        ("a/b", "must not contain '/'"),
        ("a" * 201, "must be 1–200 characters, not 201"),
        ("bell\x07", "must not contain control characters (U+0007"),
    ],
)
@pytest.mark.parametrize("command", ["observe", "show", "export", "verify"])
def test_a_bad_source_id_names_the_rule(
    sqlite_settings: Settings, source: str, rule: str, command: str
) -> None:
    args = ["track", command, source] + ([VERMIN] if command == "observe" else [])
    result = run(args, sqlite_settings)
    assert_clean_error(result, f"source_id {rule}")
    assert "\x07" not in result.stderr


def test_an_unreachable_database_is_one_line_without_the_password() -> None:
    settings = Settings(
        _env_file=None, tracking_db_url="postgresql+psycopg://analyst:hunter2@127.0.0.1:1/db"
    )
    for args in (["track", "list"], ["track", "observe", "acct:1", VERMIN], ["db", "upgrade"]):
        result = run(args, settings)
        assert_clean_error(result, "postgresql+psycopg://analyst:***@127.0.0.1:1/db")
        assert "hunter2" not in result.output


def test_an_unopenable_sqlite_file_is_one_line(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/no/such/dir.db")
    assert_clean_error(run(["track", "list"], settings), "unable to open database file")


# -- db -----------------------------------------------------------------------------------


def test_db_upgrade_reports_the_revision(sqlite_settings: Settings) -> None:
    first = ok(["db", "upgrade"], sqlite_settings).stdout
    assert f"from empty to revision {head_revision()}" in first
    assert "up to date" in ok(["db", "upgrade"], sqlite_settings).stdout
    data = as_json(["db", "upgrade"], sqlite_settings)
    assert data == {
        "database": sqlite_settings.tracking_db_url,
        "backend": "sqlite",
        "revision_before": head_revision(),
        "revision": head_revision(),
        "upgraded": False,
    }


def test_the_default_store_is_created_in_the_user_data_dir(tmp_path: Path) -> None:
    ok(["track", "observe", "acct:1", VERMIN])
    assert (tmp_path / "xdg" / "harmwatch" / "tracking.sqlite3").is_file()


def test_help_lists_the_track_commands() -> None:
    out = ok(["track", "--help"]).stdout
    for command in ("observe", "show", "list", "verify", "export"):
        assert command in out


# -- both backends ------------------------------------------------------------------------


def test_round_trip_on_each_backend(settings: Settings, tmp_path: Path) -> None:
    for text in (CALM, CALM, VERMIN, KILL):
        ok(["track", "observe", "acct:1", text], settings)
    profile = as_json(["track", "show", "acct:1"], settings)["profile"]
    assert (profile["observation_count"], profile["trend"], profile["risk_level"]) == (
        4,
        "escalating",
        "critical",
    )
    assert as_json(["track", "verify", "--all"], settings)["intact"]
    target = tmp_path / "chain.jsonl"
    ok(["track", "export", "acct:1", "--output", str(target)], settings)
    verified = as_json(["track", "verify", "--file", str(target)])
    assert verified["head_hash"] == profile["head_hash"]
