"""Tables on narrow terminals (issue 15, item 4): at 80, 60 and 40 columns every table the
CLI prints keeps every column, and no id or hash is cut.

A table whose columns fit their minimum widths folds ids, hashes and times over
several lines; one that does not is printed as a block of ``header  value`` lines per
row. Either way, ``columns`` cuts the rendered lines where every line is blank over
two or more positions and joins each column's pieces, so a folded value reads whole
again and can be compared with what ``--json`` reports.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from engine import Classifier, Settings
from tests.cli_support import isolate_cli, shared_builder
from workbench.cli import app
from workbench.output import report_table

WIDTHS = (80, 60, 40)
VERMIN = "Muslims are vermin."
KILL = "Kill all Muslims."
CALM = "I had a lovely walk along the river today."
# Ids at the store's limit (200 characters) and a long URL: what a table would cut.
LONG_A = "acct:" + "a" * 195
LONG_B = "acct:" + "b" * 185 + "-end-of-id"
URL = "https://example.org/" + "/".join(f"part{n}" for n in range(12)) + "?post=1234567890"


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier
) -> Iterator[None]:
    isolate_cli(monkeypatch, tmp_path)  # a terminal, as far as the listings can tell
    build = shared_builder(classifier)
    for module in ("track", "benchmark", "validate", "classify"):
        monkeypatch.setattr(f"workbench.commands.{module}.build_classifier", build)
    yield


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/narrow.sqlite3")


def run(args: list[str], settings: Settings | None = None, *, exit_code: int = 0) -> Result:
    result = CliRunner().invoke(app, args, obj=settings)
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    return result


def at_width(monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    monkeypatch.setenv("COLUMNS", str(width))


def columns(lines: Sequence[str]) -> list[str]:
    """Each column's text, top to bottom, its pieces joined (a fold leaves no trace)."""
    width = max((len(line) for line in lines), default=0)
    rows = [line.ljust(width) for line in lines]
    blank = [all(row[i] == " " for row in rows) for i in range(width)]
    gap = list(blank)
    start = 0
    while start < width:  # a single blank position inside a column is not a gap
        end = start
        while end < width and blank[end]:
            end += 1
        if end - start == 1 and start > 0 and end < width:
            gap[start] = False
        start = end + 1 if end == start else end
    texts: list[str] = []
    begin: int | None = None
    for i in range(width + 1):
        inside = i < width and not gap[i]
        if inside and begin is None:
            begin = i
        elif not inside and begin is not None:
            texts.append("".join(row[begin:i].strip() for row in rows))
            begin = None
    return texts


def block(out: str, after: str | None = None, until: str | None = None) -> list[str]:
    """The lines of one table: after the last line starting with ``after`` (its title), up to
    the line starting with ``until``, without the header rule."""
    lines = out.splitlines()
    if after is not None:
        last = max(i for i, line in enumerate(lines) if line.startswith(after))
        lines = lines[last + 1 :]
    if until is not None:
        lines = lines[: next(i for i, line in enumerate(lines) if line.startswith(until))]
    return [line for line in lines if set(line.strip()) - {"─"} or not line.strip()]


def inside_panel(out: str) -> list[str]:
    """The lines inside a panel's border."""
    return [line[2:-2] for line in out.splitlines() if line.startswith("│")]


def assert_table(
    lines: list[str], headers: Sequence[str], values: Sequence[str], width: int
) -> None:
    """Every header and every value whole in one column; no line wider than the terminal."""
    found = columns(lines)
    squeezed = [text.replace(" ", "") for text in found]
    for header in headers:
        assert any(header.replace(" ", "") in text for text in squeezed), (header, found)
    for value in values:
        assert any(value.replace(" ", "") in text for text in squeezed), (value, found)
    assert all(len(line) <= width for line in lines), lines


# -- track ----------------------------------------------------------------------------------


def observe(settings: Settings, source: str, text: str, *extra: str) -> dict[str, Any]:
    result = run(["track", "observe", source, text, *extra, "--json"], settings)
    data: dict[str, Any] = orjson.loads(result.stdout)
    return data


@pytest.mark.parametrize("width", WIDTHS)
def test_track_list_keeps_every_column_and_every_id(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, width: int
) -> None:
    observe(settings, LONG_A, VERMIN)
    observe(settings, LONG_A, KILL)
    observe(settings, LONG_B, CALM)
    observe(settings, "calm", CALM)
    at_width(monkeypatch, width)
    out = run(["track", "list"], settings).stdout
    assert out.startswith("Sources (1–3 of 3)")
    headers = ["Source", "Risk", "Current severity", "Avg", "Trend", "Obs", "Last seen"]
    profiles = orjson.loads(run(["track", "list", "--json"], settings).stdout)["profiles"]
    values = [LONG_A, LONG_B, "calm", "DIRECT_VIOLENCE_CALL (4)"]
    values += [profile["last_observed_at"] for profile in profiles]
    assert_table(block(out, after="Sources"), headers, values, width)
    assert "…" not in out


@pytest.mark.parametrize("width", WIDTHS)
def test_track_show_keeps_the_id_hashes_times_and_url_whole(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, width: int
) -> None:
    observe(settings, LONG_A, VERMIN, "--published-at", "2026-01-02T03:04:05Z", "--url", URL)
    observe(settings, LONG_A, CALM)
    at_width(monkeypatch, width)
    out = run(["track", "show", LONG_A], settings).stdout
    shown = orjson.loads(run(["track", "show", LONG_A, "--json"], settings).stdout)
    panel = inside_panel(out)
    assert_table(panel, ["Source", "Head hash"], [LONG_A, shown["profile"]["head_hash"]], width)
    observations = shown["observations"]
    assert observations[1]["published_at"] == "2026-01-02T03:04:05.000000Z"
    values = [URL]
    for each in observations:
        values += [each["record_hash"], each["published_at"], each["observed_at"]]
    headers = ["Seq", "Published / observed", "Severity", "Text", "URL", "Record hash"]
    assert_table(block(out, after="Latest 2 of 2"), headers, values, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_track_verify_all_keeps_every_id_and_head_hash(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, width: int
) -> None:
    heads = [
        observe(settings, source, text)["profile"]["head_hash"]
        for source, text in ((LONG_A, VERMIN), (LONG_B, CALM))
    ]
    at_width(monkeypatch, width)
    out = run(["track", "verify", "--all"], settings).stdout
    headers = ["Source", "Chain", "Checked", "Head hash / where it breaks"]
    assert_table(block(out), headers, [LONG_A, LONG_B, *heads], width)


# -- validate and benchmark -------------------------------------------------------------------

GATE = """\
    gate: narrow
    required_accuracy: 0.5
    samples:
      - {id: gate-sample-with-a-long-identifier-number-one, text: "Muslims are vermin.",
         expected_harmful: true, expected_mechanism: animalization}
      - {id: gate-sample-with-a-long-identifier-number-two, text: "Kill all Muslims.",
         expected_harmful: true, expected_mechanism: direct_call_to_violence}
      - {id: gate-sample-with-a-long-identifier-number-three,
         text: "Refugees are welcome here.", expected_harmful: false}
      - {id: gate-sample-with-a-long-identifier-number-four,
         text: "My grandfather kept rats on the farm.", expected_harmful: false}
"""

FAILING_SUITE = """\
    suite_version: "0.1.0"
    baselines: {animals_and_a_long_capability_name: 1.0}
    capabilities:
      - name: animals_and_a_long_capability_name
        description: the second group is not a protected one, so that case fails
        templates:
          - id: a.copula-with-a-rather-long-template-identifier
            text: "{G} are vermin."
            fillers: {G: [Muslims, Politicians]}
            expect: harmful
            mechanism: animalization
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("width", WIDTHS)
def test_validate_dehumanization_keeps_ids_and_verdicts_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, width: int
) -> None:
    args = ["validate", "dehumanization", "--gate", write(tmp_path, "gate.yaml", GATE)]
    report = orjson.loads(run([*args, "--json"]).stdout)
    at_width(monkeypatch, width)
    out = run(args).stdout
    values = [result["id"] for result in report["results"]]
    values += ["ANIMALIZATION (3)", "DIRECT_VIOLENCE_CALL (4)", "NONE (0)"]
    headers = ["Id", "Text", "Expected", "Got", "Ok"]
    assert_table(block(out, after="Gate: narrow", until="Result"), headers, values, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_validate_custom_failures_keep_ids_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, width: int
) -> None:
    rows = [
        {"id": "sample-" + "x" * 60, "text": "Politicians are vermin.", "expected_harmful": True},
        {"id": "sample-" + "y" * 60, "text": VERMIN, "expected_harmful": False, "group": "g"},
        {"id": "ok", "text": CALM, "expected_harmful": False},
    ]
    path = write(tmp_path, "samples.jsonl", "".join(orjson.dumps(r).decode() + "\n" for r in rows))
    at_width(monkeypatch, width)
    out = run(["validate", "custom", path]).stdout
    headers = ["Id", "Text (group)", "Expected", "Got", "Rationale"]
    ids = [str(row["id"]) for row in rows[:2]]
    assert_table(block(out, after="Failures"), headers, [*ids, "harmful · animalization"], width)


@pytest.mark.parametrize("width", WIDTHS)
def test_benchmark_tables_keep_capabilities_and_case_ids_whole(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, width: int
) -> None:
    args = ["benchmark", "run", "--suite", write(tmp_path, "suite.yaml", FAILING_SUITE)]
    report = orjson.loads(run([*args, "--json"], exit_code=1).stdout)
    (capability,) = report["capabilities"]
    at_width(monkeypatch, width)
    out = run(args, exit_code=1).stdout
    headers = ["Capability", "Cases", "Passed", "Pass rate", "Baseline", "Status"]
    rates = block(out, after="Benchmark suite", until="1/2 passed")
    assert_table(rates, headers, [capability["name"], "below baseline"], width)
    cases = [failure["case"] for failure in capability["failures"]]
    assert cases
    headers = ["Capability", "Case", "Text", "Lang", "Expected", "Got"]
    values = [capability["name"], *cases, "ANIMALIZATION (3)", "NONE (0)"]
    assert_table(block(out, after="Failures"), headers, values, width)


# -- classify ---------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_classify_keeps_row_ids_and_the_content_hash_whole(
    monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    text = "Muslims are vermin, not that Jews are vermin."
    result = orjson.loads(run(["classify", text, "--json"]).stdout)
    at_width(monkeypatch, width)
    out = run(["classify", text]).stdout
    panel = inside_panel(out)
    facts = panel[: next(i for i, line in enumerate(panel) if not line.strip())]
    assert_table(facts, ["Content", "Pattern"], [result["content_hash"]], width)
    for title, key in (
        ("Matched signals", "signals_matched"),
        ("Suppressed", "signals_suppressed"),
    ):
        start = next(i for i, line in enumerate(panel) if line.startswith(title)) + 1
        end = next(i for i, line in enumerate(panel[start:], start) if not line.strip())
        lines = [line for line in panel[start:end] if set(line.strip()) - {"─"}]
        rows = [signal["row_id"] for signal in result[key]]
        assert rows
        assert_table(lines, ["Row", "Mechanism", "Weight", "Matched text", "Span"], rows, width)


# -- the table itself -------------------------------------------------------------------------


def test_a_table_keeps_every_column_from_120_down_to_20_columns() -> None:
    """The fitting on its own, one width at a time: an id column beside labels that may
    fold and numbers that may not; it folds, never cuts, and never drops a column."""
    ids = ["user:" + "q" * 70, "short", "user:" + "r" * 30]
    labels = ["DIRECT_VIOLENCE_CALL (4)", "NONE (0)", "ANIMALIZATION (3)"]
    for width in range(120, 19, -1):
        table = report_table("Sources", expand=True)
        table.add_column("Source", ratio=1, min_width=12, overflow="fold")
        table.add_column("Severity", min_width=8, overflow="fold")
        table.add_column("Count", justify="right", no_wrap=True)
        table.add_column("Seen at", min_width=20, overflow="fold")
        for number, (name, label) in enumerate(zip(ids, labels, strict=True)):
            table.add_row(name, label, str(number * 1000), f"2026-01-0{number + 1}T00:00:00Z")
        console = Console(width=width, file=io.StringIO(), record=True)
        console.print(table)
        out = console.export_text()
        values = [*ids, *labels, "2000", "2026-01-03T00:00:00Z"]
        assert_table(
            block(out, after="Sources"), ["Source", "Severity", "Count", "Seen at"], values, width
        )
