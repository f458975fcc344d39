"""/docs and /redoc in a real browser with no way out: every route's operation must render.

The app served by uvicorn on a loopback port (in a thread of the test process, with
the session's compiled classifier: ``harmwatch serve`` hands uvicorn the same
factory, and tests/test_api_e2e.py starts that as a process); Debian's Chromium, headless, with
every host name resolving to nothing but 127.0.0.1 and every other connection
sent to a proxy that does not exist, so a page that needed a CDN, a web font or
the Swagger validator would render without its operations (FastAPI's stock pages
render an empty body here). Each page is given five seconds of virtual time and
its DOM is compared with the server's own /openapi.json: Swagger UI must show
each method and path, ReDoc each operation's section.

``make test`` installs the ``chromium`` package when it runs as root with apt-get
(the Makefile's ``browser`` step). Without a browser the test is skipped with the
reason, except under ``CI=true``, where it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from api import create_app
from engine import Classifier, Settings

pytestmark = pytest.mark.slow

BROWSERS = ("chromium", "chromium-browser")
BROWSER_TIMEOUT_S = 45
# Nothing but the loopback server is reachable: names resolve to nothing, and a
# connection to a literal address goes to a proxy port where nobody listens.
ISOLATION = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
)
SWAGGER_OPERATION = re.compile(
    r'opblock-summary-method">(\w+)</span>.{0,400}?data-path="([^"]*)"', re.DOTALL
)


@pytest.fixture(scope="module")
def browser() -> str:
    """Chromium's path; checked before any server is started for it."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    reason = "no headless Chromium (Debian package 'chromium'; make test installs it as root)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


STARTUP_S = 30


@pytest.fixture(scope="module")
def base_url(classifier: Classifier, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API on a free loopback port until the module's tests are done."""
    directory = tmp_path_factory.mktemp("browser")
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{directory}/db.sqlite3")
    with socket.socket() as sock:  # a bound socket handed to uvicorn: no port race
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            create_app(settings, classifier=classifier), log_level="warning", lifespan="on"
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + STARTUP_S
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                pytest.fail("uvicorn did not start")
            time.sleep(0.05)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
            thread.join(timeout=20)


def _dump_doms(browser: str, base: str, pages: list[str], directory: Path) -> dict[str, str]:
    """Each page's DOM after five seconds of virtual time; the browsers run side by side."""
    running = {}
    for page in pages:
        profile = directory / f"profile{page.replace('/', '-')}"
        command = [
            browser,
            "--headless",
            "--no-sandbox",  # as root in a container, Chromium's sandbox cannot start
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *ISOLATION,
            "--virtual-time-budget=5000",
            "--dump-dom",
            base + page,
        ]
        running[page] = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    doms = {}
    for page, process in running.items():
        try:
            out, err = process.communicate(timeout=BROWSER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            pytest.fail(f"chromium did not finish {page} in {BROWSER_TIMEOUT_S} s: {err[-2000:]}")
        assert process.returncode == 0, f"chromium failed on {page}: {err[-2000:]}"
        doms[page] = out
    return doms


def test_docs_and_redoc_render_every_operation_offline(
    browser: str, base_url: str, tmp_path: Path
) -> None:
    schema = httpx.get(f"{base_url}/openapi.json", timeout=10).json()
    expected = {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
    }
    operation_ids = {
        operation["operationId"]
        for operations in schema["paths"].values()
        for operation in operations.values()
    }
    assert ("POST", "/classify/") in expected and len(expected) == len(operation_ids)

    doms = _dump_doms(browser, base_url, ["/docs", "/redoc"], tmp_path)

    swagger = doms["/docs"]
    rendered = set(SWAGGER_OPERATION.findall(swagger))
    assert rendered == expected, (
        f"Swagger UI is missing {sorted(expected - rendered)}; DOM starts {swagger[:1500]}"
    )

    redoc = doms["/redoc"]
    sections = set(re.findall(r'data-section-id="operation/([^"]+)"', redoc))
    assert sections == operation_ids, (
        f"ReDoc is missing {sorted(operation_ids - sections)}; DOM starts {redoc[:1500]}"
    )
