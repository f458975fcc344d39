"""The classify routes' fast lane (api.hotpath): it answers exactly as the routes would, and
hands everything but the plain case to them.

The rest of the API's tests go through the lane too (TestClient calls the app
as uvicorn does); these pin down which of the two answered and that nobody
could tell them apart.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import api.routers.classify as classify_route
from api import create_app
from api.app import HarmwatchAPI
from api.services import INLINE_MAX_CHARS
from engine import Classifier, Settings

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

API_KEY = "lane-key-" + "3" * 24
VERMIN = "Muslims are vermin."


@pytest.fixture(scope="module", autouse=True)
def _clean_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_")) and not (
                name.startswith("HARMWATCH_TEST_")
            ):
                patch.delenv(name)
        patch.delenv("DATABASE_URL", raising=False)
        yield


def _app(classifier: Classifier, directory: Path, **settings: Any) -> HarmwatchAPI:
    app = create_app(
        Settings(_env_file=None, tracking_db_url=f"sqlite:///{directory}/t.sqlite3", **settings),
        classifier=classifier,
    )
    assert isinstance(app, HarmwatchAPI)
    return app


@pytest.fixture(scope="module")
def app(classifier: Classifier, tmp_path_factory: pytest.TempPathFactory) -> HarmwatchAPI:
    return _app(classifier, tmp_path_factory.mktemp("lane"))


@pytest.fixture(scope="module")
def client(app: HarmwatchAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def route_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many requests reached the FastAPI route (each one reads its body once)."""
    calls: list[int] = []
    original = classify_route.parse_body

    async def counting(request: Any, model: Any) -> Any:
        calls.append(1)
        return await original(request, model)

    monkeypatch.setattr(classify_route, "parse_body", counting)
    return calls


BODIES = [
    {"text": VERMIN},
    {"text": "I had a lovely walk along the river today."},
    {"text": "They are parasites.", "context": "Refugees arrive in town."},
    {"text": "Los inmigrantes son ratas.", "language": "es"},
    {"text": "Kill all Muslims.", "language": "xx"},
    {"text": "It is not true that Jews are criminals.", "context": None, "language": None},
    {"text": "مسلمون حشرات", "language": "ar"},
    {"text": "Müslümanlar 🐀 \u202eevil\u202c"},
]


def _lane_and_route(
    app: HarmwatchAPI, client: TestClient, path: str, body: dict[str, Any]
) -> tuple[Any, Any]:
    by_lane = client.post(path, json=body)
    lane = app.lane
    app.lane = None
    try:
        by_route = client.post(path, json=body)
    finally:
        app.lane = lane
    return by_lane, by_route


@pytest.mark.parametrize("body", BODIES, ids=[str(i) for i in range(len(BODIES))])
def test_the_lane_answers_exactly_as_the_route(
    app: HarmwatchAPI, client: TestClient, route_calls: list[int], body: dict[str, Any]
) -> None:
    language = body.get("language")
    if language in ("es", "ar"):
        app.state.services.warm(language)  # else the route compiles it (threadpool)
    by_lane, by_route = _lane_and_route(app, client, "/classify/", body)
    assert route_calls == [1]  # the second request only
    assert by_lane.status_code == by_route.status_code == 200
    # The classifier's clock is fixed: the two answers are the same bytes.
    assert by_lane.content == by_route.content
    for header in ("content-type", "content-length"):
        assert by_lane.headers[header] == by_route.headers[header]


BATCHES = [
    {"items": BODIES},
    {"items": [{"text": VERMIN}]},
    {"items": [{"text": f"Refugees are rats, number {n}."} for n in range(100)]},
]


@pytest.mark.parametrize("body", BATCHES, ids=["every-body", "one", "hundred"])
def test_the_lane_answers_a_batch_exactly_as_the_route(
    app: HarmwatchAPI, client: TestClient, route_calls: list[int], body: dict[str, Any]
) -> None:
    by_lane, by_route = _lane_and_route(app, client, "/classify/batch", body)
    assert route_calls == [1]  # the second request only
    assert by_lane.status_code == by_route.status_code == 200
    assert by_lane.content == by_route.content
    assert by_lane.json()["count"] == len(body["items"])
    for header in ("content-type", "content-length"):
        assert by_lane.headers[header] == by_route.headers[header]


DECLINED: list[tuple[str, bytes, dict[str, str], int]] = [
    ("not-json", b"{not json", {"content-type": "application/json"}, 422),
    ("blank-text", b'{"text": "  "}', {}, 422),
    ("extra-field", b'{"text": "x", "langauge": "en"}', {}, 422),
    ("over-limit", json.dumps({"text": "a" * 20_001}).encode(), {}, 422),
    ("text-plain", b'{"text": "a"}', {"content-type": "text/plain"}, 422),
    ("empty", b"", {}, 422),
    ("long-text", json.dumps({"text": "calm words " * (INLINE_MAX_CHARS // 10)}).encode(), {}, 200),
]


BATCH_DECLINED: list[tuple[str, bytes, dict[str, str], int]] = [
    ("not-json", b'{"items": [', {}, 422),
    ("no-items", b'{"items": []}', {}, 422),
    ("too-many", json.dumps({"items": [{"text": "a"}] * 101}).encode(), {}, 422),
    ("blank-item", b'{"items": [{"text": "ok"}, {"text": " "}]}', {}, 422),
    ("long-item", json.dumps({"items": [{"text": "a" * 20_001}]}).encode(), {}, 422),
    (
        "long-context",
        json.dumps({"items": [{"text": "a", "context": "b" * 20_001}]}).encode(),
        {},
        422,
    ),
    ("extra-field", b'{"items": [{"text": "a"}], "limit": 3}', {}, 422),
    ("text-plain", b'{"items": [{"text": "a"}]}', {"content-type": "text/plain"}, 422),
]


@pytest.mark.parametrize(
    ("path", "content", "headers", "status"),
    [("/classify/", *case[1:]) for case in DECLINED]
    + [("/classify/batch", *case[1:]) for case in BATCH_DECLINED],
    ids=[case[0] for case in DECLINED] + [f"batch-{case[0]}" for case in BATCH_DECLINED],
)
def test_everything_but_the_plain_case_is_the_routes(
    client: TestClient,
    route_calls: list[int],
    path: str,
    content: bytes,
    headers: dict[str, str],
    status: int,
) -> None:
    response = client.post(path, content=content, headers=headers)
    assert response.status_code == status, response.text
    assert route_calls == [1]  # the body the lane read was handed over intact


def test_a_chunked_body_goes_to_the_route(client: TestClient, route_calls: list[int]) -> None:
    def chunks() -> Iterator[bytes]:  # no Content-Length
        yield b'{"text": '
        yield json.dumps(VERMIN).encode() + b"}"

    response = client.post("/classify/", content=chunks())
    assert response.status_code == 200
    assert response.json()["is_harmful"] is True
    assert route_calls == [1]


def test_other_paths_and_methods_never_meet_the_lane(
    client: TestClient, route_calls: list[int]
) -> None:
    assert client.get("/classify/").status_code == 405
    assert client.get("/classify/batch").status_code == 405
    assert client.post("/classify/batches", json={"items": [{"text": VERMIN}]}).status_code == 404
    assert route_calls == []


@pytest.mark.parametrize(
    ("path", "spelt"), [("/classify/", "/classify"), ("/classify/batch", "/classify/batch/")]
)
def test_the_lane_serves_both_spellings_of_its_paths(
    client: TestClient, route_calls: list[int], path: str, spelt: str
) -> None:
    """A missing or extra trailing slash is answered, by the lane, as the documented path."""
    body: dict[str, Any] = {"text": VERMIN}
    if path.endswith("batch"):
        body = {"items": [body]}
    answer = client.post(spelt, json=body, follow_redirects=False)
    assert answer.status_code == 200
    expected = client.post(path, json=body).json()
    got = answer.json()
    for result in got.get("results", [got]) + expected.get("results", [expected]):
        result.pop("timestamp")
    assert got == expected
    assert route_calls == []
    invalid = client.post(spelt, json={"texts": []}, follow_redirects=False)
    assert invalid.status_code == 422  # handed to the route, which knows the twin too
    assert route_calls == [1]


def test_with_an_api_key_the_lane_serves_only_the_right_key(
    classifier: Classifier, tmp_path: Path, route_calls: list[int]
) -> None:
    with TestClient(_app(classifier, tmp_path, api_key=API_KEY)) as locked:
        good = locked.post("/classify/", json={"text": VERMIN}, headers={"X-API-Key": API_KEY})
        assert good.status_code == 200
        assert route_calls == []
        for headers in ({}, {"X-API-Key": API_KEY + "x"}, {"X-API-Key": ""}):
            response = locked.post("/classify/", json={"text": VERMIN}, headers=headers)
            assert response.status_code == 401
            assert response.headers["www-authenticate"] == "X-API-Key"
        assert route_calls == []  # the key middleware answered; no route ever ran


def test_a_root_path_is_honoured(classifier: Classifier, tmp_path: Path) -> None:
    app = _app(classifier, tmp_path)
    with TestClient(app, root_path="/harmwatch") as prefixed:
        response = prefixed.post("/harmwatch/classify/", json={"text": VERMIN})
        assert response.status_code == 200
        assert response.json()["is_harmful"] is True


def test_a_failure_in_the_lane_is_answered_by_the_route_as_any_failure(
    app: HarmwatchAPI,
    client: TestClient,
    route_calls: list[int],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(app.state.services.classifier, "classify", broken)
    response = client.post("/classify/", json={"text": VERMIN})
    assert response.status_code == 500
    body = response.json()
    assert set(body) == {"detail", "request_id"}
    assert response.headers["x-request-id"] == body["request_id"]
    assert route_calls == [1]
    assert body["request_id"] in caplog.text


def test_a_failure_in_a_batch_is_answered_by_the_route_as_any_failure(
    app: HarmwatchAPI,
    client: TestClient,
    route_calls: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(app.state.services.classifier, "classify_many", broken)
    response = client.post("/classify/batch", json={"items": [{"text": VERMIN}]})
    assert response.status_code == 500
    assert set(response.json()) == {"detail", "request_id"}
    assert route_calls == [1]
