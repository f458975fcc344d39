"""Many processes appending to one source make one contiguous, intact chain (SPEC section 5).

8 processes × 50 appends, started with the spawn method (a fresh interpreter
each, as separate hosts would be), released together by a barrier on a
database nobody has opened yet, so the first-use migration races as well.
"""

from __future__ import annotations

import hashlib
import multiprocessing

import pytest
from sqlalchemy import text

pytest.register_assert_rewrite("tests.store_fixtures")
from engine import Settings  # noqa: E402
from store import get_profile, open_store, verify_source  # noqa: E402
from tests.store_fixtures import append_worker  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

WORKERS = 8
EACH = 50
SOURCE = "contended:source"


@pytest.mark.slow
def test_concurrent_appends_make_one_contiguous_chain(db_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    workers = [
        context.Process(target=append_worker, args=(db_url, SOURCE, worker, EACH, barrier))
        for worker in range(WORKERS)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=120)
    codes = [process.exitcode for process in workers]
    for process in workers:
        if process.is_alive():
            process.kill()
    assert codes == [0] * WORKERS

    total = WORKERS * EACH
    store = open_store(Settings(_env_file=None, tracking_db_url=db_url))
    try:
        with store.transaction() as session:
            profile = get_profile(SOURCE, session=session)
            result = verify_source(SOURCE, session=session)
            rows = session.execute(
                text("SELECT seq, content_hash FROM observations ORDER BY seq")
            ).all()
    finally:
        store.dispose()
    assert [seq for seq, _ in rows] == list(range(1, total + 1))
    expected_hashes = {
        hashlib.sha256(f"worker {w} observation {i}".encode()).hexdigest()
        for w in range(WORKERS)
        for i in range(EACH)
    }
    assert {content for _, content in rows} == expected_hashes  # every append landed once
    assert profile.observation_count == total
    assert result.intact, result
    assert result.checked == total
    assert result.head_hash == profile.head_hash
