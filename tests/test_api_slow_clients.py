"""Slow clients against a real `harmwatch serve`: a body that does not arrive in time is a 408,
and the connection is closed.

The server runs with ``HARMWATCH_BODY_TIMEOUT_S=1``. Each client opens a raw socket,
sends the headers and part of the body, and stops; it then reads until the server
closes the connection and checks the answer. The fast lane's path (a declared
length), a route's path (observe) and a chunked body are each tried, and while they
hang a normal client is served. Every wait is bounded by the socket's own timeout.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.test_api_e2e import Server, running_server, server_env

pytestmark = pytest.mark.slow

READ_LIMIT_S = 30.0  # far beyond the 1 s deadline: only a server that never answers hits it


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("slow")
    env = server_env(f"sqlite:///{tmp}/tracking.sqlite3", HARMWATCH_BODY_TIMEOUT_S="1")
    with running_server(env, Path(tmp) / "server.log") as running:
        yield running


def stall(server: Server, head: bytes, part: bytes) -> tuple[bytes, bool]:
    """Send the head and part of a body, then nothing: the answer and whether it was closed."""
    host, port = server.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=READ_LIMIT_S) as sock:
        sock.sendall(head + part)
        received = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return received, True
            received += chunk


def head(path: str, *headers: str) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json"]
    return ("\r\n".join([*lines, *headers]) + "\r\n\r\n").encode()


CASES = {
    "lane": (head("/classify/", "Content-Length: 200"), b'{"text": "Muslims are'),
    "batch": (head("/classify/batch", "Content-Length: 900"), b'{"items": [{"text": "a"},'),
    "route": (head("/tracking/slow/observe", "Content-Length: 200"), b'{"text": "hello'),
    "chunked": (
        head("/classify/", "Transfer-Encoding: chunked"),
        b'9\r\n{"text": \r\n',
    ),
    "headers-only": (head("/validate/custom", "Content-Length: 50"), b""),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_body_that_does_not_arrive_is_408_and_the_connection_closed(
    server: Server, case: str
) -> None:
    answer, closed = stall(server, *CASES[case])
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 408 Request Timeout", answer[:300]
    assert closed
    headers, _, body = rest.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower()
    assert b"x-request-id:" in headers.lower()
    detail = json.loads(body)["detail"]
    assert "HARMWATCH_BODY_TIMEOUT_S" in detail and "1 s" in detail


def test_others_are_served_while_slow_clients_hang(server: Server) -> None:
    with ThreadPoolExecutor(4) as pool:
        hanging = [pool.submit(stall, server, *CASES["lane"]) for _ in range(3)]
        response = httpx.post(
            f"{server.base}/classify/", json={"text": "Muslims are vermin."}, timeout=10
        )
        assert response.status_code == 200
        assert response.json()["is_harmful"] is True
        assert all(future.result()[0].startswith(b"HTTP/1.1 408") for future in hanging)
    # Nothing of the abandoned observe was recorded.
    assert httpx.get(f"{server.base}/tracking/slow", timeout=10).status_code == 404
    log = server.output()
    assert '"status":408' in log
