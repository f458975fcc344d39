"""A database URL's password never shows, whatever shape the URL is in and wherever it goes.

Each URL of the table carries the marker password (``MarkerPw-...``): well-formed and
unreachable, without its scheme's colon, without a scheme, with an unencoded ``@``,
with the password in the query or in a libpq keyword string, or nothing but the
password itself. For each, every output a user or an operator can see is collected —
``redact_url``, the store's exception (message, repr and formatted traceback with its
chain), the CLI's output of ``track list``, ``db upgrade`` and ``serve``, the API's
/health, 503 and start-up failure, every log record the app wrote, ``repr(settings)`` —
and grepped for the marker.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api import create_app
from engine import Classifier, Settings
from store import StoreError, open_store, redact_url
from tests.cli_support import isolate_cli
from workbench.cli import app as cli

MARKER = "MarkerPw"
PASSWORD = f"{MARKER}-5e2c9a"
SPLIT = f"{MARKER}-5e2c9a@{MARKER}-77b1"  # a password with an unencoded "@"
NOWHERE = "127.0.0.1:1"  # refuses connections at once

URLS = [
    pytest.param(f"postgresql+psycopg://user:{PASSWORD}@{NOWHERE}/db", id="well-formed"),
    pytest.param(f"postgres://user:{PASSWORD}@{NOWHERE}/db", id="bare-postgres-scheme"),
    pytest.param(f"postgresql+psycopg//user:{PASSWORD}@{NOWHERE}/db", id="missing-colon"),
    pytest.param(f"postgresql+psycopg:/user:{PASSWORD}@{NOWHERE}/db", id="one-slash"),
    pytest.param(f"postgresql+psycopg:user:{PASSWORD}@{NOWHERE}/db", id="no-slashes"),
    pytest.param(f"user:{PASSWORD}@{NOWHERE}/db", id="no-scheme"),
    pytest.param(f"//user:{PASSWORD}@{NOWHERE}/db", id="scheme-relative"),
    pytest.param(PASSWORD, id="no-colon-at-all"),
    pytest.param(f"postgres:{PASSWORD}", id="colon-no-at"),
    pytest.param(f"postgresql+psycopg://user:{SPLIT}@{NOWHERE}/db", id="unencoded-at"),
    pytest.param(f"postgresql+psycopg://us@er:{PASSWORD}@{NOWHERE}/db", id="at-in-user"),
    pytest.param(f"postgresql+psycopg://user:{quote(SPLIT)}@{NOWHERE}/db", id="encoded-at"),
    pytest.param(f"postgresql+psycopg://:{PASSWORD}@{NOWHERE}/db", id="no-user"),
    pytest.param(f"postgresql+psycopg://user:{PASSWORD}@127.0.0.1:port/db", id="bad-port"),
    pytest.param(f"postgresql+psycopg://user:{PASSWORD}@[::1/db", id="bad-ipv6"),
    pytest.param(f"postgresql+psycopg://user@{NOWHERE}/db?password={PASSWORD}", id="query"),
    pytest.param(
        f"postgresql+psycopg://u:{PASSWORD}@{NOWHERE}/db?sslpassword={PASSWORD}", id="sslpassword"
    ),
    pytest.param(f"host=127.0.0.1 port=1 user=u password={PASSWORD} dbname=db", id="keywords"),
    pytest.param(f"mysql://user:{PASSWORD}@{NOWHERE}/db", id="unsupported"),
    pytest.param(f"  postgresql+psycopg://user:{PASSWORD}@{NOWHERE}/db ", id="spaces"),
    pytest.param(f"postgresql+psycopg://user:{PASSWORD}\n@{NOWHERE}/db", id="newline"),
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    isolate_cli(monkeypatch, tmp_path)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def exception_texts(exc: BaseException) -> list[str]:
    return [str(exc), repr(exc), "".join(traceback.format_exception(exc))]


def log_texts(records: list[logging.LogRecord]) -> list[str]:
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    return [formatter.format(record) for record in records]


@pytest.mark.parametrize("url", URLS)
def test_the_password_never_shows(
    url: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    classifier: Classifier,
) -> None:
    import uvicorn

    caplog.set_level(logging.DEBUG)
    outputs: list[str] = [redact_url(url)]
    settings = Settings(_env_file=None, tracking_db_url=url)
    outputs += [repr(settings), str(settings)]

    with pytest.raises(StoreError) as opened:
        open_store(settings)
    outputs += exception_texts(opened.value)

    runner = CliRunner()
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: None)
    for args in (
        ["track", "list"],
        ["db", "upgrade", "--json"],
        ["serve", "--port", str(free_port())],
    ):
        result = runner.invoke(cli, args, env={"TRACKING_DB_URL": url})
        assert result.exit_code in (0, 2), result.output
        assert "Traceback" not in result.output
        outputs.append(result.output)

    app = create_app(settings, classifier=classifier)
    client = TestClient(app, raise_server_exceptions=False)  # no lifespan: opened on use
    health = client.get("/health")
    assert health.status_code == 200
    assert health.json()["database"]["backend"] in ("postgresql", "sqlite", "unknown")
    observed = client.post("/tracking/a/observe", json={"text": "hello"})
    assert observed.status_code == 503
    listed = client.get("/tracking")
    outputs += [health.text, observed.text, listed.text, str(dict(observed.headers))]
    try:
        with TestClient(create_app(settings, classifier=classifier)) as started:
            outputs.append(started.get("/health").text)
    except StoreError as exc:  # a store that cannot be used stops the app at start-up
        outputs += exception_texts(exc)

    outputs += log_texts(caplog.records)
    assert any("***" in text or "unavailable" in text for text in outputs[3:])  # it was said
    leaks = [text for text in outputs if MARKER in text]
    assert leaks == []


@pytest.mark.slow
def test_a_real_server_never_logs_or_serves_the_password(tmp_path: Path) -> None:
    """The real process: a malformed URL stops it in one line, an unreachable one degrades it."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
        and name != "DATABASE_URL"
    }
    harmwatch = str(Path(sys.executable).with_name("harmwatch"))
    malformed = subprocess.run(
        [harmwatch, "serve", "--port", str(free_port())],
        env={**env, "TRACKING_DB_URL": f"postgresql+psycopg//user:{PASSWORD}@{NOWHERE}/db"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert malformed.returncode == 2
    assert malformed.stderr.startswith("error: ")
    assert MARKER not in malformed.stdout + malformed.stderr

    from tests.test_api_e2e import running_server, server_env

    unreachable = f"postgresql+psycopg://user:{PASSWORD}@{NOWHERE}/db"
    texts: list[Any] = []
    with running_server(server_env(unreachable), tmp_path / "server.log") as server:
        texts.append(httpx.get(f"{server.base}/health", timeout=10).text)
        texts.append(
            httpx.post(f"{server.base}/tracking/a/observe", json={"text": "x"}, timeout=10).text
        )
        texts.append(httpx.get(f"{server.base}/metrics", timeout=10).text)
    log = server.output()
    assert "unavailable" in log
    assert MARKER not in log
    assert all(MARKER not in text for text in texts)
