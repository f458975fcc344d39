"""`make perf` section "api" (issue 5): the HTTP API under load, served by real processes.

Targets, on this machine with 1 uvicorn worker:

- POST /classify/ at 32 connections: >= 70% of the requests/s of a bare FastAPI
  route that returns a constant body of the same size, served the same way
  (``uvicorn.run`` with harmwatch serve's options) and measured in the same
  run, bare and real alternating; p99 < 10 ms;
- POST /classify/batch with 100 tweet-length items: >= 20,000 texts/s;
- POST /tracking/{id}/observe on SQLite: >= 1,000 requests/s, spread over
  1,000 sources and on a single source.

Both servers run without uvicorn's access log (``--no-access-log``), as behind a
proxy that logs requests; a line per request costs a tenth of a short one.

The load generator is wrk when installed (Debian package ``wrk``), else an
async httpx client; both run on 127.0.0.1 only, for a bounded time, on one
core, with the server pinned to the other(s). Texts are the 280-character
corpus of the engine benchmark (tests/perf/corpus.py).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CONNECTIONS = 32
BATCH_ITEMS = 100
BATCH_CONNECTIONS = 2
WARMUP_S = 2.0
RUN_S = 5.0
ROUNDS = 2
SOURCES = 1000
BODIES = 500
STARTUP_TIMEOUT_S = 60.0
BARE_BYTES_ENV = "HARMWATCH_PERF_BARE_BYTES"

TARGET_RATIO = 0.70
TARGET_P99_MS = 10.0
TARGET_BATCH_TEXTS_S = 20_000
TARGET_OBSERVE_RPS = 1_000

_SERVE = """
import sys, uvicorn
from workbench.commands.serve import log_config
uvicorn.run(sys.argv[1], factory=True, host="127.0.0.1", port=int(sys.argv[2]),
            log_config=log_config(), access_log=False)
"""


def app_without_lane() -> Any:
    """harmwatch's app with the classify fast lane switched off: every request through the
    FastAPI routes (the lane's gain is the classify figure over this one's)."""
    from api.app import HarmwatchAPI, create_app_from_env

    app = create_app_from_env()
    assert isinstance(app, HarmwatchAPI)
    app.lane = None
    return app


def bare_app() -> Any:
    """The baseline: one FastAPI route returning a constant JSON body (size from the env)."""
    from fastapi import FastAPI
    from starlette.responses import Response

    size = int(os.environ.get(BARE_BYTES_ENV, "700"))
    body = json.dumps({"x": "a" * max(size - 8, 0)}).encode()
    app = FastAPI()

    @app.post("/bare")
    async def bare() -> Response:
        return Response(body, media_type="application/json")

    @app.get("/health")
    async def health() -> Response:
        return Response(b"{}", media_type="application/json")

    return app


# -- servers ---------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_cpus() -> set[int]:
    """Every core but the one this process (and so the load generator) is pinned to."""
    mine = os.sched_getaffinity(0)
    others = set(range(os.cpu_count() or 1)) - mine
    return others or mine


@contextmanager
def _server(argv: Sequence[str], env: dict[str, str], port: int) -> Iterator[str]:
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            os.sched_setaffinity(proc.pid, _server_cpus())
            base = f"http://127.0.0.1:{port}"
            _wait_until_up(base, proc, log)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_until_up(base: str, proc: subprocess.Popen[bytes], log: Any) -> None:
    import httpx

    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"server exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            if httpx.get(base + "/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server at {base} did not come up in {STARTUP_TIMEOUT_S} s")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARMWATCH_", "TRACKING_"))}
    env.pop("DATABASE_URL", None)
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


# -- load generation -------------------------------------------------------------------------


@dataclass(frozen=True)
class Load:
    """One measured run: what was sent and what came back."""

    requests: int
    seconds: float
    errors: int
    p50_ms: float
    p99_ms: float

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def summary(self) -> dict[str, float | int]:
        return {
            "requests_per_s": round(self.rate, 1),
            "p50_ms": round(self.p50_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "errors": self.errors,
        }


def generator() -> str:
    return "wrk" if shutil.which("wrk") else "httpx"


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_LUA_DONE = """
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "\\nRESULT {\\"requests\\": %d, \\"duration_us\\": %d, \\"errors\\": %d, "
    .. "\\"p50_us\\": %d, \\"p99_us\\": %d}\\n",
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def _wrk(
    url: str, paths: Sequence[str], bodies: Sequence[bytes], connections: int, s: float
) -> Load:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write("local paths = {" + ",".join(map(_lua_string, paths)) + "}\n")
        script.write("local bodies = {" + ",".join(_lua_string(b.decode()) for b in bodies) + "}\n")
        script.write(
            'local i = 0\nlocal headers = {["Content-Type"] = "application/json"}\n'
            "request = function()\n  i = i + 1\n"
            "  return wrk.format('POST', paths[(i % #paths) + 1], headers,"
            " bodies[(i % #bodies) + 1])\nend\n" + _LUA_DONE
        )
    try:
        out = subprocess.run(
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{max(1, round(s))}s",
                "--timeout",
                "10s",
                "-s",
                script.name,
                url,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=s + 60,
        )
    finally:
        Path(script.name).unlink()
    line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT "))
    result = json.loads(line.removeprefix("RESULT "))
    return Load(
        requests=result["requests"],
        seconds=result["duration_us"] / 1e6,
        errors=result["errors"],
        p50_ms=result["p50_us"] / 1000,
        p99_ms=result["p99_us"] / 1000,
    )


def _httpx(
    url: str, paths: Sequence[str], bodies: Sequence[bytes], connections: int, s: float
) -> Load:
    import httpx

    async def run() -> Load:
        latencies: list[float] = []
        errors = 0
        counter = 0
        deadline = time.perf_counter() + s

        async def worker(client: httpx.AsyncClient) -> None:
            nonlocal errors, counter
            while time.perf_counter() < deadline:
                counter += 1
                path, body = paths[counter % len(paths)], bodies[counter % len(bodies)]
                started = time.perf_counter()
                response = await client.post(
                    url + path, content=body, headers={"content-type": "application/json"}
                )
                latencies.append(time.perf_counter() - started)
                errors += response.status_code >= 400

        # One client per connection: httpx's shared pool serializes on its own lock.
        clients = [httpx.AsyncClient(timeout=10) for _ in range(connections)]
        started = time.perf_counter()
        try:
            await asyncio.gather(*(worker(client) for client in clients))
        finally:
            for client in clients:
                await client.aclose()
        elapsed = time.perf_counter() - started
        latencies.sort()
        return Load(
            requests=len(latencies),
            seconds=elapsed,
            errors=errors,
            p50_ms=statistics.median(latencies) * 1000 if latencies else 0.0,
            p99_ms=latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0.0,
        )

    return asyncio.run(run())


def load(
    base: str, paths: Sequence[str], bodies: Sequence[bytes], connections: int, s: float
) -> Load:
    """Drive POST requests (paths and bodies in rotation) for ``s`` seconds."""
    if generator() == "wrk":
        return _wrk(base, paths, bodies, connections, s)
    return _httpx(base, paths, bodies, connections, s)


def _combined(runs: Sequence[Load]) -> Load:
    """Rounds pooled: total requests over total time; latency figures of the median round."""
    middle = sorted(runs, key=lambda run: run.rate)[len(runs) // 2]
    return Load(
        requests=sum(run.requests for run in runs),
        seconds=sum(run.seconds for run in runs),
        errors=sum(run.errors for run in runs),
        p50_ms=middle.p50_ms,
        p99_ms=middle.p99_ms,
    )


# -- the section -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    texts: list[str]
    bodies: list[bytes]  # /classify/ bodies
    response_bytes: int  # the mean size of a /classify/ answer
    engine_texts_per_s: float  # classify + to_dict in-process, one thread: the ceiling
    engine_batch_texts_per_s: float  # the same through classify_many, 100 at a time


def _corpus() -> Corpus:
    """Tweet-length texts (280 characters), and what the engine alone makes of them."""
    from engine import Classifier, load_taxonomy
    from tests.perf.corpus import build_corpus

    texts = build_corpus()[:BODIES]
    classifier = Classifier(load_taxonomy())
    sizes = [len(json.dumps(classifier.classify(text).to_dict()).encode()) for text in texts]
    rounds = 3
    started = time.perf_counter()
    for _ in range(rounds):
        for text in texts:
            classifier.classify(text).to_dict()
    engine_rate = rounds * len(texts) / (time.perf_counter() - started)
    batches = [
        [(text, None, None) for text in texts[start : start + BATCH_ITEMS]]
        for start in range(0, len(texts), BATCH_ITEMS)
    ]
    started = time.perf_counter()
    for _ in range(rounds):
        for batch in batches:
            [result.to_dict() for result in classifier.classify_many(batch)]
    batch_rate = rounds * len(texts) / (time.perf_counter() - started)
    return Corpus(
        texts=texts,
        bodies=[json.dumps({"text": text}).encode() for text in texts],
        response_bytes=round(statistics.fmean(sizes)),
        engine_texts_per_s=round(engine_rate, 1),
        engine_batch_texts_per_s=round(batch_rate, 1),
    )


def _server_stack() -> dict[str, str]:
    """What uvicorn's "auto" picks here: uvloop and httptools when installed."""
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return {"loop": loop, "http": http, "workers": "1", "access_log": "off (both servers)"}


def api_section() -> dict[str, Any]:
    corpus = _corpus()
    texts, bodies, response_bytes = corpus.texts, corpus.bodies, corpus.response_bytes
    harmwatch = str(Path(sys.executable).with_name("harmwatch"))
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{tmp}/perf.sqlite3"
        bare_port, api_port, routes_port = _free_port(), _free_port(), _free_port()
        bare_env = _env(**{BARE_BYTES_ENV: str(response_bytes)})
        bare_argv = [sys.executable, "-c", _SERVE, "tests.perf.api_perf:bare_app", str(bare_port)]
        api_argv = [harmwatch, "serve", "--port", str(api_port), "--no-access-log"]
        routes_app = "tests.perf.api_perf:app_without_lane"
        routes_argv = [sys.executable, "-c", _SERVE, routes_app, str(routes_port)]
        with (
            _server(bare_argv, bare_env, bare_port) as bare,
            _server(api_argv, _env(TRACKING_DB_URL=db), api_port) as api,
            _server(routes_argv, _env(TRACKING_DB_URL=db), routes_port) as routes,
        ):
            classify = _classify_figures(bare, api, bodies, routes)
            batch = _batch_figures(api, texts)
            observe = _observe_figures(api, bodies)
    return {
        "load_generator": generator(),
        "server": _server_stack(),
        "response_bytes": response_bytes,
        "engine_alone_texts_per_s": corpus.engine_texts_per_s,
        "engine_alone_batch_texts_per_s": corpus.engine_batch_texts_per_s,
        "classify": classify,
        "batch": batch,
        "observe_sqlite": observe,
        "targets": _targets(classify, batch, observe),
    }


def _classify_figures(bare: str, api: str, bodies: list[bytes], routes: str) -> dict[str, Any]:
    """The lane's server against a bare route, and against the same app without the lane
    (``routes``): both pass every request through the same middleware (api.edge)."""
    load(bare, ["/bare"], bodies, CONNECTIONS, WARMUP_S)
    # Each language compiles with its first text; one text in each first, so that no
    # run measures a compilation.
    import httpx

    from engine.languages import LANGUAGES

    for server in (api, routes):
        for language in LANGUAGES:
            httpx.post(
                server + "/classify/", json={"text": "warm", "language": language}, timeout=60
            )
        load(server, ["/classify/"], bodies, CONNECTIONS, WARMUP_S)
    bare_runs, api_runs, routes_runs = [], [], []
    for _ in range(ROUNDS):
        bare_runs.append(load(bare, ["/bare"], bodies, CONNECTIONS, RUN_S))
        api_runs.append(load(api, ["/classify/"], bodies, CONNECTIONS, RUN_S))
        routes_runs.append(load(routes, ["/classify/"], bodies, CONNECTIONS, RUN_S))
    bare_load, api_load = _combined(bare_runs), _combined(api_runs)
    routes_load = _combined(routes_runs)
    single = load(api, ["/classify/"], bodies, 1, RUN_S / 2)
    return {
        "connections": CONNECTIONS,
        "bare": bare_load.summary(),
        "classify": api_load.summary(),
        "ratio": round(api_load.rate / bare_load.rate, 3) if bare_load.rate else None,
        "without_lane": routes_load.summary(),
        "lane_gain": round(api_load.rate / routes_load.rate, 3) if routes_load.rate else None,
        "rounds": {
            "bare_requests_per_s": [round(run.rate, 1) for run in bare_runs],
            "classify_requests_per_s": [round(run.rate, 1) for run in api_runs],
            "without_lane_requests_per_s": [round(run.rate, 1) for run in routes_runs],
        },
        "single_connection": single.summary(),
    }


def _batch_figures(api: str, texts: list[str]) -> dict[str, Any]:
    batches = [
        json.dumps(
            {"items": [{"text": texts[(start + i) % len(texts)]} for i in range(BATCH_ITEMS)]}
        ).encode()
        for start in range(0, len(texts), 50)
    ]
    load(api, ["/classify/batch"], batches, BATCH_CONNECTIONS, WARMUP_S)
    # Pooled over rounds, as for /classify/: a single run on a shared machine can
    # land in a slow spell of its neighbours.
    runs = [
        load(api, ["/classify/batch"], batches, BATCH_CONNECTIONS, RUN_S) for _ in range(ROUNDS)
    ]
    run = _combined(runs)
    return {
        "items": BATCH_ITEMS,
        "connections": BATCH_CONNECTIONS,
        **run.summary(),
        "texts_per_s": round(run.rate * BATCH_ITEMS, 1),
        "rounds_texts_per_s": [round(one.rate * BATCH_ITEMS, 1) for one in runs],
    }


def _observe_figures(api: str, bodies: list[bytes]) -> dict[str, Any]:
    spread = [f"/tracking/perf-{n}/observe" for n in range(SOURCES)]
    single = ["/tracking/perf-single/observe"]
    load(api, spread, bodies, CONNECTIONS, WARMUP_S)
    return {
        "connections": CONNECTIONS,
        "spread_over_1000_sources": load(api, spread, bodies, CONNECTIONS, RUN_S).summary(),
        "single_source": load(api, single, bodies, CONNECTIONS, RUN_S).summary(),
    }


def _targets(
    classify: dict[str, Any], batch: dict[str, Any], observe: dict[str, Any]
) -> dict[str, Any]:
    ratio = classify["ratio"] or 0.0
    p99 = classify["classify"]["p99_ms"]
    spread = observe["spread_over_1000_sources"]["requests_per_s"]
    single = observe["single_source"]["requests_per_s"]
    return {
        "classify_ratio_min": TARGET_RATIO,
        "classify_p99_ms_max": TARGET_P99_MS,
        "batch_texts_per_s_min": TARGET_BATCH_TEXTS_S,
        "observe_requests_per_s_min": TARGET_OBSERVE_RPS,
        "classify_ratio_met": ratio >= TARGET_RATIO,
        "classify_p99_met": p99 < TARGET_P99_MS,
        "batch_met": batch["texts_per_s"] >= TARGET_BATCH_TEXTS_S,
        "observe_spread_met": spread >= TARGET_OBSERVE_RPS,
        "observe_single_met": single >= TARGET_OBSERVE_RPS,
    }
