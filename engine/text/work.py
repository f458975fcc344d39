"""Counters of the engine's own work, for the linearity tests and ``make perf`` (issue 13).

Time is a noisy witness of linear cost on a shared machine; the work the engine
asks for is not. The classification path reports how many regex passes it made
and over how many bytes, and every Python loop over the per-text collections
counts what it visits: group mentions, hits, signals, cue windows searched and
cues read. Counting is off unless a caller opens ``counting()``: each report
site then costs one module-attribute test (``work.COUNTER is not None``) per
regex call, per stage or per loop, never per character, and nothing else.

The rule for new code: a loop over mentions, hits, signals, windows or cues adds
what it visits to the matching field, so that a loop nested in another one (a
pass over every mention for each hit) shows as work growing with the square of
the text, which ``tests/engine/test_linearity.py`` refuses. That test also
checks, by planting such loops, that the counters catch them.

The counter is process-wide, not per thread: it is a diagnostic for tests and
benchmarks that classify on one thread, never for a server.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["COUNTER", "Work", "counting"]


class Work:
    """What the engine did while counting; each field is a plain running total.

    ``regex_bytes`` is the span each RE2 pass was given to scan (a miss scans it
    all; a hit scans up to the end of its match, which is what is counted);
    ``scanned_chars`` are characters walked by Python code or the stdlib ``re``
    engine (normalization, sentence and word bounds, offset maps). ``mentions``,
    ``hits``, ``signals`` and ``cues`` are items visited by the stages' loops (an
    item visited by two loops counts twice); ``windows`` are windowed cue searches.
    """

    __slots__ = (
        "cues",
        "hits",
        "mentions",
        "regex_bytes",
        "regex_calls",
        "scanned_chars",
        "signals",
        "windows",
    )

    def __init__(self) -> None:
        self.regex_calls = 0
        self.regex_bytes = 0
        self.scanned_chars = 0
        self.mentions = 0
        self.hits = 0
        self.signals = 0
        self.windows = 0
        self.cues = 0

    def regex(self, nbytes: int) -> None:
        """One RE2 pass (a search, a Set scan) over ``nbytes`` bytes."""
        self.regex_calls += 1
        self.regex_bytes += nbytes

    def scanned(self, nchars: int) -> None:
        """Characters walked outside RE2 (Python loops, stdlib ``re``, offset maps)."""
        self.scanned_chars += nchars

    def total(self) -> int:
        """One figure for "how much work": bytes and characters walked, plus a unit
        per call and per item visited (each costs a fixed overhead)."""
        return (
            self.regex_bytes
            + self.scanned_chars
            + self.regex_calls
            + self.mentions
            + self.hits
            + self.signals
            + self.windows
            + self.cues
        )

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__} | {"total": self.total()}


# The active counter, or None (the default): report sites test this and do nothing.
COUNTER: Work | None = None


@contextmanager
def counting() -> Iterator[Work]:
    """Count the engine's work inside the block (not reentrant, one thread)."""
    global COUNTER
    if COUNTER is not None:
        raise RuntimeError("work counting is already active")
    found = Work()
    COUNTER = found
    try:
        yield found
    finally:
        COUNTER = None
