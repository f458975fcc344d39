"""``harmwatch validate``: score the classifier against labelled samples.

``validate custom`` reads a labelled JSONL or CSV file; ``validate dehumanization``
runs the legacy phase-1 gate, a fixed sample set stored with the taxonomy.
For custom files, one command reproduces the external-evaluation protocol (recall on positives,
true-negative rate on negatives, flag rate on everything else, per group), so
an evaluation report never depends on a one-off script. Reading is
``workbench.samples``; scoring is ``engine.validation``; this module wires them
together and renders the report.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from engine import Classifier, build_classifier
from engine.evaluation.benchmark import load_gate, run_gate
from engine.evaluation.validation import Sample, ValidationRun
from workbench.options import (
    ContextCol,
    IdCol,
    JsonFlag,
    LanguageCol,
    TextCol,
    column_option,
    settings_of,
)
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
from workbench.samples import (
    DEFAULT_NEGATIVE,
    DEFAULT_POSITIVE,
    Columns,
    LabelledFormat,
    Labels,
    SampleFormat,
    SampleReader,
    count_lines,
    detect_format,
    fold_label,
)

SHOWN_FAILURES = 20
# Distinct not-scored labels listed by name; more are lumped together, so a file
# with a free-text label column cannot grow the tally without bound.
LISTED_LABELS = 20
TEXT_CHARS = 80
RATIONALE_CHARS = 200
DASH = "—"

FileArgument = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        show_default=False,
        help="Samples: .jsonl (one JSON object a line) or .csv (with a header row).",
    ),
]
FormatOption = Annotated[
    LabelledFormat | None,
    typer.Option(
        "--format", show_default=False, help="Read FILE as this format whatever its extension."
    ),
]


_column = column_option


LabelCol = Annotated[
    str, _column("--label-col", "Column with the label (default expected_harmful).")
]
GroupCol = Annotated[
    str | None, _column("--group-col", "Column to break results down by (default group).")
]
MechanismCol = Annotated[
    str | None,
    _column(
        "--mechanism-col",
        "Column with the expected harm mechanism (default expected_mechanism).",
    ),
]
PositiveOption = Annotated[
    list[str] | None,
    typer.Option(
        "--positive",
        metavar="VALUE",
        show_default=False,
        help=f"Label value meaning harmful; repeatable (default {', '.join(DEFAULT_POSITIVE)}).",
    ),
]
NegativeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--negative",
        metavar="VALUE",
        show_default=False,
        help=f"Label value meaning not harmful; repeatable (default "
        f"{', '.join(DEFAULT_NEGATIVE)}).",
    ),
]
DefaultLanguageOption = Annotated[
    str | None,
    typer.Option(
        "--default-language",
        metavar="LANG",
        show_default=False,
        help="Language for rows without one (default: the classifier's, en).",
    ),
]
NameOption = Annotated[
    str | None,
    typer.Option(
        "--name", metavar="TEXT", show_default=False, help="Report name (default the file's stem)."
    ),
]
MarkdownFlag = Annotated[
    bool,
    typer.Option("--markdown", help="Print the overall and per-group tables as GitHub Markdown."),
]


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="validate",
        help="Measure the classifier against labelled samples.",
        no_args_is_help=True,
    )
    group.command("custom")(custom)
    group.command("dehumanization")(dehumanization)
    app.add_typer(group, name="validate")


def custom(
    ctx: typer.Context,
    file: FileArgument,
    fmt: FormatOption = None,
    text_col: TextCol = "text",
    label_col: LabelCol = "expected_harmful",
    positive: PositiveOption = None,
    negative: NegativeOption = None,
    group_col: GroupCol = None,
    language_col: LanguageCol = None,
    mechanism_col: MechanismCol = None,
    id_col: IdCol = None,
    context_col: ContextCol = None,
    default_language: DefaultLanguageOption = None,
    name: NameOption = None,
    as_json: JsonFlag = False,
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
    markdown: MarkdownFlag = False,
) -> None:
    """Classify every sample in FILE and report accuracy, precision, recall, F1 and the
    true-negative rate, overall and per group.

    A row whose label is neither a --positive nor a --negative value is classified and
    reported as "not scored" (its flag rate is shown), not counted as right or wrong.
    Optional columns (group, language, expected_mechanism, id, context) are read when present; a
    column named with an option must exist. A malformed row (bad JSON, a missing column,
    non-UTF-8 bytes, an empty or over-long text) stops the run, naming the file and line,
    because numbers from a partly-read file would mislead. Exit status: 0 done, 2 error.
    --csv/--tsv print the failures (up to 200), one row each, ids and texts whole.
    """
    if markdown and (as_json or as_csv or as_tsv):
        raise typer.BadParameter(
            "give --json, --csv, --tsv or --markdown, not several", param_hint="--markdown"
        )
    # Piped without a flag, the report stays the human one (it is a report, not a
    # listing, and --markdown exists for documents); --csv/--tsv list the failures.
    flagged = as_json or as_csv or as_tsv
    out = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv) if flagged else "table"
    sample_format = detect_format(file, None if fmt is None else SampleFormat(fmt.value))
    labels = Labels.of(positive or DEFAULT_POSITIVE, negative or DEFAULT_NEGATIVE)
    columns = Columns(
        text=text_col,
        label=label_col,
        group=group_col,
        language=language_col,
        mechanism=mechanism_col,
        id=id_col,
        context=context_col,
        default_language=default_language,
    )
    with file.open("rb"):  # a missing file fails before the slow classifier build
        pass
    classifier = build_classifier(settings_of(ctx))
    reader = SampleReader(
        file,
        sample_format,
        columns,
        labels,
        check=lambda text, language: classifier.check_input(text, None, language),
        max_text_chars=classifier.max_text_chars,
    )
    report, tally = _run(classifier, reader, name or file.stem, show=out == "table")
    _warn_unused_labels(positive, negative, labels, tally)
    if out == "csv" or out == "tsv":
        write_rows(
            out, FAILURE_COLUMNS, ([f[c] for c in FAILURE_COLUMNS] for f in report["failures"])
        )
    elif as_json:
        write_json(report, typer.get_binary_stream("stdout"))
    elif markdown:
        typer.echo(render_markdown(report), nl=False)
    else:
        _print_report(console(), report, tally)


GateOption = Annotated[
    Path | None,
    typer.Option(
        "--gate",
        metavar="FILE",
        show_default=False,
        help="Run this gate file instead of the one the taxonomy names.",
    ),
]


def dehumanization(
    ctx: typer.Context,
    gate: GateOption = None,
    as_json: JsonFlag = False,
    as_csv: CsvFlag = False,
    as_tsv: TsvFlag = False,
) -> None:
    """Run the legacy phase-1 gate: a fixed, balanced set of dehumanization samples
    stored with the taxonomy, scored on the harmful/not-harmful decision.

    Exit status: 0 the accuracy reaches the required accuracy, 1 it does not, 2 error.
    --csv/--tsv (TSV is the default when piped) print one row per sample, ids and texts
    whole.
    """
    fmt = listing_format(as_json=as_json, as_csv=as_csv, as_tsv=as_tsv)
    # A gate file given by hand is checked before the slow classifier build.
    explicit = load_gate(path=gate) if gate is not None else None
    classifier = build_classifier(settings_of(ctx))
    report = run_gate(classifier, explicit or load_gate(classifier.taxonomy))
    if fmt == "json":
        write_json(report, typer.get_binary_stream("stdout"))
    elif fmt == "csv" or fmt == "tsv":
        write_rows(fmt, GATE_COLUMNS, ([r[c] for c in GATE_COLUMNS] for r in report["results"]))
    else:
        out = console()
        out.print(_gate_table(report, severity_labels(classifier.root)))
        out.print(_gate_summary(report))
    if not report["passed"]:
        typer.echo(
            f"gate failed: accuracy {pct(report['accuracy'])} "
            f"< required {pct(report['required_accuracy'])}",
            err=True,
        )
        raise typer.Exit(1)


GATE_COLUMNS = (
    "id",
    "text",
    "language",
    "expected_harmful",
    "expected_mechanism",
    "got_harmful",
    "got_mechanism",
    "correct",
)


def _gate_verdict(harmful: bool, mechanism: str | None, labels: Mapping[str, str]) -> str:
    """The severity display of SPEC section 7: ``ANIMALIZATION (3)``, or ``NONE (0)``."""
    return severity_label(mechanism if harmful else None, labels)


def _gate_table(report: Mapping[str, Any], labels: Mapping[str, str]) -> Table:
    table = report_table(f"Gate: {visible(report['gate'])}", expand=True)
    table.add_column("Id", min_width=8, overflow="fold")  # folded, never cut
    table.add_column("Text", ratio=4, min_width=8, overflow="fold")
    table.add_column("Expected", min_width=10, overflow="fold")
    table.add_column("Got", min_width=10, overflow="fold")
    table.add_column("Ok", no_wrap=True)
    for result in report["results"]:
        mark = Text("✓", "green") if result["correct"] else Text("✗", "bold red")
        table.add_row(
            Text(visible(result["id"])),
            _clip(result["text"], TEXT_CHARS),
            _gate_verdict(result["expected_harmful"], result["expected_mechanism"], labels),
            _gate_verdict(result["got_harmful"], result["got_mechanism"], labels),
            mark,
        )
    return table


def _gate_summary(report: Mapping[str, Any]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column()
    verdict = Text("PASSED", "bold green") if report["passed"] else Text("FAILED", "bold red")
    table.add_row("Result", verdict)
    table.add_row("Correct", f"{report['correct']} of {report['samples']}")
    table.add_row(
        "Accuracy", f"{pct(report['accuracy'])} (required {pct(report['required_accuracy'])})"
    )
    table.add_row("Precision", pct(report["precision"]))
    table.add_row("Recall", pct(report["recall"]))
    table.add_row("F1", pct(report["f1"]))
    return table


# -- running -------------------------------------------------------------------------------


@dataclass(slots=True)
class LabelTally:
    """Which raw labels the rows carried: the not-scored ones by count, the scored ones seen.

    Shown with the report so that a typo in --positive (every positive row silently
    "not scored") is visible at a glance.
    """

    not_scored: Counter[str] = field(default_factory=Counter)
    other_not_scored: int = 0
    scored: set[str] = field(default_factory=set)

    def add(self, sample: Sample, labels: Labels) -> None:
        label = sample.label or ""
        if sample.expected_harmful is not None:
            folded = fold_label(label)
            if folded in labels.positive or folded in labels.negative:  # bounded by the options
                self.scored.add(folded)
        elif label in self.not_scored or len(self.not_scored) < LISTED_LABELS:
            self.not_scored[label] += 1
        else:
            self.other_not_scored += 1


def _run(
    classifier: Classifier, reader: SampleReader, name: str, *, show: bool
) -> tuple[dict[str, Any], LabelTally]:
    run = ValidationRun(classifier, name=name)
    tally = LabelTally()
    with _progress(reader.path, show=show and sys.stderr.isatty()) as advance:
        for sample in reader:
            run.add(sample)
            tally.add(sample, reader.labels)
            advance(reader.line)
    return run.report(), tally


@contextmanager
def _progress(path: Path, *, show: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar over the file's lines on stderr; a no-op when it would not be seen."""
    if not show:
        yield lambda _line: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console(stderr=True), transient=True) as progress:
        task = progress.add_task("validating", total=count_lines(path))
        yield lambda line: progress.update(task, completed=line)


def _warn_unused_labels(
    positive: Sequence[str] | None,
    negative: Sequence[str] | None,
    labels: Labels,
    tally: LabelTally,
) -> None:
    """A value the user passed that no row carried is almost always a typo."""
    for flag, given in (("--positive", positive), ("--negative", negative)):
        for value in given or ():
            if fold_label(value) not in tally.scored:
                typer.echo(f"warning: {flag} {value!r} matched no row's label", err=True)


# -- numbers -------------------------------------------------------------------------------


def pct(value: float | None) -> str:
    """A 0–1 ratio as a percentage with one decimal; a dash when there was nothing to divide."""
    return DASH if value is None else f"{value * 100:.1f}%"


def _of(value: float | None, count: int) -> str:
    return DASH if value is None else f"{pct(value)} of {count}"


def _rate_n(value: float | None, count: int) -> str:
    return DASH if value is None else f"{pct(value)} ({count})"


def _confusion(confusion: Mapping[str, int]) -> str:
    return "  ".join(f"{key.upper()} {confusion[key]}" for key in ("tp", "fp", "tn", "fn"))


# -- human output ----------------------------------------------------------------------------


def _print_report(out: Console, report: Mapping[str, Any], tally: LabelTally) -> None:
    out.print(_summary(report, tally))
    if report["by_group"]:
        out.print()
        out.print(_group_table(report["by_group"]))
    failures = report["failures"]
    if failures:
        out.print()
        out.print(_failure_table(failures[:SHOWN_FAILURES], report["failure_count"]))


def _summary(report: Mapping[str, Any], tally: LabelTally) -> Table:
    table = report_table(f"Validation: {visible(report['name'])}")
    table.add_column("Metric", style="dim", no_wrap=True)
    table.add_column("Value", min_width=10, overflow="fold")
    confusion = report["confusion"]
    scored = sum(confusion.values())
    table.add_row("Samples", f"{report['total']} ({scored} scored)")
    table.add_row("Accuracy", pct(report["accuracy"]))
    table.add_row("Precision", pct(report["precision"]))
    table.add_row("Recall", _of(report["recall"], confusion["tp"] + confusion["fn"]))
    table.add_row("F1", pct(report["f1"]))
    table.add_row(
        "True-negative rate",
        _of(report["true_negative_rate"], confusion["tn"] + confusion["fp"]),
    )
    table.add_row("Confusion", _confusion(confusion))
    table.add_row("Not scored", _not_scored(report, tally))
    table.add_row("Mechanism accuracy", pct(report["mechanism_accuracy"]))
    languages = ", ".join(
        f"{visible(code)} {metrics['total']}" for code, metrics in report["by_language"].items()
    )
    table.add_row("Languages", languages or DASH)
    table.add_row("Failures", str(report["failure_count"]))
    table.add_row("Duration", f"{report['duration_ms'] / 1000:.2f} s")
    return table


def _not_scored(report: Mapping[str, Any], tally: LabelTally) -> Text:
    count = report["not_scored"]
    if not count:
        return Text("0")
    text = Text(f"{count}, flagged {pct(report['not_scored_flag_rate'])}")
    named = ", ".join(
        f"{visible(label) or '(empty)'} {n}" for label, n in tally.not_scored.most_common()
    )
    if tally.other_not_scored:
        named += f", other labels {tally.other_not_scored}"
    text.append(f" (labels: {named})", "dim")
    return text


def _group_table(groups: Mapping[str, Mapping[str, Any]]) -> Table:
    table = report_table("By group", expand=True)
    table.caption = (
        "Recall on positives, true-negative rate on negatives, flag rate on not-scored rows; "
        "(n) is how many rows each rate is over."
    )
    table.caption_justify = "left"
    table.add_column("Group", ratio=1, min_width=10, overflow="fold")
    table.add_column("n", justify="right", no_wrap=True)
    for header in ("Recall", "TNR", "Flag rate", "Accuracy"):
        table.add_column(header, justify="right", no_wrap=True)
    for group, metrics in sorted(groups.items()):
        table.add_row(
            Text(visible(group)),
            str(metrics["total"]),
            _rate_n(metrics["recall"], metrics["positives"]),
            _rate_n(metrics["true_negative_rate"], metrics["negatives"]),
            _rate_n(metrics["not_scored_flag_rate"], metrics["not_scored"]),
            pct(metrics["accuracy"]),
        )
    return table


def _verdict(harmful: bool | None, mechanism: str | None) -> str:
    verdict = "harmful" if harmful else "not harmful"
    return f"{verdict} · {mechanism}" if harmful and mechanism else verdict


def _clip(text: str, limit: int) -> Text:
    shown = visible(text)
    return Text(shown if len(shown) <= limit else shown[: limit - 1] + "…")


FAILURE_COLUMNS = (
    "id",
    "text",
    "language",
    "group",
    "expected_harmful",
    "expected_mechanism",
    "got_harmful",
    "got_mechanism",
    "rationale",
)


def _failure_table(failures: Sequence[Mapping[str, Any]], count: int) -> Table:
    more = f" (first {len(failures)} of {count}; --json lists up to 200)"
    table = report_table("Failures" + (more if count > len(failures) else ""), expand=True)
    with_ids = any(failure["id"] is not None for failure in failures)
    if with_ids:
        table.add_column("Id", min_width=8, overflow="fold")  # ids are folded, never cut
    table.add_column("Text (group)", ratio=3, min_width=8, overflow="fold")
    table.add_column("Expected", ratio=2, min_width=11, overflow="fold")
    table.add_column("Got", ratio=2, min_width=11, overflow="fold")
    table.add_column("Rationale", ratio=4, min_width=10, overflow="fold")
    for failure in failures:
        text = _clip(failure["text"], TEXT_CHARS)
        if failure["group"] is not None:
            text.append(f"\n{visible(failure['group'])}", "dim")
        cells: list[RenderableType] = [
            text,
            _verdict(failure["expected_harmful"], failure["expected_mechanism"]),
            _verdict(failure["got_harmful"], failure["got_mechanism"]),
            _clip(failure["rationale"], RATIONALE_CHARS),
        ]
        if with_ids:
            cells.insert(0, Text(DASH if failure["id"] is None else visible(str(failure["id"]))))
        table.add_row(*cells)
    return table


# -- Markdown ------------------------------------------------------------------------------

_MD_COLUMNS = ("positives", "recall", "negatives", "TNR", "not scored", "flag rate")


def render_markdown(report: Mapping[str, Any]) -> str:
    """The overall and per-group tables as GitHub Markdown, for pasting into a report.

    The overall table adds precision, F1 and accuracy: they are defined on
    positives vs negatives as a whole, which is how the protocol reports them.
    """
    overall = {
        "positives": report["confusion"]["tp"] + report["confusion"]["fn"],
        "negatives": report["confusion"]["tn"] + report["confusion"]["fp"],
        "recall": report["recall"],
        "true_negative_rate": report["true_negative_rate"],
        "not_scored": report["not_scored"],
        "not_scored_flag_rate": report["not_scored_flag_rate"],
    }
    lines = [
        f"### {_md_cell(report['name'])}: overall",
        "",
        _md_row(["", *_MD_COLUMNS, "precision", "F1", "accuracy"]),
        _md_rule(10),
        _md_row(
            [
                "all",
                *_md_counts(overall),
                pct(report["precision"]),
                pct(report["f1"]),
                pct(report["accuracy"]),
            ]
        ),
        "",
    ]
    if report["by_group"]:
        lines += [
            f"### {_md_cell(report['name'])}: by group",
            "",
            _md_row(["group", *_MD_COLUMNS]),
            _md_rule(7),
        ]
        lines += [
            _md_row([_md_cell(group), *_md_counts(metrics)])
            for group, metrics in sorted(report["by_group"].items())
        ]
        lines.append("")
    return "\n".join(lines)


def _md_counts(metrics: Mapping[str, Any]) -> list[str]:
    return [
        str(metrics["positives"]),
        pct(metrics["recall"]),
        str(metrics["negatives"]),
        pct(metrics["true_negative_rate"]),
        str(metrics["not_scored"]),
        pct(metrics["not_scored_flag_rate"]),
    ]


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_rule(columns: int) -> str:
    return "|---" + "|---:" * (columns - 1) + "|"


def _md_cell(value: str) -> str:
    """Data (a group name) made safe for one table cell: no pipes, newlines or controls."""
    return " ".join(visible(value).replace("\\", "\\\\").replace("|", "\\|").split())
