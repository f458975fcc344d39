"""The store's reads for the workbench, on SQLite and PostgreSQL.

``verify_source(progress=...)`` reports per batch and can be cancelled by
raising; ``observations_between`` pages a chain by seq range;
``severity_series`` streams three columns only (``publication_series`` the same
in publication order); ``source_ids_with_prefix``
matches a literal prefix (no LIKE wildcards, no case folding). Batches are
made small with ``STREAM_BATCH`` so that short chains cross several of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text

import store.tracking as tracking
from store import (
    Store,
    TrackingRules,
    append,
    make_evidence,
    observations_between,
    publication_series,
    severity_series,
    source_ids_with_prefix,
    verify_source,
)

# The shared store fixtures form a plugin (see test_store_tracking.py): registered for
# assertion rewriting before its helpers are imported.
pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import at, classified  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

SEVERITIES = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]


class Stop(Exception):  # noqa: N818 - a test's cancel signal
    pass


def observe(store: Store, rules: TrackingRules, source_id: str, severities: list[int]) -> list[Any]:
    out = []
    with store.transaction(write=True) as session:
        for step, severity in enumerate(severities):
            content = f"{source_id} record {step}"
            observation, _ = append(
                source_id,
                classified(severity, content),
                text=content,
                store_text=True,
                rules=rules,
                session=session,
                observed_at=at(step),
            )
            out.append(observation)
    return out


@pytest.fixture
def chain(store: Store, rules: TrackingRules) -> list[Any]:
    observe(store, rules, "other:1", [4, 4, 4])
    return observe(store, rules, "acct:1", SEVERITIES)


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(tracking, "STREAM_BATCH", 3)
    return 3


# -- verify_source(progress=) -----------------------------------------------------------


def record(calls: list[tuple[int, int]]) -> Callable[[int, int], None]:
    return lambda checked, total: calls.append((checked, total))


def test_progress_is_called_per_batch_and_once_at_the_end(
    store: Store, chain: list[Any], small_batches: int
) -> None:
    calls: list[tuple[int, int]] = []
    with store.transaction() as session:
        result = verify_source(
            "acct:1", session=session, progress=lambda c, t: calls.append((c, t))
        )
    assert result.intact and result.checked == 10
    assert calls == [(3, 10), (6, 10), (9, 10), (10, 10)]


def test_progress_on_a_broken_chain_ends_where_the_walk_stopped(
    store: Store, chain: list[Any], small_batches: int
) -> None:
    with store.engine.begin() as conn:
        conn.execute(
            text("UPDATE observations SET severity = 0 WHERE source_id = 'acct:1' AND seq = 5")
        )
    calls: list[tuple[int, int]] = []
    with store.transaction() as session:
        result = verify_source(
            "acct:1", session=session, progress=lambda c, t: calls.append((c, t))
        )
    assert (result.intact, result.first_broken_seq, result.checked) == (False, 5, 4)
    assert calls == [(3, 10), (4, 10)]


def test_a_raising_progress_callback_cancels_and_closes_the_cursor(
    store: Store, chain: list[Any], small_batches: int
) -> None:
    calls: list[int] = []

    def cancel(checked: int, total: int) -> None:
        calls.append(checked)
        raise Stop

    with store.transaction() as session:
        with pytest.raises(Stop):
            verify_source("acct:1", session=session, progress=cancel)
        assert calls == [3]
        if store.backend == "postgresql":
            # The walk's server-side cursor is gone, not left open in the transaction.
            open_cursors = session.execute(text("SELECT count(*) FROM pg_cursors")).scalar_one()
            assert open_cursors == 0
        # The transaction is still usable: the next read works.
        assert [o.seq for o in observations_between("acct:1", 1, 2, session=session)] == [1, 2]
    with store.transaction() as session:
        assert verify_source("acct:1", session=session).intact


# -- observations_between ---------------------------------------------------------------


def test_observations_between_is_an_inclusive_seq_range_oldest_first(
    store: Store, chain: list[Any]
) -> None:
    with store.transaction() as session:
        middle = observations_between("acct:1", 4, 6, session=session)
        assert middle == chain[3:6]
        assert observations_between("acct:1", 10, 10, session=session) == [chain[9]]
        assert observations_between("acct:1", 0, 1, session=session) == [chain[0]]
        assert observations_between("acct:1", 9, 20, session=session) == chain[8:]
        assert observations_between("acct:1", 11, 20, session=session) == []
        assert observations_between("acct:1", 6, 4, session=session) == []
        assert observations_between("nobody", 1, 5, session=session) == []
    assert middle[0].text == "acct:1 record 3"
    assert all(o.source_id == "acct:1" for o in middle)


def test_observations_between_refuses_more_than_a_page(store: Store, chain: list[Any]) -> None:
    with store.transaction() as session:
        assert len(observations_between("acct:1", 1, tracking.MAX_LIMIT, session=session)) == 10
        with pytest.raises(ValueError, match="at most 1000 records"):
            observations_between("acct:1", 1, tracking.MAX_LIMIT + 1, session=session)


# -- severity_series --------------------------------------------------------------------


def test_severity_series_streams_seq_time_and_severity_in_chain_order(
    store: Store, chain: list[Any], small_batches: int
) -> None:
    with store.transaction() as session:
        series = list(severity_series("acct:1", session=session))
        assert list(severity_series("nobody", session=session)) == []
    assert series == [(o.seq, o.observed_at, o.severity) for o in chain]
    assert [severity for _, _, severity in series] == SEVERITIES
    assert all(isinstance(seq, int) and isinstance(stamp, str) for seq, stamp, _ in series)


def test_severity_series_can_stop_early(store: Store, chain: list[Any], small_batches: int) -> None:
    with store.transaction() as session:
        series = severity_series("acct:1", session=session)
        assert [next(series)[0], next(series)[0]] == [1, 2]
        series.close()
        assert [o.seq for o in observations_between("acct:1", 1, 1, session=session)] == [1]


def test_publication_series_follows_publication_time_not_append_order(
    store: Store, rules: TrackingRules, small_batches: int
) -> None:
    """A backfilled archive: records appended late but published early come first, so a
    timeline drawn from the series shows the trend the source had (ties go by seq)."""
    published = [
        ("2026-03-01T00:00:00Z", 0),  # appended first, published last but one
        ("2025-01-01T00:00:00Z", 4),  # the archive: older publications, appended after
        ("2025-01-02T00:00:00Z", 3),
        ("2025-01-02T00:00:00Z", 2),  # the same time as the one before: seq decides
        ("2026-03-02T00:00:00Z", 1),
    ]
    with store.transaction(write=True) as session:
        for step, (when, severity) in enumerate(published):
            content = f"archive record {step}"
            append(
                "archive:1",
                classified(severity, content),
                text=content,
                store_text=True,
                rules=rules,
                session=session,
                observed_at=at(100 + step),
                evidence=make_evidence(published_at=when),
            )
    with store.transaction() as session:
        series = list(publication_series("archive:1", session=session))
        chain = list(severity_series("archive:1", session=session))
        assert list(publication_series("nobody", session=session)) == []
    assert [(seq, severity) for seq, _, severity in series] == [
        (2, 4),
        (3, 3),
        (4, 2),
        (1, 0),
        (5, 1),
    ]
    assert [stamp for _, stamp, _ in series] == sorted(stamp for _, stamp, _ in series)
    assert series[0][1] == "2025-01-01T00:00:00.000000Z"
    assert [seq for seq, _, _ in chain] == [1, 2, 3, 4, 5]  # the chain stays in append order


# -- source_ids_with_prefix -------------------------------------------------------------


@pytest.fixture
def many_ids(store: Store, rules: TrackingRules) -> list[str]:
    ids = ["acct:1", "acct:10", "acct:2", "acct%x", "acct_y", "ACCT:3", "дом:1", "дом:2", "b"]
    for source_id in ids:
        observe(store, rules, source_id, [0])
    return ids


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("acct:1", ["acct:1", "acct:10"]),
        ("acct:10", ["acct:10"]),
        ("acct:", ["acct:1", "acct:10", "acct:2"]),
        ("acct%", ["acct%x"]),  # a literal percent sign, not a LIKE wildcard
        ("acct_", ["acct_y"]),  # a literal underscore
        ("ACCT", ["ACCT:3"]),  # case-sensitive, as source ids are
        ("дом", ["дом:1", "дом:2"]),  # characters, not bytes
        ("acct:1000", []),
        ("zzz", []),
    ],
)
def test_source_ids_with_prefix_match_a_literal_prefix(
    store: Store, many_ids: list[str], prefix: str, expected: list[str]
) -> None:
    with store.transaction() as session:
        found = source_ids_with_prefix(prefix, session=session)
        everything = source_ids_with_prefix("", session=session, limit=100)
    assert sorted(found) == sorted(expected)
    assert found == everything_with(everything, prefix)  # in the store's id order


def test_source_ids_with_prefix_are_in_id_order_and_limited(
    store: Store, many_ids: list[str]
) -> None:
    with store.transaction() as session:
        everything = source_ids_with_prefix("", session=session, limit=100)
        first_two = source_ids_with_prefix("acct:", session=session, limit=2)
        one = source_ids_with_prefix("acct:", session=session, limit=1)
    assert sorted(everything) == sorted(many_ids)
    assert first_two == everything_with(everything, "acct:")[:2]
    assert one == first_two[:1]


def everything_with(ordered: list[str], prefix: str) -> list[str]:
    """The store's own id order, filtered: pages of a prefix follow the listing of all ids."""
    return [value for value in ordered if value.startswith(prefix)]


@pytest.mark.parametrize("limit", [0, -1, tracking.MAX_LIMIT + 1])
def test_source_ids_with_prefix_bounds_the_limit(store: Store, limit: int) -> None:
    with store.transaction() as session, pytest.raises(ValueError, match="limit must be"):
        source_ids_with_prefix("a", session=session, limit=limit)
