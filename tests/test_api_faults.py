"""Faults while serving, against real `harmwatch serve` processes, on SQLite and PostgreSQL.

- **SIGKILL mid-stream**: eight clients observe continuously; the server is killed
  with SIGKILL once 120 observations were acknowledged, then started again on the
  same database. Every acknowledged observation is there with the same record
  hash, every chain verifies intact (so nothing is half-present: a profile that
  disagrees with its chain, a record without its profile, is "broken"), and
  appending goes on where the chain ended.
- **Many writers**: ``serve --workers 4`` and 16 concurrent clients, each request on
  a new connection so that the kernel spreads them over the workers: all on one
  source, then over 100 sources. Every acknowledged seq is unique, every chain is
  intact and as long as its acknowledgements, and /metrics (any worker) counts the
  appends of all four.
- **The database goes away and comes back** (PostgreSQL behind a TCP relay the test
  stops and starts): unreachable at start-up, the server starts and the tracking
  routes answer 503; when the database appears they work, with no restart; when it
  goes away again they answer 503, and they recover again by themselves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import make_url

from engine import Settings
from store import iter_chain, open_store
from tests.test_api_e2e import Server, free_port, running_server, server_env

pytest_plugins = ["tests.store_fixtures"]
pytestmark = pytest.mark.slow

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]
TEXTS = ("Muslims are vermin.", "Nice weather today.", "Kill all Muslims.", "Hello there.")


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/tracking.sqlite3"
    from tests.store_fixtures import fresh_pg_schema

    return fresh_pg_schema(request.getfixturevalue("pg_database"))


def observe(base: str, source: str, index: int) -> dict[str, Any] | None:
    """One observe on a new connection; the observation when acknowledged (201), else None."""
    try:
        response = httpx.post(
            f"{base}/tracking/{source}/observe",
            json={"text": f"{TEXTS[index % len(TEXTS)]} #{index}"},
            headers={"Connection": "close"},
            timeout=30,
        )
    except httpx.HTTPError:
        return None
    if response.status_code != 201:
        assert response.status_code in (500, 503) or response.status_code >= 502, response.text
        return None
    observation: dict[str, Any] = response.json()["observation"]
    return observation


def stored_chains(url: str, sources: set[str]) -> dict[str, list[Any]]:
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    try:
        with store.transaction() as session:
            return {source: list(iter_chain(source, session=session)) for source in sources}
    finally:
        store.dispose()


def assert_intact(base: str, chains: dict[str, list[Any]]) -> None:
    for source, chain in chains.items():
        report = httpx.get(f"{base}/tracking/{source}/verify", timeout=60).json()
        assert report["intact"], report
        assert report["checked"] == len(chain)
        assert [record.seq for record in chain] == list(range(1, len(chain) + 1))
        profile = httpx.get(f"{base}/tracking/{source}", timeout=10).json()
        assert profile["observation_count"] == len(chain)
        assert profile["head_hash"] == chain[-1].record_hash


# -- SIGKILL ------------------------------------------------------------------------------------


def test_sigkill_mid_stream_loses_nothing_acknowledged(database: str, tmp_path: Path) -> None:
    sources = {f"kill-{n}" for n in range(3)}
    acknowledged: list[dict[str, Any]] = []
    lock = threading.Lock()
    stop = threading.Event()
    env = server_env(database)
    with running_server(env, tmp_path / "first.log") as server:

        def client(worker: int) -> None:
            index = 0
            while not stop.is_set():
                source = f"kill-{(worker + index) % 3}"
                observation = observe(server.base, source, worker * 10_000 + index)
                index += 1
                if observation is not None:
                    with lock:
                        acknowledged.append(observation)

        with ThreadPoolExecutor(8) as pool:
            for worker in range(8):
                pool.submit(client, worker)
            deadline = time.monotonic() + 120
            while len(acknowledged) < 120 and time.monotonic() < deadline:
                time.sleep(0.01)
            os.kill(server.process.pid, signal.SIGKILL)  # mid-stream: clients are still sending
            server.process.wait(timeout=10)
            time.sleep(0.2)
            stop.set()
    assert len(acknowledged) >= 120
    assert server.process.returncode == -signal.SIGKILL

    chains = stored_chains(database, sources)
    stored = {(r.source_id, r.seq): r.record_hash for chain in chains.values() for r in chain}
    for observation in acknowledged:
        key = (observation["source_id"], observation["seq"])
        assert stored.get(key) == observation["record_hash"], f"acknowledged {key} lost"

    with running_server(env, tmp_path / "second.log") as restarted:
        assert_intact(restarted.base, chains)
        after = observe(restarted.base, "kill-0", 1)
        assert after is not None and after["seq"] == len(chains["kill-0"]) + 1
        assert after["prev_hash"] == chains["kill-0"][-1].record_hash


# -- many writers -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def four_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    tmp = tmp_path_factory.mktemp("workers")
    url = f"sqlite:///{tmp}/tracking.sqlite3"
    env = server_env(url)
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    with running_server(env, tmp / "server.log", "--workers", "4") as server:
        yield server, url


@pytest.mark.parametrize("source_count", [1, 100], ids=["one-source", "100-sources"])
def test_four_workers_and_sixteen_clients_keep_every_chain(
    four_workers: tuple[Server, str], source_count: int
) -> None:
    server, url = four_workers
    prefix = f"w{source_count}-"
    per_client = 12 if source_count == 1 else 13

    def client(worker: int) -> list[dict[str, Any]]:
        acked = []
        for index in range(per_client):
            source = f"{prefix}{(worker * per_client + index) % source_count}"
            observation = observe(server.base, source, worker * 100 + index)
            assert observation is not None, "an observe failed under load"
            acked.append(observation)
        return acked

    with ThreadPoolExecutor(16) as pool:
        acknowledged = [o for chunk in pool.map(client, range(16)) for o in chunk]
    assert len(acknowledged) == 16 * per_client
    seqs: dict[str, list[int]] = defaultdict(list)
    for observation in acknowledged:
        seqs[observation["source_id"]].append(observation["seq"])
    assert len(seqs) == source_count
    for source_seqs in seqs.values():
        assert sorted(source_seqs) == list(range(1, len(source_seqs) + 1))
    chains = stored_chains(url, set(seqs))
    assert sum(len(chain) for chain in chains.values()) == len(acknowledged)
    assert_intact(server.base, chains)
    assert "Application startup complete" in server.output()


def test_metrics_add_up_every_worker(four_workers: tuple[Server, str]) -> None:
    """After the two runs above (or alone): /metrics, from whichever worker answers, counts
    the appends every worker committed."""
    server, url = four_workers
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    with store.engine.connect() as conn:
        total = conn.exec_driver_sql("SELECT count(*) FROM observations").scalar_one()
    store.dispose()
    for _ in range(4):
        text = httpx.get(f"{server.base}/metrics", headers={"Connection": "close"}).text
        line = next(
            (row for row in text.splitlines() if row.startswith("harmwatch_store_appends_total")),
            "harmwatch_store_appends_total 0",
        )
        assert float(line.split()[-1]) == total


# -- the database goes away and comes back ----------------------------------------------------


class Relay:
    """A TCP relay to PostgreSQL that the test can stop (dropping every connection) and start."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        if self._listener is not None:
            # shutdown() first: close() alone leaves a thread blocked in accept() accepting.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


def eventually(check: Any, seconds: float = 30.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.2)


@pytest.mark.postgres
def test_the_database_goes_away_and_comes_back(pg_database: str, tmp_path: Path) -> None:
    from tests.store_fixtures import fresh_pg_schema

    direct = make_url(fresh_pg_schema(pg_database))
    relay = Relay((direct.host or "127.0.0.1", direct.port or 5432))
    through = direct.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False)
    env = server_env(through)
    try:
        with running_server(env, tmp_path / "server.log") as server:  # the relay is not up yet
            base = server.base
            assert observe(base, "away", 0) is None
            down = httpx.post(f"{base}/tracking/away/observe", json={"text": "x"}, timeout=30)
            assert down.status_code == 503
            health = httpx.get(f"{base}/health", timeout=30).json()
            assert health["database"]["status"] == "unreachable"
            assert httpx.post(f"{base}/classify/", json={"text": "x"}).status_code == 200

            relay.start()  # the database appears: no restart needed
            first = eventually(lambda: observe(base, "away", 1))
            assert first is not None and first["seq"] == 1

            relay.stop()  # it goes away while serving
            statuses = {
                httpx.post(
                    f"{base}/tracking/away/observe", json={"text": "y"}, timeout=30
                ).status_code
                for _ in range(3)
            }
            assert statuses == {503}
            assert httpx.get(f"{base}/tracking/away", timeout=30).status_code == 503

            relay.start()  # and comes back
            second = eventually(lambda: observe(base, "away", 2))
            assert second is not None and second["seq"] == 2
            assert second["prev_hash"] == first["record_hash"]
            assert eventually(
                lambda: httpx.get(f"{base}/tracking/away", timeout=30).status_code == 200
            )
            report = httpx.get(f"{base}/tracking/away/verify", timeout=30).json()
            assert (report["intact"], report["checked"]) == (True, 2)
        assert "Traceback" not in server.output()
    finally:
        relay.stop()
