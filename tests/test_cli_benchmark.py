"""`harmwatch benchmark run` and `harmwatch validate dehumanization` through CliRunner:
the SPEC section 6 JSON, the tables, filters, exit 1 below a baseline or a failed gate,
and clean errors.

As in test_cli_classify, the Rich width is pinned to 100 columns and the environment
is cleared. The session's classifier (tests/conftest.py) stands in for the one the
commands would build from default settings, so the languages are compiled once for
this file and test_benchmark.py together.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from typer.testing import CliRunner, Result

from engine import Classifier, LoadedTaxonomy
from engine.benchmark import load_suite
from tests.cli_support import isolate_cli, shared_builder
from tests.contract import BENCHMARK_REPORT_FIELDS, GATE_FIELDS
from workbench.cli import app

FAILING_SUITE = """\
    suite_version: "0.1.0"
    baselines: {animals: 1.0, kind: 0.5}
    capabilities:
      - name: animals
        description: the second group is not a protected one, so that case fails
        templates:
          - id: a.copula
            text: "{G} are vermin."
            fillers: {G: [Muslims, Politicians]}
            expect: harmful
            mechanism: animalization
      - name: kind
        description: passes
        templates:
          - id: k.welcome
            text: "Refugees are welcome here."
            expect: not_harmful
"""

FAILING_GATE = """\
    gate: strict
    required_accuracy: 1.0
    samples:
      - {id: A, text: "Muslims are vermin.", expected_harmful: true}
      - {id: B, text: "Politicians are vermin.", expected_harmful: true}
      - {id: C, text: "Refugees are welcome here.", expected_harmful: false}
      - {id: D, text: "Roma are rats.", expected_harmful: false}
"""


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier
) -> Iterator[None]:
    """Clean environment, 100 columns, no .env, and the shared classifier for default settings."""
    isolate_cli(monkeypatch, tmp_path)
    build = shared_builder(classifier)
    monkeypatch.setattr("workbench.commands.benchmark.build_classifier", build)
    monkeypatch.setattr("workbench.commands.validate.build_classifier", build)
    yield


def run(args: list[str], **kwargs: Any) -> Result:
    return CliRunner().invoke(app, args, **kwargs)


def write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def flat(text: str) -> str:
    return " ".join(text.split())


def assert_clean_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.stderr


# -- benchmark run -------------------------------------------------------------------------


def test_json_is_the_spec_report(taxonomy: LoadedTaxonomy) -> None:
    result = run(["benchmark", "run", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert set(report) == BENCHMARK_REPORT_FIELDS
    suite = load_suite(taxonomy)
    assert report["total"] == len(suite.cases)
    assert (report["failed"], report["pass_rate"]) == (0, 1.0)
    assert [c["name"] for c in report["capabilities"]] == list(suite.capabilities)
    for capability in report["capabilities"]:
        assert set(capability) == {"name", "total", "passed", "pass_rate", "failures"}
    assert result.stderr == ""


def test_table_lists_every_capability_within_the_width(taxonomy: LoadedTaxonomy) -> None:
    result = run(["benchmark", "run"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Benchmark suite 1.0.0 · taxonomy 1.0.0" in out
    suite = load_suite(taxonomy)
    for name in suite.capabilities:
        assert name in out
    assert "below baseline" not in out
    assert f"{len(suite.cases)}/{len(suite.cases)} passed (100.0%)" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_filters_select_capabilities_and_languages() -> None:
    result = run(["benchmark", "run", "-c", "language_es", "-c", "negation", "-l", "es", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert [c["name"] for c in report["capabilities"]] == ["language_es"]
    assert report["total"] == report["capabilities"][0]["total"] == 7


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-c", "negatoin"], "unknown capability 'negatoin'"),
        (["--language", "xx"], "no case in language 'xx'"),
        (["--suite", "absent.yaml"], "absent.yaml: cannot read"),
    ],
)
def test_bad_filters_and_files_are_clean_errors(args: list[str], needle: str) -> None:
    assert_clean_error(run(["benchmark", "run", *args]), needle)


def test_malformed_suite_names_file_and_template(tmp_path: Path) -> None:
    path = write(tmp_path, FAILING_SUITE.replace("mechanism: animalization", ""), "bad.yaml")
    assert_clean_error(
        run(["benchmark", "run", "--suite", str(path)]),
        str(path),
        "capability animals: template a.copula: a harmful template needs a mechanism",
    )


def test_below_baseline_exits_1_and_names_the_capability(tmp_path: Path) -> None:
    path = write(tmp_path, FAILING_SUITE, "suite.yaml")
    result = run(["benchmark", "run", "--suite", str(path)])
    assert result.exit_code == 1, result.output
    assert result.stderr == "below baseline: animals 50.0% < 100.0%\n"
    out = flat(result.stdout)
    assert "animals 2 1 50.0% 100.0% below baseline" in out
    assert "kind 1 1 100.0% 50.0% ok" in out
    assert "Politicians are vermin. en ANIMALIZATION (3) NONE (0)" in out


def test_below_baseline_exits_1_with_json_too(tmp_path: Path) -> None:
    path = write(tmp_path, FAILING_SUITE, "suite.yaml")
    result = run(["benchmark", "run", "--suite", str(path), "--json"])
    assert result.exit_code == 1, result.output
    report = orjson.loads(result.stdout)
    [failure] = report["capabilities"][0]["failures"]
    assert failure["text"] == "Politicians are vermin."
    assert failure["expected"] == {"is_harmful": True, "harm_mechanism": "animalization"}
    assert failure["got"] == {"is_harmful": False, "harm_mechanism": None}
    assert "below baseline: animals" in result.stderr


def test_a_filter_can_leave_out_the_capability_below_baseline(tmp_path: Path) -> None:
    path = write(tmp_path, FAILING_SUITE, "suite.yaml")
    result = run(["benchmark", "run", "--suite", str(path), "-c", "kind"])
    assert result.exit_code == 0, result.output


# -- validate dehumanization ---------------------------------------------------------------


def test_gate_json_is_the_spec_report() -> None:
    result = run(["validate", "dehumanization", "--json"])
    assert result.exit_code == 0, result.output
    report = orjson.loads(result.stdout)
    assert set(report) == GATE_FIELDS
    assert (report["samples"], report["correct"], report["passed"]) == (18, 18, True)
    assert len(report["results"]) == 18


def test_gate_table_shows_severities_and_the_verdict() -> None:
    result = run(["validate", "dehumanization"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Gate: legacy-phase-1-dehumanization" in out
    assert "ANIMALIZATION (3)" in out
    assert "NONE (0)" in out
    assert "PASSED" in out
    assert "100.0% (required 90.0%)" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_failed_gate_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path, FAILING_GATE, "gate.yaml")
    result = run(["validate", "dehumanization", "--gate", str(path)])
    assert result.exit_code == 1, result.output
    assert "FAILED" in result.stdout
    assert result.stderr == "gate failed: accuracy 50.0% < required 100.0%\n"


def test_malformed_gate_is_a_clean_error(tmp_path: Path) -> None:
    path = write(
        tmp_path, FAILING_GATE.replace('id: D, text: "Roma', 'id: C, text: "Roma'), "g.yaml"
    )
    assert_clean_error(
        run(["validate", "dehumanization", "--gate", str(path)]),
        str(path),
        "sample C: duplicate id",
    )


def test_commands_are_listed_in_help() -> None:
    assert "benchmark" in run(["--help"]).stdout
    assert "dehumanization" in run(["validate", "--help"]).stdout
    help_text = flat(run(["benchmark", "run", "--help"]).stdout)
    for option in ("--capability", "--language", "--suite", "--json"):
        assert option in help_text
