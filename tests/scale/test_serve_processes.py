"""Several separate `harmwatch serve` processes on one PostgreSQL database.

This is how the API scales past one machine (docs/scaling.md): independent
server processes, each on its own address, behind a load balancer, sharing
nothing but the database (and the signing key). Here two processes run on two
loopback ports with the same signing key, and twelve clients spread their
observes over both ports, request by request: first all on one source (every
append of that source contends for its row lock across processes), then over
forty sources. Every acknowledged observation must be stored with the hash it
was acknowledged with (nothing lost), every source's seqs must run 1..n with no
gap or duplicate, and every chain must verify intact, signatures included, from
either process. ``serve --workers 4`` (one process, forked workers) on SQLite
is tests/test_api_faults.py; this adds separate processes on PostgreSQL.
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.test_api_e2e import (
    HARMWATCH,
    ROOT,
    Server,
    _wait_for_health,
    free_port,
    server_env,
)
from tests.test_api_faults import assert_intact, observe, stored_chains

pytest_plugins = ["tests.store_fixtures"]
pytestmark = [pytest.mark.slow, pytest.mark.postgres]

PROCESSES = 2
CLIENTS = 12
PER_CLIENT = 8
SIGNING_KEY = "scale-test-signing-key-" + "5" * 20


@pytest.fixture(scope="module")
def servers(
    pg_database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[Server], str]]:
    from tests.store_fixtures import fresh_pg_schema  # after pytest_plugins loaded it

    url = fresh_pg_schema(pg_database)
    tmp = tmp_path_factory.mktemp("processes")
    env = server_env(url, HARMWATCH_SIGNING_KEY=SIGNING_KEY)
    with ExitStack() as stack:
        # Started together, so they compile their taxonomies (and race to migrate the
        # new schema, which an advisory lock serializes) at the same time.
        started = [
            stack.enter_context(_started(env, tmp / f"server-{n}.log")) for n in range(PROCESSES)
        ]
        for server in started:
            _wait_for_health(server)
        yield started, url


@contextmanager
def _started(env: dict[str, str], log: Path) -> Iterator[Server]:
    """``harmwatch serve`` on a free loopback port, not yet waited for; stopped at the end."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(HARMWATCH), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield Server(f"http://127.0.0.1:{port}", log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _observes_answered(server: Server) -> int:
    """201 observes in this process's request log (one JSON line per request)."""
    count = 0
    for line in server.output().splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("route") == "/tracking/{source_id}/observe" and entry["status"] == 201:
                count += 1
    return count


@pytest.mark.parametrize("source_count", [1, 40], ids=["one-source", "40-sources"])
def test_clients_spread_over_two_processes_lose_nothing(
    servers: tuple[list[Server], str], source_count: int
) -> None:
    processes, url = servers
    bases = [server.base for server in processes]
    before = [_observes_answered(server) for server in processes]
    prefix = f"p{source_count}-"

    def client(worker: int) -> list[dict[str, Any]]:
        acked = []
        for index in range(PER_CLIENT):
            n = worker * PER_CLIENT + index
            base = bases[n % len(bases)]  # what a round-robin load balancer would do
            observation = observe(base, f"{prefix}{n % source_count}", n)
            assert observation is not None, f"observe {n} on {base} failed"
            acked.append(observation)
        return acked

    with ThreadPoolExecutor(CLIENTS) as pool:
        acknowledged = [o for chunk in pool.map(client, range(CLIENTS)) for o in chunk]
    assert len(acknowledged) == CLIENTS * PER_CLIENT

    seqs: dict[str, list[int]] = defaultdict(list)
    for observation in acknowledged:
        seqs[observation["source_id"]].append(observation["seq"])
        assert observation["key_id"] and observation["signature"]
    assert len(seqs) == source_count
    for source_seqs in seqs.values():
        assert sorted(source_seqs) == list(range(1, len(source_seqs) + 1))

    chains = stored_chains(url, set(seqs))
    stored = {(r.source_id, r.seq): r.record_hash for chain in chains.values() for r in chain}
    assert len(stored) == len(acknowledged)  # nothing beyond what was acknowledged
    for observation in acknowledged:
        key = (observation["source_id"], observation["seq"])
        assert stored.get(key) == observation["record_hash"], f"acknowledged {key} lost"
    for base in bases:  # either process verifies every chain, signatures included
        assert_intact(base, chains)

    served = [_observes_answered(s) - b for s, b in zip(processes, before, strict=True)]
    assert served == [len(acknowledged) // PROCESSES] * PROCESSES


def test_the_processes_share_one_database_and_nothing_else(
    servers: tuple[list[Server], str],
) -> None:
    """What docs/scaling.md says: the same database and key, a registry of metrics each."""
    processes, _ = servers
    healths = [httpx.get(f"{s.base}/health", timeout=10).json() for s in processes]
    assert {h["database"]["status"] for h in healths} == {"ok"}
    assert len({json.dumps(h["signing"], sort_keys=True) for h in healths}) == 1
    assert len({h["taxonomy_digest"] for h in healths}) == 1
    before = [_appends_counted(server) for server in processes]
    observed = httpx.post(
        f"{processes[0].base}/tracking/shared-view/observe",
        json={"text": "Nice weather today."},
        timeout=30,
    )
    assert observed.status_code == 201
    profile = httpx.get(f"{processes[1].base}/tracking/shared-view", timeout=10)
    assert profile.status_code == 200 and profile.json()["observation_count"] == 1
    # Metrics are per process (separate servers share no metrics directory): the append
    # just made is counted by the process that made it and by no other.
    after = [_appends_counted(server) for server in processes]
    assert [a - b for a, b in zip(after, before, strict=True)] == [1.0, 0.0]


def _appends_counted(server: Server) -> float:
    text = httpx.get(f"{server.base}/metrics", timeout=10).text
    line = next(
        (row for row in text.splitlines() if row.startswith("harmwatch_store_appends_total")),
        "harmwatch_store_appends_total 0",
    )
    return float(line.split()[-1])
