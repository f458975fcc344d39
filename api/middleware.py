"""Pure ASGI middleware: the API key and the request body limit.

Pure ASGI rather than ``BaseHTTPMiddleware``: each one looks at the request
line and headers only, costs a function call on the hot path, and can answer
before the body has been read. They run outermost first:
``RequestEdge`` (api.edge: request id, body deadline, last-resort 500, log,
metrics) → ``ApiKey`` → ``BodyLimit`` → the classify fast lane (api.hotpath) →
FastAPI's routing. Every request passes each of them once, whoever answers it.
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.encoding import JSON, dumps
from api.pages import ASSETS

MAX_BODY_BYTES = 2 * 1024 * 1024
API_KEY_HEADER = b"x-api-key"
# What stays reachable without the key: the health probe, the documentation and the root's
# links to it, each however its trailing slash is spelt (api.routing answers both), and
# the documentation's own assets (api.pages).
_OPEN = ("/health", "/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json")
OPEN_PATHS = frozenset({"/", *_OPEN, *(path + "/" for path in _OPEN)})
OPEN_PREFIX = ASSETS + "/"


async def send_json(
    send: Send, status: int, payload: object, headers: list[tuple[bytes, bytes]]
) -> None:
    body = dumps(payload)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", JSON.encode()),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class KeyCheck:
    """The configured API key, compared in constant time.

    Both sides are hashed first so the compare does not even reveal the key's length.
    """

    def __init__(self, key: bytes) -> None:
        self._digest = hashlib.sha256(key).digest()

    def accepts(self, given: bytes) -> bool:
        return bool(given) and hmac.compare_digest(hashlib.sha256(given).digest(), self._digest)


class ApiKey:
    """With HARMWATCH_API_KEY set, every route but health and the docs needs ``X-API-Key``.

    Checked before the body is read, so an unauthenticated client can neither
    make the server parse a body nor learn anything from a validation error.
    """

    def __init__(self, app: ASGIApp, key: bytes) -> None:
        self.app = app
        self._key = KeyCheck(key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] in OPEN_PATHS
            or scope["path"].startswith(OPEN_PREFIX)
        ):
            await self.app(scope, receive, send)
            return
        given = b""
        for name, value in scope["headers"]:
            if name == API_KEY_HEADER:
                given = value
                break
        if self._key.accepts(given):
            await self.app(scope, receive, send)
            return
        detail = "invalid X-API-Key header" if given else "missing X-API-Key header"
        await send_json(send, 401, {"detail": detail}, [(b"www-authenticate", b"X-API-Key")])


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a streamed body passes the limit; answered as 413."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit} bytes (2 MiB)")


class BodyLimit:
    """413 for a body over the limit, before it is read in full.

    A declared Content-Length over the limit is refused at once, unread. A body
    without one (chunked) is counted as it streams and refused the moment it
    passes the limit. A body whose Content-Length is within the limit needs no
    counting: the server never delivers more than was declared.
    """

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await send_json(send, 413, {"detail": BodyTooLarge(self.limit).detail}, [])
            return
        if declared is not None:
            await self.app(scope, receive, send)
            return
        received = 0
        limit = self.limit

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, counting_receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server rejects a malformed length itself; count instead
    return None
