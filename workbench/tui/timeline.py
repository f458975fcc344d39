"""Binning a source's severity series to a few dozen columns, and the times beside it.

Pure and Textual-free, so that it is unit-tested alone and runs in a worker
thread: a chain of 100,000 records is streamed through ``TimelineBinner`` one
record at a time and folded into at most ``width`` bins, so memory is
O(width + window) whatever the chain's length. Each bin keeps the maximum
severity it saw (one harmful record in a quiet stretch must stay visible) and
the rolling average as of its last record (the trend the profile reports).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

BLOCKS = "▁▂▄▆█"
"""The glyph of each severity 0..4 in the timeline strip."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """A binned series: bin i's maximum severity and its rolling average as of its last record."""

    bins: list[int]
    averages: list[float]
    first: str | None
    last: str | None
    records: int


class TimelineBinner:
    """Folds ``(seq, published_at, severity)`` records, in publication order, into ``width`` bins.

    ``total`` is the expected record count (the profile's observation_count):
    record ``i`` goes to bin ``i * bins // total``. Records beyond ``total``
    (appended while the series is read) fall into the last bin, so a stale
    count never breaks the binning. With fewer records than columns, each
    record gets its own bin.
    """

    def __init__(self, width: int, total: int, window: int = 20) -> None:
        self.total = max(0, total)
        self.width = max(1, min(max(1, width), self.total or 1))
        self._window: deque[int] = deque(maxlen=max(1, window))
        self._window_sum = 0
        self.bins: list[int] = []
        self.averages: list[float] = []
        self.records = 0
        self.first: str | None = None
        self.last: str | None = None

    def add(self, published_at: str, severity: int) -> None:
        """One record, in publication order (the order the profile's window follows)."""
        index = self.records * self.width // self.total if self.total else 0
        index = min(index, self.width - 1)
        if len(self._window) == self._window.maxlen:
            self._window_sum -= self._window[0]
        self._window.append(severity)
        self._window_sum += severity
        average = self._window_sum / len(self._window)
        if index == len(self.bins):  # width <= total: the index grows by at most one
            self.bins.append(severity)
            self.averages.append(average)
        else:
            self.bins[index] = max(self.bins[index], severity)
            self.averages[index] = average
        if self.first is None:
            self.first = published_at
        self.last = published_at
        self.records += 1

    def result(self) -> Timeline:
        return Timeline(list(self.bins), list(self.averages), self.first, self.last, self.records)


def bin_series(
    series: Iterable[tuple[int, str, int]], width: int, total: int, window: int = 20
) -> Timeline:
    """Bin a whole series at once (the worker does the same with a cancel check)."""
    binner = TimelineBinner(width, total, window)
    for _seq, published_at, severity in series:
        binner.add(published_at, severity)
    return binner.result()


def parse_stamp(stamp: str) -> datetime:
    """The store's ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` as an aware datetime."""
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def short_time(stamp: str | None) -> str:
    """``2026-02-01 09:00`` (minutes are enough in a table)."""
    if not stamp:
        return "—"
    return stamp[:10] + " " + stamp[11:16]


def short_date(stamp: str | None) -> str:
    return stamp[:10] if stamp else "—"


def relative_time(stamp: str | None, now: datetime) -> str:
    """How long before ``now`` a stored time is: ``just now``, ``42 s ago``, ``3 d ago``."""
    if not stamp:
        return "—"
    try:
        seconds = (now - parse_stamp(stamp)).total_seconds()
    except ValueError:
        return stamp
    if seconds < 0:
        return "in future"
    if seconds < 5:
        return "just now"
    for limit, size, unit in (
        (60, 1, "s"),
        (3600, 60, "min"),
        (86400, 3600, "h"),
        (86400 * 365, 86400, "d"),
    ):
        if seconds < limit:
            return f"{int(seconds // size)} {unit} ago"
    return f"{int(seconds // (86400 * 365))} y ago"
