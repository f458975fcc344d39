"""Listings that survive pipes: TSV when piped, --csv/--tsv parsed by the csv module,
ids never shortened, and errors as JSON on stderr under --json (issue 15, item 4).

One test runs the real console script with its stdout on a pipe, because "not a
terminal" is exactly what CliRunner cannot show faithfully; the rest use CliRunner
with the terminal check patched to what a pipe answers.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from engine import Classifier, Settings
from tests.cli_support import isolate_cli
from workbench.cli import app
from workbench.output import listing_format, write_rows

VERMIN = "Muslims are vermin."
CALM = "I had a lovely walk along the river today."
# Ids at the store's limit (200 characters), which a table would fold or cut.
LONG_A = "acct:" + "a" * 195
LONG_B = "acct:" + "b" * 185 + "-end-of-id"
# A text holding every character that breaks naive tab- or comma-separated output.
TRICKY = 'Muslims are vermin,\tsaid "x"\nthen left \\ there.'

PROFILE_HEADER = [
    "source_id",
    "risk_level",
    "current_severity",
    "current_severity_label",
    "rolling_average_severity",
    "trend",
    "observation_count",
    "last_observed_at",
]


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier
) -> Iterator[None]:
    isolate_cli(monkeypatch, tmp_path)
    monkeypatch.setattr("workbench.commands.track.build_classifier", lambda _s: classifier)
    # What a pipe answers: stdout is not a terminal.
    monkeypatch.setattr("workbench.output.stdout_is_terminal", lambda: False)
    yield


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/pipes.sqlite3"


def run(args: list[str], db_url: str) -> Result:
    settings = Settings(_env_file=None, tracking_db_url=db_url)
    return CliRunner().invoke(app, args, obj=settings)


def ok(args: list[str], db_url: str) -> str:
    result = run(args, db_url)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


def rows(text: str, *, delimiter: str) -> list[list[str]]:
    if delimiter == "\t":
        return list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    return list(csv.reader(io.StringIO(text)))


def observe(db_url: str, *pairs: tuple[str, str]) -> None:
    for source, text in pairs:
        ok(["track", "observe", source, text, "--json"], db_url)


def test_piped_track_list_keeps_every_id_whole(db_url: str, tmp_path: Path) -> None:
    """The real command on a real pipe, at 40 columns: TSV, header, both ids whole."""
    observe(db_url, (LONG_A, VERMIN), (LONG_B, CALM))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("HARMWATCH_", "TRACKING_"))},
        "TRACKING_DB_URL": db_url,
        "COLUMNS": "40",
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
    }
    script = Path(sys.executable).with_name("harmwatch")
    done = subprocess.run(
        [str(script), "track", "list"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout, delimiter="\t")
    assert table[0] == PROFILE_HEADER
    assert [row[0] for row in table[1:]] == [LONG_A, LONG_B]
    assert all(len(row) == len(PROFILE_HEADER) for row in table)
    assert "…" not in done.stdout


@pytest.mark.parametrize(("flag", "delimiter"), [("--csv", ","), ("--tsv", "\t")])
def test_track_list_csv_and_tsv_parse(db_url: str, flag: str, delimiter: str) -> None:
    observe(db_url, ("calm", CALM), (LONG_A, VERMIN))
    table = rows(ok(["track", "list", flag], db_url), delimiter=delimiter)
    assert table[0] == PROFILE_HEADER
    by_id = {row[0]: dict(zip(PROFILE_HEADER, row, strict=True)) for row in table[1:]}
    assert list(by_id) == [LONG_A, "calm"]  # riskiest first, as in the table
    assert by_id[LONG_A]["current_severity"] == "3"
    assert by_id[LONG_A]["current_severity_label"] == "ANIMALIZATION (3)"
    assert by_id["calm"]["risk_level"] == "low"


def test_piped_track_list_without_a_flag_is_tsv(db_url: str) -> None:
    observe(db_url, ("calm", CALM))
    assert ok(["track", "list"], db_url) == ok(["track", "list", "--tsv"], db_url)


def test_track_show_observations_keep_text_and_hash_whole(db_url: str) -> None:
    observe(db_url, ("acct:1", TRICKY), ("acct:1", CALM))
    hashes = [
        o["record_hash"]
        for o in json.loads(ok(["track", "show", "acct:1", "--json"], db_url))["observations"]
    ]
    as_csv = rows(ok(["track", "show", "acct:1", "--csv"], db_url), delimiter=",")
    assert as_csv[0][:3] == ["source_id", "seq", "observed_at"]
    record = [dict(zip(as_csv[0], row, strict=True)) for row in as_csv[1:]]
    assert [r["seq"] for r in record] == ["2", "1"]
    assert record[1]["text"] == TRICKY  # commas, quotes, tabs and newlines survive
    assert [r["record_hash"] for r in record] == hashes
    assert all(len(h) == 64 for h in hashes)
    tsv_text = ok(["track", "show", "acct:1", "--tsv"], db_url)
    assert len(tsv_text.splitlines()) == 3  # the newline in the text is escaped
    as_tsv = rows(tsv_text, delimiter="\t")
    assert all(len(row) == len(as_tsv[0]) for row in as_tsv)
    assert as_tsv[2][as_tsv[0].index("text")] == (
        'Muslims are vermin,\\tsaid "x"\\nthen left \\\\ there.'
    )


def test_more_than_one_format_flag_is_refused(db_url: str) -> None:
    result = run(["track", "list", "--csv", "--tsv"], db_url)
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --csv and --tsv cannot be combined: choose one"


def _json_error(result: Result) -> dict[str, Any]:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    error: dict[str, Any] = json.loads(lines[0])
    assert set(error) == {"error", "exit_code"}
    assert error["exit_code"] == 2
    return error


def test_errors_are_json_on_stderr_under_json(db_url: str) -> None:
    # A store error (reported inside the command) ...
    assert (
        "unknown source 'nobody'"
        in _json_error(run(["track", "show", "nobody", "--json"], db_url))["error"]
    )
    # ... a validation error (reported by the root group) ...
    assert (
        "--risk must be one of"
        in _json_error(run(["track", "list", "--risk", "extreme", "--json"], db_url))["error"]
    )
    # ... and a usage error (click's own) all come out as one JSON object.
    assert "--bogus" in _json_error(run(["track", "list", "--bogus", "--json"], db_url))["error"]


def test_without_json_errors_stay_plain(db_url: str) -> None:
    result = run(["track", "show", "nobody"], db_url)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: unknown source")


def test_json_after_double_dash_is_a_value_not_the_flag(db_url: str) -> None:
    result = run(["track", "show", "--", "--json"], db_url)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: "), result.stderr


def test_write_rows_and_listing_format_directly() -> None:
    out = io.StringIO()
    write_rows("tsv", ["a", "b"], [[None, True], ["x\\y", 1.5]], out)
    assert out.getvalue() == "a\tb\n\ttrue\nx\\\\y\t1.5\n"
    assert listing_format(as_json=True) == "json"
    assert listing_format(as_json=False) == "tsv"  # patched: not a terminal


@pytest.mark.parametrize(("flag", "delimiter"), [("--csv", ","), ("--tsv", "\t")])
def test_benchmark_results_csv_and_tsv_parse(
    monkeypatch: pytest.MonkeyPatch, classifier: Classifier, flag: str, delimiter: str
) -> None:
    monkeypatch.setattr("workbench.commands.benchmark.build_classifier", lambda _s: classifier)
    args = ["benchmark", "run", "--capability", "animalization", "--language", "en"]
    result = CliRunner().invoke(app, [*args, flag])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    table = rows(result.stdout, delimiter=delimiter)
    assert table[0] == ["capability", "total", "passed", "pass_rate", "baseline", "status"]
    report = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    assert [row[0] for row in table[1:]] == [c["name"] for c in report["capabilities"]]
    first = dict(zip(table[0], table[1], strict=True))
    assert int(first["total"]) == report["capabilities"][0]["total"]
    assert first["status"] == "ok"


def test_track_verify_all_csv_lists_every_source_whole(db_url: str) -> None:
    observe(db_url, (LONG_A, VERMIN), ("calm", CALM))
    result = run(["track", "verify", "--all", "--csv"], db_url)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    table = rows(result.stdout, delimiter=",")
    assert table[0] == ["source_id", "intact", "checked", "head_hash", "first_broken_seq", "reason"]
    by_id = {row[0]: dict(zip(table[0], row, strict=True)) for row in table[1:]}
    assert set(by_id) == {LONG_A, "calm"}
    assert all(r["intact"] == "true" and len(r["head_hash"]) == 64 for r in by_id.values())


@pytest.mark.parametrize(("flag", "delimiter"), [("--csv", ","), ("--tsv", "\t")])
def test_validate_failures_csv_and_tsv_parse(
    monkeypatch: pytest.MonkeyPatch, classifier: Classifier, flag: str, delimiter: str
) -> None:
    monkeypatch.setattr("workbench.commands.validate.build_classifier", lambda _s: classifier)
    samples = str(Path(__file__).parent / "data" / "validate" / "samples.jsonl")
    args = ["validate", "custom", samples]
    report = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    result = CliRunner().invoke(app, [*args, flag])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    table = rows(result.stdout, delimiter=delimiter)
    assert table[0][:2] == ["id", "text"]
    assert [row[0] for row in table[1:]] == [f["id"] or "" for f in report["failures"]]
    assert len(table) == 1 + len(report["failures"]) >= 2
    assert all(len(row) == len(table[0]) for row in table)


def test_track_show_rows_carry_published_at_and_url(db_url: str) -> None:
    """Record version 2 evidence (SPEC 5a) in every listing format of track show."""
    url = "https://example.org/posts/" + "9" * 40
    ok(
        [
            "track",
            "observe",
            "acct:1",
            VERMIN,
            "--published-at",
            "2026-01-02T03:04:05+02:00",
            "--url",
            url,
            "--json",
        ],
        db_url,
    )
    observe(db_url, ("acct:1", CALM))
    shown = json.loads(ok(["track", "show", "acct:1", "--json"], db_url))["observations"]
    for flag, delimiter in (("--csv", ","), ("--tsv", "\t")):
        table = rows(ok(["track", "show", "acct:1", flag], db_url), delimiter=delimiter)
        assert table[0][:4] == ["source_id", "seq", "observed_at", "published_at"]
        assert "url" in table[0]
        record = [dict(zip(table[0], row, strict=True)) for row in table[1:]]
        assert [r["published_at"] for r in record] == [o["published_at"] for o in shown]
        assert record[1]["published_at"] == "2026-01-02T01:04:05.000000Z"
        assert [r["url"] for r in record] == ["", url]
        assert [r["record_hash"] for r in record] == [o["record_hash"] for o in shown]
    assert shown[1]["url"] == url  # --json is as it was: the observation's own fields


GATE_HEADER = [
    "id",
    "text",
    "language",
    "expected_harmful",
    "expected_mechanism",
    "got_harmful",
    "got_mechanism",
    "correct",
]


@pytest.mark.parametrize(("flag", "delimiter"), [(None, "\t"), ("--csv", ","), ("--tsv", "\t")])
def test_validate_dehumanization_lists_every_sample(
    monkeypatch: pytest.MonkeyPatch, classifier: Classifier, flag: str | None, delimiter: str
) -> None:
    """Piped without a flag it is TSV with a header, like every listing."""
    monkeypatch.setattr("workbench.commands.validate.build_classifier", lambda _s: classifier)
    args = ["validate", "dehumanization"]
    report = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    result = CliRunner().invoke(app, args if flag is None else [*args, flag])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    table = rows(result.stdout, delimiter=delimiter)
    assert table[0] == GATE_HEADER
    assert len(table) == 1 + len(report["results"]) == 19
    for row, expected in zip(table[1:], report["results"], strict=True):
        record = dict(zip(GATE_HEADER, row, strict=True))
        assert record["id"] == expected["id"]
        assert record["text"] == expected["text"]
        assert record["correct"] == ("true" if expected["correct"] else "false")
        assert record["got_mechanism"] == (expected["got_mechanism"] or "")
