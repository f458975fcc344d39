"""The progress line of a long job: bar, done/total, rate, ETA and how to cancel.

Modelled on toolong's ``ScanProgressBar``: the owning screen feeds it numbers
from the job's messages; it never runs anything. Rate and ETA are read from
the injected clock, so a snapshot shows the same numbers on every machine.
A followed file has no total: the bar then pulses and the line counts what
was seen.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class JobProgress(Horizontal):
    """Hidden until a job starts; keeps the final line after it ends."""

    DEFAULT_CSS = """
    JobProgress { height: 1; display: none; }
    JobProgress.-active, JobProgress.-ended { display: block; }
    JobProgress ProgressBar { width: auto; }
    JobProgress ProgressBar Bar { width: 24; }
    JobProgress #job-counts { width: 1fr; padding-left: 1; }
    """

    def __init__(
        self,
        *,
        monotonic: Callable[[], float],
        unit: str = "texts",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._monotonic = monotonic
        self.unit = unit
        self.total: int | None = None
        self.done = 0
        self._started = 0.0

    def compose(self) -> ComposeResult:
        yield ProgressBar(show_eta=False, show_percentage=True, id="job-bar")
        yield Label("", id="job-counts")

    def start(self, total: int | None, label: str = "") -> None:
        self.total = total
        self.done = 0
        self._label = label
        self._started = self._monotonic()
        bar = self.query_one(ProgressBar)
        bar.update(total=total, progress=0)
        self.set_class(True, "-active")
        self.set_class(False, "-ended")
        self._show("esc cancels")

    def advance_to(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
        self.done = done
        bar = self.query_one(ProgressBar)
        bar.update(total=self.total, progress=done)
        self._show("esc cancels")

    def finish(self, outcome: str) -> None:
        self.set_class(False, "-active")
        self.set_class(True, "-ended")
        bar = self.query_one(ProgressBar)
        if self.total is None:
            bar.update(total=max(1, self.done), progress=self.done)
        self._show(outcome)

    @property
    def running(self) -> bool:
        return self.has_class("-active")

    def rate(self) -> float:
        elapsed = self._monotonic() - self._started
        return self.done / elapsed if elapsed > 0 else 0.0

    def _show(self, tail: str) -> None:
        rate = self.rate()
        if self.total is None:
            counts = f"{self.done:,} {self.unit} seen"
        else:
            counts = f"{self.done:,}/{self.total:,} {self.unit}"
        parts = [counts, f"{rate:,.0f}/s"]
        if self.total is not None and rate > 0 and self.done < self.total:
            parts.append(f"ETA {(self.total - self.done) / rate:,.0f} s")
        parts.append(tail)
        label = getattr(self, "_label", "")
        # The label keeps its width (1fr): no layout pass for a new line of numbers.
        self.query_one("#job-counts", Label).update(
            " · ".join([label, *parts] if label else parts), layout=False
        )
