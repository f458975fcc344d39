"""``language: "auto"`` through the API (classify, batch, observe), the result's
``language_detected``, and what /health says about identification (issue 15).

SQLite only: the store plays no part in identification, and observe's record
carries the result as classify makes it.
"""

from __future__ import annotations

import os
import secrets
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import api.models as wire
from api import create_app
from engine import Classifier, Settings
from tests.language_samples import SENTENCES

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


@pytest.fixture(scope="module")
def client(
    classifier: Classifier, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    directory = tmp_path_factory.mktemp("language")
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            if name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_")):
                patch.delenv(name)
        patch.delenv("DATABASE_URL", raising=False)
        app = create_app(
            Settings(_env_file=None, tracking_db_url=f"sqlite:///{directory}/t.sqlite3"),
            classifier=classifier,
        )
        with TestClient(app) as test_client:
            yield test_client


def _ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize("code", ["es", "ru", "ha"])
def test_classify_auto_uses_and_reports_the_identified_language(
    client: TestClient, code: str
) -> None:
    result = _ok(client.post("/classify/", json={"text": SENTENCES[code], "language": "auto"}))
    wire.Classification.model_validate(result)
    assert result["language"] == code
    assert result["language_detected"]["code"] == code
    assert 0.7 <= result["language_detected"]["confidence"] <= 1.0


def test_without_auto_language_detected_is_null_and_the_script_is_noted(
    client: TestClient,
) -> None:
    result = _ok(client.post("/classify/", json={"text": SENTENCES["ru"]}))
    assert result["language"] == "en" and result["language_detected"] is None
    assert "mostly in Cyrillic script" in result["decision_rationale"]
    given = _ok(client.post("/classify/", json={"text": SENTENCES["ru"], "language": "ru"}))
    assert given["language_detected"] is None
    assert given["decision_rationale"] == "NO HARM: no identity-group target found."


def test_batch_auto_identifies_each_item(client: TestClient) -> None:
    items = [{"text": SENTENCES[code], "language": "auto"} for code in ("fr", "ar", "yo")]
    items.append({"text": "Muslims are vermin.", "language": "auto"})
    items.append({"text": SENTENCES["ig"]})
    body = _ok(client.post("/classify/batch", json={"items": items}))
    wire.BatchResponse.model_validate(body)
    results = body["results"]
    assert [r["language"] for r in results] == ["fr", "ar", "yo", "en", "en"]
    assert [r["language_detected"] and r["language_detected"]["code"] for r in results] == [
        "fr",
        "ar",
        "yo",
        "und",
        None,
    ]
    assert results[3]["is_harmful"] is True
    assert results[3]["decision_rationale"].endswith(
        " Language identification found no language; fell back to en."
    )


def test_observe_auto_records_the_identified_language(client: TestClient) -> None:
    source = f"acct:{secrets.token_hex(6)}"
    body = _ok(
        client.post(
            f"/tracking/{source}/observe", json={"text": SENTENCES["es"], "language": "auto"}
        ),
        201,
    )
    assert body["classification"]["language"] == "es"
    assert body["classification"]["language_detected"]["code"] == "es"


def test_health_names_the_identification_library_and_cut_off(
    client: TestClient, classifier: Classifier
) -> None:
    health = _ok(client.get("/health"))
    assert health["language_identification"] == {
        "library": "pycld2",
        "version": "0.42",
        "min_confidence": classifier.root.language_identification.min_confidence,
    }
