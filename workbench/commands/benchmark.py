"""``harmwatch benchmark run``: the functional suite, reported by capability.

The suite and each capability's baseline live in the taxonomy folder
(``engine.benchmark`` loads and runs them); this module adds the progress bar,
the tables and the exit status that lets CI stop a taxonomy change that makes
any one capability worse, even when the overall pass rate looks fine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from engine import build_classifier
from engine.evaluation.benchmark import (
    Regression,
    Suite,
    load_suite,
    regressions,
    run_suite,
    select_cases,
)
from workbench.commands.validate import pct
from workbench.options import JsonFlag, settings_of
from workbench.output import (
    CsvFlag,
    TsvFlag,
    console,
    listing_format,
    report_table,
    severity_label,
    severity_labels,
    visible,
    write_json,
    write_rows,
)

TEXT_CHARS = 70

CapabilityOption = Annotated[
    list[str] | None,
    typer.Option(
        "--capability",
        "-c",
        metavar="NAME",
        show_default=False,
        help="Run only this capability (e.g. negation); repeatable.",
    ),
]
LanguageFilter = Annotated[
    list[str] | None,
    typer.Option(
        "--language",
        "-l",
        metavar="CODE",
        show_default=False,
        help="Run only the cases in this language (e.g. es); repeatable.",
    ),
]
SuiteOption = Annotated[
    Path | None,
    typer.Option(
        "--suite",
        metavar="FILE",
        show_default=False,
        help="Run this suite file instead of the one the taxonomy names.",
    ),
]


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="benchmark",
        help="Run the functional benchmark suite of the taxonomy.",
        no_args_is_help=True,
    )
    group.command("run")(run)
    app.add_typer(group, name="benchmark")


def run(
    ctx: typer.Context,
    capability: CapabilityOption = None,
    language: LanguageFilter = None,
    suite: SuiteOption = None,
    as_json: JsonFlag = False,
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
) -> None:
    """Run the functional benchmark suite and report pass rates by capability.

    Each capability (a harm mechanism, negation, obfuscation, a language, ...) is
    compared with the pass rate stored for it in the suite; the ones below it are
    named on stderr. Exit status: 0 none below its baseline, 1 one or more below,
    2 error (a bad suite file, an unknown capability or language). --csv/--tsv (TSV is
    the default when piped) print one row per capability.
    """
    fmt = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv)
    # A suite file given by hand is checked before the slow classifier build.
    explicit = load_suite(path=suite) if suite is not None else None
    classifier = build_classifier(settings_of(ctx))
    loaded = explicit or load_suite(classifier.taxonomy)
    total = len(select_cases(loaded, capabilities=capability, languages=language))
    with _progress(total, show=fmt == "table" and sys.stderr.isatty()) as advance:
        report = run_suite(
            classifier, loaded, capabilities=capability, languages=language, progress=advance
        )
    below = regressions(report, loaded)
    if fmt == "json":
        write_json(report, typer.get_binary_stream("stdout"))
    elif fmt == "csv" or fmt == "tsv":
        write_rows(fmt, CAPABILITY_COLUMNS, _capability_rows(report, loaded, below))
    else:
        _print_report(console(), report, loaded, severity_labels(classifier.root))
    for regression in below:
        typer.echo(
            f"below baseline: {regression.capability} {pct(regression.pass_rate)} "
            f"< {pct(regression.baseline)}",
            err=True,
        )
    if below:
        raise typer.Exit(1)


@contextmanager
def _progress(total: int, *, show: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar over the cases on stderr; a no-op when it would not be seen."""
    if not show:
        yield lambda _done: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console(stderr=True), transient=True) as progress:
        task = progress.add_task("benchmark", total=total)
        yield lambda done: progress.update(task, completed=done)


# -- human output ----------------------------------------------------------------------------


def _print_report(
    out: Console, report: Mapping[str, Any], suite: Suite, labels: Mapping[str, str]
) -> None:
    below = {r.capability: r for r in regressions(report, suite)}
    out.print(_capability_table(report, suite, below))
    out.print(
        f"{report['passed']}/{report['total']} passed ({pct(report['pass_rate'])}) "
        f"in {report['duration_ms']:.0f} ms"
    )
    failures = [
        (capability["name"], failure)
        for capability in report["capabilities"]
        for failure in capability["failures"]
    ]
    if failures:
        out.print()
        out.print(_failure_table(failures, labels))


CAPABILITY_COLUMNS = ("capability", "total", "passed", "pass_rate", "baseline", "status")


def _capability_rows(
    report: Mapping[str, Any], suite: Suite, below: Sequence[Regression]
) -> list[tuple[object, ...]]:
    """One row per capability; rates as fractions, as in the JSON report."""
    under = {regression.capability for regression in below}
    return [
        (
            capability["name"],
            capability["total"],
            capability["passed"],
            capability["pass_rate"],
            suite.baselines[capability["name"]],
            "below baseline" if capability["name"] in under else "ok",
        )
        for capability in report["capabilities"]
    ]


def _capability_table(
    report: Mapping[str, Any], suite: Suite, below: Mapping[str, Regression]
) -> Table:
    table = report_table(
        f"Benchmark suite {report['suite_version']} · taxonomy {report['taxonomy_version']}",
        show_edge=True,
    )
    table.add_column("Capability", min_width=10, overflow="fold")
    table.add_column("Cases", justify="right")
    table.add_column("Passed", justify="right")
    table.add_column("Pass rate", justify="right")
    table.add_column("Baseline", justify="right")
    table.add_column("Status", no_wrap=True)
    for capability in report["capabilities"]:
        name = capability["name"]
        status = Text("below baseline", "bold red") if name in below else Text("ok", "green")
        table.add_row(
            name,
            str(capability["total"]),
            str(capability["passed"]),
            pct(capability["pass_rate"]),
            pct(suite.baselines[name]),
            status,
        )
    return table


def _verdict(verdict: Mapping[str, Any], labels: Mapping[str, str]) -> str:
    """The severity display of SPEC section 7: ``ANIMALIZATION (3)``, or ``NONE (0)``."""
    return severity_label(verdict["harm_mechanism"] if verdict["is_harmful"] else None, labels)


def _failure_table(
    failures: Sequence[tuple[str, Mapping[str, Any]]], labels: Mapping[str, str]
) -> Table:
    table = report_table("Failures", expand=True, show_edge=True)
    table.add_column("Capability", ratio=2, min_width=10, overflow="fold")
    table.add_column("Case", ratio=2, min_width=8, overflow="fold")  # ids fold, never cut
    table.add_column("Text", ratio=4, min_width=8, overflow="fold")
    table.add_column("Lang", no_wrap=True)
    table.add_column("Expected", min_width=10, overflow="fold")
    table.add_column("Got", min_width=10, overflow="fold")
    for capability, failure in failures:
        shown = visible(failure["text"])
        if len(shown) > TEXT_CHARS:
            shown = shown[: TEXT_CHARS - 1] + "…"
        table.add_row(
            capability,
            Text(visible(str(failure["case"]))),
            Text(shown),
            Text(visible(failure["language"])),
            _verdict(failure["expected"], labels),
            _verdict(failure["got"], labels),
        )
    return table
