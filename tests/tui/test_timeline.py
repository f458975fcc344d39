"""The timeline's binning and the relative times, without an app.

A bin keeps the highest severity it saw (one harmful record in a quiet stretch
stays visible) and the rolling average as of its last record; memory is
bounded by the width, whatever the number of records.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from workbench.tui.timeline import (
    BLOCKS,
    TimelineBinner,
    bin_series,
    parse_stamp,
    relative_time,
    short_date,
    short_time,
)

STAMP = "2026-02-01T09:00:00.000000Z"


def series(severities: list[int]) -> list[tuple[int, str, int]]:
    return [
        (seq, f"2026-02-01T09:00:{seq % 60:02d}.000000Z", s) for seq, s in enumerate(severities, 1)
    ]


def test_fewer_records_than_columns_get_one_column_each() -> None:
    timeline = bin_series(series([0, 1, 4, 2]), width=80, total=4)
    assert timeline.bins == [0, 1, 4, 2]
    assert timeline.averages == [0.0, 0.5, 5 / 3, 7 / 4]
    assert timeline.records == 4
    assert (timeline.first, timeline.last) == (series([0])[0][1], series([0] * 4)[3][1])


def test_each_bin_keeps_its_highest_severity() -> None:
    severities = [0] * 100
    severities[37] = 4  # one harmful record among a hundred quiet ones
    timeline = bin_series(series(severities), width=10, total=100)
    assert len(timeline.bins) == 10
    assert timeline.bins == [0, 0, 0, 4, 0, 0, 0, 0, 0, 0]


def test_the_average_is_the_rolling_window_at_the_end_of_each_bin() -> None:
    severities = [4] * 10 + [0] * 10
    timeline = bin_series(series(severities), width=4, total=20, window=5)
    assert timeline.bins == [4, 4, 0, 0]
    assert timeline.averages == [4.0, 4.0, 0.0, 0.0]
    timeline = bin_series(series(severities), width=20, total=20, window=5)
    assert timeline.averages[10:15] == [3.2, 2.4, 1.6, 0.8, 0.0]


def test_records_beyond_the_expected_total_fall_into_the_last_bin() -> None:
    timeline = bin_series(series([0, 0, 0, 0, 3, 4]), width=2, total=4)
    assert timeline.bins == [0, 4]
    assert timeline.records == 6


def test_an_empty_series_has_no_bins() -> None:
    timeline = bin_series([], width=40, total=0)
    assert timeline.bins == [] and timeline.first is None and timeline.records == 0


@pytest.mark.parametrize("width", [1, 7, 80, 240])
def test_there_are_never_more_bins_than_columns(width: int) -> None:
    timeline = bin_series(series([n % 5 for n in range(1000)]), width=width, total=1000)
    assert len(timeline.bins) == len(timeline.averages) == width
    assert set(timeline.bins) <= set(range(len(BLOCKS)))


def test_memory_does_not_grow_with_the_number_of_records() -> None:
    def stream(n: int) -> Iterator[tuple[int, str, int]]:
        for seq in range(1, n + 1):
            yield seq, STAMP, seq % 5

    def peak(n: int) -> int:
        tracemalloc.start()
        binner = TimelineBinner(80, n)
        for _, stamp, severity in stream(n):
            binner.add(stamp, severity)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert len(binner.result().bins) == 80
        return top

    assert peak(100_000) < peak(1_000) + 16_384


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (timedelta(seconds=-30), "in future"),
        (timedelta(seconds=2), "just now"),
        (timedelta(seconds=42), "42 s ago"),
        (timedelta(minutes=5, seconds=59), "5 min ago"),
        (timedelta(hours=3), "3 h ago"),
        (timedelta(days=27, hours=15), "27 d ago"),
        (timedelta(days=800), "2 y ago"),
    ],
)
def test_relative_time(delta: timedelta, expected: str) -> None:
    now = parse_stamp(STAMP) + delta
    assert relative_time(STAMP, now) == expected


def test_times_read_the_stores_format() -> None:
    assert parse_stamp(STAMP) == datetime(2026, 2, 1, 9, tzinfo=UTC)
    assert short_time(STAMP) == "2026-02-01 09:00"
    assert short_date(STAMP) == "2026-02-01"
    assert short_time(None) == short_date(None) == relative_time(None, datetime.now(UTC)) == "—"
    assert relative_time("yesterday", datetime.now(UTC)) == "yesterday"
