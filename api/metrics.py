"""Prometheus metrics of one app, with the standard client library (``prometheus_client``).

- ``harmwatch_http_requests_total{method, route, status}`` and
  ``harmwatch_http_request_duration_seconds{method, route}``: every request,
  whichever way it was answered (``api.edge`` records them); ``route`` is the
  route's template (``/tracking/{source_id}/observe``), never the raw path, so a
  million sources make no million series (``unmatched`` for a 404);
- ``harmwatch_classifications_total{mechanism, language}``: every text classified
  through the API (``none`` when nothing harmful was found);
- ``harmwatch_store_append_duration_seconds``: each group commit of observations
  (``api.writer``), and ``harmwatch_store_appends_total`` the appends committed;
- ``harmwatch_chain_verifications_total{outcome}``: chains verified, intact or broken.

Each app has its own registry (nothing is created at import, and tests can build
many apps). Under several worker processes each keeps its own counts: with
``PROMETHEUS_MULTIPROC_DIR`` set (``harmwatch serve --workers N`` sets it to a
fresh directory), the values go to files there and /metrics adds up every
worker's, as the client library's multiprocess mode does.
"""

from __future__ import annotations

import os
from collections import Counter as Tally
from collections.abc import Iterable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from engine import Classification

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
CONTENT_TYPE = CONTENT_TYPE_LATEST
# Requests: from a 50 µs classification to a 30 s benchmark run.
REQUEST_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)
# Commits: an SQLite fsync is ~0.2 ms, a PostgreSQL round trip ~1 ms.
APPEND_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0)


class Metrics:
    """The app's instruments and its /metrics text."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self.requests = Counter(
            "harmwatch_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ("method", "route", "status"),
            registry=registry,
        )
        self.latency = Histogram(
            "harmwatch_http_request_duration_seconds",
            "Time from the request's arrival to its last response byte, by route template.",
            ("method", "route"),
            buckets=REQUEST_BUCKETS,
            registry=registry,
        )
        self.classifications = Counter(
            "harmwatch_classifications",
            "Texts classified, by harm mechanism ('none' when not harmful) and language.",
            ("mechanism", "language"),
            registry=registry,
        )
        self.append_latency = Histogram(
            "harmwatch_store_append_duration_seconds",
            "Time to write and commit one group of observations.",
            buckets=APPEND_BUCKETS,
            registry=registry,
        )
        self.appends = Counter(
            "harmwatch_store_appends", "Observations committed to the store.", registry=registry
        )
        self.verifications = Counter(
            "harmwatch_chain_verifications",
            "Chains verified, by outcome (intact or broken).",
            ("outcome",),
            registry=registry,
        )

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)

    def classified(self, results: Iterable[Classification]) -> None:
        """Count classifications: one label lookup per distinct (mechanism, language)."""
        tally = Tally((result.harm_mechanism or "none", result.language) for result in results)
        for (mechanism, language), count in tally.items():
            self.classifications.labels(mechanism, language).inc(count)

    def appended(self, count: int, seconds: float) -> None:
        self.append_latency.observe(seconds)
        self.appends.inc(count)

    def verified(self, intact: bool) -> None:
        self.verifications.labels("intact" if intact else "broken").inc()

    def exposition(self) -> bytes:
        """The Prometheus text format: this process's values, or every worker's."""
        if os.environ.get(MULTIPROC_ENV):
            merged = CollectorRegistry()
            MultiProcessCollector(merged)  # type: ignore[no-untyped-call]
            return generate_latest(merged)
        return generate_latest(self.registry)
