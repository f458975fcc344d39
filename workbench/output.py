"""Rendering for humans (Rich) and for scripts (orjson), shared by every command.

Texts under analysis are hostile input: they may hold terminal escape sequences
or bidi controls that would rewrite what the analyst sees, and brackets that
Rich would read as markup. Everything taken from a text is therefore shown
through ``visible`` and as ``Text`` objects, never as markup strings.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal

import orjson
import typer
from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from engine import Classification, Signal

if TYPE_CHECKING:
    from engine.taxonomy_models import Taxonomy

NONE_LABEL = "NONE (0)"

# C0/C1 controls (tab and newline kept), zero-width and bidi controls, BOM.
_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


def console(*, stderr: bool = False) -> Console:
    """A console on the current stdout/stderr (which test runners swap), width from COLUMNS."""
    return Console(stderr=stderr, highlight=False)


def json_bytes(value: Any) -> bytes:
    """One JSON document and a newline; orjson keeps non-ASCII text as UTF-8."""
    return orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)


def write_json(value: Any, stream: IO[bytes]) -> None:
    stream.write(json_bytes(value))
    stream.flush()


def severity_labels(taxonomy: Taxonomy) -> dict[str, str]:
    """``mechanism -> 'ANIMALIZATION (3)'`` from the taxonomy, so the wording is never in code."""
    return {
        str(name): f"{mechanism.display} ({mechanism.severity})"
        for name, mechanism in taxonomy.mechanisms.items()
    }


def severity_label(mechanism: str | None, labels: Mapping[str, str]) -> str:
    if mechanism is None:
        return NONE_LABEL
    return labels.get(mechanism, f"{mechanism.upper()} (?)")


def visible(text: str) -> str:
    """The text with invisible and control characters shown as ``\\uXXXX`` escapes."""
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _span(span: Sequence[int]) -> str:
    return f"{span[0]}–{span[1]}"


def report_table(
    title: str | None = None, *, expand: bool = False, show_edge: bool = False
) -> Table:
    """The workbench's one table style: a bold title on the left over a single header rule."""
    return Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        expand=expand,
        pad_edge=False,
        show_edge=show_edge,
    )


def _signal_table(title: str, signals: Sequence[Signal], *, suppressed: bool) -> Table:
    table = report_table(title, expand=True)
    table.add_column("Row", no_wrap=True)
    table.add_column("Mechanism", no_wrap=True)
    table.add_column("Weight", justify="right", no_wrap=True)
    table.add_column("Matched text", ratio=1, overflow="fold")
    table.add_column("Span", no_wrap=True)
    if suppressed:
        table.add_column("Suppressed by", ratio=1, overflow="fold")
    for signal in signals:
        mechanism = signal.harm_mechanism + (" (coded)" if signal.source == "dogwhistle" else "")
        weight = f"{signal.weight:.2f}"
        if signal.score != signal.weight:
            weight += f"→{signal.score:.2f}"
        cells: list[RenderableType] = [
            signal.row_id,
            mechanism,
            weight,
            Text(visible(signal.matched_text)),
            _span(signal.span),
        ]
        if suppressed and signal.suppressed_by is not None:
            why = signal.suppressed_by
            cells.append(Text.assemble(why.reason, " ", (f"“{visible(why.cue)}”", "italic")))
        table.add_row(*cells)
    return table


def _facts(result: Classification, label: str) -> Table:
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    verdict_style = "bold red" if result.is_harmful else "bold green"
    facts.add_row(
        "Decision", Text("HARMFUL" if result.is_harmful else "NOT HARMFUL", verdict_style)
    )
    facts.add_row("Severity", Text(label, "bold"))
    facts.add_row("Category", result.harm_category)
    facts.add_row("Confidence", f"{result.confidence:.3f}")
    if result.identity_axis or result.target_type:
        facts.add_row("Target", f"{result.identity_axis} / {result.target_type}")
    else:
        facts.add_row("Target", Text("no identity-group target", "dim"))
    facts.add_row("Language", f"{result.language} ({result.language_confidence})")
    detected = result.language_detected
    if detected is not None:
        facts.add_row(
            "Identified", f"{visible(detected.code)} (confidence {detected.confidence:.3f})"
        )
    facts.add_row("Pattern", result.matched_pattern or Text("—", "dim"))
    facts.add_row("Rationale", Text(visible(result.decision_rationale)))
    coded = result.dogwhistle_matched
    if coded is not None:
        term = Text(f"“{visible(coded.term)}”", "bold")
        facts.add_row("Dogwhistle", term + Text(f": {visible(coded.meaning)}"))
    amp = result.amplification
    if amp.factor != 1.0 or amp.provider is not None:
        facts.add_row(
            "Amplified",
            f"×{amp.factor:.2f} by {amp.provider or '?'} {amp.model_version or ''}".rstrip(),
        )
    facts.add_row("Content", f"sha256 {result.content_hash[:12]}…")
    facts.add_row("Taxonomy", result.taxonomy_version)
    facts.add_row("Timestamp", result.timestamp)
    return facts


def render_classification(result: Classification, labels: Mapping[str, str]) -> RenderableType:
    """One panel: the decision and its explanation, readable at 100 columns."""
    label = severity_label(result.harm_mechanism, labels)
    parts: list[RenderableType] = [_facts(result, label)]
    if result.signals_matched:
        parts.append(Text())
        parts.append(_signal_table("Matched signals", result.signals_matched, suppressed=False))
    if result.signals_suppressed:
        parts.append(Text())
        parts.append(
            _signal_table("Suppressed signals", result.signals_suppressed, suppressed=True)
        )
    if result.counter_narrative_guidance:
        parts.append(Text())
        parts.append(Text("Counter-narrative guidance", "bold"))
        parts.append(Text(result.counter_narrative_guidance))
    colour = "red" if result.is_harmful else "green"
    verdict = "HARMFUL" if result.is_harmful else "NOT HARMFUL"
    return Panel(
        Group(*parts),
        title=Text(f"{verdict} · {label}", f"bold {colour}"),
        title_align="left",
        border_style=colour,
        padding=(0, 1),
    )


# -- listings: one format choice and one writer for every listing command -------------

ListingFormat = Literal["table", "json", "csv", "tsv"]

CsvFlag = Annotated[
    bool,
    typer.Option("--csv", help="Print comma-separated values (RFC 4180) with a header row."),
]
TsvFlag = Annotated[
    bool,
    typer.Option(
        "--tsv",
        help="Print tab-separated values with a header row (the default when stdout is "
        "not a terminal).",
    ),
]

# Linear TSV: a tab, newline or backslash inside a value is written as an escape, so one
# line is always one row and every row has the header's number of fields.
_TSV_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def listing_format(*, as_json: bool, as_csv: bool = False, as_tsv: bool = False) -> ListingFormat:
    """The format a listing prints in: the flag given, else a table on a terminal and
    TSV when stdout is piped, because a Rich table folds, pads and styles for a screen
    and a script reading it would get cut or merged columns."""
    flags: tuple[tuple[ListingFormat, bool], ...] = (
        ("json", as_json),
        ("csv", as_csv),
        ("tsv", as_tsv),
    )
    chosen = [name for name, on in flags if on]
    if len(chosen) > 1:
        raise ValueError(f"--{chosen[0]} and --{chosen[1]} cannot be combined: choose one")
    if chosen:
        return chosen[0]
    return "table" if stdout_is_terminal() else "tsv"


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (a function, so tests of the table view can say yes)."""
    return sys.stdout.isatty()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def write_rows(
    fmt: Literal["csv", "tsv"],
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    stream: IO[str] | None = None,
) -> None:
    """A header line and one line per row, every value whole (ids are never shortened).

    Values are written as they are stored, not through ``visible``: this output is for
    scripts, which must get back exactly what the store holds. CSV quotes as RFC 4180
    says; TSV escapes tab, newline, carriage return and backslash (``\\t`` ...).
    """
    out = stream if stream is not None else sys.stdout
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([_cell(value) for value in row] for row in rows)
    else:
        out.write("\t".join(header) + "\n")
        for row in rows:
            out.write("\t".join(_cell(value).translate(_TSV_ESCAPES) for value in row) + "\n")
    out.flush()
