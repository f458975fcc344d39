"""A real HTTP stand-in for Azure AI Language ``analyze-text``, for offline tests.

It runs a stdlib ``ThreadingHTTPServer`` on 127.0.0.1 with an OS-assigned port so
the client under test goes through real sockets, timeouts and headers instead of
a mocked transport. It is deliberately *stricter* than the service in places
(a document without ``language`` or a request without ``stringIndexType`` is a
400) so that a client relying on service defaults fails here first.

Toy models, deterministic by construction:

- sentiment: the document's negative confidence is the highest score of any word
  found in ``negative_words`` (case-insensitive), else 0.05;
- entities: every whole-word, case-insensitive occurrence of a key of
  ``entity_words``, with offsets in the requested ``stringIndexType``.

Switch failures with :meth:`FakeAzureLanguage.fail`; count requests per kind with
:meth:`FakeAzureLanguage.count`.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

KEY = "fake-key-5f1c9b2e7d4a4c0e8b6f"
API_VERSION = "2023-04-01"
ROUTE = "/language/:analyze-text"
SENTIMENT = "SentimentAnalysis"
ENTITIES = "EntityRecognition"
# The service's synchronous limits: more documents than this is a 400 for the request.
MAX_DOCUMENTS = {SENTIMENT: 10, ENTITIES: 5}
MAX_TEXT_CHARS = 5120
SUPPORTED_LANGUAGES = {
    SENTIMENT: {"en", "es", "fr", "ru", "ar", "ha"},
    ENTITIES: {"en", "es", "fr", "ru", "ar"},
}
# A document whose text contains this gets a per-document error inside a 200.
DOC_ERROR_MARKER = "[[doc-error]]"
MODES = (
    "ok",
    "slow",
    "rate_limited",
    "quota",
    "server_error",
    "malformed",
    "bad_shape",
    "missing_document",
)

DEFAULT_NEGATIVE_WORDS = {
    "vermin": 0.97,
    "hate": 0.9,
    "filthy": 0.8,
    "rotten": 0.6,
    "annoying": 0.55,
}
DEFAULT_ENTITY_WORDS = {
    "muslims": "PersonType",
    "immigrants": "PersonType",
    "mexicans": "PersonType",
    "jews": "PersonType",
    "london": "Location",
}
DEFAULT_MODEL_VERSIONS = {SENTIMENT: "2022-11-01", ENTITIES: "2021-06-01"}


def error_detail(code: str, message: str, inner: str | None = None) -> dict[str, Any]:
    """The service's error object: ``{"code", "message", "innererror"?}``."""
    error: dict[str, Any] = {"code": code, "message": message}
    if inner is not None:
        error["innererror"] = {"code": inner, "message": message}
    return error


def error_body(code: str, message: str, inner: str | None = None) -> dict[str, Any]:
    """The envelope of a failed request: ``{"error": {...}}``."""
    return {"error": error_detail(code, message, inner)}


def refused_endpoint() -> str:
    """An endpoint on a port that was just free and is now closed: connection refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class FakeAzureLanguage:
    """The fake service; use as a context manager (``with FakeAzureLanguage() as fake``)."""

    def __init__(
        self,
        *,
        key: str = KEY,
        api_version: str = API_VERSION,
        negative_words: dict[str, float] | None = None,
        entity_words: dict[str, str] | None = None,
        model_versions: dict[str, str] | None = None,
        shuffle: bool = True,
    ) -> None:
        self.key = key
        self.api_version = api_version
        self.negative_words = dict(negative_words or DEFAULT_NEGATIVE_WORDS)
        self.entity_words = dict(entity_words or DEFAULT_ENTITY_WORDS)
        self.model_versions = dict(model_versions or DEFAULT_MODEL_VERSIONS)
        self.shuffle = shuffle
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._requests: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.fail("ok")

    # --- lifecycle

    def start(self) -> FakeAzureLanguage:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeAzureLanguage:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def endpoint(self) -> str:
        if self._server is None:
            raise RuntimeError("fake server is not running")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # --- switches and counters

    def fail(
        self,
        mode: str,
        *,
        kinds: set[str] | None = None,
        times: int | None = None,
        slow_s: float = 1.0,
        retry_after: str | None = "1",
    ) -> None:
        """Make the next ``times`` requests (all if None) of ``kinds`` (all if None) fail."""
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {MODES}")
        with self._lock:
            self.mode = mode
            self.mode_kinds = set(kinds) if kinds is not None else None
            self.mode_times = times
            self.slow_s = slow_s
            self.retry_after = retry_after

    def count(self, kind: str | None = None) -> int:
        """Requests received for ``kind`` ("unauthorized" for bad keys); all when None."""
        with self._lock:
            if kind is None:
                return sum(self._requests.values())
            return self._requests[kind]

    def _take_mode(self, kind: str) -> str:
        with self._lock:
            self._requests[kind] += 1
            if self.mode == "ok":
                return "ok"
            if self.mode_kinds is not None and kind not in self.mode_kinds:
                return "ok"
            if self.mode_times is not None:
                if self.mode_times <= 0:
                    return "ok"
                self.mode_times -= 1
            return self.mode

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.bodies.append(body)
            self.headers.append(headers)

    # --- the toy service

    def respond(
        self, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Status, extra headers and body for one request (runs on a server thread)."""
        url = urlsplit(path)
        if url.path != ROUTE:
            return _json(404, error_body("404", "Resource not found"))
        if parse_qs(url.query).get("api-version") != [self.api_version]:
            return _json(
                400, error_body("InvalidRequest", "Unsupported api-version", "InvalidApiVersion")
            )
        if headers.get("ocp-apim-subscription-key") != self.key:
            with self._lock:
                self._requests["unauthorized"] += 1
            return _json(
                401,
                error_body(
                    "401",
                    "Access denied due to invalid subscription key or wrong API endpoint.",
                ),
            )
        try:
            body = json.loads(raw)
            kind = body["kind"]
            parameters = body["parameters"]
            documents = body["analysisInput"]["documents"]
        except (ValueError, KeyError, TypeError):
            return _json(
                400,
                error_body("InvalidRequest", "Invalid request body", "InvalidRequestBodyFormat"),
            )
        if kind not in MAX_DOCUMENTS:
            return _json(400, error_body("InvalidRequest", f"Unsupported kind {kind!r}"))
        self._record(body, headers)
        mode = self._take_mode(kind)
        canned = self._failure(mode, kind)
        if canned is not None:
            return canned
        return self._analyze(kind, parameters, documents, mode)

    def _failure(self, mode: str, kind: str) -> tuple[int, dict[str, str], bytes] | None:
        if mode == "slow":
            self._stopping.wait(self.slow_s)
            return None
        if mode == "rate_limited":
            extra = {"Retry-After": self.retry_after} if self.retry_after is not None else {}
            status, _, payload = _json(
                429, error_body("429", "Rate limit is exceeded. Try again in 1 seconds.")
            )
            return status, extra, payload
        if mode == "quota":
            message = "Out of call volume quota for TextAnalytics F0 pricing tier."
            return _json(403, error_body("403", message))
        if mode == "server_error":
            return _json(500, error_body("InternalServerError", "Internal server error."))
        if mode == "malformed":
            return 200, {"Content-Type": "application/json"}, b'{"kind": "' + kind.encode()
        if mode == "bad_shape":
            return _json(200, {"kind": f"{kind}Results", "results": {"documents": "nope"}})
        return None

    def _analyze(
        self, kind: str, parameters: dict[str, Any], documents: list[dict[str, Any]], mode: str
    ) -> tuple[int, dict[str, str], bytes]:
        index_type = parameters.get("stringIndexType")
        if index_type not in ("UnicodeCodePoint", "Utf16CodeUnit"):
            return _json(400, error_body("InvalidArgument", "stringIndexType is required here"))
        if not documents or len(documents) > MAX_DOCUMENTS[kind]:
            limit = MAX_DOCUMENTS[kind]
            message = f"Batch request contains too many records. Max {limit} records are permitted."
            return _json(400, error_body("InvalidArgument", message, "InvalidDocumentBatch"))
        ids = [doc.get("id") for doc in documents]
        if len(set(ids)) != len(ids) or any(not doc.get("language") for doc in documents):
            message = "Documents need unique ids and a language (this fake has no default)."
            return _json(400, error_body("InvalidArgument", message, "InvalidDocument"))
        results: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for doc in documents:
            problem = self._document_problem(kind, doc)
            if problem is not None:
                errors.append({"id": doc["id"], "error": problem})
            elif kind == SENTIMENT:
                results.append(self._sentiment(doc))
            else:
                results.append(self._entities(doc, index_type))
        if mode == "missing_document" and results:
            results.pop(0)
        if self.shuffle:
            results.reverse()
            errors.reverse()
        payload = {
            "kind": f"{kind}Results",
            "results": {
                "documents": results,
                "errors": errors,
                "modelVersion": self.model_versions[kind],
            },
        }
        return _json(200, payload)

    def _document_problem(self, kind: str, doc: dict[str, Any]) -> dict[str, Any] | None:
        text = doc.get("text") or ""
        if doc["language"] not in SUPPORTED_LANGUAGES[kind]:
            message = f"Invalid language code '{doc['language']}'."
            return error_detail("InvalidArgument", message, "UnsupportedLanguageCode")
        if not text.strip() or len(text) > MAX_TEXT_CHARS or DOC_ERROR_MARKER in text:
            message = "Document text is empty, too long or rejected."
            return error_detail("InvalidArgument", message, "InvalidDocument")
        return None

    def _sentiment(self, doc: dict[str, Any]) -> dict[str, Any]:
        text: str = doc["text"]
        words = re.findall(r"\w+", text.casefold())
        negative = max([self.negative_words.get(w, 0.0) for w in words] + [0.05])
        positive = round((1.0 - negative) * 0.2, 2)
        neutral = round(1.0 - negative - positive, 2)
        label = "negative" if negative >= 0.5 else "neutral"
        scores = {"positive": positive, "neutral": neutral, "negative": negative}
        return {
            "id": doc["id"],
            "sentiment": label,
            "confidenceScores": scores,
            "sentences": [
                {
                    "sentiment": label,
                    "confidenceScores": scores,
                    "offset": 0,
                    "length": len(text),
                    "text": text,
                }
            ],
            "warnings": [],
        }

    def _entities(self, doc: dict[str, Any], index_type: str) -> dict[str, Any]:
        text: str = doc["text"]
        found: list[dict[str, Any]] = []
        for word, category in self.entity_words.items():
            for match in re.finditer(rf"\b{re.escape(word)}\b", text, re.IGNORECASE):
                start, end = match.span()
                if index_type == "Utf16CodeUnit":
                    start, end = _utf16_len(text[:start]), _utf16_len(text[:end])
                found.append(
                    {
                        "text": match.group(0),
                        "category": category,
                        "offset": start,
                        "length": end - start,
                        "confidenceScore": 0.9,
                    }
                )
        found.sort(key=lambda e: e["offset"])
        return {"id": doc["id"], "entities": found, "warnings": []}


def _json(status: int, payload: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(payload).encode("utf-8")


class _Server(ThreadingHTTPServer):
    # Concurrency tests open many connections at once; the default backlog of 5
    # would turn that into SYN retransmits (a 1 s stall) rather than a real test.
    request_queue_size = 128
    block_on_close = False
    daemon_threads = True


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeAzureLanguage/1.0"

    def do_POST(self) -> None:
        fake: FakeAzureLanguage = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        status, extra, payload = fake.respond(self.path, headers, raw)
        try:
            self.send_response(status)
            for name, value in extra.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("apim-request-id", f"fake-{time.monotonic_ns()}")
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test); nothing to tell it

    def log_message(self, format: str, *args: Any) -> None:
        return None  # keep pytest output clean
