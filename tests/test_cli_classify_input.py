"""``harmwatch classify --input`` in JSONL, CSV and plain text, ``--fail-on-harm``, ``-l auto``
and the warning for a text in another script sent without a language (issue 15).

The files are read by the reader of ``validate custom`` (workbench.samples), so the
column options and the wording of every problem are that command's; these tests
pin what classify adds: error records instead of a stopped run, the exit codes,
and the warnings on stderr.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from engine import Classifier
from tests.cli_support import isolate_cli, shared_builder
from tests.contract import RESULT_FIELDS
from workbench.cli import app

HARMFUL = "Muslims are vermin."
NOT_HARMFUL = "I had a lovely walk along the river today."
RUSSIAN = "Автобус сегодня утром снова опоздал, поэтому мы пошли на работу пешком."
SPANISH = "El autobús llegó tarde otra vez esta mañana, así que fuimos andando al trabajo."


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli_classifier: Classifier
) -> Iterator[None]:
    isolate_cli(monkeypatch, tmp_path)
    monkeypatch.setattr(
        "workbench.commands.classify.build_classifier", shared_builder(cli_classifier)
    )
    yield


def run(args: list[str], **kwargs: Any) -> Result:
    return CliRunner().invoke(app, args, **kwargs)


def records(result: Result) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def one_error_line(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


# -- formats -----------------------------------------------------------------------------------


def test_jsonl_with_column_options(tmp_path: Path) -> None:
    source = tmp_path / "posts.jsonl"
    rows = [
        {"post": HARMFUL, "key": "a1"},
        {"post": "Son ratas.", "key": 2, "lang": "es", "thread": "Los inmigrantes llegan."},
        {"post": NOT_HARMFUL},
    ]
    source.write_bytes(b"\n".join(orjson.dumps(row) for row in rows) + b"\n")
    args = ["--text-col", "post", "--id-col", "key", "--language-col", "lang"]
    result = run(["classify", "-i", str(source), *args, "--context-col", "thread"])
    assert result.exit_code == 0, result.output
    first, second, third = records(result)
    assert (first["id"], first["line"], first["is_harmful"]) == ("a1", 1, True)
    assert set(RESULT_FIELDS) <= set(first)
    # the context column names the group the pronoun-less Spanish text refers to
    assert (second["id"], second["language"], second["is_harmful"]) == ("2", "es", True)
    assert (third["id"], third["is_harmful"]) == (3, False)
    assert result.stderr.strip() == "classified 3, harmful 2, errors 0"


def test_csv_rows_with_errors_become_error_records(tmp_path: Path) -> None:
    source = tmp_path / "posts.csv"
    source.write_text(
        "id,body,language\n"
        f"p1,{HARMFUL},en\n"
        'p2,"A text, with a comma and\na line break",\n'
        "p3,,en\n"
        "p4,too,many,fields\n"
        f"p5,{NOT_HARMFUL},en\n",
        encoding="utf-8",
    )
    result = run(["classify", "--input", str(source), "--text-col", "body"])
    assert result.exit_code == 1, result.output  # some rows failed
    found = records(result)
    # a row whose fields do not line up has no id to trust: its line stands in
    assert [r["id"] for r in found] == ["p1", "p2", "p3", 6, "p5"]
    assert [r["line"] for r in found] == [2, 3, 5, 6, 7]  # where each row starts
    assert found[0]["is_harmful"] is True
    assert found[1]["is_harmful"] is False and found[1]["language"] == "en"
    assert found[2]["error"].startswith("text must not be empty")
    assert found[3]["error"] == "the row has 4 fields, the header has 3"
    assert result.stderr.strip() == "classified 3, harmful 1, errors 2"


def test_plain_text_is_one_text_a_line(tmp_path: Path) -> None:
    source = tmp_path / "posts.txt"
    source.write_text(f"{HARMFUL}\n\n  \n{NOT_HARMFUL}\r\n", encoding="utf-8")
    result = run(["classify", "--input", str(source), "-l", "en"])
    assert result.exit_code == 0, result.output
    found = records(result)
    assert [(r["id"], r["line"], r["is_harmful"]) for r in found] == [
        (1, 1, True),
        (4, 4, False),
    ]
    assert (
        found[1]["content_hash"] == records(run(["classify", "-i", str(source)]))[1]["content_hash"]
    )


def test_format_option_overrides_the_extension(tmp_path: Path) -> None:
    source = tmp_path / "posts.log"
    source.write_text(f"{HARMFUL}\n", encoding="utf-8")
    result = run(["classify", "--input", str(source), "--format", "txt"])
    assert result.exit_code == 0, result.output
    assert records(result)[0]["is_harmful"] is True


def test_stdin_is_jsonl_unless_format_says_otherwise() -> None:
    jsonl = run(["classify", "-i", "-"], input=orjson.dumps(HARMFUL).decode() + "\n")
    assert jsonl.exit_code == 0 and records(jsonl)[0]["is_harmful"] is True
    csv = run(["classify", "-i", "-", "--format", "csv"], input=f"text\n{HARMFUL}\n")
    assert csv.exit_code == 0 and records(csv)[0]["line"] == 2


def test_an_empty_file_classifies_nothing(tmp_path: Path) -> None:
    source = tmp_path / "empty.csv"
    source.write_text("", encoding="utf-8")
    result = run(["classify", "--input", str(source)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert result.stderr.strip() == "classified 0, harmful 0, errors 0"


# -- file errors: one line, exit 2 -------------------------------------------------------------


def test_unknown_format_is_one_error_line(tmp_path: Path) -> None:
    source = tmp_path / "posts.xml"
    source.write_text("<posts/>", encoding="utf-8")
    one_error_line(
        run(["classify", "--input", str(source)]),
        "unknown format ('.xml'); name a .jsonl, .csv or .txt file or pass --format",
    )


def test_missing_csv_column_is_one_error_line(tmp_path: Path) -> None:
    source = tmp_path / "posts.csv"
    source.write_text(f"body\n{HARMFUL}\n", encoding="utf-8")
    result = run(["classify", "--input", str(source)])
    one_error_line(result, "posts.csv:1: no column 'text' (--text-col); the header has: body")
    assert result.stdout == ""


def test_missing_named_jsonl_column_is_one_error_line(tmp_path: Path) -> None:
    source = tmp_path / "posts.jsonl"
    source.write_bytes(orjson.dumps({"text": HARMFUL}) + b"\n")
    result = run(["classify", "--input", str(source), "--id-col", "key"])
    one_error_line(result, "column 'key' (--id-col) is in no line")


def test_unreadable_file_is_one_error_line(tmp_path: Path) -> None:
    one_error_line(run(["classify", "--input", str(tmp_path / "absent.csv")]), "absent.csv")
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    assert run(["classify", "--input", str(folder)]).exit_code == 2


def test_columns_on_plain_text_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "posts.txt"
    source.write_text(f"{HARMFUL}\n", encoding="utf-8")
    one_error_line(
        run(["classify", "--input", str(source), "--text-col", "body"]), "has one text a line"
    )


def test_column_options_need_input() -> None:
    result = run(["classify", HARMFUL, "--text-col", "body"])
    assert result.exit_code == 2
    assert "need --input" in result.output


# -- --fail-on-harm ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "flag", "code"),
    [
        (HARMFUL, ["--fail-on-harm"], 1),
        (NOT_HARMFUL, ["--fail-on-harm"], 0),
        (HARMFUL, [], 0),
    ],
)
def test_fail_on_harm_for_one_text(text: str, flag: list[str], code: int) -> None:
    result = run(["classify", text, "--json", *flag])
    assert result.exit_code == code, result.output
    assert orjson.loads(result.stdout)["is_harmful"] is (text == HARMFUL)  # output still written


@pytest.mark.parametrize(
    ("lines", "flag", "code"),
    [
        ([HARMFUL, NOT_HARMFUL], ["--fail-on-harm"], 1),
        ([NOT_HARMFUL, NOT_HARMFUL], ["--fail-on-harm"], 0),
        ([HARMFUL, NOT_HARMFUL], [], 0),
    ],
)
def test_fail_on_harm_for_a_file(
    tmp_path: Path, lines: list[str], flag: list[str], code: int
) -> None:
    source = tmp_path / "posts.txt"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target = tmp_path / "out.jsonl"
    result = run(["classify", "-i", str(source), "-o", str(target), *flag])
    assert result.exit_code == code, result.output
    assert len(target.read_bytes().splitlines()) == 2


# -- languages ---------------------------------------------------------------------------------


def test_auto_reports_the_identified_language() -> None:
    as_json = run(["classify", "-l", "auto", "--json", SPANISH])
    assert as_json.exit_code == 0, as_json.output
    result = orjson.loads(as_json.stdout)
    assert result["language"] == "es"
    assert result["language_detected"]["code"] == "es"
    assert result["language_detected"]["confidence"] >= 0.7
    human = run(["classify", "-l", "auto", SPANISH])
    assert "Identified" in human.stdout and "es (confidence" in human.stdout
    assert human.stderr == ""


def test_a_text_in_another_script_without_a_language_warns_on_stderr() -> None:
    result = run(["classify", "--json", RUSSIAN])
    assert result.exit_code == 0, result.output
    warning = result.stderr.strip().splitlines()
    assert len(warning) == 1
    assert warning[0].startswith("warning: the text is mostly in Cyrillic script")
    assert "-l auto" in warning[0] and "-l <code>" in warning[0]
    rationale = orjson.loads(result.stdout)["decision_rationale"]
    assert rationale.startswith("NO HARM: ") and "mostly in Cyrillic script" in rationale


@pytest.mark.parametrize("language", ["ru", "auto"])
def test_no_script_warning_when_a_language_is_given(language: str) -> None:
    result = run(["classify", "--json", "-l", language, RUSSIAN])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert orjson.loads(result.stdout)["language"] == "ru"


def test_a_file_warns_once_for_its_texts_in_another_script(tmp_path: Path) -> None:
    source = tmp_path / "posts.jsonl"
    rows = [RUSSIAN, {"text": RUSSIAN, "language": "ru"}, RUSSIAN, SPANISH]
    source.write_bytes(b"\n".join(orjson.dumps(row) for row in rows) + b"\n")
    result = run(["classify", "-i", str(source)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.strip().splitlines()
    assert lines[0] == "classified 4, harmful 0, errors 0"
    assert lines[1].startswith("warning: 2 texts are mostly in a non-Latin script")
    auto = run(["classify", "-i", str(source), "-l", "auto"])
    found = records(auto)
    assert [r["language"] for r in found] == ["ru", "ru", "ru", "es"]
    assert [r["language_detected"] for r in found][1] is None  # the row had its own language
    assert found[0]["language_detected"]["code"] == "ru"
    assert len(auto.stderr.strip().splitlines()) == 1
