"""`make perf` section "scale" (issue 13, past one machine): Dask workers and serve processes.

- **dask**: ``engine.batch.FrameClassifier`` over 100,000 tweet-length texts in a
  parquet dataset of 8 files, as a ``map_partitions`` step that reads parquet
  and writes parquet, on a ``distributed.LocalCluster`` of 1 and then 2 worker
  processes (one thread each). Each worker builds its classifier before the
  clock starts (the warm-up is reported on its own); the same frame function
  in this process, and ``classify_many`` alone, give the single-core ceiling.
- **serve**: observe throughput with 1, 2 and 4 separate ``harmwatch serve``
  processes (one port each, one worker each) on one PostgreSQL database, the
  clients spreading their requests over the ports (one wrk per port when wrk is
  installed, else an asyncio httpx client) over 1,000 sources; afterwards every
  chain is verified and the stored observations counted against the
  acknowledged ones.

This machine has two cores shared by the servers, the database, the load
generator and the Dask workers; the figures show what a second process buys
here, not what a second machine would. Unlike the other sections, the workers
and servers are not pinned to one core (they are given every core).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import orjson

from tests.perf.api_perf import Load, _free_port, _wrk
from tests.perf.corpus import build_corpus
from tests.perf.store_perf import _pg_unreachable, _scratch_pg_database

ROOT = Path(__file__).resolve().parents[2]
TEXTS = 100_000
FILES = 8
DASK_WORKERS = (1, 2)
DASK_ROUNDS = 2
SERVER_COUNTS = (1, 2, 4)
CONNECTIONS = 32
SOURCES = 1000
WARMUP_S = 2.0
RUN_S = 8.0
STARTUP_TIMEOUT_S = 300.0


@contextmanager
def _every_core() -> Iterator[None]:
    """Processes started inside inherit every core, not the runner's one pinned core."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    try:
        yield
    finally:
        os.sched_setaffinity(0, pinned)


# -- dask ------------------------------------------------------------------------------------


def _texts() -> list[str]:
    """100,000 texts: the perf corpus (2,000 posts) numbered so no two are equal."""
    corpus = build_corpus()
    return [f"{corpus[i % len(corpus)][:270]} #{i}" for i in range(TEXTS)]


def _write_dataset(directory: Path, texts: list[str]) -> None:
    import pandas as pd

    frame = pd.DataFrame({"id": range(len(texts)), "text": texts})
    per_file = -(-len(texts) // FILES)
    for part in range(FILES):
        chunk = frame.iloc[part * per_file : (part + 1) * per_file]
        chunk.to_parquet(directory / f"part.{part}.parquet", index=False)


def _warm_worker() -> float:
    """Run on each worker before timing: build the classifier and compile English."""
    import pandas as pd

    from engine.batch import FrameClassifier

    started = time.perf_counter()
    FrameClassifier(keep_columns=("id",))(pd.DataFrame({"id": [0], "text": ["warm up"]}))
    return time.perf_counter() - started


def _in_process(texts: list[str]) -> dict[str, float]:
    import pandas as pd

    from engine import default_classifier
    from engine.batch import FrameClassifier

    frame = pd.DataFrame({"id": range(len(texts)), "text": texts})
    classifier = FrameClassifier(keep_columns=("id",))
    classifier(frame.iloc[:1000])  # compile and warm
    started = time.perf_counter()
    result = classifier(frame)
    frame_s = time.perf_counter() - started
    engine = default_classifier()
    started = time.perf_counter()
    for start in range(0, len(texts), 1000):
        engine.classify_many([(text, None, None) for text in texts[start : start + 1000]])
    many_s = time.perf_counter() - started
    return {
        "frame_function_texts_per_s": round(len(texts) / frame_s),
        "classify_many_texts_per_s": round(len(texts) / many_s),
        "harmful": int(result["is_harmful"].sum()),
    }


def _dask_run(workers: int, source: Path, out: Path) -> dict[str, Any]:
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client, LocalCluster

    from engine.batch import FrameClassifier

    classifier = FrameClassifier(keep_columns=("id",))
    with _every_core():
        started = time.perf_counter()
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=workers,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            host="127.0.0.1",
        )
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        cluster_s = time.perf_counter() - started
        warm = client.run(_warm_worker)
        rounds = []
        for round_ in range(DASK_ROUNDS):
            target = out / f"w{workers}-r{round_}"
            started = time.perf_counter()
            texts = dd.read_parquet(str(source))
            results = texts.map_partitions(classifier, meta=classifier.meta(texts.dtypes))
            results.to_parquet(str(target), write_index=False)
            rounds.append(time.perf_counter() - started)
        written = pd.read_parquet(target, columns=["id", "is_harmful"])
    if len(written) != TEXTS or sorted(written["id"]) != list(range(TEXTS)):
        raise RuntimeError(f"the Dask job wrote {len(written)} rows, not {TEXTS}")
    best = min(rounds)
    return {
        "texts_per_s": round(TEXTS / best),
        "seconds": round(best, 2),
        "rounds_s": [round(r, 2) for r in rounds],
        "cluster_start_s": round(cluster_s, 2),
        "worker_warmup_s": sorted(round(s, 2) for s in warm.values()),
        "harmful": int(written["is_harmful"].sum()),
    }


def dask_figures() -> dict[str, Any]:
    texts = _texts()
    with tempfile.TemporaryDirectory(prefix="harmwatch-scale-") as tmp:
        source = Path(tmp) / "texts"
        source.mkdir()
        _write_dataset(source, texts)
        runs = {f"workers_{n}": _dask_run(n, source, Path(tmp)) for n in DASK_WORKERS}
    baseline = _in_process(texts)
    counts = {run["harmful"] for run in runs.values()} | {baseline["harmful"]}
    if len(counts) != 1:
        raise RuntimeError(f"runs disagree on the number of harmful texts: {counts}")
    one, two = (runs[key]["texts_per_s"] for key in runs)
    return {
        "texts": TEXTS,
        "files": FILES,
        "step": "read_parquet -> map_partitions(FrameClassifier) -> to_parquet",
        **runs,
        "speedup_2_over_1": round(two / one, 2),
        "in_process_one_core": baseline,
    }


# -- serve processes on PostgreSQL -------------------------------------------------------------


def _server_env(url: str) -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_", "PROMETHEUS_"))
        and name != "DATABASE_URL"
    }
    env.update(TRACKING_DB_URL=url, PYTHONPATH=str(ROOT))
    return env


@contextmanager
def _servers(count: int, url: str, logs: Path) -> Iterator[list[str]]:
    harmwatch = str(Path(sys.executable).with_name("harmwatch"))
    env = _server_env(url)
    with ExitStack() as stack:
        started: list[tuple[str, subprocess.Popen[bytes], Any]] = []
        with _every_core():
            for n in range(count):
                port = _free_port()
                log = stack.enter_context((logs / f"server-{count}-{n}.log").open("w+b"))
                argv = [harmwatch, "serve", "--port", str(port), "--no-access-log"]
                proc = subprocess.Popen(
                    argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
                )
                stack.callback(_stop, proc)
                started.append((f"http://127.0.0.1:{port}", proc, log))
        for base, proc, log in started:
            _wait_until_up(base, proc, log)
        yield [base for base, _, _ in started]


def _wait_until_up(base: str, proc: subprocess.Popen[bytes], log: Any) -> None:
    import httpx

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server at {base} did not come up in {STARTUP_TIMEOUT_S} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _spread(bases: Sequence[str], paths: Sequence[str], bodies: Sequence[bytes], s: float) -> Load:
    """``CONNECTIONS`` clients in all, spread evenly over the servers' ports, for ``s`` seconds."""
    if shutil.which("wrk"):
        share = max(1, CONNECTIONS // len(bases))
        with ThreadPoolExecutor(len(bases)) as pool:
            runs = list(pool.map(lambda base: _wrk(base, paths, bodies, share, s), bases))
        return Load(
            requests=sum(run.requests for run in runs),
            seconds=max(run.seconds for run in runs),
            errors=sum(run.errors for run in runs),
            p50_ms=statistics.median(run.p50_ms for run in runs),
            p99_ms=max(run.p99_ms for run in runs),
        )
    return asyncio.run(_spread_httpx(bases, paths, bodies, s))


async def _spread_httpx(
    bases: Sequence[str], paths: Sequence[str], bodies: Sequence[bytes], s: float
) -> Load:
    import httpx

    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + s

    async def client(number: int) -> None:
        nonlocal errors
        base = bases[number % len(bases)]
        count = number
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while time.perf_counter() < deadline:
                count += CONNECTIONS
                started = time.perf_counter()
                response = await http.post(
                    paths[count % len(paths)],
                    content=bodies[count % len(bodies)],
                    headers={"content-type": "application/json"},
                )
                latencies.append(time.perf_counter() - started)
                errors += response.status_code >= 400

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(CONNECTIONS)))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return Load(
        requests=len(latencies),
        seconds=elapsed,
        errors=errors,
        p50_ms=statistics.median(latencies) * 1000 if latencies else 0.0,
        p99_ms=latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0.0,
    )


def _warm_servers(bases: Sequence[str], bodies: Sequence[bytes]) -> None:
    """Each server classifies the corpus once before the clock starts, so that every
    process has compiled the patterns the run needs (each compiles its own)."""
    import httpx

    items = [orjson.loads(body) for body in bodies]
    batches = [items[start : start + 100] for start in range(0, len(items), 100)]

    def warm(base: str) -> None:
        for batch in batches:
            response = httpx.post(f"{base}/classify/batch", json={"items": batch}, timeout=300)
            response.raise_for_status()

    with ThreadPoolExecutor(len(bases)) as pool:
        list(pool.map(warm, bases))


def _stored(url: str) -> int:
    import psycopg
    from sqlalchemy.engine import make_url

    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn:
        row = conn.execute("SELECT count(*) FROM observations").fetchone()
    return int(row[0]) if row else 0


def _check_chains(url: str) -> dict[str, int]:
    """Every source's chain verified; how many sources, observations, and broken chains."""
    from engine import Settings
    from store import open_store, verify_source

    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    try:
        with store.engine.connect() as conn:
            sources = [
                row[0]
                for row in conn.exec_driver_sql("SELECT DISTINCT source_id FROM observations")
            ]
            stored = conn.exec_driver_sql("SELECT count(*) FROM observations").scalar_one()
        broken = 0
        checked = 0
        for source in sources:
            with store.transaction() as session:
                result = verify_source(source, session=session)
            broken += not result.intact
            checked += result.checked
    finally:
        store.dispose()
    return {"sources": len(sources), "stored": int(stored), "checked": checked, "broken": broken}


def _serve_run(count: int, url: str, logs: Path, bodies: list[bytes]) -> dict[str, Any]:
    paths = [f"/tracking/scale-{n}/observe" for n in range(SOURCES)]
    with _servers(count, url, logs) as bases:
        _warm_servers(bases, bodies)
        _spread(bases, paths, bodies, WARMUP_S)
        before = _stored(url)
        load = _spread(bases, paths, bodies, RUN_S)
    # Every process has stopped: what the database holds is final.
    chains = _check_chains(url)
    acknowledged = load.requests - load.errors
    return {
        "processes": count,
        "observes_per_s": round(load.rate, 1),
        "p50_ms": round(load.p50_ms, 2),
        "p99_ms": round(load.p99_ms, 2),
        "errors": load.errors,
        "acknowledged_in_run": acknowledged,
        "stored_in_run": chains["stored"] - before,
        "lost": max(0, acknowledged - (chains["stored"] - before)),
        "chains_verified": chains["sources"],
        "chains_broken": chains["broken"],
        "records_checked": chains["checked"],
    }


def serve_figures() -> dict[str, Any]:
    reason = _pg_unreachable()
    if reason is not None:
        return {"skipped": f"PostgreSQL unreachable: {reason}"}
    corpus = build_corpus()
    bodies = [orjson.dumps({"text": text}) for text in corpus[:200]]
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="harmwatch-serve-") as tmp:
        for count in SERVER_COUNTS:
            with _scratch_pg_database() as url:
                runs[f"processes_{count}"] = _serve_run(count, url, Path(tmp), bodies)
    rates = [run["observes_per_s"] for run in runs.values()]
    return {
        "load_generator": "wrk (one per port)" if shutil.which("wrk") else "httpx (asyncio)",
        "connections_in_all": CONNECTIONS,
        "sources": SOURCES,
        "run_s": RUN_S,
        "server": "harmwatch serve --no-access-log, 1 worker each, its own port",
        **runs,
        "speedup_vs_1": [round(rate / rates[0], 2) for rate in rates],
        "every_chain_intact": all(run["chains_broken"] == 0 for run in runs.values()),
        "nothing_lost": all(run["lost"] == 0 for run in runs.values()),
    }


def scale_section() -> dict[str, Any]:
    """Issue 13 (past one machine): Dask workers over a corpus, serve processes on PostgreSQL."""
    return {"dask": dask_figures(), "serve_processes_postgresql": serve_figures()}


if __name__ == "__main__":  # a quick look without the rest of make perf
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    figures: dict[str, Any] = {}
    if which in ("all", "dask"):
        figures["dask"] = dask_figures()
    if which in ("all", "serve"):
        figures["serve"] = serve_figures()
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
