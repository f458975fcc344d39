"""The Benchmark mode: the taxonomy's functional suite by capability, then the legacy gate.

``r`` runs what ``harmwatch benchmark run`` and ``harmwatch validate
dehumanization`` run (through ``EngineService``) in one thread worker, with a
progress bar; ``escape`` stops it between two cases. The result is shown as
the CLI shows it: one row per capability against its stored baseline, a
summary line, and every case of the run, browsable and filterable (``f``
failures only, ``l`` language), with the selected case's detail. ``enter``
opens a case in Classify with its language, to see why it went the way it did.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import DataTable, Footer, Header, Label, Static
from textual.worker import get_current_worker

from workbench.tui.messages import (
    BenchmarkFinished,
    BenchmarkProgressed,
    JobCancelled,
    JobFailed,
)
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.widgets.job_progress import JobProgress
from workbench.tui.widgets.paged_table import Column, ListSource, PagedTable

JOB = "benchmark"
PROGRESS_SECONDS = 0.1
"""Progress is posted at most this often, or every 1 % of the cases."""

CASE_COLUMNS = (
    Column("", width=1),
    Column("case", width=14),
    Column("lang", width=5),
    Column("expected", width=17),
    Column("got", width=17),
    Column("text", minimum=10),
)
WIDE_CASE_COLUMNS = (
    Column("", width=1),
    Column("case", width=20),
    Column("lang", width=5),
    Column("expected", width=27),
    Column("got", width=27),
    Column("text", minimum=10),
)
"""From 120 columns on, case ids and verdict labels are shown in full."""
WIDE = 120


class _Cancelled(Exception):  # noqa: N818 - a signal, not an error
    """Raised from the suite's progress callback: ``run_suite`` stops between two cases."""


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case of the last run, as the table and the detail show it."""

    case: str
    capability: str
    language: str
    text: str
    expected: str
    got: str
    passed: bool
    rationale: str | None


class BenchmarkScreen(WorkbenchScreen):
    """Runs the suite and the gate; shows pass rates, baselines and every case."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run", "Run", show=True),
        Binding("f", "failures_only", "Failures only", show=True),
        Binding("l", "language", "Language", show=True),
        Binding("escape", "cancel", "Cancel", show=True),
    ]

    failures_only: reactive[bool] = reactive(False, init=False)
    language: reactive[str | None] = reactive(None, init=False)

    def __init__(self, suite_path: str | Path | None = None) -> None:
        super().__init__()
        self.suite_path = suite_path
        """A suite file to run instead of the taxonomy's (tests, a suite being written)."""
        self.running = False
        self._generation = 0
        self._cases: list[CaseRow] = []
        self._shown: list[CaseRow] = []
        self._languages: list[str] = []
        self._finished: BenchmarkFinished | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="benchmark-summary")
        yield JobProgress(
            monotonic=self.services.clock.monotonic, unit="cases", id="benchmark-progress"
        )
        yield DataTable(id="benchmark-capabilities", cursor_type="row", zebra_stripes=True)
        yield Label(id="benchmark-filter")
        yield PagedTable(CASE_COLUMNS, empty="Press r to run the suite.", id="benchmark-cases")
        yield Static(id="benchmark-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#benchmark-capabilities", DataTable)
        table.add_column("capability", key="capability")
        for label in ("cases", "passed", "rate", "baseline"):
            table.add_column(Text(label, justify="right"), key=label)
        table.add_column("status", key="status")
        self.watch(self.workbench, "engine_ready", self._engine_changed, init=False)
        self._show_intro()
        self._show_filter()

    def on_resize(self) -> None:
        table = self.query_one("#benchmark-cases", PagedTable)
        columns = WIDE_CASE_COLUMNS if self.size.width >= WIDE else CASE_COLUMNS
        if table.columns != columns:
            table.columns = columns
            table.refresh()

    def on_screen_resume(self) -> None:
        if self._finished is None and not self.running:
            self._show_intro()

    def _engine_changed(self, _ready: bool) -> None:
        if self._finished is None and not self.running:
            self._show_intro()

    def _engine_problem(self) -> str | None:
        """Why the suite cannot run now, or None."""
        if self.workbench.engine_reason:
            return f"The taxonomy failed to load: {self.workbench.engine_reason}"
        if not self.workbench.engine_ready:
            return "The taxonomy is still loading; r runs the suite once it is ready."
        return None

    def _show_intro(self) -> None:
        summary = self.query_one("#benchmark-summary", Static)
        problem = self._engine_problem()
        summary.set_class(problem is not None and bool(self.workbench.engine_reason), "-error")
        summary.update(
            problem
            or "Press r to run the functional suite, then the legacy gate "
            "(the first run compiles every language the cases need)."
        )

    # -- running ----------------------------------------------------------------------

    def action_run(self) -> None:
        if self.running:
            self.notify("The benchmark is already running; escape cancels it.", timeout=4)
            return
        problem = self._engine_problem()
        if problem is not None:
            self._show_intro()
            self.notify(problem, severity="warning", timeout=6)
            return
        self.running = True
        self._generation += 1
        self.query_one(JobProgress).start(None, "compiling languages")
        summary = self.query_one("#benchmark-summary", Static)
        summary.set_class(False, "-error")
        summary.update("Running the functional suite…")
        self._run(self._generation, self.suite_path)

    @work(thread=True, exclusive=True, group=JOB, exit_on_error=False)
    def _run(self, generation: int, suite_path: str | Path | None) -> None:
        """Suite, then gate, in this thread; one message per outcome."""
        worker = get_current_worker()
        engine = self.services.engine
        try:
            suite = engine.benchmark_suite(suite_path)
        except (OSError, ValueError) as exc:  # TaxonomyError is a ValueError
            self.post_message(JobFailed(JOB, _first_line(exc)))
            return
        total = len(suite.cases)
        step = max(1, -(-total // 100))  # 1 %, rounded up
        last = [time.monotonic(), 0]

        def progress(done: int) -> None:
            if worker.is_cancelled:
                raise _Cancelled
            now = time.monotonic()
            if done == total or done - last[1] >= step or now - last[0] >= PROGRESS_SECONDS:
                last[0], last[1] = now, done
                self.post_message(BenchmarkProgressed(done, total))

        try:
            for language in suite.languages:
                if worker.is_cancelled:
                    raise _Cancelled
                engine.warm_language(language)
            self.post_message(BenchmarkProgressed(0, total))
            report, below = engine.run_benchmark(suite, progress)
            if worker.is_cancelled:
                raise _Cancelled
            gate: dict[str, Any] | None = None
            gate_error: str | None = None
            try:
                gate = engine.run_legacy_gate()
            except (OSError, ValueError) as exc:
                gate_error = _first_line(exc)
        except _Cancelled:
            self.post_message(JobCancelled(JOB))
            return
        except (OSError, ValueError) as exc:
            self.post_message(JobFailed(JOB, _first_line(exc)))
            return
        if generation == self._generation:
            self.post_message(
                BenchmarkFinished(report, list(below), gate, suite=suite, gate_error=gate_error)
            )

    def cancel_job(self) -> bool:
        if not self.running:
            return False
        self.workers.cancel_group(self, JOB)
        self.query_one(JobProgress).finish("cancelling…")
        return True

    def action_cancel(self) -> None:
        self.cancel_job()

    @on(BenchmarkProgressed)
    def _progressed(self, message: BenchmarkProgressed) -> None:
        bar = self.query_one(JobProgress)
        if bar.total is None:
            bar.start(message.total)
        bar.advance_to(message.done, message.total)

    @on(JobCancelled)
    def _cancelled(self, message: JobCancelled) -> None:
        if message.job != JOB:
            return
        self.running = False
        self.query_one(JobProgress).finish("cancelled")
        self.query_one("#benchmark-summary", Static).update(
            "Cancelled; press r to run the suite again."
            if self._finished is None
            else self._summary(self._finished)
        )

    @on(JobFailed)
    def _failed(self, message: JobFailed) -> None:
        if message.job != JOB:
            return
        self.running = False
        self.query_one(JobProgress).finish("failed")
        summary = self.query_one("#benchmark-summary", Static)
        summary.set_class(True, "-error")
        summary.update(f"The benchmark could not run: {message.reason}")

    @on(BenchmarkFinished)
    def _finished_run(self, message: BenchmarkFinished) -> None:
        self.running = False
        self._finished = message
        below = len(message.regressions)
        self.query_one(JobProgress).finish(
            f"{below} below baseline" if below else "all at baseline"
        )
        self.query_one("#benchmark-summary", Static).update(self._summary(message))
        self._fill_capabilities(message)
        self._cases = self._case_rows(message)
        self._languages = sorted({row.language for row in self._cases})
        if self.language not in self._languages:
            self.set_reactive(BenchmarkScreen.language, None)
        self._show_cases()
        self.query_one("#benchmark-cases", PagedTable).focus()

    # -- showing a result -------------------------------------------------------------

    def _summary(self, message: BenchmarkFinished) -> Text:
        report = message.report
        engine = self.services.engine
        tag = engine.result_tag(report)
        baseline = engine.baseline_tag
        text = Text()
        text.append(f"Suite {report['suite_version']} · ", style="bold")
        text.append(f"{report['passed']}/{report['total']} passed ({pct(report['pass_rate'])})")
        text.append(" · baseline ")
        text.append(baseline)
        text.append(
            " ✓" if tag == baseline else f" (this run {tag})", style=self._tone(tag == baseline)
        )
        if message.regressions:
            count = len(message.regressions)
            text.append(f" · {count} below baseline", style=self._tone(False))
        text.append("\n")
        gate = message.gate
        if gate is None:
            text.append("Legacy gate could not run: ", style="bold")
            text.append(message.gate_error or "unknown reason", style=self._tone(False))
            return text
        text.append("Legacy gate ", style="bold")
        text.append(
            f"{gate['correct']}/{gate['samples']} correct · accuracy {pct(gate['accuracy'])} "
            f"(required {pct(gate['required_accuracy'])}) "
        )
        text.append(
            "PASSED" if gate["passed"] else "FAILED", style="bold " + self._tone(gate["passed"])
        )
        return text

    def _tone(self, good: bool) -> str:
        """The theme's success or error colour, for rich text."""
        variables = self.app.theme_variables
        return variables.get("success" if good else "error", "") or ""

    def _fill_capabilities(self, message: BenchmarkFinished) -> None:
        table = self.query_one("#benchmark-capabilities", DataTable)
        table.clear()
        below = {regression.capability for regression in message.regressions}
        baselines: Mapping[str, float] = message.suite.baselines if message.suite else {}
        for capability in message.report["capabilities"]:
            name = capability["name"]
            regressed = name in below
            table.add_row(
                name,
                Text(str(capability["total"]), justify="right"),
                Text(str(capability["passed"]), justify="right"),
                Text(pct(capability["pass_rate"]), justify="right"),
                Text(pct(baselines.get(name)), justify="right"),
                Text("below baseline", style="bold " + self._tone(False))
                if regressed
                else Text("ok", style=self._tone(True)),
                key=name,
            )

    def _case_rows(self, message: BenchmarkFinished) -> list[CaseRow]:
        """Every case of the run: the report lists failures; the rest passed as expected."""
        engine = self.services.engine
        failures = {
            failure["case"]: failure
            for capability in message.report["capabilities"]
            for failure in capability["failures"]
        }
        rows: list[CaseRow] = []
        cases: Sequence[Any] = message.suite.cases if message.suite else ()
        for case in cases:
            expected = engine.severity_label(
                case.expected_mechanism if case.expected_harmful else None
            )
            failure = failures.get(case.id)
            got = expected
            if failure is not None:
                verdict = failure["got"]
                got = engine.severity_label(
                    verdict["harm_mechanism"] if verdict["is_harmful"] else None
                )
            rows.append(
                CaseRow(
                    case=case.id,
                    capability=case.capability,
                    language=case.language,
                    text=case.text,
                    expected=expected,
                    got=got,
                    passed=failure is None,
                    rationale=failure["rationale"] if failure else None,
                )
            )
        return rows

    def _show_cases(self) -> None:
        shown = [
            row
            for row in self._cases
            if (not self.failures_only or not row.passed)
            and (self.language is None or row.language == self.language)
        ]
        self._shown = shown
        table = self.query_one("#benchmark-cases", PagedTable)
        if self._finished is None:
            table.empty = "Press r to run the suite."
        elif self.failures_only:
            where = f" in {self.language}" if self.language else ""
            table.empty = f"No failures{where}: every case passed."
        else:
            table.empty = "No case in this language."
        engine = self.services.engine
        good, bad = self._tone(True), "bold " + self._tone(False)
        cells = [
            (
                Text("✓", style=good) if row.passed else Text("✗", style=bad),
                row.case,
                row.language,
                row.expected,
                row.got,
                engine.visible(" ".join(row.text.split())),
            )
            for row in shown
        ]
        table.set_source(ListSource(list(cells)), len(cells))
        self._show_filter()
        self._show_detail(0 if shown else None)

    def _show_filter(self) -> None:
        which = "Failures only" if self.failures_only else "All cases"
        language = self.language or "all languages"
        count = f"{len(self._shown)} of {len(self._cases)}" if self._cases else "none yet"
        self.query_one("#benchmark-filter", Label).update(f"{which} · {language} · {count}")

    def _show_detail(self, index: int | None) -> None:
        detail = self.query_one("#benchmark-detail", Static)
        if index is None or not 0 <= index < len(self._shown):
            detail.update("")
            return
        row = self._shown[index]
        text = Text()
        mark = (
            ("✓ passed", self._tone(True))
            if row.passed
            else ("✗ failed", "bold " + self._tone(False))
        )
        text.append(mark[0], style=mark[1])
        text.append(f" · {row.case} · {row.capability} · {row.language} · expected {row.expected}")
        if not row.passed:
            text.append(f", got {row.got}")
        text.append("\n")
        text.append(self.services.engine.visible(row.text))
        if row.rationale:
            text.append("\n")
            text.append(row.rationale, style="italic")
        detail.update(text)

    @on(PagedTable.RowHighlighted, "#benchmark-cases")
    def _highlighted(self, message: PagedTable.RowHighlighted) -> None:
        self._show_detail(message.index)

    @on(PagedTable.RowChosen, "#benchmark-cases")
    def _chosen(self, message: PagedTable.RowChosen) -> None:
        if 0 <= message.index < len(self._shown):
            row = self._shown[message.index]
            self.workbench.open_in_classify(row.text, row.language)

    # -- filters ----------------------------------------------------------------------

    def action_failures_only(self) -> None:
        self.failures_only = not self.failures_only

    def action_language(self) -> None:
        choices: list[str | None] = [None, *self._languages]
        position = choices.index(self.language) if self.language in choices else 0
        self.language = choices[(position + 1) % len(choices)]

    def watch_failures_only(self) -> None:
        self._show_cases()

    def watch_language(self) -> None:
        self._show_cases()


def pct(value: float | None) -> str:
    """A 0–1 ratio as the CLI prints it: one decimal and a percent sign, else a dash."""
    return "—" if value is None else f"{value * 100:.1f}%"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
