"""The Triage mode: classify every row of a JSONL or CSV file (or follow a growing one).

The run itself is ``triage_job.TriageJob`` in a thread worker (group
``triage``): it classifies in batches with ``classify_many``, may record each
row into its source, and reports a batch of rows at most every 100 ms. This
screen only appends those rows to a list, keeps the counters, and shows the
list through a ``PagedTable`` that formats just the rows on screen, so the
event loop stays free whatever the file's size.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, Static
from textual.worker import get_current_worker

from workbench.tui.messages import (
    JobCancelled,
    TriageBatchClassified,
    TriageExported,
    TriageFinished,
    TriageNotice,
    TriageStarted,
)
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.screens.open_file import ExportDialog, OpenFileDialog
from workbench.tui.triage_job import (
    JobStopped,
    ObserveMany,
    TriageJob,
    TriageOptions,
    TriageRow,
    check_file,
    expected_rows,
    export_jsonl,
    recorder,
    shown,
)
from workbench.tui.widgets.job_progress import JobProgress
from workbench.tui.widgets.paged_table import Column, PagedTable, Row

if TYPE_CHECKING:
    from engine import Classification

COLUMNS = (
    Column("line", 6, justify="right"),
    Column("verdict", 7),
    Column("mechanism", 14),
    Column("sev", 3, justify="right"),
    Column("supp", 4, justify="right"),
    Column("text", None, minimum=10),
)
SNIPPET_CHARS = 200
CACHED_PAGES = 8
GROW_INTERVAL = 0.5
"""Seconds between two repaints of the table for rows that land below the fold."""
EMPTY = "press o to open a .jsonl or .csv file"
NO_FILE = "no file open"
DASH = "—"


def snippet(text: str) -> str:
    """The text on one line (runs of blanks and newlines as one space), cut short."""
    return " ".join(text[: SNIPPET_CHARS * 2].split())[:SNIPPET_CHARS]


class TriageSource:
    """The rows a filter keeps, formatted only when drawn (a ``PagedTable`` RowSource)."""

    in_memory = True

    def __init__(self, screen: TriageScreen, keep: list[int] | None) -> None:
        self.screen = screen
        self.keep = keep
        """Indices into ``screen.rows`` (None: every row)."""
        self._pages: OrderedDict[tuple[int, int, str], Sequence[Row]] = OrderedDict()

    def count(self) -> int:
        return len(self.screen.rows) if self.keep is None else len(self.keep)

    def index(self, position: int) -> int:
        return position if self.keep is None else self.keep[position]

    def rows(self, offset: int, limit: int) -> Sequence[Row]:
        """Formatted rows, kept for a few pages: the table asks for a page per line it draws."""
        end = min(self.count(), offset + limit)
        key = (offset, end, self.screen.app.theme)
        page = self._pages.get(key)
        if page is None:
            page = [self.screen.format_row(self.index(number)) for number in range(offset, end)]
            self._pages[key] = page
            if len(self._pages) > CACHED_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(key)
        return page


class TriageScreen(WorkbenchScreen):
    """Open a file (``o``), watch it being classified, browse and filter the verdicts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "open", "File"),
        Binding("h", "harmful", "Harmful"),
        Binding("s", "suppressed", "Suppressed"),
        Binding("m", "mechanism", "Mechanism"),
        Binding("w", "write", "Export"),
        Binding("escape", "cancel", "Cancel job", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[TriageRow] = []
        self.options: TriageOptions | None = None
        self.generation = 0
        self.harmful_only = False
        self.suppressed_only = False
        self.mechanism: str | None = None
        self.mechanisms: Counter[str] = Counter()
        self.harmful = 0
        self.suppressed = 0
        self.not_recorded = 0
        self.first_not_recorded = ""
        self.job_error = ""
        self.recorded = 0
        self.notice = ""
        self.source = TriageSource(self, None)
        self._palette: tuple[str, dict[int, str]] | None = None
        self._grown_at = 0.0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(NO_FILE, id="triage-status")
        yield JobProgress(
            monotonic=self.services.clock.monotonic, unit="rows", id="triage-progress"
        )
        yield Static("", id="triage-counters")
        yield Static("", id="triage-error", classes="error-message")
        yield PagedTable(COLUMNS, empty=EMPTY, id="triage-table")
        yield Footer()

    @property
    def table(self) -> PagedTable:
        return self.query_one("#triage-table", PagedTable)

    @property
    def progress(self) -> JobProgress:
        return self.query_one("#triage-progress", JobProgress)

    @property
    def running(self) -> bool:
        return any(worker.group == "triage" and worker.is_running for worker in self.workers)

    # -- opening and running --------------------------------------------------------------

    def action_open(self) -> None:
        self.app.push_screen(OpenFileDialog(self.options), self._opened)

    def _opened(self, options: TriageOptions | None) -> None:
        if options is not None:
            self.start(options)

    def start(self, options: TriageOptions) -> None:
        """Triage a file: any running job is cancelled and the results are cleared."""
        if not self.workbench.engine_ready:
            self._error(self.workbench.engine_reason or "the taxonomy is still loading; try again")
            return
        if options.record and self.workbench.store_status != "open":
            reason = self.workbench.store_reason or "it is still opening"
            self._error(f"cannot record into sources: the tracking store is not open ({reason})")
            return
        self.generation += 1
        self.options = options
        self.rows = []
        self.mechanisms.clear()
        self.harmful = self.suppressed = self.not_recorded = self.recorded = 0
        self.first_not_recorded = self.notice = self.job_error = ""
        self.harmful_only = self.suppressed_only = False
        self.mechanism = None
        self._error("")
        self._refilter()
        self._show_status()
        self._triage(options, self.generation)

    @work(thread=True, exclusive=True, group="triage", exit_on_error=False)
    def _triage(self, options: TriageOptions, generation: int) -> None:
        worker = get_current_worker()
        name = options.path.name
        try:
            total = (
                None if options.follow else expected_rows(options.path, check_file(options.path))
            )
        except (ValueError, OSError) as exc:
            self.post_message(TriageFinished(0, 0, shown(exc, options.path), generation))
            return
        self.post_message(TriageStarted(name, total, generation))
        engine = self.services.engine
        job = TriageJob(
            options,
            classify_many=engine.classify_many,
            check=lambda text, language: engine.classifier.check_input(text, None, language),
            max_text_chars=engine.max_text_chars,
            emit=lambda done, rows, recorded: self.post_message(
                TriageBatchClassified(done, rows, recorded, generation)
            ),
            should_stop=lambda: worker.is_cancelled,
            notice=lambda text: self.post_message(TriageNotice(text, generation)),
            monotonic=time.monotonic,  # paces reports only; nothing shown reads it
        )
        if options.record:
            job.record = recorder(self._observer())
        outcome = job.run()
        if outcome.cancelled:
            if generation == self.generation:
                self.post_message(JobCancelled("triage"))
            return
        self.post_message(TriageFinished(outcome.done, outcome.recorded, outcome.error, generation))

    def _observer(self) -> ObserveMany:
        """``observe_many`` with the taxonomy's rules; a store failure stops the job."""
        from store import StoreError

        store = self.services.store
        rules = self.services.engine.tracking_rules()

        def observe(items: list[tuple[str, str, Classification]]) -> list[str | None]:
            try:
                return store.observe_many(items, rules)
            except StoreError as exc:
                raise JobStopped(f"recording stopped: {exc}") from None

        return observe

    def cancel_job(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, "triage")
        return True

    def action_cancel(self) -> None:
        self.cancel_job()

    # -- what the job reports ---------------------------------------------------------------

    @on(TriageStarted)
    def _started(self, message: TriageStarted) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        # The status line above names the file; this line only says how far the job is.
        self.progress.start(message.total, "following" if message.total is None else "")
        self._show_status()

    @on(TriageBatchClassified)
    def _batch(self, message: TriageBatchClassified) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        start = len(self.rows)
        new: list[TriageRow] = message.rows
        self.rows.extend(new)
        keep = self.source.keep
        for index, row in enumerate(new, start):
            result = row.result
            if result.is_harmful:
                self.harmful += 1
                self.mechanisms[result.harm_mechanism or "?"] += 1
            if result.signals_suppressed:
                self.suppressed += 1
            if row.not_recorded is not None:
                self.not_recorded += 1
                if not self.first_not_recorded:
                    self.first_not_recorded = f"line {row.line}: {row.not_recorded}"
                    self._show_problems()
            if keep is not None and self._kept(row):
                keep.append(index)
        self.recorded = message.recorded
        self._grow()
        self.progress.advance_to(message.done)
        self._show_status()

    def _grow(self, *, now: bool = False) -> None:
        """Show new rows: at once when they land on screen, else at most every half second.

        Growing the table repaints it and its scrollbar, the main cost on the
        event loop during a run; rows below the fold need not be drawn sooner.
        """
        table = self.table
        count = self.source.count()
        if count == table.total:
            return
        on_screen = table.total < int(table.scroll_offset.y) + table.size.height
        tick = time.monotonic()
        if now or on_screen or tick - self._grown_at >= GROW_INTERVAL:
            table.grow(count)
            self._grown_at = tick

    @on(TriageNotice)
    def _notice(self, message: TriageNotice) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        self.notice = message.text
        self.notify(message.text, title="Triage")
        self._show_status()

    @on(TriageFinished)
    def _finished(self, message: TriageFinished) -> None:
        message.stop()
        if message.generation != self.generation:
            return
        self._grow(now=True)
        if message.error is not None:
            self._error(message.error)
        if self.progress.running:
            self.progress.advance_to(message.done, message.done)
            self.progress.finish("stopped: see the error" if message.error else "done")
        self._show_status()

    @on(JobCancelled)
    def _cancelled(self, message: JobCancelled) -> None:
        if message.job != "triage":
            return
        message.stop()
        self._grow(now=True)
        if self.progress.running:
            self.progress.finish("cancelled")
        self._show_status()

    # -- browsing -------------------------------------------------------------------------

    def _kept(self, row: TriageRow) -> bool:
        result = row.result
        if self.harmful_only and not result.is_harmful:
            return False
        if self.suppressed_only and not result.signals_suppressed:
            return False
        return self.mechanism is None or result.harm_mechanism == self.mechanism

    def _refilter(self) -> None:
        filtering = self.harmful_only or self.suppressed_only or self.mechanism is not None
        keep = (
            [index for index, row in enumerate(self.rows) if self._kept(row)] if filtering else None
        )
        self.source = TriageSource(self, keep)
        self.table.set_source(self.source, self.source.count())
        self._show_status()

    def action_harmful(self) -> None:
        self.harmful_only = not self.harmful_only
        self._refilter()

    def action_suppressed(self) -> None:
        self.suppressed_only = not self.suppressed_only
        self._refilter()

    def action_mechanism(self) -> None:
        """All mechanisms, then each one found so far (alphabetically), then all again."""
        names = sorted(self.mechanisms)
        if self.mechanism is None:
            self.mechanism = names[0] if names else None
        else:
            later = [name for name in names if name > self.mechanism]
            self.mechanism = later[0] if later else None
        self._refilter()

    @on(PagedTable.RowChosen, "#triage-table")
    def _chosen(self, event: PagedTable.RowChosen) -> None:
        position = event.index
        if position >= self.source.count():
            return
        row = self.rows[self.source.index(position)]
        self.workbench.open_in_classify(row.text, row.language)

    # -- export -----------------------------------------------------------------------------

    def action_write(self) -> None:
        if not self.rows or self.options is None:
            self.notify("nothing to write yet: open a file first", title="Triage")
            return
        suggested = f"{self.options.path.stem}.results.jsonl"
        self.app.push_screen(ExportDialog(suggested, len(self.rows)), self._export_to)

    def _export_to(self, target: Path | None) -> None:
        if target is not None and self.options is not None:
            self._export(list(self.rows), target, self.options.path)

    @work(thread=True, exclusive=True, group="triage-export", exit_on_error=False)
    def _export(self, rows: list[TriageRow], target: Path, source: Path) -> None:
        try:
            count = export_jsonl(rows, target, source)
        except (OSError, ValueError) as exc:
            self.post_message(TriageExported(target.name, 0, shown(exc, target)))
            return
        self.post_message(TriageExported(target.name, count))

    @on(TriageExported)
    def _exported(self, message: TriageExported) -> None:
        message.stop()
        if message.error is not None:
            self.notify(message.error, title="Not written", severity="error")
        else:
            self.notify(f"wrote {message.count:,} results to {message.name}", title="Triage")

    # -- drawing ----------------------------------------------------------------------------

    def _colours(self) -> dict[int, str]:
        theme = self.app.theme
        if self._palette is None or self._palette[0] != theme:
            variables = self.app.get_css_variables()
            self._palette = (
                theme,
                {level: variables.get(f"sev-{level}", "") for level in range(5)},
            )
        return self._palette[1]

    def format_row(self, index: int) -> Row:
        row = self.rows[index]
        result = row.result
        suppressed = len(result.signals_suppressed)
        if result.is_harmful:
            colour = self._colours().get(result.severity, "")
            verdict: str | Text = Text("HARMFUL", style=f"bold {colour}".strip())
            severity: str | Text = Text(str(result.severity), style=colour)
        else:
            verdict = severity = DASH
        return (
            str(row.line),
            verdict,
            result.harm_mechanism or DASH,
            severity,
            str(suppressed) if suppressed else "",
            snippet(row.text),
        )

    def _error(self, text: str) -> None:
        self.job_error = text
        self._show_problems()

    def _show_problems(self) -> None:
        """The job's error and the first row that could not be recorded, under the counters."""
        lines = [self.job_error] if self.job_error else []
        if self.first_not_recorded:
            lines.append(f"not recorded: {self.first_not_recorded} (the first of these)")
        error = self.query_one("#triage-error", Static)
        error.update("\n".join(lines))  # its height follows the text: layout needed
        error.display = bool(lines)

    def _show_status(self) -> None:
        options = self.options
        if options is None:
            status = NO_FILE
        else:
            parts = [options.path.name, f"{len(self.rows):,} rows", f"{self.harmful:,} harmful"]
            parts.append(f"{self.suppressed:,} suppressed")
            if options.record:
                recorded = f"{self.recorded:,} recorded"
                if self.not_recorded:
                    recorded += f", {self.not_recorded:,} not"
                parts.append(recorded)
            if self.notice:
                parts.append(self.notice)
            status = " · ".join(parts)
        # One line each, whatever the text: no layout pass needed.
        self.query_one("#triage-status", Static).update(status, layout=False)
        self.query_one("#triage-counters", Static).update(self._counters(), layout=False)

    def _counters(self) -> Text:
        line = Text()
        shown_filters = []
        if self.harmful_only:
            shown_filters.append("harmful")
        if self.suppressed_only:
            shown_filters.append("suppressed")
        if self.mechanism is not None:
            shown_filters.append(self.mechanism)
        if shown_filters:
            line.append("showing " + " + ".join(shown_filters), style="bold")
            line.append(f" ({self.source.count():,})  ")
        for number, (name, count) in enumerate(sorted(self.mechanisms.items())):
            if number:
                line.append(" · ", style="dim")
            style = "reverse" if name == self.mechanism else ""
            line.append(f"{name} {count:,}", style=style)
        if not self.mechanisms and self.rows:
            line.append("no harmful rows", style="dim")
        return line
