"""POST /classify/ and POST /classify/batch answered ahead of FastAPI's routing, for the
plain case.

Classification is what a moderation pipeline calls thousands of times a
second. For a short text the engine needs about 40 µs, while the way through
the framework (Starlette's middleware stack, FastAPI's router and its
dependency solver, Request and Response objects) costs about 120 µs of
Python on every request before any work is done: measured, it halved the
single route's throughput and doubled its tail latency at 32 connections, and
it is a few percent of a 100-item batch.

So the app checks this lane first (``HarmwatchAPI.__call__``). It answers only
the plain case: the API key, when one is set, matches; a JSON body with a
Content-Length within the limit; a request that validates, with every text
within the limits; for a single text, one that is classified on the event loop
anyway (short, in a compiled language, with no text-analytics provider:
``Services.inline``); a batch goes to the classification thread as the route
sends it. Everything else — every error, every long single text, a chunked
body — is handed to the FastAPI route with the body replayed, so each error
response, status and header comes from one place and the lane can never answer
differently from the documented route. Classification has no side effects, so
handing a request on after reading it is harmless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from starlette.types import Message, Receive, Scope, Send

from api.body import is_json
from api.encoding import JSON, dumps
from api.limits import text_ok
from api.middleware import API_KEY_HEADER, MAX_BODY_BYTES, KeyCheck
from api.models import BatchRequest, ClassifyRequest
from api.offload import batch_json

if TYPE_CHECKING:
    from api.services import Services

PATH = "/classify/"
BATCH_PATH = "/classify/batch"
_PATHS = frozenset((PATH, BATCH_PATH))
_CONTENT_TYPE = JSON.encode()


class ClassifyLane:
    """Serves the plain classify requests; says when the full stack must take one."""

    def __init__(self, services: Services, api_key: bytes | None) -> None:
        self._services = services
        self._key = KeyCheck(api_key) if api_key is not None else None

    @staticmethod
    def wants(scope: Scope) -> str | None:
        """The lane's path this request is for (PATH or BATCH_PATH), if any."""
        if scope["type"] != "http" or scope["method"] != "POST":
            return None
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return path if path in _PATHS else None

    async def serve(self, scope: Scope, receive: Receive, send: Send, path: str) -> Receive | None:
        """Answer the request (None), or the ``receive`` the full stack should read it from."""
        length = -1
        content_type: bytes | None = None
        key = b""
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = int(value) if value.isdigit() else -1
            elif name == b"content-type":
                content_type = value
            elif name == API_KEY_HEADER:
                key = value
        if self._key is not None and not self._key.accepts(key):
            return receive
        if length < 0 or length > MAX_BODY_BYTES:
            return receive
        if content_type is not None and not is_json(content_type.decode("latin-1")):
            return receive
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return None
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        payload = self._classify(body) if path == PATH else await self._classify_batch(body)
        if payload is None:
            return _replay(body, receive)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-length", str(len(payload)).encode()),
                    (b"content-type", _CONTENT_TYPE),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})
        return None

    def _classify(self, body: bytes) -> bytes | None:
        """The response body, or None when the request is not the plain case."""
        services = self._services
        try:
            request = ClassifyRequest.model_validate_json(body)
        except ValidationError:
            return None
        text, context, language = request.text, request.context, request.language
        if not text_ok(text, context, services.max_text_chars):
            return None
        classifier = services.classifier
        size = len(text) + (len(context) if context else 0)
        if not services.inline(size, classifier.resolve_language(language)[0]):
            return None
        try:
            result = classifier.classify(text, context=context, language=language)
            return dumps(result.to_dict())
        except Exception:
            # The route will meet the same failure and answer it as every route does
            # (a logged 500 with a request id); nothing was changed by trying.
            return None

    async def _classify_batch(self, body: bytes) -> bytes | None:
        """The batch response body, or None when the request is not the plain case."""
        services = self._services
        try:
            batch = BatchRequest.model_validate_json(body)
        except ValidationError:
            return None
        limit = services.max_text_chars
        if not all(text_ok(item.text, item.context, limit) for item in batch.items):
            return None
        try:
            return await services.compute(batch_json, services, batch)
        except Exception:
            return None  # as for one text: the route meets it again and answers it


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the already-read body over again, then the real channel."""
    pending = True

    async def replay() -> Message:
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
