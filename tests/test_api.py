"""The HTTP API in-process (TestClient): every route and every error case of SPEC section 6.

Everything runs on SQLite (a file in tmp) and on PostgreSQL (a fresh schema in
a database created for the session, see tests/store_fixtures.py; skipped when
the server is unreachable, failed under CI=true). One app per backend serves
the tests that only add to the store, each under its own source ids; tests
that need an empty store or other settings get an app of their own. All apps
share conftest's compiled classifier (fixed clock).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import socket
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import create_engine, text

from api import create_app
from api import models as wire
from api.services import INLINE_MAX_CHARS
from engine import Classifier, Settings
from engine.taxonomy_models import LANGUAGES
from store import GENESIS_HASH
from store.chain import hash_fields
from tests.contract import RESULT_FIELDS

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import BACKENDS, fresh_pg_schema  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

VERMIN = "Muslims are vermin."  # animalization, 3
KILL = "Kill all Muslims."  # direct_call_to_violence, 4
EVIL = "Muslims are evil."  # demonization, 2
CALM = "I had a lovely walk along the river today."  # not harmful

API_KEY = "api-key-" + "7" * 24
SIGNING_KEY = "signing-key-" + "5" * 24


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def _clean_environment() -> Iterator[None]:
    """Settings are passed in; none may leak in from the environment of the test run."""
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            setting = name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
            if (setting and not name.startswith("HARMWATCH_TEST_")) or name == "DATABASE_URL":
                patch.delenv(name)
        yield


def _url(backend: str, request: pytest.FixtureRequest, directory: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{directory}/tracking.sqlite3"
    return fresh_pg_schema(request.getfixturevalue("pg_database"))


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def shared_url(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    return _url(backend, request, tmp_path_factory.mktemp("api"))


@pytest.fixture
def fresh_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty, never-migrated store of the current backend, for this test alone."""
    return _url(backend, request, tmp_path)


@contextmanager
def serve(classifier: Classifier, url: str, **settings: Any) -> Iterator[TestClient]:
    app = create_app(
        Settings(_env_file=None, tracking_db_url=url, **settings), classifier=classifier
    )
    with TestClient(app) as client:
        yield client


@pytest.fixture(scope="module")
def client(classifier: Classifier, shared_url: str) -> Iterator[TestClient]:
    with serve(classifier, shared_url) as test_client:
        yield test_client


@pytest.fixture
def source() -> str:
    return f"acct:{secrets.token_hex(6)}"


def conforms(model: type[BaseModel], payload: Any) -> None:
    """The payload is exactly what the published schema says (extra fields are refused)."""
    model.model_validate(payload)


def detail(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 422, response.text
    errors: list[dict[str, Any]] = response.json()["detail"]
    assert errors and all({"type", "loc", "msg"} <= set(error) for error in errors)
    assert all("input" not in error for error in errors)
    return errors


# -- POST /classify/ --------------------------------------------------------------------------


def test_classify_returns_the_engine_result_field_for_field(
    client: TestClient, classifier: Classifier
) -> None:
    response = client.post("/classify/", json={"text": VERMIN})
    assert response.status_code == 200
    body = response.json()
    assert body == classifier.classify(VERMIN).to_dict()
    assert set(body) == RESULT_FIELDS == set(wire.Classification.model_fields)
    assert body["is_harmful"] is True
    assert body["harm_mechanism"] == "animalization"
    assert body["content_hash"] == hashlib.sha256(VERMIN.encode()).hexdigest()
    assert response.headers["content-type"] == "application/json"
    conforms(wire.Classification, body)


@pytest.mark.parametrize(
    ("request_body", "harmful", "language"),
    [
        ({"text": CALM}, False, "en"),
        ({"text": "They are parasites.", "context": "Refugees arrive in town."}, True, "en"),
        ({"text": "Los inmigrantes son ratas.", "language": "es"}, True, "es"),
        ({"text": VERMIN, "language": "xx"}, True, "en"),
        ({"text": VERMIN, "language": None, "context": None}, True, "en"),
    ],
    ids=["calm", "context", "spanish", "unknown-language", "explicit-nulls"],
)
def test_classify_reads_context_and_language(
    client: TestClient, request_body: dict[str, Any], harmful: bool, language: str
) -> None:
    body = client.post("/classify/", json=request_body).json()
    assert body["is_harmful"] is harmful
    assert body["language"] == language
    if request_body.get("language") == "xx":
        assert body["decision_rationale"].endswith(
            " Language 'xx' not recognized; fell back to en."
        )
    conforms(wire.Classification, body)


def test_long_texts_classify_in_the_threadpool_the_same(
    client: TestClient, classifier: Classifier
) -> None:
    long_text = (CALM + " ") * (INLINE_MAX_CHARS // len(CALM) + 1) + VERMIN
    assert len(long_text) > INLINE_MAX_CHARS
    body = client.post("/classify/", json={"text": long_text}).json()
    assert body == classifier.classify(long_text).to_dict()


@pytest.mark.parametrize(
    "text",
    [
        "Muslims are\x00 vermin.",
        "مسلمون حشرات",
        "Müslümanlar 🐀 \u202eevil\u202c",
        "e\u0301" * 50,
        "\U0001f600" * 1000,
    ],
    ids=["nul", "arabic", "emoji-bidi", "combining", "astral"],
)
def test_any_unicode_is_classified(client: TestClient, text: str) -> None:
    response = client.post("/classify/", json={"text": text})
    assert response.status_code == 200
    assert response.json()["content_hash"] == hashlib.sha256(text.encode()).hexdigest()


ERROR_CASES: list[tuple[str, Any, tuple[Any, ...], str]] = [
    ("missing-text", {}, ("body", "text"), "text is required"),
    ("empty-text", {"text": ""}, ("body", "text"), "text must not be empty"),
    ("blank-text", {"text": " \n\t "}, ("body", "text"), "text must not be empty"),
    ("text-not-string", {"text": 5}, ("body", "text"), "text"),
    ("text-null", {"text": None}, ("body", "text"), "text"),
    ("extra-field", {"text": "x", "langauge": "en"}, ("body", "langauge"), "langauge"),
    ("language-too-long", {"text": "x", "language": "e" * 65}, ("body", "language"), "64"),
    ("context-not-string", {"text": "x", "context": []}, ("body", "context"), "context"),
    ("array-body", [{"text": "x"}], ("body",), ""),
    ("string-body", "x", ("body",), ""),
    ("huge-number", {"text": 10**400}, ("body", "text"), "text"),
]


def test_a_language_whose_pack_cannot_compile_answers_503_and_others_work(
    shared_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    """A scan Set over RE2's budget (tests/engine/pipeline/test_scan_budget.py) is met at
    the language's first text: that language answers 503 naming it, the log names the
    file, and the languages already compiled go on answering."""
    import shutil

    from engine import load_taxonomy
    from engine.text import re2x

    shutil.copytree(Path(load_taxonomy().path).parent, tmp_path / "taxonomy")
    own = Classifier(load_taxonomy(tmp_path / "taxonomy" / "taxonomy_v1.yaml"))
    own.pipeline("ha")  # compiled, but its scan Set is built at its first text
    with serve(own, shared_url) as test_client:
        assert test_client.post("/classify/", json={"text": VERMIN}).status_code == 200
        monkeypatch.setattr(re2x, "SET_MAX_MEM", 256 << 10)
        with caplog.at_level(logging.ERROR):
            for path, body in (
                ("/classify/", {"text": "Wannan rubutu ne.", "language": "ha"}),
                ("/classify/batch", {"items": [{"text": "Wannan rubutu ne.", "language": "ha"}]}),
            ):
                response = test_client.post(path, json=body)
                assert response.status_code == 503, response.text
                assert "language 'ha' cannot be classified" in response.json()["detail"]
                assert "taxonomy" not in response.headers.get("content-type", "")
        assert str(tmp_path / "taxonomy" / "lang" / "ha.yaml") in caplog.text
        assert test_client.post("/classify/", json={"text": VERMIN}).status_code == 200


@pytest.mark.parametrize(
    ("payload", "loc", "message"),
    [case[1:] for case in ERROR_CASES],
    ids=[case[0] for case in ERROR_CASES],
)
def test_classify_rejects_bad_bodies_naming_the_field(
    client: TestClient, payload: Any, loc: tuple[Any, ...], message: str
) -> None:
    errors = detail(client.post("/classify/", content=json.dumps(payload)))
    assert tuple(errors[0]["loc"]) == loc
    assert message in errors[0]["msg"]


def test_text_and_context_over_the_limit_name_field_and_limit(client: TestClient) -> None:
    errors = detail(client.post("/classify/", json={"text": "a" * 20_001, "context": "b" * 20_002}))
    assert [tuple(error["loc"]) for error in errors] == [("body", "text"), ("body", "context")]
    assert errors[0]["msg"] == (
        "text is 20001 characters; the limit is 20000 (HARMWATCH_MAX_TEXT_CHARS)"
    )
    assert "context is 20002 characters; the limit is 20000" in errors[1]["msg"]
    assert errors[0]["ctx"] == {"max_length": 20_000}
    assert client.post("/classify/", json={"text": "a" * 20_000}).status_code == 200


def test_the_text_limit_is_the_setting(classifier: Classifier, tmp_path: Path) -> None:
    with serve(classifier, f"sqlite:///{tmp_path}/t.sqlite3", max_text_chars=10) as small:
        assert small.post("/classify/", json={"text": "a" * 10}).status_code == 200
        errors = detail(small.post("/classify/", json={"text": "a" * 11}))
        assert "the limit is 10" in errors[0]["msg"]
        schema = small.get("/openapi.json").json()["components"]["schemas"]
        assert schema["ClassifyRequest"]["properties"]["text"]["maxLength"] == 10


@pytest.mark.parametrize(
    ("content", "headers"),
    [
        (b"{not json", {"content-type": "application/json"}),
        (b'{"text": "a"', {"content-type": "application/json"}),
        (b"\xff\xfe\x00garbage", {"content-type": "application/json"}),
        (b'{"text": "\\ud800"}', {"content-type": "application/json"}),
        (b'{"text": NaN}', {"content-type": "application/json"}),
        (b"[" * 100_000, {"content-type": "application/json"}),
        (b"", {"content-type": "application/json"}),
        (b'{"text": "a"}', {"content-type": "text/plain"}),
        (b"text=a", {"content-type": "application/x-www-form-urlencoded"}),
    ],
    ids=[
        "syntax",
        "truncated",
        "not-utf8",
        "lone-surrogate",
        "nan",
        "deep-nesting",
        "empty",
        "text-plain",
        "form",
    ],
)
def test_non_json_bodies_are_422(
    client: TestClient, content: bytes, headers: dict[str, str]
) -> None:
    for path in ("/classify/", "/classify/batch", "/validate/custom", "/tracking/a/observe"):
        errors = detail(client.post(path, content=content, headers=headers))
        assert errors[0]["loc"][0] == "body"


def test_json_without_content_type_is_read(client: TestClient) -> None:
    response = client.post("/classify/", content=json.dumps({"text": VERMIN}).encode())
    assert response.status_code == 200


# -- POST /classify/batch ---------------------------------------------------------------------


def test_batch_results_come_in_request_order(client: TestClient, classifier: Classifier) -> None:
    items = [
        {"text": KILL},
        {"text": CALM},
        {"text": "Los inmigrantes son ratas.", "language": "es"},
        {"text": "They are parasites.", "context": "Refugees arrive in town."},
    ]
    body = client.post("/classify/batch", json={"items": items}).json()
    assert body["count"] == 4
    assert body["results"] == [
        classifier.classify(**{k: v for k, v in item.items()}).to_dict() for item in items
    ]
    conforms(wire.BatchResponse, body)


def test_batch_of_100_is_accepted(client: TestClient) -> None:
    body = client.post("/classify/batch", json={"items": [{"text": CALM}] * 100}).json()
    assert body["count"] == 100


@pytest.mark.parametrize(
    ("payload", "loc", "message"),
    [
        ({"items": []}, ("body", "items"), "items must have at least 1 item(s), not 0"),
        ({"items": [{"text": "a"}] * 101}, ("body", "items"), "at most 100 items, not 101"),
        ({}, ("body", "items"), "items is required"),
        ({"items": {"text": "a"}}, ("body", "items"), "items"),
        ({"items": [{"text": "a"}, {"text": " "}]}, ("body", "items", 1, "text"), "empty"),
        ({"items": [{"text": "a"}, {}]}, ("body", "items", 1, "text"), "required"),
        ({"items": [{"text": "a" * 20_001}]}, ("body", "items", 0, "text"), "limit is 20000"),
    ],
    ids=["empty", "101", "missing", "not-a-list", "blank-item", "item-without-text", "long"],
)
def test_batch_errors_name_the_item_and_the_limit(
    client: TestClient, payload: Any, loc: tuple[Any, ...], message: str
) -> None:
    errors = detail(client.post("/classify/batch", json=payload))
    assert tuple(errors[0]["loc"]) == loc
    assert message in errors[0]["msg"]


# -- limits, methods, unknown routes ----------------------------------------------------------


def test_bodies_over_2_mib_are_413_before_being_read(client: TestClient) -> None:
    big = json.dumps({"text": "a" * (2 * 1024 * 1024)}).encode()
    for path in ("/classify/", "/classify/batch", "/tracking/a/observe", "/validate/custom"):
        response = client.post(path, content=big)
        assert response.status_code == 413, path
        assert "2 MiB" in response.json()["detail"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        yield b'{"text": "'
        for _ in range(300):
            yield b"a" * 8192
        yield b'"}'

    response = client.post("/classify/", content=chunks())
    assert response.status_code == 413
    assert (
        client.post("/classify/", content=b'{"text": "' + b"a" * 20_000 + b'"}').status_code == 200
    )


def test_wrong_methods_and_unknown_paths_answer_json(client: TestClient) -> None:
    response = client.get("/classify/")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}
    # DELETE /tracking/{source_id} is a route now (forget, SPEC section 6); PUT is not.
    response = client.put("/tracking/a")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


# -- tracking ---------------------------------------------------------------------------------


def test_observe_appends_to_a_hash_chain(
    client: TestClient, classifier: Classifier, source: str
) -> None:
    first = client.post(f"/tracking/{source}/observe", json={"text": VERMIN})
    assert first.status_code == 201
    body = first.json()
    assert set(body) == {"observation", "classification", "profile"}
    conforms(wire.ObserveResponse, body)
    observation = body["observation"]
    assert observation["seq"] == 1
    assert observation["prev_hash"] == GENESIS_HASH
    assert observation["text"] == VERMIN
    assert (observation["harm_mechanism"], observation["severity"]) == ("animalization", 3)
    assert body["classification"] == classifier.classify(VERMIN).to_dict()
    assert observation["record_version"] == 2
    assert observation["decision"]["harm_category"] == "dehumanization"
    assert observation["record_hash"] == hash_fields(observation)

    second = client.post(
        f"/tracking/{source}/observe", json={"text": "Kill them all.", "context": "Muslims."}
    ).json()
    assert second["observation"]["seq"] == 2
    assert second["observation"]["prev_hash"] == observation["record_hash"]
    profile = second["profile"]
    assert profile["observation_count"] == 2
    assert profile["head_hash"] == second["observation"]["record_hash"]
    assert profile["current_severity_label"] == "DIRECT_VIOLENCE_CALL (4)"
    assert profile["risk_level"] == "critical"

    shown = client.get(f"/tracking/{source}")
    assert shown.status_code == 200
    assert shown.json() == profile
    conforms(wire.SourceProfile, shown.json())


def test_observe_validates_the_text_like_classify(client: TestClient, source: str) -> None:
    errors = detail(client.post(f"/tracking/{source}/observe", json={"text": "  "}))
    assert tuple(errors[0]["loc"]) == ("body", "text")
    errors = detail(client.post(f"/tracking/{source}/observe", json={"text": "a" * 20_001}))
    assert "limit is 20000" in errors[0]["msg"]
    assert client.get(f"/tracking/{source}").status_code == 404


def test_unknown_sources_are_404_with_the_exact_detail(client: TestClient) -> None:
    for path in ("/tracking/nobody", "/tracking/nobody/verify"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json() == {"detail": "unknown source 'nobody'"}
    assert client.post("/tracking/nobody/verify").status_code == 404
    quoted = client.get("/tracking/it's")
    assert quoted.json() == {"detail": "unknown source 'it's'"}


@pytest.mark.parametrize(
    ("source_id", "rule"),
    [
        ("a%20b", "whitespace"),
        ("a%09b", "whitespace"),
        ("a%07b", "control characters"),
        ("a%E2%80%8Bb", "control characters"),
        ("a%E2%80%AEb", "control characters"),
        ("x" * 201, "1–200 characters, not 201"),
    ],
    ids=["space", "tab", "bell", "zero-width", "bidi", "too-long"],
)
def test_bad_source_ids_are_422_naming_the_rule(
    client: TestClient, source_id: str, rule: str
) -> None:
    requests = [
        ("post", f"/tracking/{source_id}/observe", {"text": VERMIN}),
        ("get", f"/tracking/{source_id}", None),
        ("get", f"/tracking/{source_id}/verify", None),
        ("post", f"/tracking/{source_id}/verify", None),
    ]
    for method, path, payload in requests:
        errors = detail(client.request(method, path, json=payload))
        assert tuple(errors[0]["loc"]) == ("path", "source_id")
        assert errors[0]["msg"].startswith("source_id must")
        assert rule in errors[0]["msg"]


def test_a_200_character_source_id_is_fine(client: TestClient) -> None:
    source_id = "s" * 199 + "é"
    assert client.post(f"/tracking/{source_id}/observe", json={"text": CALM}).status_code == 201
    assert client.get(f"/tracking/{source_id}").json()["source_id"] == source_id


def test_verify_answers_get_and_post_and_finds_tampering(
    client: TestClient, shared_url: str, source: str
) -> None:
    heads = [
        client.post(f"/tracking/{source}/observe", json={"text": text}).json()["profile"]
        for text in (VERMIN, CALM, KILL)
    ]
    for method in ("get", "post"):
        response = client.request(method, f"/tracking/{source}/verify")
        assert response.status_code == 200
        assert response.json() == {
            "source_id": source,
            "intact": True,
            "checked": 3,
            "head_hash": heads[-1]["head_hash"],
            "first_broken_seq": None,
            "reason": None,
        }
        conforms(wire.VerifyReport, response.json())
    engine = create_engine(shared_url)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE observations SET severity = 4 WHERE source_id = :s AND seq = 2"),
            {"s": source},
        )
    engine.dispose()
    report = client.get(f"/tracking/{source}/verify").json()
    assert report["intact"] is False
    assert (report["checked"], report["first_broken_seq"]) == (1, 2)
    assert report["reason"]


def test_concurrent_observes_of_one_source_form_one_chain(client: TestClient, source: str) -> None:
    def observe(index: int) -> int:
        response = client.post(f"/tracking/{source}/observe", json={"text": f"{CALM} {index}"})
        assert response.status_code == 201, response.text
        return int(response.json()["observation"]["seq"])

    with ThreadPoolExecutor(16) as pool:
        seqs = sorted(pool.map(observe, range(64)))
    assert seqs == list(range(1, 65))
    report = client.get(f"/tracking/{source}/verify").json()
    assert (report["intact"], report["checked"]) == (True, 64)


# -- GET /tracking ----------------------------------------------------------------------------


@pytest.fixture
def listed(classifier: Classifier, fresh_url: str) -> Iterator[TestClient]:
    """An empty store with five sources, one per risk level (plus a second low one)."""
    with serve(classifier, fresh_url) as test_client:
        for source_id, texts in {
            "calm": [CALM],
            "evil": [EVIL],
            "vermin": [VERMIN],
            "kill": [KILL],
            "calm-2": [CALM, CALM],
        }.items():
            for item in texts:
                test_client.post(f"/tracking/{source_id}/observe", json={"text": item})
        yield test_client


def test_listing_is_riskiest_first_with_a_total(listed: TestClient) -> None:
    response = listed.get("/tracking")
    assert response.status_code == 200
    assert response.headers["x-total-count"] == "5"
    body = response.json()
    assert [p["source_id"] for p in body][:3] == ["kill", "vermin", "evil"]
    assert [p["risk_level"] for p in body] == ["critical", "elevated", "watch", "low", "low"]
    assert {p["source_id"] for p in body[3:]} == {"calm", "calm-2"}
    for profile in body:
        conforms(wire.SourceProfile, profile)


def test_listing_filters_and_pages(listed: TestClient) -> None:
    low = listed.get("/tracking", params={"risk": "low"})
    assert low.headers["x-total-count"] == "2"
    assert {p["risk_level"] for p in low.json()} == {"low"}
    everything = [p["source_id"] for p in listed.get("/tracking").json()]
    page = listed.get("/tracking", params={"limit": 2, "offset": 1})
    assert [p["source_id"] for p in page.json()] == everything[1:3]
    assert page.headers["x-total-count"] == "5"
    beyond = listed.get("/tracking", params={"offset": 50})
    assert (beyond.json(), beyond.headers["x-total-count"]) == ([], "5")
    assert listed.get("/tracking", params={"limit": 1000}).status_code == 200


def test_an_empty_store_lists_nothing(classifier: Classifier, fresh_url: str) -> None:
    with serve(classifier, fresh_url) as empty:
        response = empty.get("/tracking")
        assert (response.json(), response.headers["x-total-count"]) == ([], "0")


@pytest.mark.parametrize(
    ("params", "name", "message"),
    [
        ({"limit": 0}, "limit", "greater than or equal to 1"),
        ({"limit": 1001}, "limit", "less than or equal to 1000"),
        ({"limit": "ten"}, "limit", "integer"),
        ({"offset": -1}, "offset", "greater than or equal to 0"),
        ({"offset": str(10**30)}, "offset", "less than or equal to"),
        ({"risk": "severe"}, "risk", "risk must be one of low, watch, elevated, critical"),
        ({"risk": ""}, "risk", "risk must be one of"),
        ({"sort": "name"}, "sort", "unknown query parameter 'sort'"),
    ],
    ids=[
        "limit-0",
        "limit-1001",
        "limit-text",
        "offset-negative",
        "offset-huge",
        "risk",
        "blank",
        "unknown",
    ],
)
def test_listing_parameters_are_validated(
    client: TestClient, params: dict[str, Any], name: str, message: str
) -> None:
    errors = detail(client.get("/tracking", params=params))
    assert tuple(errors[0]["loc"]) == ("query", name)
    assert message in errors[0]["msg"]


# -- checkpoints ------------------------------------------------------------------------------


def test_checkpoints_need_a_signing_key(client: TestClient, source: str) -> None:
    client.post(f"/tracking/{source}/observe", json={"text": VERMIN})
    response = client.get(f"/tracking/{source}/checkpoint")
    assert response.status_code == 501
    assert "HARMWATCH_SIGNING_KEY" in response.json()["detail"]


def test_checkpoint_is_signed_over_the_canonical_fields(
    classifier: Classifier, shared_url: str, source: str
) -> None:
    with serve(classifier, shared_url, signing_key=SIGNING_KEY) as signed:
        profile = signed.post(f"/tracking/{source}/observe", json={"text": KILL}).json()["profile"]
        response = signed.get(f"/tracking/{source}/checkpoint")
        assert response.status_code == 200
        checkpoint = response.json()
        conforms(wire.Checkpoint, checkpoint)
        assert checkpoint["source_id"] == source
        assert (checkpoint["seq"], checkpoint["head_hash"]) == (1, profile["head_hash"])
        key = SIGNING_KEY.encode()
        assert checkpoint["key_id"] == hashlib.sha256(key).hexdigest()[:16]
        assert checkpoint["algorithm"] == "hmac-sha256"
        fields = {k: v for k, v in checkpoint.items() if k != "signature"}
        canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        expected = hmac.new(key, canonical.encode(), hashlib.sha256).hexdigest()
        assert hmac.compare_digest(checkpoint["signature"], expected)
        verify = _documented_checkpoint_verifier()
        assert verify(checkpoint, key)
        assert not verify({**checkpoint, "seq": 2}, key)
        assert not verify(checkpoint, b"another key")
        assert signed.get("/tracking/nobody/checkpoint").json() == {
            "detail": "unknown source 'nobody'"
        }
        assert detail(signed.get("/tracking/a%20b/checkpoint"))[0]["loc"] == ["path", "source_id"]


def _documented_checkpoint_verifier() -> Any:
    """The snippet of docs/api.md, run as written."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    block = doc.split("<!-- verify-checkpoint-snippet -->", 1)[1]
    code = block.split("```python", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    return namespace["verify_checkpoint"]


def test_texts_are_not_kept_when_store_text_is_off(
    classifier: Classifier, shared_url: str, source: str
) -> None:
    with serve(classifier, shared_url, store_text=False) as hashes_only:
        body = hashes_only.post(f"/tracking/{source}/observe", json={"text": VERMIN}).json()
        assert body["observation"]["text"] is None
        assert body["observation"]["content_hash"] == hashlib.sha256(VERMIN.encode()).hexdigest()
        assert hashes_only.get(f"/tracking/{source}/verify").json()["intact"] is True


# -- an unreachable database ------------------------------------------------------------------


def test_an_unreachable_database_is_503_and_degraded_health(
    classifier: Classifier, tmp_path: Path
) -> None:
    with socket.socket() as probe:  # a port nothing listens on: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://harmwatch:hunter2@127.0.0.1:{port}/tracking"
    with serve(classifier, url) as down:
        for method, path in (
            ("post", "/tracking/a/observe"),
            ("get", "/tracking/a"),
            ("get", "/tracking"),
            ("get", "/tracking/a/verify"),
        ):
            response = down.request(method, path, json={"text": VERMIN})
            assert response.status_code == 503, path
            assert "127.0.0.1" not in response.text and "hunter2" not in response.text
            assert response.json()["detail"].startswith("the tracking database is unavailable")
        assert down.post("/classify/", json={"text": VERMIN}).status_code == 200
        health = down.get("/health").json()
        assert health["status"] == "degraded"
        assert health["database"] == {"backend": "postgresql", "status": "unreachable"}


# -- benchmark and validation -----------------------------------------------------------------


def test_benchmark_runs_the_named_capabilities(client: TestClient) -> None:
    response = client.post(
        "/benchmark/run", json={"capabilities": ["negation"], "languages": ["en"]}
    )
    assert response.status_code == 200
    report = response.json()
    conforms(wire.BenchmarkReport, report)
    assert [c["name"] for c in report["capabilities"]] == ["negation"]
    assert report["total"] == report["passed"] + report["failed"] > 0


def test_benchmark_without_a_body_runs_the_whole_suite(client: TestClient) -> None:
    report = client.post("/benchmark/run").json()
    conforms(wire.BenchmarkReport, report)
    assert report["total"] >= 100
    assert len(report["capabilities"]) > 5


@pytest.mark.parametrize(
    ("payload", "loc", "message"),
    [
        ({"capabilities": ["telepathy"]}, ("body", "capabilities"), "unknown capability"),
        ({"languages": ["tlh"]}, ("body", "languages"), "no case in language 'tlh'"),
        ({"capabilities": "negation"}, ("body", "capabilities"), "capabilities"),
        ({"suite": "x"}, ("body", "suite"), "suite is not a field"),
    ],
    ids=["capability", "language", "not-a-list", "extra"],
)
def test_benchmark_filters_are_validated(
    client: TestClient, payload: Any, loc: tuple[Any, ...], message: str
) -> None:
    errors = detail(client.post("/benchmark/run", json=payload))
    assert tuple(errors[0]["loc"]) == loc
    assert message in errors[0]["msg"]


def test_the_legacy_gate_takes_an_empty_body(client: TestClient) -> None:
    report = client.post("/validate/dehumanization").json()
    conforms(wire.GateReport, report)
    assert report["samples"] == 18 == len(report["results"])
    assert report["passed"] is (report["accuracy"] >= report["required_accuracy"])


def test_custom_validation_scores_and_breaks_down(client: TestClient) -> None:
    samples = [
        {"id": "1", "text": VERMIN, "expected_harmful": True, "group": "animals"},
        {"text": KILL, "expected_harmful": True, "expected_mechanism": "demonization"},
        {"text": CALM, "expected_harmful": False, "group": "animals", "language": "en"},
        {"text": EVIL, "expected_harmful": None},
    ]
    response = client.post("/validate/custom", json={"name": "smoke", "samples": samples})
    assert response.status_code == 200
    report = response.json()
    conforms(wire.ValidationReport, report)
    assert (report["name"], report["total"], report["not_scored"]) == ("smoke", 4, 1)
    assert report["confusion"] == {"tp": 2, "fp": 0, "tn": 1, "fn": 0}
    assert report["mechanism_accuracy"] == 0.0
    assert set(report["by_group"]) == {"animals"}
    assert report["failures"][0]["expected_mechanism"] == "demonization"


@pytest.mark.parametrize(
    ("payload", "loc", "message"),
    [
        ({"samples": []}, ("body", "samples"), "at least 1 item(s), not 0"),
        (
            {"samples": [{"text": "a", "expected_harmful": True}] * 5001},
            ("body", "samples"),
            "at most 5000 items, not 5001",
        ),
        ({"samples": [{"text": "a"}]}, ("body", "samples", 0, "expected_harmful"), "required"),
        (
            {"samples": [{"text": "a", "expected_harmful": 1}]},
            ("body", "samples", 0, "expected_harmful"),
            "valid boolean",
        ),
        (
            {"samples": [{"text": "a", "expected_harmful": True, "expected_mechanism": "x"}]},
            ("body", "samples", 0, "expected_mechanism"),
            "expected_mechanism",
        ),
        (
            {
                "samples": [
                    {"text": "ok", "expected_harmful": True},
                    {"text": "", "expected_harmful": False},
                ]
            },
            ("body", "samples", 1, "text"),
            "empty",
        ),
    ],
    ids=["none", "5001", "no-label", "int-label", "bad-mechanism", "empty-text"],
)
def test_custom_validation_is_validated(
    client: TestClient, payload: Any, loc: tuple[Any, ...], message: str
) -> None:
    errors = detail(client.post("/validate/custom", json=payload))
    assert tuple(errors[0]["loc"]) == loc
    assert message in errors[0]["msg"]


# -- health -----------------------------------------------------------------------------------


def test_health_reports_versions_and_dependencies(
    client: TestClient, classifier: Classifier, backend: str
) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    health = response.json()
    conforms(wire.Health, health)
    root = classifier.root
    assert health == {
        "status": "ok",
        "app_version": health["app_version"],
        "taxonomy_version": root.version,
        "taxonomy_digest": classifier.taxonomy.digest,
        "baseline_tag": root.baseline_tag,
        "text_analytics": {"provider": None, "status": "not_configured"},
        "database": {"backend": backend, "status": "ok"},
        "signing": None,
        "language_identification": {
            "library": "pycld2",
            "version": "0.42",
            "min_confidence": root.language_identification.min_confidence,
        },
    }
    assert health["app_version"]


class _DownProvider:
    """An amplifier whose recent calls failed (status only; never asked to amplify here)."""

    def status(self) -> str:
        return "unreachable"

    def close(self) -> None:
        return None


def test_an_unreachable_provider_degrades_health(
    client: TestClient, classifier: Classifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(classifier, "amplifier", _DownProvider())
    health = client.get("/health").json()
    assert health["status"] == "degraded"
    assert health["text_analytics"] == {"provider": "azure_language", "status": "unreachable"}


# -- API key ----------------------------------------------------------------------------------


@pytest.fixture
def locked(classifier: Classifier, shared_url: str) -> Iterator[TestClient]:
    with serve(classifier, shared_url, api_key=API_KEY) as test_client:
        yield test_client


def test_the_api_key_guards_every_route_but_health_and_docs(locked: TestClient) -> None:
    guarded = [
        ("post", "/classify/"),
        ("post", "/classify/batch"),
        ("post", "/tracking/a/observe"),
        ("get", "/tracking/a"),
        ("get", "/tracking"),
        ("get", "/tracking/a/verify"),
        ("post", "/tracking/a/verify"),
        ("get", "/tracking/a/checkpoint"),
        ("post", "/benchmark/run"),
        ("post", "/validate/dehumanization"),
        ("post", "/validate/custom"),
        ("get", "/nowhere"),
    ]
    for method, path in guarded:
        missing = locked.request(method, path, json={"text": VERMIN})
        assert missing.status_code == 401, path
        assert missing.json() == {"detail": "missing X-API-Key header"}
        wrong = locked.request(method, path, headers={"X-API-Key": API_KEY[:-1] + "8"})
        assert wrong.json() == {"detail": "invalid X-API-Key header"}
    for path in ("/health", "/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
        assert locked.get(path).status_code == 200, path
    ok = locked.post("/classify/", json={"text": VERMIN}, headers={"X-API-Key": API_KEY})
    assert ok.status_code == 200


def test_the_key_is_checked_before_size_and_validation(locked: TestClient) -> None:
    assert locked.post("/classify/", content=b"x" * (3 * 1024 * 1024)).status_code == 401
    assert locked.post("/classify/", content=b"{bad").status_code == 401


def test_the_schema_declares_the_key_only_when_one_is_set(
    locked: TestClient, client: TestClient
) -> None:
    schema = locked.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["APIKeyHeader"]["name"] == "X-API-Key"
    operation = schema["paths"]["/classify/"]["post"]
    assert operation["security"] == [{"APIKeyHeader": []}]
    assert "401" in operation["responses"]
    assert "security" not in schema["paths"]["/health"]["get"]
    assert "securitySchemes" not in client.get("/openapi.json").json()["components"]


# -- unexpected failures and secrets ----------------------------------------------------------


def test_an_unexpected_error_is_a_bare_500_with_a_logged_request_id(
    client: TestClient,
    classifier: Classifier,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("internal detail that must stay inside")

    monkeypatch.setattr(classifier, "classify", explode)
    with caplog.at_level(logging.ERROR, logger="api"):
        response = client.post("/classify/", json={"text": VERMIN})
    assert response.status_code == 500
    body = response.json()
    assert set(body) == {"detail", "request_id"}
    assert body["detail"] == "internal error"
    assert response.headers["x-request-id"] == body["request_id"]
    assert "internal detail" not in response.text
    assert body["request_id"] in caplog.text
    assert "internal detail that must stay inside" in caplog.text  # the traceback is logged


def test_no_secret_appears_in_any_response_or_log(
    classifier: Classifier, shared_url: str, caplog: pytest.LogCaptureFixture, source: str
) -> None:
    from engine.amplify.azure import AzureLanguageAmplifier
    from tests.fakes.azure_language import FakeAzureLanguage

    provider_key = "provider-key-" + secrets.token_hex(12)
    secret_values = [API_KEY, SIGNING_KEY, provider_key]
    with FakeAzureLanguage(key=provider_key) as fake:
        amplifier = AzureLanguageAmplifier(
            endpoint=fake.endpoint,
            key=provider_key,
            config=classifier.root.amplification,
            timeout_s=2.0,
        )
        with_provider = Classifier(classifier.taxonomy, amplifier=amplifier)
        settings = {
            "api_key": API_KEY,
            "signing_key": SIGNING_KEY,
            "text_analytics_endpoint": fake.endpoint,
            "text_analytics_key": provider_key,
        }
        responses = []
        with caplog.at_level(logging.DEBUG), serve(with_provider, shared_url, **settings) as app:
            headers = {"X-API-Key": API_KEY}
            calls: list[tuple[str, str, Any]] = [
                ("post", "/classify/", {"text": VERMIN}),
                ("post", "/classify/batch", {"items": [{"text": KILL}, {"text": CALM}]}),
                ("post", f"/tracking/{source}/observe", {"text": VERMIN}),
                ("get", f"/tracking/{source}", None),
                ("get", "/tracking", None),
                ("get", f"/tracking/{source}/verify", None),
                ("get", f"/tracking/{source}/checkpoint", None),
                ("post", "/validate/dehumanization", None),
                ("get", "/health", None),
                ("get", "/openapi.json", None),
                ("get", "/docs", None),
                ("post", "/classify/", {"text": ""}),
                ("get", "/tracking/nobody", None),
            ]
            for method, path, payload in calls:
                responses.append(app.request(method, path, json=payload, headers=headers))
            responses.append(app.post("/classify/", json={"text": VERMIN}))  # no key
            responses.append(app.post("/classify/", headers={"X-API-Key": provider_key}))
            health = app.get("/health").json()
        assert fake.count() > 0  # the provider was really called
    assert health["text_analytics"] == {"provider": "azure_language", "status": "connected"}
    assert responses[0].json()["amplification"]["provider"] == "azure_language"
    seen = caplog.text + "".join(r.text + str(dict(r.headers)) for r in responses)
    for value in secret_values:
        assert value not in seen
        assert value.encode().hex() not in seen


# -- the schema -------------------------------------------------------------------------------


def test_the_schema_describes_every_route_of_the_contract(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    expected = {
        # 503: the language's taxonomy pack does not compile on this server
        ("/classify/", "post"): {"200", "413", "422", "500", "503"},
        ("/classify/batch", "post"): {"200", "413", "422", "500", "503"},
        ("/tracking/{source_id}/observe", "post"): {"201", "409", "413", "422", "500", "503"},
        ("/tracking/ingest", "post"): {"200", "413", "422", "500", "503"},
        ("/tracking/{source_id}", "get"): {"200", "404", "422", "500", "503"},
        ("/tracking", "get"): {"200", "422", "500", "503"},
        ("/tracking/{source_id}/verify", "get"): {"200", "404", "409", "422", "500", "503"},
        ("/tracking/{source_id}/verify", "post"): {
            "200",
            "404",
            "409",
            "413",
            "422",
            "500",
            "501",
            "503",
        },
        ("/tracking/{source_id}/checkpoint", "get"): {"200", "404", "422", "500", "501", "503"},
        ("/tracking/{source_id}/observations", "get"): {"200", "404", "422", "500", "503"},
        ("/tracking/{source_id}/export", "get"): {"200", "404", "422", "500", "503"},
        ("/tracking/{source_id}/redact/{seq}", "post"): {
            "200",
            "404",
            "409",
            "413",
            "422",
            "500",
            "503",
        },
        ("/tracking/{source_id}", "delete"): {"200", "404", "422", "500", "503"},
        ("/benchmark/run", "post"): {"200", "413", "422", "500"},
        ("/validate/dehumanization", "post"): {"200", "413", "500"},
        ("/validate/custom", "post"): {"200", "413", "422", "500"},
        ("/health", "get"): {"200", "500"},
    }
    expected[("/metrics", "get")] = {"200", "500"}
    for codes in expected.values():
        if "413" in codes:  # a route that reads a body: also 408 when it is too slow
            codes.add("408")
    operations = {
        (path, method): set(operation["responses"])
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }
    assert operations == expected
    components = schema["components"]["schemas"]
    for path, method in expected:
        operation = schema["paths"][path][method]
        assert operation["summary"] and operation.get("description"), (path, method)
    for name in ("ClassifyRequest", "BatchRequest", "CustomValidationRequest", "BenchmarkRequest"):
        for field in components[name]["properties"].values():
            assert field.get("description"), name
    text_field = components["ClassifyRequest"]["properties"]["text"]
    assert (text_field["minLength"], text_field["maxLength"]) == (1, 20_000)
    assert components["ClassifyRequest"]["examples"]
    assert components["ClassifyRequest"]["additionalProperties"] is False
    risk = next(p for p in schema["paths"]["/tracking"]["get"]["parameters"] if p["name"] == "risk")
    assert risk["schema"]["anyOf"][0]["enum"] == ["low", "watch", "elevated", "critical"]
    assert "X-Total-Count" in schema["paths"]["/tracking"]["get"]["responses"]["200"]["headers"]
    assert client.get("/docs").status_code == 200


def test_languages_list_in_the_schema_matches_the_engine(client: TestClient) -> None:
    described = client.get("/openapi.json").json()["components"]["schemas"]["ClassifyRequest"]
    assert all(code in described["properties"]["language"]["description"] for code in LANGUAGES)


# -- the app factory --------------------------------------------------------------------------


def test_importing_and_creating_the_app_opens_nothing(tmp_path: Path) -> None:
    """No settings are read at import, and no database is touched before start-up."""
    import subprocess
    import sys

    code = (
        "import os, api, api.app, api.routers\n"  # a bad setting in the env: not read here
        "from engine import Settings\n"
        "del os.environ['HARMWATCH_MAX_TEXT_CHARS']\n"
        f"settings = Settings(_env_file=None, tracking_db_url='sqlite:///{tmp_path}/x.db')\n"
        "app = api.create_app(settings)\n"
        "print('ok')\n"
    )
    env = {**os.environ, "HARMWATCH_MAX_TEXT_CHARS": "not a number"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert not (tmp_path / "x.db").exists()


# -- the group commit -------------------------------------------------------------------------


def test_one_failing_append_fails_only_its_own_request(
    classifier: Classifier, fresh_url: str
) -> None:
    from api.writer import GroupCommit, PendingAppend
    from store import TrackingRules, open_store

    store = open_store(Settings(_env_file=None, tracking_db_url=fresh_url))
    try:
        writer = GroupCommit(
            lambda: store,
            TrackingRules.from_taxonomy(classifier.root),
            store_text=True,
            on_loop=True,
        )
        result = classifier.classify(VERMIN)
        batch = [
            PendingAppend("b", result, VERMIN),
            PendingAppend("a", result, "not the text that was classified"),
            PendingAppend("b", result, VERMIN),
        ]
        outcomes = writer.write(batch)
        assert isinstance(outcomes[1], ValueError)
        seqs = [outcome[0].seq for outcome in (outcomes[0], outcomes[2])]  # type: ignore[index]
        assert seqs == [1, 2]
        with store.transaction() as session:
            from store import get_profile, verify_source

            assert get_profile("b", session=session).observation_count == 2
            assert verify_source("b", session=session).intact
            with pytest.raises(LookupError):
                get_profile("a", session=session)
    finally:
        store.dispose()


@pytest.mark.parametrize(
    "text",
    ["Muslims are\x00 vermin.", "\x00", "مسلمون حشرات", "\U0001f600 Muslims are vermin"],
    ids=["nul", "only-nul", "arabic", "astral"],
)
def test_any_unicode_is_observed(client: TestClient, backend: str, source: str, text: str) -> None:
    response = client.post(f"/tracking/{source}/observe", json={"text": text})
    if backend == "postgresql" and "\x00" in text:  # PostgreSQL text holds no NUL: refused
        assert "NUL" in detail(response)[0]["msg"]
        assert client.get(f"/tracking/{source}").status_code == 404
        return
    assert response.status_code == 201, response.text
    assert response.json()["observation"]["text"] == text
    assert client.get(f"/tracking/{source}/verify").json()["intact"] is True


def test_lone_surrogates_are_refused_by_every_parser(client: TestClient) -> None:
    """json.loads (FastAPI's parser) lets "\\ud800" through, pydantic then refuses it."""
    body = b'{"name": "\\ud800", "samples": [{"text": "a", "expected_harmful": false}]}'
    errors = detail(client.post("/validate/custom", content=body))
    assert errors[0]["loc"] == ["body", "name"]
    errors = detail(client.post("/benchmark/run", content=b'{"languages": ["\\udfff"]}'))
    assert errors[0]["loc"][:2] == ["body", "languages"]
