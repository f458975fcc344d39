"""The one way in for every request: request id, body deadline, last-resort 500, log, metrics.

``RequestEdge`` is the outermost middleware of the app (inside only Starlette's
own error catcher), so every request passes through it exactly once, whichever
layer answers it — the API key check, the body limit, the classify fast lane
(``api.hotpath``) or a FastAPI route. That is what makes each of these concerns
one implementation:

- **request id**: the client's ``X-Request-ID`` when it is a short token, else a
  new one; sent back on every response and written in every log line about it;
- **body deadline**: a body that has not arrived in full within
  ``HARMWATCH_BODY_TIMEOUT_S`` of the request's start is answered 408 with
  ``Connection: close`` (the server then drops the connection), so a client that
  sends half a body and waits holds a connection for that long and no longer;
- **last-resort 500**: anything that escapes is logged with its traceback under
  the request id and answered ``{"detail": "internal error", "request_id": ...}``,
  nothing else, so no internal detail (or anything a secret could hide in) leaves;
- **request log**: one JSON line per request on the ``api.access`` logger —
  ``method, path, route, status, duration_ms, request_id, client`` and, for the
  routes that classify, ``content_hash`` (``content_hashes`` for a batch); never
  the text unless ``HARMWATCH_LOG_TEXT=true``;
- **metrics**: requests and latency by route template (``api.metrics``).

Routes and the lane add what only they know (the route template, the content
hashes, the classifications) to the request's ``RequestNote`` in the scope.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics import Metrics
from api.middleware import send_json
from engine import Classification

log = logging.getLogger(__name__)
access_log = logging.getLogger("api.access")

SCOPE_KEY = "harmwatch"
REQUEST_ID_HEADER = b"x-request-id"
_CLIENT_ID = re.compile(rb"[A-Za-z0-9._:\-]{1,64}")


class BodyTimeout(HTTPException):
    """Raised from ``receive`` once the body is overdue; answered 408, connection closed."""

    def __init__(self, seconds: float) -> None:
        super().__init__(
            408,
            f"the request body did not arrive within {seconds:g} s (HARMWATCH_BODY_TIMEOUT_S)",
            headers={"Connection": "close"},
        )


@dataclass(slots=True)
class RequestNote:
    """What the layers that answer a request tell the edge about it."""

    request_id: str
    route: str | None = None
    content_hashes: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    batch: bool = False


def note_of(scope: Scope) -> RequestNote | None:
    note: RequestNote | None = scope.get(SCOPE_KEY)
    return note


def record_classified(
    scope: Scope,
    metrics: Metrics,
    results: Iterable[Classification],
    texts: Iterable[str],
    *,
    batch: bool = False,
) -> None:
    """The lane's and the routes' one call after classifying: metrics and the log's hashes."""
    results = list(results)
    metrics.classified(results)
    note = note_of(scope)
    if note is not None:
        note.batch = batch
        note.content_hashes.extend(result.content_hash for result in results)
        note.texts.extend(texts)


class RequestEdge:
    """See the module docstring; ``log_text`` puts the texts in the request log."""

    def __init__(
        self, app: ASGIApp, *, metrics: Metrics, body_timeout_s: float, log_text: bool
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.body_timeout_s = body_timeout_s
        self.log_text = log_text

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        started = loop.time()
        request_id = _request_id(scope)
        note = RequestNote(request_id)
        scope[SCOPE_KEY] = note
        id_header = (REQUEST_ID_HEADER, request_id.encode("ascii"))
        status = 0
        method: str = scope["method"]
        # HEAD is answered as GET without the body (RFC 9110 §9.3.2): load balancers
        # and uptime checks probe /health that way. FastAPI's GET routes answer GET
        # only, so the request goes in as a GET and only its body is dropped here.
        head = method == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", ()), id_header]}
            elif head and message["type"] == "http.response.body" and message.get("body"):
                message = {**message, "body": b""}
            await send(message)

        deadline = _Deadline(receive, loop, started + self.body_timeout_s, self.body_timeout_s)
        try:
            await self.app(scope, deadline.receive, send_with_id)
        except HTTPException as exc:  # BodyTimeout or BodyTooLarge, raised outside a route
            if status:
                raise
            await send_json(send_with_id, exc.status_code, {"detail": exc.detail}, _headers(exc))
        except Exception:
            log.exception(
                "internal error %s on %s %s", request_id, scope.get("method"), scope.get("path")
            )
            if status:  # nothing can be said any more; the server drops the connection
                raise
            await send_json(
                send_with_id, 500, {"detail": "internal error", "request_id": request_id}, []
            )
        finally:
            deadline.close()
            self._record(scope, method, note, status or 499, loop.time() - started)

    def _record(
        self, scope: Scope, method: str, note: RequestNote, status: int, seconds: float
    ) -> None:
        route = note.route or _route_of(scope)
        self.metrics.request(method, route, status, seconds)
        if not access_log.isEnabledFor(logging.INFO):
            return
        client = scope.get("client")
        line: dict[str, Any] = {
            "ts": _utc_now(),
            "event": "request",
            "method": method,
            "path": scope["path"],
            "route": route,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "request_id": note.request_id,
            "client": client[0] if client else None,
        }
        if note.batch:
            line["content_hashes"] = note.content_hashes
        elif note.content_hashes:
            line["content_hash"] = note.content_hashes[0]
        if self.log_text and note.texts:
            line["texts" if note.batch else "text"] = note.texts if note.batch else note.texts[0]
        access_log.info(orjson.dumps(line).decode())


class _Deadline:
    """``receive`` with the body deadline: one timer per request, made on the first read.

    Cheaper than a timeout around each read: most bodies arrive with the headers,
    and a request whose route never reads a body never starts the timer. When the
    timer fires while the request waits for more body, that wait is cancelled and
    becomes ``BodyTimeout``; once the body is complete, reads pass straight through.
    """

    __slots__ = (
        "_deadline",
        "_done",
        "_expired",
        "_loop",
        "_receive",
        "_seconds",
        "_timer",
        "_waiting",
    )

    def __init__(
        self, receive: Receive, loop: asyncio.AbstractEventLoop, deadline: float, seconds: float
    ) -> None:
        self._receive = receive
        self._loop = loop
        self._deadline = deadline
        self._seconds = seconds
        self._done = False
        self._expired = False
        self._timer: asyncio.TimerHandle | None = None
        self._waiting: asyncio.Task[Any] | None = None

    async def receive(self) -> Message:
        if self._done:
            return await self._receive()
        if self._expired or self._loop.time() >= self._deadline:
            self._expire()
            raise BodyTimeout(self._seconds)
        if self._timer is None:
            self._timer = self._loop.call_at(self._deadline, self._expire)
        task = asyncio.current_task()
        self._waiting = task
        try:
            message = await self._receive()
        except asyncio.CancelledError:
            if self._expired and task is not None and task.uncancel() == 0:
                raise BodyTimeout(self._seconds) from None
            raise
        finally:
            self._waiting = None
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.close()
        return message

    def _expire(self) -> None:
        self._expired = True
        if self._waiting is not None:
            self._waiting.cancel()

    def close(self) -> None:
        self._done = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == REQUEST_ID_HEADER:
            if _CLIENT_ID.fullmatch(value):
                return str(value.decode("ascii"))
            break
    return uuid.uuid4().hex


def _route_of(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else "unmatched"


def _headers(exc: HTTPException) -> list[tuple[bytes, bytes]]:
    headers = exc.headers or {}
    return [
        (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()
    ]


def _utc_now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1e6):06d}Z"
