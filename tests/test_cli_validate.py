"""`harmwatch validate custom` through typer's CliRunner: metrics worked out by hand, column
options, not-scored labels, the three output forms, and one clean error line per bad input.

As in test_cli_classify, the Rich width is pinned to 100 columns, the environment is
cleared and one warmed classifier is shared. A test that lowers the text limit gets a
classifier over the same loaded taxonomy with that limit, which is cheap because the
run stops at the input check before any matcher is compiled.

The fixtures in tests/data/validate are hand-made; some labels are deliberately wrong
so that every confusion cell is non-zero (see that folder's README).
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
from workbench.cli import app

DATA = Path(__file__).parent / "data" / "validate"
JSONL = DATA / "samples.jsonl"
CSV = DATA / "samples.csv"
CSV_OPTIONS = [
    "--text-col",
    "sentence",
    "--label-col",
    "verdict",
    "--positive",
    "hate",
    "--positive",
    "abusive",
    "--negative",
    "ok",
    "--negative",
    "fine",
    "--group-col",
    "target",
    "--language-col",
    "lang",
    "--id-col",
    "case",
]


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli_classifier: Classifier
) -> Iterator[None]:
    """Clean environment, 100 columns, no .env, and the shared classifier for default settings."""
    isolate_cli(monkeypatch, tmp_path)
    build = shared_builder(cli_classifier)
    monkeypatch.setattr("workbench.commands.validate.build_classifier", build)
    yield


def run(args: list[str], **kwargs: Any) -> Result:
    return CliRunner().invoke(app, ["validate", "custom", *args], **kwargs)


def report_of(args: list[str]) -> dict[str, Any]:
    result = run([*args, "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = orjson.loads(result.stdout)
    return report


def flat(text: str) -> str:
    return " ".join(text.split())


def assert_clean_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.stderr, result.stderr


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def jsonl(*records: dict[str, Any]) -> str:
    return "".join(orjson.dumps(record).decode() + "\n" for record in records)


# -- metrics, by hand ----------------------------------------------------------------------
#
# samples.jsonl, scored rows (label -> expected; classifier verdict):
#   r1 true  -> harmful, flagged (animalization, as expected)   TP
#   r2 true  -> harmful, flagged (expected mechanism is wrong)  TP, mechanism miss
#   m1 "yes" -> harmful, flagged                                TP
#   m2 1     -> harmful, not flagged (a bus timetable)          FN
#   c1 false -> not harmful, not flagged                        TN
#   c2 "No"  -> not harmful, not flagged                        TN
#   m3 "not_harmful" -> not harmful, flagged                    FP
#   m4 0     -> not harmful, flagged                            FP
# not scored: x1 "out_of_scope" flagged, x2 "out_of_scope" not flagged.
# accuracy (3+2)/8 = .625, precision 3/5 = .6, recall 3/4 = .75,
# F1 = 2(.6)(.75)/(1.35) = .6667, TNR 2/4 = .5, mechanism 1/2 = .5, flag rate 1/2 = .5.


def test_jsonl_overall_metrics_match_the_hand_count() -> None:
    report = report_of([str(JSONL)])
    assert report["name"] == "samples"
    assert report["total"] == 10
    assert report["confusion"] == {"tp": 3, "fp": 2, "tn": 2, "fn": 1}
    assert report["accuracy"] == 0.625
    assert report["precision"] == 0.6
    assert report["recall"] == 0.75
    assert report["f1"] == 0.6667
    assert report["true_negative_rate"] == 0.5
    assert report["mechanism_accuracy"] == 0.5
    assert report["not_scored"] == 2
    assert report["not_scored_flag_rate"] == 0.5
    assert report["failure_count"] == 4
    assert sorted(f["id"] for f in report["failures"]) == ["m2", "m3", "m4", "r2"]


def test_jsonl_per_group_metrics_match_the_hand_count() -> None:
    groups = report_of([str(JSONL)])["by_group"]
    assert list(groups) == ["control", "migration", "religion"]
    religion, migration, control = groups["religion"], groups["migration"], groups["control"]
    assert religion["confusion"] == {"tp": 2, "fp": 0, "tn": 0, "fn": 0}
    assert (religion["recall"], religion["accuracy"]) == (1.0, 1.0)
    assert migration["confusion"] == {"tp": 1, "fp": 2, "tn": 0, "fn": 1}
    assert (migration["recall"], migration["true_negative_rate"]) == (0.5, 0.0)
    assert migration["accuracy"] == 0.25
    assert control["confusion"] == {"tp": 0, "fp": 0, "tn": 2, "fn": 0}
    assert (control["not_scored"], control["not_scored_flag_rate"]) == (2, 0.5)
    assert control["recall"] is None


def test_human_output_has_summary_groups_and_failures() -> None:
    result = run([str(JSONL)])
    assert result.exit_code == 0, result.output
    out = flat(result.stdout)
    assert "Validation: samples" in out
    assert "Samples 10 (8 scored)" in out
    assert "Accuracy 62.5%" in out
    assert "Precision 60.0%" in out
    assert "Recall 75.0% of 4" in out
    assert "F1 66.7%" in out
    assert "True-negative rate 50.0% of 4" in out
    assert "TP 3 FP 2 TN 2 FN 1" in out
    assert "Not scored 2, flagged 50.0% (labels: out_of_scope 2)" in out
    assert "Mechanism accuracy 50.0%" in out
    # Per group, sorted by name: n, recall (n), TNR (n), flag rate (n), accuracy.
    assert "control 4 — 100.0% (2) 50.0% (2) 100.0%" in out
    assert "migration 4 50.0% (2) 0.0% (2) — 25.0%" in out
    assert "religion 2 100.0% (2) — — 100.0%" in out
    assert out.index("control 4") < out.index("migration 4") < out.index("religion 2")
    assert "Failures" in out
    assert "The bus was late again." in out
    lines = result.stdout.splitlines()
    r2 = next(i for i, line in enumerate(lines) if line.startswith("r2 "))
    assert "Jews are parasites." in lines[r2]
    assert "direct_call_to_" in lines[r2 + 1]  # the wrong expected mechanism is shown
    assert max(len(line) for line in result.stdout.splitlines()) <= 100


# samples.csv with --positive hate/abusive, --negative ok/fine (case-insensitive):
#   c1 HATE TP, c2 abusive (Spanish, lang es) TP, c3 ok TN, c4 fine FP, c5 hate FN,
#   c6 "borderline" not scored, flagged.
# accuracy 3/5 = .6, precision 2/3, recall 2/3, F1 2/3, TNR 1/2.


def test_csv_with_column_options_and_repeated_label_values() -> None:
    report = report_of([str(CSV), *CSV_OPTIONS])
    assert report["total"] == 6
    assert report["confusion"] == {"tp": 2, "fp": 1, "tn": 1, "fn": 1}
    assert report["accuracy"] == 0.6
    assert report["precision"] == 0.6667
    assert report["recall"] == 0.6667
    assert report["f1"] == 0.6667
    assert report["true_negative_rate"] == 0.5
    assert (report["not_scored"], report["not_scored_flag_rate"]) == (1, 1.0)
    assert {code: m["total"] for code, m in report["by_language"].items()} == {"en": 5, "es": 1}
    assert list(report["by_group"]) == ["migration", "none", "religion"]
    assert {f["id"] for f in report["failures"]} == {"c4", "c5"}
    assert any(f["text"] == "The bus was late, again." for f in report["failures"])


def test_default_labels_do_not_apply_when_values_are_given(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "mixed.jsonl",
        jsonl(
            {"text": "Muslims are vermin.", "expected_harmful": "hate"},
            {"text": "I love my neighbours.", "expected_harmful": "true"},
        ),
    )
    result = run([str(source), "--positive", "hate", "--negative", "fine", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert report["confusion"] == {"tp": 1, "fp": 0, "tn": 0, "fn": 0}
    assert report["not_scored"] == 1  # "true" is no longer a positive value
    assert "warning: --negative 'fine' matched no row's label" in result.stderr


def test_json_booleans_stay_positive_and_negative_with_custom_values(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "bools.jsonl",
        jsonl(
            {"text": "Muslims are vermin.", "expected_harmful": True},
            {"text": "I love my neighbours.", "expected_harmful": False},
        ),
    )
    report = report_of([str(source), "--positive", "hate", "--negative", "ok"])
    assert report["confusion"] == {"tp": 1, "fp": 0, "tn": 1, "fn": 0}


def test_default_language_applies_to_rows_without_one(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "es.jsonl",
        jsonl(
            {"text": "Los musulmanes son ratas.", "expected_harmful": True},
            {"text": "Muslims are vermin.", "expected_harmful": True, "language": "en"},
        ),
    )
    report = report_of([str(source), "--default-language", "es"])
    assert report["confusion"]["tp"] == 2
    assert {code: m["total"] for code, m in report["by_language"].items()} == {"en": 1, "es": 1}


def test_markdown_has_the_overall_and_group_tables() -> None:
    result = run([str(JSONL), "--markdown"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = "| group | positives | recall | negatives | TNR | not scored | flag rate |"
    assert header in lines
    assert "| all | 4 | 75.0% | 4 | 50.0% | 2 | 50.0% | 60.0% | 66.7% | 62.5% |" in lines
    assert "| control | 0 | — | 2 | 100.0% | 2 | 50.0% |" in lines
    assert "| migration | 2 | 50.0% | 2 | 0.0% | 0 | — |" in lines
    assert "| religion | 2 | 100.0% | 0 | — | 0 | — |" in lines
    assert "|---|---:|---:|---:|---:|---:|---:|" in lines


def test_markdown_escapes_pipes_in_group_names(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "pipes.jsonl",
        jsonl({"text": "Muslims are vermin.", "expected_harmful": True, "group": "a|b"}),
    )
    result = run([str(source), "--markdown"])
    assert result.exit_code == 0, result.output
    assert "| a\\|b | 1 | 100.0% | 0 | — | 0 | — |" in result.stdout.splitlines()


def test_name_option_and_format_override(tmp_path: Path) -> None:
    source = write(tmp_path, "rows.txt", JSONL.read_text(encoding="utf-8"))
    report = report_of([str(source), "--format", "jsonl", "--name", "hand-made"])
    assert report["name"] == "hand-made"
    assert report["total"] == 10


def test_csv_row_spanning_lines_keeps_later_line_numbers_right(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "multi.csv",
        'text,expected_harmful\n"Muslims are\nvermin.",true\n"   ",false\n',
    )
    assert_clean_error(run([str(source)]), f"{source}:4:", "text must not be empty")


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    source = write(tmp_path, "bom.csv", b"\xef\xbb\xbftext,expected_harmful\nHello there.,no\n")
    assert report_of([str(source)])["confusion"]["tn"] == 1


# -- errors ----------------------------------------------------------------------------------


def test_missing_csv_column_names_it_and_lists_the_header() -> None:
    result = run([str(CSV), "--text-col", "test_case"])
    assert_clean_error(
        result,
        f"{CSV}:1:",
        "no column 'test_case' (--text-col)",
        "case, sentence, verdict, target, lang",
    )


def test_missing_optional_csv_column_given_by_option() -> None:
    result = run([str(CSV), *CSV_OPTIONS, "--group-col", "functionality"])
    assert_clean_error(result, f"{CSV}:1:", "no column 'functionality' (--group-col)")


def test_missing_jsonl_key_names_the_line(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "keys.jsonl",
        jsonl(
            {"text": "Muslims are vermin.", "expected_harmful": True},
            {"text": "I love my neighbours.", "label": False},
        ),
    )
    assert_clean_error(
        run([str(source)]),
        f"{source}:2:",
        "no column 'expected_harmful' (--label-col)",
        "text, label",
    )


def test_group_column_in_no_jsonl_line_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "g.jsonl", jsonl({"text": "Hello.", "expected_harmful": False}))
    assert_clean_error(run([str(source), "--group-col", "team"]), "'team' (--group-col)")


@pytest.mark.parametrize(("label", "kind"), [({"harmful": True}, "an object"), ([1], "an array")])
def test_label_of_the_wrong_json_type_is_an_error(tmp_path: Path, label: Any, kind: str) -> None:
    source = write(tmp_path, "bad.jsonl", jsonl({"text": "Hello.", "expected_harmful": label}))
    assert_clean_error(run([str(source)]), f"{source}:1:", f"not {kind}")


def test_unknown_label_is_not_scored_and_shown_with_its_count(tmp_path: Path) -> None:
    source = write(
        tmp_path,
        "labels.csv",
        "text,expected_harmful\nMuslims are vermin.,postive\nI love my neighbours.,\n",
    )
    result = run([str(source)])
    assert result.exit_code == 0, result.output
    assert "Not scored 2, flagged 50.0% (labels: postive 1, (empty) 1)" in flat(result.stdout)


def test_same_value_positive_and_negative_is_an_error() -> None:
    assert_clean_error(run([str(JSONL), "--positive", "x", "--negative", "X"]), "'x'")


@pytest.mark.parametrize("name", ["empty.csv", "empty.jsonl"])
def test_empty_file_is_an_error(tmp_path: Path, name: str) -> None:
    source = write(tmp_path, name, "\n\n")
    assert_clean_error(run([str(source)]), f"{source}: ", "empty")


def test_csv_with_only_a_header_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "header.csv", "text,expected_harmful\n")
    assert_clean_error(run([str(source)]), "header row but no samples")


def test_non_utf8_file_names_the_line(tmp_path: Path) -> None:
    source = write(tmp_path, "latin1.csv", b"text,expected_harmful\nfine,no\ncaf\xe9,no\n")
    assert_clean_error(run([str(source)]), f"{source}:3:", "UTF-8")


def test_invalid_json_line_names_the_line(tmp_path: Path) -> None:
    good = jsonl({"text": "Hello.", "expected_harmful": False})
    source = write(tmp_path, "broken.jsonl", good + '{"text": "unterminated\n')
    assert_clean_error(run([str(source)]), f"{source}:2:", "invalid JSON")


def test_json_line_that_is_not_an_object_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "strings.jsonl", '"just a string"\n')
    assert_clean_error(run([str(source)]), f"{source}:1:", "JSON object")


def test_empty_text_names_the_line(tmp_path: Path) -> None:
    source = write(tmp_path, "blank.jsonl", jsonl({"text": "  ", "expected_harmful": True}))
    assert_clean_error(run([str(source)]), f"{source}:1:", "text must not be empty")


def test_text_over_the_limit_names_the_setting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HARMWATCH_MAX_TEXT_CHARS", "10")
    source = write(tmp_path, "long.csv", "text,expected_harmful\nMuslims are vermin.,yes\n")
    assert_clean_error(run([str(source)]), f"{source}:2:", "HARMWATCH_MAX_TEXT_CHARS", "10")


def test_csv_row_with_the_wrong_number_of_fields(tmp_path: Path) -> None:
    source = write(tmp_path, "ragged.csv", "text,expected_harmful\nHello.,no,extra\n")
    assert_clean_error(run([str(source)]), f"{source}:2:", "3 fields", "header has 2")


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    assert_clean_error(run([str(tmp_path / "absent.jsonl")]), "absent.jsonl")


def test_unknown_extension_is_an_error(tmp_path: Path) -> None:
    source = write(tmp_path, "rows.txt", "text\n")
    assert_clean_error(run([str(source)]), "unknown format", "--format")


def test_json_and_markdown_together_is_a_usage_error() -> None:
    result = run([str(JSONL), "--json", "--markdown"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_help_fits_the_pinned_width() -> None:
    result = run(["--help"])
    assert result.exit_code == 0
    assert "--positive" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 100
