"""`harmwatch classify` through typer's CliRunner: output, JSON contract, files and errors.

The Rich width is pinned to 100 columns and the environment is cleared, so output
does not depend on the terminal or on a developer's .env. One warmed classifier
is shared by the tests that use the default settings, because compiling a
language's matcher is the slow part; tests that change a setting get a real,
freshly built classifier.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.main import get_command
from typer.testing import CliRunner, Result

from engine import Classifier, Settings
from tests.cli_support import isolate_cli, shared_builder
from tests.contract import RESULT_FIELDS
from workbench.cli import app, package_version

HARMFUL = "Muslims are vermin."
NOT_HARMFUL = "I had a lovely walk along the river today."
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
PATTERN_ID = re.compile(r"D2\.4a-\d{3}:en:\d+")


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli_classifier: Classifier
) -> Iterator[None]:
    """Clean environment, 100 columns, no .env, and the shared classifier for default settings."""
    isolate_cli(monkeypatch, tmp_path)
    build = shared_builder(cli_classifier)
    monkeypatch.setattr("workbench.commands.classify.build_classifier", build)
    yield


def run(args: list[str], **kwargs: Any) -> Result:
    return CliRunner().invoke(app, args, **kwargs)


def flat(text: str) -> str:
    """Output with panel borders and line wrapping removed, for phrase assertions."""
    return " ".join(text.replace("│", " ").split())


def assert_clean_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.stderr


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


# -- one text ------------------------------------------------------------------------------


def test_harmful_text_argument_shows_severity_pattern_and_timestamp() -> None:
    result = run(["classify", HARMFUL])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "HARMFUL" in out
    assert "ANIMALIZATION (3)" in out
    assert PATTERN_ID.search(out)
    assert TIMESTAMP.search(out)
    assert "religion / religious_group" in out
    assert "Muslims are vermin" in out  # the matched signal row
    assert "Counter-narrative guidance" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_not_harmful_text_shows_none_severity() -> None:
    result = run(["classify", NOT_HARMFUL])
    assert result.exit_code == 0, result.output
    assert "NOT HARMFUL" in result.stdout
    assert "NONE (0)" in result.stdout
    assert "Counter-narrative guidance" not in result.stdout


def test_suppressed_signal_shows_reason_and_cue() -> None:
    result = run(["classify", "Muslims are not vermin."])
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert "Suppressed signals" in out
    assert "negation “not”" in out


@pytest.mark.parametrize("args", [["classify", "-"], ["classify"]])
def test_stdin_strips_one_trailing_newline(args: list[str]) -> None:
    result = run([*args, "--json"], input=HARMFUL + "\n")
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["is_harmful"] is True
    assert data["content_hash"] == hashlib.sha256(HARMFUL.encode()).hexdigest()


def test_json_output_is_the_contract_object() -> None:
    result = run(["classify", HARMFUL, "--json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert set(data) == RESULT_FIELDS
    assert data["harm_mechanism"] == "animalization"
    assert PATTERN_ID.fullmatch(data["matched_pattern"])
    assert TIMESTAMP.fullmatch(data["timestamp"])
    assert data["signals_matched"][0]["span"] == [0, 18]


def test_spanish_language_is_used() -> None:
    result = run(["classify", "-l", "es", "Los musulmanes son ratas.", "--json"])
    assert result.exit_code == 0, result.output
    data = orjson.loads(result.stdout)
    assert data["language"] == "es"
    assert "not recognized" not in data["decision_rationale"]


def test_unknown_language_falls_back_with_a_note() -> None:
    result = run(["classify", "-l", "xx", HARMFUL])
    assert result.exit_code == 0, result.output
    assert "Language 'xx' not recognized; fell back to en." in flat(result.stdout)
    assert "ANIMALIZATION (3)" in result.stdout


def test_invisible_characters_in_the_text_are_shown_escaped() -> None:
    result = run(["classify", "Muslims are ver\u200bmin."])
    assert result.exit_code == 0, result.output
    assert "\u200b" not in result.stdout
    assert "ver\\u200bmin" in result.stdout


def test_settings_passed_by_the_caller_are_used() -> None:
    result = run(["classify", HARMFUL], obj=Settings(max_text_chars=10))
    assert_clean_error(result, "limit is 10")


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_is_a_clean_error(text: str) -> None:
    assert_clean_error(run(["classify", text]), "text must not be empty")


def test_empty_stdin_is_a_clean_error() -> None:
    assert_clean_error(run(["classify", "-"], input="\n"), "text must not be empty")


def test_text_over_the_limit_names_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARMWATCH_MAX_TEXT_CHARS", "10")
    assert_clean_error(run(["classify", HARMFUL]), "HARMWATCH_MAX_TEXT_CHARS", "limit is 10")


def test_invalid_setting_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARMWATCH_MAX_TEXT_CHARS", "many")
    assert_clean_error(run(["classify", HARMFUL]), "HARMWATCH_MAX_TEXT_CHARS")


def test_broken_taxonomy_names_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    broken = tmp_path / "broken_taxonomy.yaml"
    broken.write_text("version: [1.0\nrows: {\n", encoding="utf-8")
    monkeypatch.setenv("HARMWATCH_TAXONOMY", str(broken))
    assert_clean_error(run(["classify", HARMFUL]), str(broken))


def test_missing_taxonomy_file_names_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.yaml"
    monkeypatch.setenv("HARMWATCH_TAXONOMY", str(missing))
    assert_clean_error(run(["classify", HARMFUL]), str(missing))


@pytest.mark.parametrize("many", [False, True], ids=["one text", "jsonl input"])
def test_a_pack_that_cannot_compile_is_a_clean_error_naming_its_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, many: bool
) -> None:
    """A language whose scan Set is over RE2's budget fails at its first text
    (tests/engine/pipeline/test_scan_budget.py): exit 2 naming the pack, no traceback."""
    import shutil

    from engine import load_taxonomy
    from engine.text import re2x

    shutil.copytree(Path(load_taxonomy().path).parent, tmp_path / "taxonomy")
    monkeypatch.setenv("HARMWATCH_TAXONOMY", str(tmp_path / "taxonomy" / "taxonomy_v1.yaml"))
    monkeypatch.setattr(re2x, "SET_MAX_MEM", 256 << 10)
    if many:
        source = tmp_path / "in.jsonl"
        source.write_text('{"text": "Wannan rubutu ne.", "language": "ha"}\n', encoding="utf-8")
        result = run(["classify", "--input", str(source), "--output", str(tmp_path / "o.jsonl")])
    else:
        result = run(["classify", "Wannan rubutu ne.", "-l", "ha"])
    # A file run stops at the first such row (every later row of the language would
    # fail the same way): the pack, not the row, is at fault.
    assert_clean_error(result, str(tmp_path / "taxonomy" / "lang" / "ha.yaml"))


def test_text_and_input_together_is_a_usage_error(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('"x"\n', encoding="utf-8")
    result = run(["classify", HARMFUL, "--input", str(source)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


# -- JSONL files ---------------------------------------------------------------------------


def test_file_mode_classifies_good_lines_and_records_bad_ones(tmp_path: Path) -> None:
    too_long = "a " * 10_001
    lines = [
        orjson.dumps({"id": "first", "text": HARMFUL}).decode(),
        orjson.dumps(NOT_HARMFUL).decode(),
        "",
        '{"text": "unterminated',
        orjson.dumps({"id": 7, "context": "no text here"}).decode(),
        orjson.dumps({"text": too_long}).decode(),
        orjson.dumps({"text": HARMFUL, "language": "xx"}).decode(),
        orjson.dumps({"text": 42}).decode(),
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "out.jsonl"

    result = run(["classify", "--input", str(source), "--output", str(target)])

    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert result.stderr.strip() == "classified 3, harmful 2, errors 4"
    records = read_jsonl(target)
    assert [r["line"] for r in records] == [1, 2, 4, 5, 6, 7, 8]  # blank line 3 skipped
    # Ids are read as validate custom reads them: strings; a row without one gets its line.
    assert [r["id"] for r in records] == ["first", 2, 4, "7", 6, 7, 8]
    good, plain, bad_json, no_text, long_text, fallback, wrong_type = records
    assert good["is_harmful"] is True and set(RESULT_FIELDS) <= set(good)
    assert plain["is_harmful"] is False and "error" not in plain
    assert bad_json["error"].startswith("invalid JSON")
    assert no_text["error"] == "no column 'text' (--text-col); the line has: id, context"
    assert "HARMWATCH_MAX_TEXT_CHARS" in long_text["error"]
    assert "20000" in long_text["error"]
    assert "fell back to en" in fallback["decision_rationale"]
    assert "text must be a string" in wrong_type["error"]
    assert all("error" not in r for r in (good, plain, fallback))


def test_file_mode_all_good_exits_zero_and_writes_to_stdout(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(f'"{HARMFUL}"\n"{NOT_HARMFUL}"', encoding="utf-8")  # no final newline

    result = run(["classify", "--input", str(source), "--output", "-"])

    assert result.exit_code == 0, result.output
    records = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert [(r["line"], r["is_harmful"]) for r in records] == [(1, True), (2, False)]
    assert result.stderr.strip() == "classified 2, harmful 1, errors 0"


def test_file_mode_line_over_the_byte_cap_is_a_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HARMWATCH_MAX_TEXT_CHARS", "5")  # cap: 120 + 64 KiB bytes a line
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"text": "' + b"x" * 70_000 + b'"}\n' + b'{"text": ""}\n')
    target = tmp_path / "out.jsonl"

    result = run(["classify", "-i", str(source), "-o", str(target)])

    assert result.exit_code == 1, result.output
    first, second = read_jsonl(target)
    assert first["line"] == 1 and "HARMWATCH_MAX_TEXT_CHARS" in first["error"]
    assert second["line"] == 2 and "must not be empty" in second["error"]


def test_non_utf8_input_names_the_line(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'"fine"\n{"text": "caf\xe9"}\n')
    result = run(["classify", "--input", str(source), "--output", str(tmp_path / "o.jsonl")])
    assert_clean_error(result, "in.jsonl:2", "UTF-8")


def test_missing_input_file_is_a_clean_error(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    result = run(["classify", "--input", str(tmp_path / "absent.jsonl"), "--output", str(target)])
    assert_clean_error(result, "absent.jsonl")
    assert not target.exists()


def test_output_may_not_overwrite_the_input(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('"x"\n', encoding="utf-8")
    result = run(["classify", "--input", str(source), "--output", str(source)])
    assert result.exit_code == 2
    assert source.read_text(encoding="utf-8") == '"x"\n'


# -- the app -------------------------------------------------------------------------------


def test_version() -> None:
    result = run(["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"harmwatch {package_version()}"


def test_the_console_script_prints_the_version_without_loading_typer() -> None:
    """The installed script's entry point answers ``--version`` with the standard library
    alone (issue 15's start-time target); any other call goes on to the typer app."""
    probe = (
        "import sys; sys.argv = ['harmwatch', '--version']\n"
        "from workbench.entry import main; main()\n"
        "print(sorted(m for m in ('typer', 'click', 'rich', 'engine') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines() == [f"harmwatch {package_version()}", "[]"]
    help_probe = (
        "import sys; sys.argv = ['harmwatch', '--help']\nfrom workbench.entry import main; main()"
    )
    helped = subprocess.run(
        [sys.executable, "-c", help_probe], capture_output=True, text=True, timeout=60
    )
    assert helped.returncode == 0, helped.stderr
    assert "classify" in helped.stdout


def _commands(command: Any, path: str = "harmwatch") -> Iterator[tuple[str, Any]]:
    """Every command and group, loaded as running it would load it (the root is lazy)."""
    yield path, command
    if not hasattr(command, "list_commands"):
        return
    ctx = command.make_context(path, [], resilient_parsing=True)
    for name in command.list_commands(ctx):
        yield from _commands(command.get_command(ctx, name), f"{path} {name}")


def test_every_command_has_help() -> None:
    commands = list(_commands(get_command(app)))
    assert any(path == "harmwatch classify" for path, _ in commands)
    for path, command in commands:
        assert (command.help or "").strip(), f"{path} has no help text"
        result = run([*path.split()[1:], "--help"])
        assert result.exit_code == 0, f"{path} --help failed"


def test_help_fits_the_pinned_width() -> None:
    result = run(["classify", "--help"])
    assert result.exit_code == 0
    assert "--json" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 100
