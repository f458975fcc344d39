"""The API as a new user meets it (issue 15): the root, offline docs, both spellings of every
path, ``Allow`` on a 405, and every problem of a request listed at once.

Every route is taken from the running app's own OpenAPI document, so a route added
later is held to the same rules without touching this file.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api.pages import ASSETS
from api.routing import twin_path
from engine import Classifier, Settings

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

LIMIT = 40  # a small HARMWATCH_MAX_TEXT_CHARS, so over-long texts stay short here
API_KEY = "everyday-key-" + "4" * 24
PROBE_SOURCE = "everyday-nobody"
# Placeholders of the schema's path templates, filled so that no route finds anything to do.
PLACEHOLDERS = {"source_id": PROBE_SOURCE, "seq": "1"}
URL_ATTRIBUTE = re.compile(r"""(?:src|href|spec-url)=["']([^"']+)["']|url:\s*'([^']+)'""")


@pytest.fixture(scope="module", autouse=True)
def _clean_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            setting = name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
            if (setting and not name.startswith("HARMWATCH_TEST_")) or name == "DATABASE_URL":
                patch.delenv(name)
        yield


def _client(classifier: Classifier, directory: Path, **settings: Any) -> TestClient:
    app = create_app(
        Settings(
            _env_file=None,
            tracking_db_url=f"sqlite:///{directory}/everyday.sqlite3",
            max_text_chars=LIMIT,
            **settings,
        ),
        classifier=classifier,
    )
    return TestClient(app)


@pytest.fixture(scope="module")
def client(
    classifier: Classifier, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    with _client(classifier, tmp_path_factory.mktemp("everyday")) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def operations(client: TestClient) -> dict[str, set[str]]:
    """Path template -> its methods, as the published schema lists them."""
    paths = client.get("/openapi.json").json()["paths"]
    return {path: {method.upper() for method in methods} for path, methods in paths.items()}


def _concrete(template: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda match: PLACEHOLDERS[match.group(1)], template)


def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template)) + "$")


# -- the root ---------------------------------------------------------------------------------


def test_the_root_lists_where_the_documentation_is(client: TestClient) -> None:
    index = client.get("/")
    assert index.status_code == 200
    links = index.json()
    assert links["name"] == "harmwatch"
    assert {links["docs"], links["redoc"], links["openapi"], links["health"]} == {
        "/docs",
        "/redoc",
        "/openapi.json",
        "/health",
    }
    for name in ("docs", "redoc", "openapi", "health"):
        assert client.get(links[name]).status_code == 200, name
    assert index.headers["vary"] == "Accept"


def test_a_browser_at_the_root_is_sent_to_the_docs(client: TestClient) -> None:
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    page = client.get("/", headers={"Accept": accept}, follow_redirects=False)
    assert page.status_code == 307
    assert page.headers["location"] == "/docs"
    both = client.get("/", headers={"Accept": "application/json, text/html"})
    assert both.status_code == 200 and both.json()["docs"] == "/docs"


# -- offline documentation --------------------------------------------------------------------


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_doc_pages_load_only_from_the_app(client: TestClient, page: str) -> None:
    html = client.get(page)
    assert html.status_code == 200
    assert html.headers["content-type"].startswith("text/html")
    urls = [a or b for a, b in URL_ATTRIBUTE.findall(html.text)]
    assert urls, html.text
    for url in urls:
        assert url.startswith("/") and not url.startswith("//"), f"{page} loads {url}"
    assets = [url for url in urls if url.startswith(ASSETS + "/")]
    assert len(assets) >= 2  # a script, and a stylesheet or icon
    for url in assets:
        asset = client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 1000, url
        kind = asset.headers["content-type"]
        assert kind.split("/")[0] in ("text", "application", "image"), kind
    assert "openapi.json" in html.text
    assert "fonts.googleapis" not in html.text and "cdn.jsdelivr" not in html.text


def test_the_doc_pages_follow_a_proxy_prefix(classifier: Classifier, tmp_path: Path) -> None:
    """Behind a proxy serving the API under /hw (uvicorn --root-path /hw), every URL the
    pages and the root hand out carries the prefix."""
    with _client(classifier, tmp_path) as plain:
        prefixed = TestClient(plain.app, root_path="/hw")
        html = prefixed.get("/hw/docs").text
        assert f"/hw{ASSETS}/swagger-ui-bundle.js" in html
        assert "url: '/hw/openapi.json'" in html
        assert prefixed.get(f"/hw{ASSETS}/swagger-ui-bundle.js").status_code == 200
        assert prefixed.get("/hw/").json()["docs"] == "/hw/docs"


def test_docs_root_and_assets_need_no_api_key(classifier: Classifier, tmp_path: Path) -> None:
    with _client(classifier, tmp_path, api_key=API_KEY) as locked:
        for path in ("/", "/docs", "/docs/", "/redoc", f"{ASSETS}/swagger-ui.css", "/health/"):
            assert locked.get(path).status_code == 200, path
        assert locked.post("/classify", json={"text": "hello"}).status_code == 401
        headers = {"X-API-Key": API_KEY}
        assert locked.post("/classify", json={"text": "hello"}, headers=headers).status_code == 200


# -- trailing slashes -------------------------------------------------------------------------


def _call(client: TestClient, method: str, path: str) -> Any:
    # A body no route accepts (every request model forbids unknown fields): nothing is
    # classified, recorded or deleted, and both spellings must say the same about it.
    body = {"everyday_unknown_field": 1} if method in ("POST", "PUT", "PATCH", "DELETE") else None
    return client.request(method, path, json=body, follow_redirects=False)


def test_every_route_answers_both_spellings_alike(
    client: TestClient, operations: dict[str, set[str]]
) -> None:
    assert "/classify/" in operations and "/health" in operations
    for template, methods in operations.items():
        path = _concrete(template)
        twin = twin_path(path)
        assert twin is not None
        for method in sorted(methods):
            documented = _call(client, method, path)
            spelt = _call(client, method, twin)
            assert spelt.status_code not in (301, 302, 307, 308), (method, twin)
            assert spelt.status_code == documented.status_code, (method, twin, spelt.text)
            kind = documented.headers.get("content-type", "")
            if kind.startswith("application/json") and documented.status_code >= 400:
                assert spelt.json() == documented.json(), (method, twin)


def test_an_unknown_path_is_still_404_either_way(client: TestClient) -> None:
    for path in ("/nowhere", "/nowhere/", "/classify/batches", "/classify/batches/"):
        answer = client.post(path, json={"text": "hello"}, follow_redirects=False)
        assert answer.status_code == 404, path
        assert answer.json() == {"detail": "Not Found"}


# -- 405 and Allow ----------------------------------------------------------------------------


def test_a_wrong_method_names_every_allowed_one(
    client: TestClient, operations: dict[str, set[str]]
) -> None:
    """Allow lists what every route matching the path answers (``/tracking/{source_id}``
    and a fixed ``/tracking/...`` path may share a concrete path)."""
    templates = {template: _template_regex(template) for template in operations}
    for template in operations:
        path = _concrete(template)
        expected = set().union(
            *(operations[other] for other, regex in templates.items() if regex.match(path))
        )
        if "GET" in expected:  # HEAD is answered wherever GET is
            expected.add("HEAD")
        wrong = next(m for m in ("PUT", "PATCH", "DELETE", "POST", "GET") if m not in expected)
        for spelling in (path, twin_path(path)):
            assert spelling is not None
            answer = client.request(wrong, spelling)
            assert answer.status_code == 405, (wrong, spelling)
            assert set(answer.headers["allow"].split(", ")) == expected, (wrong, spelling)
            assert answer.json() == {"detail": "Method Not Allowed"}


def test_allow_on_the_pages_and_their_assets(client: TestClient) -> None:
    assert client.post("/docs").headers["allow"] == "GET, HEAD"
    assert client.delete("/").headers["allow"] == "GET, HEAD"
    answer = client.post(f"{ASSETS}/swagger-ui.css")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    "path", ["/health", "/health/", "/openapi.json", "/docs", "/", "/tracking"]
)
def test_head_is_answered_as_get_without_a_body(client: TestClient, path: str) -> None:
    """Load balancers and uptime checks probe with HEAD (RFC 9110: the GET's headers)."""
    got, head = client.get(path), client.head(path)
    assert head.status_code == got.status_code == 200
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-length"] == got.headers["content-length"]
    assert head.headers["x-request-id"]


def test_head_is_no_way_around_a_post_route(client: TestClient) -> None:
    answer = client.head("/classify/")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"


# -- every problem at once --------------------------------------------------------------------


def _problems(answer: Any) -> list[tuple[Any, ...]]:
    assert answer.status_code == 422, answer.text
    return [tuple(error["loc"][1:]) for error in answer.json()["detail"]]


def test_a_batch_lists_every_bad_item_at_once(client: TestClient) -> None:
    items: list[dict[str, Any]] = [
        {"text": "fine"},
        {"text": " "},
        {"text": "fine", "language": 5},
        {"txt": "misspelt"},
        {"text": "x" * (LIMIT + 1), "context": "y" * (LIMIT + 2)},
        {"text": 7},
        {"text": "fine", "context": "fine"},
    ]
    answer = client.post("/classify/batch", json={"items": items})
    assert _problems(answer) == [
        ("items", 1, "text"),
        ("items", 2, "language"),
        ("items", 3, "text"),
        ("items", 3, "txt"),
        ("items", 4, "text"),
        ("items", 4, "context"),
        ("items", 5, "text"),
    ]
    messages = {tuple(e["loc"][1:]): e["msg"] for e in answer.json()["detail"]}
    assert messages[("items", 4, "text")] == (
        f"text is {LIMIT + 1} characters; the limit is {LIMIT} (HARMWATCH_MAX_TEXT_CHARS)"
    )
    assert "1 to 40 characters" in messages[("items", 1, "text")]
    assert messages[("items", 3, "text")] == "items.3.text is required"


def test_a_batch_of_texts_too_long_lists_each_one(client: TestClient) -> None:
    items = [{"text": "x" * (LIMIT + 1)}, {"text": "ok"}, {"text": "x" * (LIMIT + 5)}]
    answer = client.post("/classify/batch/", json={"items": items})
    assert _problems(answer) == [("items", 0, "text"), ("items", 2, "text")]


def test_one_text_reports_its_length_beside_other_errors(client: TestClient) -> None:
    answer = client.post("/classify", json={"text": "", "language": ["en"]})
    assert sorted(_problems(answer)) == [("language",), ("text",)]


def test_validate_custom_lists_every_bad_sample_at_once(client: TestClient) -> None:
    samples = [
        {"text": "", "expected_harmful": True},
        {"text": "fine"},
        {"text": "x" * (LIMIT + 1), "expected_harmful": False},
        {"text": "fine", "expected_harmful": False, "context": "not a sample field"},
    ]
    answer = client.post("/validate/custom", json={"samples": samples})
    assert _problems(answer) == [
        ("samples", 0, "text"),
        ("samples", 1, "expected_harmful"),
        ("samples", 2, "text"),
        ("samples", 3, "context"),
    ]
