"""Signed records and checkpoints through the HTTP API (issue 13), on SQLite and PostgreSQL.

Observe signs each record with HARMWATCH_SIGNING_KEY and saves a checkpoint every
HARMWATCH_CHECKPOINT_EVERY observations into HARMWATCH_CHECKPOINT_DIR; verify checks
signatures, every profile field, and the latest saved checkpoint or the one POSTed;
/health names the key (never the key itself). The attacker edits the database
directly (tests/tamper_support.py).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from api import create_app
from api import models as wire
from engine import Classifier, Settings
from store import TrackingRules, open_store
from store.signing import generate_ed25519
from store.trust import Trust
from tests.tamper_support import rewrite, rows, sql

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest_plugins = ["tests.store_fixtures"]

SOURCE = "acct:1"
TEXTS = ["Muslims are vermin.", "Kill all Muslims.", "A lovely walk today.", "Muslims are evil."]
HMAC_SECRET = "api-hmac-secret-" + "4" * 24


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_")) and not name.startswith(
            "HARMWATCH_TEST_"
        ):
            monkeypatch.delenv(name)


@pytest.fixture(params=["ed25519", "hmac-sha256"])
def signing_key(request: pytest.FixtureRequest) -> str:
    if request.param == "ed25519":
        return generate_ed25519()[0].decode()
    return HMAC_SECRET


@contextmanager
def serve(classifier: Classifier, url: str, **settings: Any) -> Iterator[TestClient]:
    app = create_app(
        Settings(_env_file=None, tracking_db_url=url, **settings), classifier=classifier
    )
    with TestClient(app) as client:
        yield client


def observe_all(client: TestClient, source: str = SOURCE) -> list[dict[str, Any]]:
    out = []
    for text in TEXTS:
        response = client.post(f"/tracking/{source}/observe", json={"text": text})
        assert response.status_code == 201, response.text
        out.append(response.json())
    return out


def verify(client: TestClient, body: Any = None, source: str = SOURCE) -> dict[str, Any]:
    if body is None:
        response = client.get(f"/tracking/{source}/verify")
    else:
        response = client.post(f"/tracking/{source}/verify", json=body)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    wire.VerifyReport.model_validate(data)
    return data


def insider_rewrite(url: str, key: str, rules: TrackingRules) -> None:
    settings = Settings(_env_file=None, tracking_db_url=url, signing_key=key)
    store = open_store(settings)
    try:
        softened = [{**r, "severity": 0, "harm_mechanism": None} for r in rows(store)]
        rewrite(store, rules, softened, signer=Trust.from_settings(settings).signer)
    finally:
        store.dispose()


def test_observe_signs_and_health_names_the_key(
    classifier: Classifier, db_url: str, signing_key: str
) -> None:
    with serve(classifier, db_url, signing_key=signing_key) as client:
        responses = observe_all(client)
        signer = Trust.from_settings(Settings(_env_file=None, signing_key=signing_key)).signer
        assert signer is not None
        for response in responses:
            observation = response["observation"]
            wire.Observation.model_validate(observation)
            assert observation["key_id"] == signer.key_id
            assert signer.verifier().verify(
                observation["record_hash"].encode(), observation["signature"]
            )
        health = client.get("/health").json()
        wire.Health.model_validate(health)
        assert health["signing"] == {"algorithm": signer.algorithm, "key_id": signer.key_id}
        assert signing_key not in json.dumps(health)
        assert verify(client)["intact"]
    with serve(classifier, db_url) as unsigned:
        assert unsigned.get("/health").json()["signing"] is None


def test_a_forged_append_and_an_edited_profile_are_broken(
    classifier: Classifier, db_url: str, rules: TrackingRules
) -> None:
    with serve(classifier, db_url, signing_key=HMAC_SECRET) as client:
        observe_all(client)
        store = open_store(Settings(_env_file=None, tracking_db_url=db_url))
        try:
            sql(
                store,
                "UPDATE source_profiles SET risk_level = 'low' WHERE source_id = :s",
                s=SOURCE,
            )
            report = verify(client)
            assert report["first_broken_seq"] == 4
            assert "profile field risk_level" in report["reason"]
            records = rows(store)
            forged = {**records[-1], "text": "forged", "key_id": None, "signature": None}
            forged["content_hash"] = hashlib.sha256(b"forged").hexdigest()
            rewrite(store, rules, [*records, forged], keep_signatures=True)
        finally:
            store.dispose()
        report = verify(client)
        assert (report["intact"], report["first_broken_seq"]) == (False, 5)
        assert "seq 5 is not signed" in report["reason"]


def test_a_posted_checkpoint_catches_a_rewrite_with_the_key(
    classifier: Classifier, db_url: str, signing_key: str, rules: TrackingRules
) -> None:
    with serve(classifier, db_url, signing_key=signing_key) as client:
        observe_all(client)
        checkpoint = client.get(f"/tracking/{SOURCE}/checkpoint").json()
        wire.Checkpoint.model_validate(checkpoint)
        assert verify(client, {"checkpoint": checkpoint})["intact"]
        assert verify(client, {})["intact"]  # POST without a checkpoint, as GET
        response = client.post(f"/tracking/{SOURCE}/verify")  # POST with no body at all
        assert response.status_code == 200 and response.json()["intact"]
        insider_rewrite(db_url, signing_key, rules)
        assert verify(client)["intact"]  # nothing else can tell
        report = verify(client, {"checkpoint": checkpoint})
        assert (report["intact"], report["first_broken_seq"], report["checked"]) == (False, 4, 3)
        assert "checkpoint of seq 4" in report["reason"]


def _detail(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 422, response.text
    errors: list[dict[str, Any]] = response.json()["detail"]
    assert all("input" not in error for error in errors)
    return errors


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"seq": 3}, "signature", "does not verify"),
        ({"source_id": "acct:2"}, "source_id", "no checkpoint of source"),
        ({"key_id": "0" * 16}, "key_id", "signed by key"),
        ({"head_hash": "nothex"}, "head_hash", "should match pattern"),
        ({"extra": 1}, "extra", "is not a field"),
        ({"algorithm": "rsa"}, "algorithm", "ed25519"),
        ({"issued_at": "\ud800"}, "issued_at", "valid string"),
    ],
)
def test_a_bad_checkpoint_is_a_422_naming_the_field(
    classifier: Classifier, db_url: str, change: dict[str, Any], field: str, words: str
) -> None:
    with serve(classifier, db_url, signing_key=HMAC_SECRET) as client:
        observe_all(client)
        checkpoint = client.get(f"/tracking/{SOURCE}/checkpoint").json()
        # Sent as ASCII JSON, so a lone surrogate travels as its \\u escape.
        response = client.post(
            f"/tracking/{SOURCE}/verify",
            content=json.dumps({"checkpoint": {**checkpoint, **change}}),
            headers={"Content-Type": "application/json"},
        )
        (error,) = _detail(response)
        assert error["loc"] == ["body", "checkpoint", field]
        assert words in error["msg"]
        assert _detail(client.post(f"/tracking/{SOURCE}/verify", json={"checkpoint": [1]}))
        assert _detail(client.post(f"/tracking/{SOURCE}/verify", json={"other": 1}))


def test_a_checkpoint_from_before_the_algorithm_field_is_accepted(
    classifier: Classifier, db_url: str
) -> None:
    with serve(classifier, db_url, signing_key=HMAC_SECRET) as client:
        observe_all(client)
        head = client.get(f"/tracking/{SOURCE}").json()["head_hash"]
        key = HMAC_SECRET.encode()
        fields = {
            "source_id": SOURCE,
            "seq": 4,
            "head_hash": head,
            "issued_at": "2026-01-02T03:04:05.678901Z",
            "key_id": hashlib.sha256(key).hexdigest()[:16],
        }
        canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        old = {**fields, "signature": hmac.new(key, canonical.encode(), "sha256").hexdigest()}
        assert verify(client, {"checkpoint": old})["intact"]
        stale = {**old, "head_hash": "e" * 64}
        stale["signature"] = hmac.new(
            key,
            json.dumps(
                {k: v for k, v in stale.items() if k != "signature"},
                sort_keys=True,
                separators=(",", ":"),
            ).encode(),
            "sha256",
        ).hexdigest()
        report = verify(client, {"checkpoint": stale})
        assert (report["intact"], report["first_broken_seq"]) == (False, 4)


def test_a_checkpoint_without_a_key_on_the_server_is_501(
    classifier: Classifier, db_url: str
) -> None:
    with serve(classifier, db_url, signing_key=HMAC_SECRET) as client:
        observe_all(client)
        checkpoint = client.get(f"/tracking/{SOURCE}/checkpoint").json()
    with serve(classifier, db_url) as unsigned:
        response = unsigned.post(f"/tracking/{SOURCE}/verify", json={"checkpoint": checkpoint})
        assert response.status_code == 501
        assert "HARMWATCH_SIGNING_KEY" in response.json()["detail"]
        assert (
            unsigned.post("/tracking/nobody/verify", json={"checkpoint": checkpoint}).status_code
            == 404
        )


def test_checkpoints_are_saved_every_n_and_verify_checks_the_latest(
    classifier: Classifier, db_url: str, signing_key: str, rules: TrackingRules, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoints"
    settings = {"signing_key": signing_key, "checkpoint_dir": folder, "checkpoint_every": 2}
    with serve(classifier, db_url, **settings) as client:
        observe_all(client)
        client.post(f"/tracking/{SOURCE}/observe", json={"text": "one more"})
        (source_folder,) = folder.iterdir()
        files = sorted(p.name for p in source_folder.iterdir())
        assert files == ["000000000002.json", "000000000004.json"]
        saved = json.loads((source_folder / files[-1]).read_text())
        wire.Checkpoint.model_validate(saved)
        assert verify(client)["intact"]
        insider_rewrite(db_url, signing_key, rules)
        report = verify(client)
        assert (report["intact"], report["first_broken_seq"]) == (False, 4)
        assert "checkpoint of seq 4" in report["reason"]
        # The archive itself altered by someone without the key: a 409, not a verdict.
        (source_folder / files[-1]).write_text(json.dumps({**saved, "seq": 3}))
        response = client.get(f"/tracking/{SOURCE}/verify")
        assert response.status_code == 409
        assert "does not verify" in response.json()["detail"]
