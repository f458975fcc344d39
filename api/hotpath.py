"""POST /classify/ and POST /classify/batch answered ahead of FastAPI's routing, for the
plain case.

Classification is what a moderation pipeline calls thousands of times a
second. For a short text the engine needs about 40 µs, while the way through
FastAPI's exception middleware, router and dependency solver, and its Request
and Response objects, costs more than that on every request before any work is
done. So the innermost middleware (``FastLane``) answers the plain case itself:
a JSON body with a Content-Length that validates, with every text within the
limits; for a single text, one that is classified on the event loop anyway
(short, in a compiled language, with no text-analytics provider:
``Services.inline``); a batch goes to the classification thread as the route
sends it. Everything else — every error, every long single text, a chunked
body — is handed to the FastAPI route with the body replayed, so each error
response, status and header comes from one place and the lane can never answer
differently from the documented route. Classification has no side effects, so
handing a request on after reading it is harmless.

The lane is a middleware like the others, inside them: the API key, the body
size limit, the body deadline, the request id, the request log and the metrics
(``api.middleware``, ``api.edge``) are applied once, by one implementation, to
every request whether the lane or a route answers it. The lane shares the
routes' rules as functions (``api.limits.text_ok``, ``api.body.is_json``, the
request models, ``api.edge.record_classified``) rather than repeating them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.body import is_json
from api.edge import note_of, record_classified
from api.encoding import JSON, dumps
from api.limits import text_ok
from api.models import BatchRequest, ClassifyRequest
from api.offload import batch_results
from engine.languages import is_auto

if TYPE_CHECKING:
    from api.app import HarmwatchAPI
    from api.services import Services

PATH = "/classify/"
BATCH_PATH = "/classify/batch"
# Both spellings of each path, as the routes answer them (api.routing): the lane's path.
_PATHS = {
    spelling: path
    for path in (PATH, BATCH_PATH)
    for spelling in (path, path.rstrip("/") if path.endswith("/") else path + "/")
}
_CONTENT_TYPE = JSON.encode()


class FastLane:
    """The middleware: the app's lane, when it has one (tests switch it off), serves first."""

    def __init__(self, app: ASGIApp, owner: HarmwatchAPI) -> None:
        self.app = app
        self.owner = owner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lane = self.owner.lane
        path = lane.wants(scope) if lane is not None else None
        if lane is not None and path is not None:
            handover = await lane.serve(scope, receive, send, path)
            if handover is None:
                return
            receive = handover
        await self.app(scope, receive, send)


class ClassifyLane:
    """Serves the plain classify requests; says when the full stack must take one."""

    def __init__(self, services: Services) -> None:
        self._services = services

    @staticmethod
    def wants(scope: Scope) -> str | None:
        """The lane's path this request is for (PATH or BATCH_PATH, however the client
        spelt its trailing slash), if any."""
        if scope["type"] != "http" or scope["method"] != "POST":
            return None
        path: str = scope["path"]
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        return _PATHS.get(path)

    async def serve(self, scope: Scope, receive: Receive, send: Send, path: str) -> Receive | None:
        """Answer the request (None), or the ``receive`` the full stack should read it from.

        The API key and the body's size were checked by the middleware outside.
        """
        length = False
        content_type: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"content-length":
                length = value.isdigit()
            elif name == b"content-type":
                content_type = value
        if not length:  # chunked: the route reads it, counted by BodyLimit
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
        if path == PATH:
            payload = self._classify(scope, body)
        else:
            payload = await self._classify_batch(scope, body)
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

    def _classify(self, scope: Scope, body: bytes) -> bytes | None:
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
        if is_auto(language) or not services.inline(size, classifier.resolve_language(language)[0]):
            return None  # "auto" is the route's: identification picks the language
        try:
            result = classifier.classify(text, context=context, language=language)
            payload = dumps(result.to_dict())
        except Exception:
            # The route will meet the same failure and answer it as every route does
            # (a logged 500 with a request id); nothing was changed by trying.
            return None
        _answered(scope, PATH)
        record_classified(scope, services.metrics, (result,), (text,))
        return payload

    async def _classify_batch(self, scope: Scope, body: bytes) -> bytes | None:
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
            payload, results = await services.compute(batch_results, services, batch)
        except Exception:
            return None  # as for one text: the route meets it again and answers it
        _answered(scope, BATCH_PATH)
        texts = (item.text for item in batch.items)
        record_classified(scope, services.metrics, results, texts, batch=True)
        return payload


def _answered(scope: Scope, route: str) -> None:
    """Name the route in the request log and metrics, as the router would have."""
    note = note_of(scope)
    if note is not None:
        note.route = route


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
