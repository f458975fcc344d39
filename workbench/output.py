"""Rendering for humans (Rich) and for scripts (orjson), shared by every command.

Texts under analysis are hostile input: they may hold terminal escape sequences
or bidi controls that would rewrite what the analyst sees, and brackets that
Rich would read as markup. Everything taken from a text is therefore shown
through ``visible`` and as ``Text`` objects, never as markup strings.
"""

from __future__ import annotations

import copy
import csv
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal

import orjson
import typer
from rich import box
from rich._ratio import ratio_distribute
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Column, Table
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


class FittedTable(Table):
    """A table that keeps every column at any width and never cuts what a column must keep.

    Rich shrinks a table that does not fit by cutting no-wrap cells with an ellipsis
    and can give a ratio column no room at all, so on a narrow terminal ids were cut
    or whole columns vanished. Here the widths are chosen before Rich sees them: a
    column with ``min_width`` may shrink to it (folding or, where the column says so,
    cutting free text), every other column keeps its whole width. When even the
    minimums do not fit, each row is printed as a block of ``header  value`` lines
    instead, so no column is ever dropped.
    """

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.columns:
            yield from Table.__rich_console__(self, console, options)
            return
        widths = self.fit_widths(console, options)
        if widths is None:
            yield from console.render(self._stacked(options.max_width), options)
            return
        fitted = copy.copy(self)
        fitted.columns = [
            replace(column, width=width, ratio=None)
            for column, width in zip(self.columns, widths, strict=True)
        ]
        fitted.expand = False
        yield from Table.__rich_console__(fitted, console, options)

    def fit_widths(self, console: Console, options: ConsoleOptions) -> list[int] | None:
        """Each column's content width at ``options.max_width``, or None when the
        minimums do not fit.

        From the minimums, the columns without a ratio (labels, times, counts) grow back
        first, evenly, so that a verdict or a time is whole before a long text or id gets
        more; the columns with a ratio (ids, hashes, free text) then share what is left
        by their ratios. No column grows beyond its whole width until every one is
        whole; then, if the table expands, the ratio columns share the rest.
        """
        count = len(self.columns)
        padding = sum(self._get_padding_width(index) for index in range(count))
        room = options.max_width - self._extra_width - padding
        natural = [self._natural_width(console, options, column) for column in self.columns]
        ratios = [column.ratio or 0 for column in self.columns]
        widths = [
            width if column.min_width is None else min(width, column.min_width)
            for column, width in zip(self.columns, natural, strict=True)
        ]
        spare = room - sum(widths)
        if spare < 0:
            return None
        for flexible in (False, True):
            short = [
                i for i in range(count) if bool(ratios[i]) == flexible and widths[i] < natural[i]
            ]
            while spare > 0 and short:
                index = min(short, key=lambda i: (widths[i] / (ratios[i] or 1), i))
                widths[index] += 1
                spare -= 1
                if widths[index] == natural[index]:
                    short.remove(index)
        if self.expand and spare > 0 and any(ratios):
            widths = [
                width + extra
                for width, extra in zip(widths, ratio_distribute(spare, ratios), strict=True)
            ]
        return widths

    @staticmethod
    def _natural_width(console: Console, options: ConsoleOptions, column: Column) -> int:
        """The width the column's widest line (header included) needs, unfolded."""
        cells = [column.header, *column.cells]
        return max(1, *(Measurement.get(console, options, cell).maximum for cell in cells))

    def _stacked(self, width: int) -> RenderableType:
        """Every row as ``header  value`` lines, rows apart by a blank line."""
        headers = [
            column.header if isinstance(column.header, Text) else Text(str(column.header))
            for column in self.columns
        ]
        label_width = min(max(header.cell_len for header in headers), max(8, width // 3))
        grid = Table.grid(padding=(0, 2))
        grid.add_column(width=label_width, style="bold", overflow="fold")
        grid.add_column(width=max(1, width - label_width - 2), overflow="fold")
        columns = [list(column.cells) for column in self.columns]
        for row in range(self.row_count):
            if row:
                grid.add_row()
            for column, header, cells in zip(self.columns, headers, columns, strict=True):
                grid.add_row(header, _stacked_cell(cells[row], column))
        parts: list[RenderableType] = []
        if self.title is not None:
            parts.append(
                Text(str(self.title), "bold") if isinstance(self.title, str) else self.title
            )
        parts.append(grid)
        if self.caption is not None:
            caption = self.caption
            parts.append(Text(str(caption), "dim") if isinstance(caption, str) else caption)
        return Group(*parts)


def _stacked_cell(cell: RenderableType, column: Column) -> RenderableType:
    """A cell outside its column, keeping the column's overflow and no-wrap choice."""
    if isinstance(cell, str):
        cell = Text(cell)
    if not isinstance(cell, Text):
        return cell
    shown = cell.copy()
    shown.overflow = cell.overflow or column.overflow
    shown.no_wrap = cell.no_wrap if cell.no_wrap is not None else column.no_wrap
    return shown


def report_table(
    title: str | None = None, *, expand: bool = False, show_edge: bool = False
) -> Table:
    """The workbench's one table style: a bold title on the left over a single header rule.

    Columns that hold ids or hashes fold (``overflow="fold"``) and never get
    ``no_wrap``; a column that may shrink says how far with ``min_width``.
    """
    return FittedTable(
        title=title,
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        expand=expand,
        pad_edge=False,
        collapse_padding=True,  # two spaces between columns: more room on a narrow terminal
        show_edge=show_edge,
    )


def _signal_table(title: str, signals: Sequence[Signal], *, suppressed: bool) -> Table:
    table = report_table(title, expand=True)
    table.add_column("Row", min_width=8, overflow="fold")  # a taxonomy id: folded, never cut
    table.add_column("Mechanism", min_width=10, overflow="fold")
    table.add_column("Weight", justify="right", no_wrap=True)
    table.add_column("Matched text", ratio=1, min_width=8, overflow="fold")
    table.add_column("Span", no_wrap=True)
    if suppressed:
        table.add_column("Suppressed by", ratio=1, min_width=10, overflow="fold")
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
    facts.add_row("Content", f"sha256 {result.content_hash}")
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
