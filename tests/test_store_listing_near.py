"""``list_profiles_near`` gives exactly ``list_profiles``'s pages, read from the nearer end."""

from __future__ import annotations

import pytest

from store import (
    Store,
    TrackingRules,
    append,
    count_profiles,
    list_profiles,
    list_profiles_near,
)

pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import at, classified  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

# Severity histories that tie on every sort key but the id, and differ in each of them.
HISTORIES = [[0], [1], [2], [3], [4], [0, 0, 0, 0, 4, 4, 4, 4], [2, 2], [3, 1], [4, 0], [1, 3]]


@pytest.fixture
def listing(store: Store, rules: TrackingRules) -> Store:
    with store.transaction(write=True) as session:
        for number in range(37):
            history = HISTORIES[number % len(HISTORIES)]
            for step, severity in enumerate(history):
                source = f"src-{number % 7}-{number:02d}"
                append(
                    source,
                    classified(severity, f"{source} {step}"),
                    text=f"{source} {step}",
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=at(step + number % 3),
                )
    return store


@pytest.mark.parametrize("risk", [None, "low", "critical"])
def test_every_page_equals_the_front_read(listing: Store, risk: str | None) -> None:
    with listing.transaction() as session:
        total = count_profiles(session=session, risk=risk)
        whole = list_profiles(session=session, risk=risk, limit=1000)
        assert len(whole) == total
        for limit in (1, 5, 8):
            for offset in range(total + 2):
                near = list_profiles_near(
                    session=session, total=total, risk=risk, limit=limit, offset=offset
                )
                assert near == whole[offset : offset + limit], (limit, offset)


def test_bad_page_arguments_are_refused(listing: Store) -> None:
    with listing.transaction() as session, pytest.raises(ValueError, match="limit"):
        list_profiles_near(session=session, total=10, limit=0)
    with listing.transaction() as session, pytest.raises(ValueError, match="offset"):
        list_profiles_near(session=session, total=10, offset=-1)
