"""`harmwatch serve`: as a real process, started, driven over HTTP and stopped; and its options.

The server runs on a free 127.0.0.1 port with a temporary SQLite database and
every secret set (API key, signing key, a text-analytics key for an endpoint
that refuses connections); the test drives classify, batch, observe, list,
verify, checkpoint and health, then checks that no secret reached a response
or the server's log. A second test runs two workers on one database and sends
them concurrent observes of one source: one unbroken chain must come out.
Every wait is bounded. The options are tested with ``uvicorn.run`` patched.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from engine import Settings
from tests.fakes.azure_language import refused_endpoint
from workbench.cli import app as cli

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
HARMWATCH = Path(sys.executable).with_name("harmwatch")
STARTUP_S = 60.0
API_KEY = "e2e-api-key-" + "3" * 20
SIGNING_KEY = "e2e-signing-key-" + "9" * 20
PROVIDER_KEY = "e2e-provider-key-" + "4" * 20
SECRETS = (API_KEY, SIGNING_KEY, PROVIDER_KEY)


@dataclass
class Server:
    base: str
    log: Path
    process: subprocess.Popen[bytes]

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(database: str, **extra: str) -> dict[str, str]:
    """The test run's environment minus any harmwatch setting, plus these."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
        and name != "DATABASE_URL"
    }
    env.update(TRACKING_DB_URL=database, **extra)
    return env


@contextmanager
def running_server(env: dict[str, str], log: Path, *args: str) -> Iterator[Server]:
    """``harmwatch serve`` on a free loopback port, up (/health answers) until the block ends."""
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(HARMWATCH), "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", log, process)
    try:
        _wait_for_health(server)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_for_health(server: Server) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"harmwatch serve exited:\n{server.output()[-3000:]}")
        try:
            if httpx.get(f"{server.base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    pytest.fail(f"harmwatch serve did not answer /health in {STARTUP_S} s:\n{server.output()}")


def test_serve_end_to_end(tmp_path: Path) -> None:
    env = server_env(
        f"sqlite:///{tmp_path}/tracking.sqlite3",
        HARMWATCH_API_KEY=API_KEY,
        HARMWATCH_SIGNING_KEY=SIGNING_KEY,
        TEXT_ANALYTICS_ENDPOINT=refused_endpoint(),
        TEXT_ANALYTICS_KEY=PROVIDER_KEY,
        TEXT_ANALYTICS_TIMEOUT_S="0.5",
    )
    texts: list[str] = []
    with running_server(env, tmp_path / "server.log") as server:
        health = httpx.get(f"{server.base}/health", timeout=5)  # open without the key
        texts.append(health.text)
        assert health.json()["database"] == {"backend": "sqlite", "status": "ok"}
        assert health.json()["text_analytics"]["provider"] == "azure_language"

        with httpx.Client(base_url=server.base, headers={"X-API-Key": API_KEY}, timeout=10) as api:
            assert httpx.post(f"{server.base}/classify/", json={"text": "x"}).status_code == 401

            classified = api.post("/classify/", json={"text": "Muslims are vermin."})
            assert classified.status_code == 200
            assert classified.json()["harm_mechanism"] == "animalization"
            assert classified.json()["amplification"]["skipped_reason"] != "not_configured"

            batch = api.post(
                "/classify/batch",
                json={"items": [{"text": "Kill all Muslims."}, {"text": "Nice weather."}]},
            )
            assert [r["is_harmful"] for r in batch.json()["results"]] == [True, False]

            for source, text in [
                ("a", "Muslims are evil."),
                ("a", "Kill all Muslims."),
                ("b", "Hi"),
            ]:
                observed = api.post(f"/tracking/{source}/observe", json={"text": text})
                assert observed.status_code == 201
                texts.append(observed.text)

            listing = api.get("/tracking")
            assert listing.headers["x-total-count"] == "2"
            assert [p["source_id"] for p in listing.json()] == ["a", "b"]

            verified = api.get("/tracking/a/verify").json()
            assert (verified["intact"], verified["checked"]) == (True, 2)

            checkpoint = api.get("/tracking/a/checkpoint").json()
            fields = {k: v for k, v in checkpoint.items() if k != "signature"}
            canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"))
            signature = hmac.new(SIGNING_KEY.encode(), canonical.encode(), hashlib.sha256)
            assert checkpoint["signature"] == signature.hexdigest()
            assert checkpoint["head_hash"] == listing.json()[0]["head_hash"]

            texts += [r.text for r in (classified, batch, listing)]
            texts.append(api.get("/health").text)
            texts.append(api.post("/classify/", content=b"{broken").text)
    log = server.output()
    assert "Application startup complete" in log
    assert "Application shutdown complete" in log  # SIGTERM is a graceful stop
    requests = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    [observe] = [r for r in requests if r["path"] == "/tracking/a/observe" and r["status"] == 201][
        :1
    ]
    assert observe["method"] == "POST" and observe["route"] == "/tracking/{source_id}/observe"
    assert len(observe["content_hash"]) == 64 and len(observe["request_id"]) == 32
    assert observe["duration_ms"] >= 0
    assert all("text" not in r and "texts" not in r for r in requests)  # HARMWATCH_LOG_TEXT off
    for secret in SECRETS:
        assert secret not in log
        assert all(secret not in text for text in texts)


def test_two_workers_share_one_database(tmp_path: Path) -> None:
    env = server_env(f"sqlite:///{tmp_path}/tracking.sqlite3")
    with running_server(env, tmp_path / "server.log", "--workers", "2") as server:

        def observe(worker: int) -> list[int]:
            seqs = []
            # A new connection per request, so the kernel spreads them over both workers.
            for index in range(15):
                response = httpx.post(
                    f"{server.base}/tracking/shared/observe",
                    json={"text": f"worker {worker} says hello {index}"},
                    headers={"Connection": "close"},
                    timeout=30,
                )
                assert response.status_code == 201, response.text
                seqs.append(response.json()["observation"]["seq"])
            return seqs

        with ThreadPoolExecutor(4) as pool:
            seqs = sorted(seq for chunk in pool.map(observe, range(4)) for seq in chunk)
        assert seqs == list(range(1, 61))
        report = httpx.get(f"{server.base}/tracking/shared/verify", timeout=30).json()
        assert (report["intact"], report["checked"]) == (True, 60)
    assert server.output().count("Application startup complete") == 2


# -- the command itself, with uvicorn.run patched -----------------------------------------------


def _invoke(
    args: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[Result, list[Any]]:
    import uvicorn

    calls: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/t.sqlite3")
    return CliRunner().invoke(
        cli, ["serve", "--port", str(free_port()), *args], obj=settings
    ), calls


def test_serve_hands_uvicorn_the_factory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    port = free_port()
    result, calls = _invoke(["--port", str(port), "--workers", "3"], monkeypatch, tmp_path)
    assert result.exit_code == 0, result.output
    [(args, kwargs)] = calls
    assert args == ("api.app:create_app_from_env",)
    assert kwargs["factory"] is True
    assert (kwargs["host"], kwargs["port"], kwargs["workers"]) == ("127.0.0.1", port, 3)
    assert "reload" not in kwargs
    assert kwargs["log_config"]["loggers"]["api"]["handlers"] == ["default"]
    assert kwargs["log_config"]["loggers"]["api.access"]["level"] == "INFO"
    assert kwargs["access_log"] is False  # harmwatch's JSON request log replaces uvicorn's


def test_serve_can_leave_out_the_access_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result, calls = _invoke(["--no-access-log"], monkeypatch, tmp_path)
    assert result.exit_code == 0, result.output
    assert calls[0][1]["log_config"]["loggers"]["api.access"]["level"] == "WARNING"


def test_serve_reload_watches_code_and_taxonomy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result, calls = _invoke(["--reload"], monkeypatch, tmp_path)
    assert result.exit_code == 0, result.output
    kwargs = calls[0][1]
    assert kwargs["reload"] is True
    assert "*.yaml" in kwargs["reload_includes"]
    assert any(path.endswith("taxonomy") for path in kwargs["reload_dirs"])


def test_serve_refuses_reload_with_workers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result, calls = _invoke(["--reload", "--workers", "2"], monkeypatch, tmp_path)
    assert result.exit_code == 2
    assert calls == []


def test_serve_reports_a_bad_taxonomy_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import uvicorn

    calls: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: [", encoding="utf-8")
    settings = Settings(_env_file=None, taxonomy_path=broken)
    result = CliRunner().invoke(cli, ["serve"], obj=settings)
    assert result.exit_code == 2
    assert result.output.startswith("error: ")
    assert "Traceback" not in result.output
    assert calls == []
