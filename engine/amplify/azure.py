"""Azure AI Language client for optional score amplification (sentiment and entities).

The classifier is rule-based and must give the same decision with or without this
provider, so the provider can only *raise* the score of a signal that already
survived suppression, by a bounded factor taken from the taxonomy. Everything here
is defensive for the same reason: a slow, throttled, broken or unconfigured
provider must cost at most ``timeout_s`` and then degrade to factor 1.0 with a
machine-readable ``skipped_reason`` - never an exception, never a leaked key.
"""

from __future__ import annotations

import email.utils
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Generic, TypeVar

import httpx
import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.amplify.base import AmplificationResult, Item, Span
from engine.rules.models import Amplification

__all__ = ["AzureLanguageAmplifier"]

_log = logging.getLogger(__name__)


_SENTIMENT = "SentimentAnalysis"
_ENTITIES = "EntityRecognition"
# Synchronous per-request document limits of the service ("data limits" page):
# sentiment takes 10 documents, named entity recognition only 5. Exceeding them is
# a 400 for the whole request, so they are provider facts, not tunable policy.
_MAX_DOCS = {_SENTIMENT: 10, _ENTITIES: 5}
_CHUNK = _MAX_DOCS[_SENTIMENT]
_ROUTE = "/language/:analyze-text"
_CODE_CHARS = re.compile(r"[^A-Za-z0-9_.-]")


class _SkipError(Exception):
    """Internal: carries a skipped_reason out of the HTTP layer; never leaves this module."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- wire models (responses only; extra fields are ignored so API additions don't break us)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class _Confidence(_Wire):
    negative: float = Field(ge=0.0, le=1.0)


class _Doc(_Wire):
    id: str


class _SentimentDoc(_Doc):
    confidence_scores: _Confidence = Field(alias="confidenceScores")


class _Entity(_Wire):
    offset: int = Field(ge=0)
    length: int = Field(ge=0)


class _EntityDoc(_Doc):
    entities: list[_Entity]


class _ErrorDetail(_Wire):
    code: str
    innererror: _ErrorDetail | None = None

    def innermost_code(self) -> str:
        """The inner code says *why* ("InvalidDocument"), the outer one only "InvalidArgument"."""
        return self.innererror.innermost_code() if self.innererror else self.code


class _DocumentError(_Wire):
    id: str
    error: _ErrorDetail


D = TypeVar("D", bound=_Doc)


class _Results(_Wire, Generic[D]):
    documents: list[D]
    errors: list[_DocumentError] = Field(default_factory=list)
    model_version: str = Field(alias="modelVersion")


class _Envelope(_Wire, Generic[D]):
    kind: str
    results: _Results[D]


@dataclass(frozen=True, slots=True)
class _Answer(Generic[D]):
    """One kind's answer for a set of documents, keyed by document id (never by position)."""

    model_version: str
    documents: dict[str, D]
    errors: dict[str, str]


# --- circuit breaker


class _Permit(Enum):
    NORMAL = "normal"
    TRIAL = "trial"


class _Breaker:
    """Stops paying the full timeout on every classification while the provider is down.

    After ``threshold`` consecutive failed calls it opens for ``cooldown_s``; then it
    lets exactly one trial call through (half-open). Only a successful trial closes
    it; a failed trial reopens it for another cooldown.
    """

    def __init__(self, threshold: int, cooldown_s: float, clock: Callable[[], float]) -> None:
        self._threshold = threshold
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False
        self._last_ok: bool | None = None

    def acquire(self) -> _Permit | None:
        with self._lock:
            if self._opened_at is None:
                return _Permit.NORMAL
            if self._clock() - self._opened_at < self._cooldown_s or self._trial_in_flight:
                return None
            self._trial_in_flight = True
            return _Permit.TRIAL

    def record(self, permit: _Permit, *, ok: bool, reason: str | None = None) -> None:
        with self._lock:
            if permit is _Permit.TRIAL:
                self._trial_in_flight = False
            self._last_ok = ok
            if ok:
                self._failures = 0
                self._opened_at = None
                return
            self._failures += 1
            reopen = permit is _Permit.TRIAL or self._opened_at is not None
            if reopen or self._failures >= self._threshold:
                if self._opened_at is None:
                    _log.warning(
                        "text analytics circuit opened after %d consecutive failures (last: %s)",
                        self._failures,
                        reason,
                    )
                self._opened_at = self._clock()

    def healthy(self) -> bool:
        with self._lock:
            return self._opened_at is None and self._last_ok is not False


# --- the Azure client


class AzureLanguageAmplifier:
    """Amplifier backed by the synchronous Azure AI Language ``analyze-text`` API.

    One instance is shared by all API worker threads: the httpx client pools
    connections and the breaker state is lock-protected.
    """

    def __init__(
        self,
        *,
        endpoint: str,
        key: str,
        config: Amplification,
        timeout_s: float | None = None,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        base = httpx.URL(endpoint.strip().rstrip("/"))
        if base.scheme not in ("http", "https") or not base.host:
            # The message names the setting, never its value: it may be pasted with the key.
            raise ValueError("TEXT_ANALYTICS_ENDPOINT must be an http(s) URL with a host")
        if not key:
            raise ValueError("TEXT_ANALYTICS_KEY must not be empty")
        timeout = config.default_timeout_s if timeout_s is None else timeout_s
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError("TEXT_ANALYTICS_TIMEOUT_S must be a positive number of seconds")
        self._config = config
        self._timeout_s = timeout
        self._clock = clock
        self._origin = f"{base.scheme}://{base.netloc.decode('ascii').rpartition('@')[2]}"
        route = base.copy_with(path=base.path.rstrip("/") + _ROUTE, query=None)
        self._url = route.copy_merge_params({"api-version": config.api_version})
        self._client = httpx.Client(
            transport=transport,
            headers={"Ocp-Apim-Subscription-Key": key, "Content-Type": "application/json"},
            follow_redirects=False,
        )
        self._breaker = _Breaker(config.breaker_failures, config.breaker_cooldown_s, clock)
        self._closed = False

    def __repr__(self) -> str:
        return f"AzureLanguageAmplifier(endpoint={self._origin!r}, status={self.status()!r})"

    def status(self) -> str:
        """Reports from recent outcomes instead of probing, so /health never spends quota."""
        if self._closed or not self._breaker.healthy():
            return "unreachable"
        return "connected"

    def close(self) -> None:
        self._closed = True
        self._client.close()

    def amplify(
        self, text: str, language: str, anchor_spans: Sequence[Span]
    ) -> AmplificationResult:
        return self.amplify_many([(text, language, anchor_spans)])[0]

    def amplify_many(self, items: Sequence[Item]) -> list[AmplificationResult]:
        """Batches documents so a /classify/batch of 100 costs 30 round trips, not 200.

        Each chunk of up to 10 documents is one "call" for the deadline and the
        breaker (one sentiment request, entity requests of at most 5); a chunk
        that fails degrades only its own documents.
        """
        results: dict[int, AmplificationResult] = {}
        sendable: list[int] = []
        for index, (_, language, _) in enumerate(items):
            if language in self._config.no_sentiment_languages:
                results[index] = self._skipped("language_unsupported")
            else:
                sendable.append(index)
        for start in range(0, len(sendable), _CHUNK):
            chunk = sendable[start : start + _CHUNK]
            chunk_results = self._amplify_chunk([items[i] for i in chunk])
            results.update(zip(chunk, chunk_results, strict=True))
        return [results[i] for i in range(len(items))]

    def _skipped(self, reason: str, model_version: str | None = None) -> AmplificationResult:
        return AmplificationResult(1.0, self._config.provider, model_version, reason)

    def _amplify_chunk(self, items: Sequence[Item]) -> list[AmplificationResult]:
        if self._closed:
            return [self._skipped("unreachable")] * len(items)
        permit = self._breaker.acquire()
        if permit is None:
            return [self._skipped("circuit_open")] * len(items)
        # Ids are chunk-local positions as strings; answers are matched by id only.
        docs = [(str(n), text, language) for n, (text, language, _) in enumerate(items, 1)]
        deadline = self._clock() + self._timeout_s
        try:
            sentiment = self._analyze(_SENTIMENT, docs, deadline, _Envelope[_SentimentDoc])
            entity_docs = [
                d
                for d in docs
                if d[2] not in self._config.no_entity_languages and d[0] not in sentiment.errors
            ]
            entities = self._analyze_entities(entity_docs, deadline)
        except _SkipError as failure:
            self._breaker.record(permit, ok=False, reason=failure.reason)
            _log.debug("text analytics call skipped: %s", failure.reason)
            return [self._skipped(failure.reason)] * len(items)
        self._breaker.record(permit, ok=True)
        return [
            self._score(doc[0], item[2], sentiment, entities)
            for doc, item in zip(docs, items, strict=True)
        ]

    def _analyze_entities(
        self, docs: Sequence[tuple[str, str, str]], deadline: float
    ) -> _Answer[_EntityDoc] | None:
        if not docs:
            return None
        size = _MAX_DOCS[_ENTITIES]
        parts = [
            self._analyze(_ENTITIES, docs[i : i + size], deadline, _Envelope[_EntityDoc])
            for i in range(0, len(docs), size)
        ]
        versions = sorted({p.model_version for p in parts})
        return _Answer(
            model_version=",".join(versions),
            documents={k: v for p in parts for k, v in p.documents.items()},
            errors={k: v for p in parts for k, v in p.errors.items()},
        )

    def _score(
        self,
        doc_id: str,
        anchor_spans: Sequence[Span],
        sentiment: _Answer[_SentimentDoc],
        entities: _Answer[_EntityDoc] | None,
    ) -> AmplificationResult:
        cfg = self._config
        if entities is not None and doc_id not in entities.documents.keys() | entities.errors:
            entities = None  # this document's language has no entity model
        version = _join_versions(
            sentiment.model_version, entities.model_version if entities else None
        )
        for answer in (sentiment, entities):
            if answer is not None and doc_id in answer.errors:
                return self._skipped(f"document_error:{answer.errors[doc_id]}", version)
        factor = 1.0
        if sentiment.documents[doc_id].confidence_scores.negative >= cfg.negative_sentiment_min:
            factor *= cfg.factor_negative_sentiment
        if entities is not None:
            found = [(e.offset, e.offset + e.length) for e in entities.documents[doc_id].entities]
            if any(_overlaps(a, b) for a in found for b in anchor_spans):
                factor *= cfg.factor_entity_overlap
        factor = round(max(1.0, min(factor, cfg.max_factor)), 3)
        return AmplificationResult(factor, cfg.provider, version, None)

    def _analyze(
        self,
        kind: str,
        docs: Sequence[tuple[str, str, str]],
        deadline: float,
        envelope_type: type[_Envelope[D]],
    ) -> _Answer[D]:
        body = {
            "kind": kind,
            "parameters": {
                "modelVersion": "latest",
                "stringIndexType": "UnicodeCodePoint",
                # The service otherwise keeps input text for 48 h; ours may be sensitive.
                "loggingOptOut": True,
            },
            "analysisInput": {
                "documents": [{"id": i, "language": lang, "text": text} for i, text, lang in docs]
            },
        }
        response = self._post(orjson.dumps(body), deadline)
        if response.status_code == 403:
            raise _SkipError("quota_exceeded")
        if response.status_code != 200:
            raise _SkipError(f"http_{response.status_code}")
        try:
            envelope = envelope_type.model_validate_json(response.content)
        except ValidationError:
            raise _SkipError("bad_response") from None
        results = envelope.results
        answer: _Answer[D] = _Answer(
            model_version=results.model_version,
            documents={d.id: d for d in results.documents},
            errors={e.id: _safe_code(e.error.innermost_code()) for e in results.errors},
        )
        sent = {doc_id for doc_id, _, _ in docs}
        answered = answer.documents.keys() | answer.errors.keys()
        if envelope.kind != f"{kind}Results" or not sent <= answered:
            raise _SkipError("bad_response")
        return answer

    def _post(self, body: bytes, deadline: float) -> httpx.Response:
        """POSTs within the deadline, retrying only 429 - the one failure that says when to retry.

        403 (quota) is not retried: it lasts until the quota period resets.
        """
        cfg = self._config
        attempt = 1
        while True:
            remaining = deadline - self._clock()
            if remaining <= 0:
                raise _SkipError("timeout")
            try:
                response = self._client.post(self._url, content=body, timeout=remaining)
            except httpx.TimeoutException:
                raise _SkipError("timeout") from None
            except httpx.HTTPError:
                raise _SkipError("unreachable") from None
            except RuntimeError:  # the client was closed by another thread mid-call
                raise _SkipError("unreachable") from None
            if response.status_code != 429:
                return response
            cap = cfg.retry_after_cap_s
            wait = min(_retry_after_s(response.headers, cap), cap)
            if attempt >= cfg.max_attempts or self._clock() + wait >= deadline:
                raise _SkipError("rate_limited")
            time.sleep(wait)
            attempt += 1


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _safe_code(code: str) -> str:
    """Provider error codes go into stored results, so keep them to a token charset."""
    return _CODE_CHARS.sub("", code)[:64] or "unknown"


def _join_versions(sentiment: str, entities: str | None) -> str:
    if not entities or entities == sentiment:
        return sentiment
    return f"sentiment={sentiment};entities={entities}"


def _retry_after_s(headers: httpx.Headers, default: float) -> float:
    """Seconds the service asked us to wait; ``default`` when it did not say or said nonsense."""
    for name in ("retry-after-ms", "x-ms-retry-after-ms"):
        value = headers.get(name)
        if value is not None:
            try:
                return _non_negative(float(value) / 1000.0, default)
            except ValueError:
                pass
    value = headers.get("retry-after")
    if value is None:
        return default
    try:
        return _non_negative(float(value), default)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    return _non_negative(when.timestamp() - time.time(), default)


def _non_negative(seconds: float, default: float) -> float:
    return max(seconds, 0.0) if math.isfinite(seconds) else default
