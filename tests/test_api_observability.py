"""Request logs, request ids and /metrics: one path for every request, lane or route.

Every request writes one JSON line on the ``api.access`` logger and counts in the
Prometheus metrics, whichever layer answered it (the key check, the fast lane, a
route, a 404). The text is never logged unless ``log_text`` is set.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from api import create_app
from api.app import HarmwatchAPI
from engine import Classifier, Settings

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

VERMIN = "Muslims are vermin."
CALM = "I had a lovely walk along the river today."
API_KEY = "metrics-key-" + "5" * 24


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        prefixes = ("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_", "PROMETHEUS_")
        if name.startswith(prefixes) and not name.startswith("HARMWATCH_TEST_"):
            monkeypatch.delenv(name)
    monkeypatch.delenv("DATABASE_URL", raising=False)


@pytest.fixture
def app_for(classifier: Classifier, tmp_path: Path) -> Iterator[Any]:
    clients: list[TestClient] = []

    def build(**settings: Any) -> tuple[HarmwatchAPI, TestClient]:
        url = f"sqlite:///{tmp_path}/t{len(clients)}.sqlite3"
        app = create_app(
            Settings(_env_file=None, tracking_db_url=url, **settings), classifier=classifier
        )
        assert isinstance(app, HarmwatchAPI)
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return app, client

    yield build
    for client in clients:
        client.__exit__(None, None, None)


def request_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "api.access"]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_every_request_is_one_json_line_without_its_text(
    app_for: Any, caplog: pytest.LogCaptureFixture
) -> None:
    app, client = app_for()
    caplog.set_level(logging.INFO, logger="api.access")
    responses = [
        client.post("/classify/", json={"text": VERMIN}),  # the lane
        client.post("/classify/batch", json={"items": [{"text": VERMIN}, {"text": CALM}]}),
        client.post("/tracking/acct:1/observe", json={"text": CALM}),
        client.post("/classify/", json={"text": " "}),  # 422, by the route
        client.get("/nowhere"),
    ]
    app.lane = None
    responses.append(client.post("/classify/", json={"text": VERMIN}))  # the route
    lines = request_lines(caplog)
    assert [(line["method"], line["route"], line["status"]) for line in lines] == [
        ("POST", "/classify/", 200),
        ("POST", "/classify/batch", 200),
        ("POST", "/tracking/{source_id}/observe", 201),
        ("POST", "/classify/", 422),
        ("GET", "unmatched", 404),
        ("POST", "/classify/", 200),
    ]
    for line, response in zip(lines, responses, strict=True):
        assert line["request_id"] == response.headers["x-request-id"]
        assert line["duration_ms"] >= 0
        assert line["path"] == response.request.url.path
        assert set(line) >= {"ts", "event", "method", "path", "route", "status", "client"}
    assert lines[0]["content_hash"] == lines[5]["content_hash"] == sha(VERMIN)
    assert lines[1]["content_hashes"] == [sha(VERMIN), sha(CALM)]
    assert lines[2]["content_hash"] == sha(CALM)
    assert "content_hash" not in lines[3] and "content_hash" not in lines[4]
    logged = caplog.text
    assert VERMIN not in logged and CALM not in logged


def test_texts_are_logged_only_when_asked(app_for: Any, caplog: pytest.LogCaptureFixture) -> None:
    _, client = app_for(log_text=True)
    caplog.set_level(logging.INFO, logger="api.access")
    client.post("/classify/", json={"text": VERMIN})
    client.post("/classify/batch", json={"items": [{"text": CALM}]})
    single, batch = request_lines(caplog)
    assert single["text"] == VERMIN
    assert batch["texts"] == [CALM]


def test_a_client_request_id_is_kept_when_it_is_a_short_token(app_for: Any) -> None:
    _, client = app_for()
    kept = client.get("/health", headers={"X-Request-ID": "lb-7f3a.2"})
    assert kept.headers["x-request-id"] == "lb-7f3a.2"
    for hostile in (b"a" * 65, b"two words", b"inject\xc3\xa9", b'{"json": 1}'):
        replaced = client.get("/health", headers={"X-Request-ID": hostile})
        assert replaced.headers["x-request-id"] != hostile.decode("latin-1")
        assert len(replaced.headers["x-request-id"]) == 32


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_metrics_count_every_request_lane_or_route(app_for: Any) -> None:
    app, client = app_for()
    client.post("/classify/", json={"text": VERMIN})  # the lane
    lane, app.lane = app.lane, None
    client.post("/classify/", json={"text": VERMIN})  # the route
    app.lane = lane
    client.post("/classify/batch", json={"items": [{"text": CALM}, {"text": VERMIN}]})
    client.post("/tracking/a/observe", json={"text": VERMIN})
    client.post("/tracking/a/observe", json={"text": CALM})
    client.get("/tracking/a/verify")
    client.get("/tracking/nobody")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    found = samples(response.text)

    def value(name: str, **labels: str) -> float:
        return found.get((name, tuple(sorted(labels.items()))), 0.0)

    requests = "harmwatch_http_requests_total"
    assert value(requests, method="POST", route="/classify/", status="200") == 2
    assert value(requests, method="POST", route="/classify/batch", status="200") == 1
    assert value(requests, method="POST", route="/tracking/{source_id}/observe", status="201") == 2
    assert value(requests, method="GET", route="/tracking/{source_id}", status="404") == 1
    latency = "harmwatch_http_request_duration_seconds_count"
    assert value(latency, method="POST", route="/classify/") == 2
    classified = "harmwatch_classifications_total"
    assert value(classified, mechanism="animalization", language="en") == 4
    assert value(classified, mechanism="none", language="en") == 2
    assert value("harmwatch_store_appends_total") == 2
    assert value("harmwatch_store_append_duration_seconds_count") >= 1
    assert value("harmwatch_chain_verifications_total", outcome="intact") == 1


def test_metrics_need_the_api_key_like_every_route(app_for: Any) -> None:
    _, client = app_for(api_key=API_KEY)
    assert client.get("/metrics").status_code == 401
    allowed = client.get("/metrics", headers={"X-API-Key": API_KEY})
    assert allowed.status_code == 200
    # The refused request was counted too, and the key appears nowhere.
    assert 'status="401"' in allowed.text
    assert API_KEY not in allowed.text
