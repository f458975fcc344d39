"""`harmwatch keys generate`, signed observes, `track checkpoint` and `track verify` with keys
and checkpoints, through typer's CliRunner, on SQLite and PostgreSQL.

The attacker edits the database directly (tests/tamper_support.py); the CLI must
exit 1 naming the seq, or 2 with one `error:` line for input it cannot use
(a forged checkpoint, a bad key), never with a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from typer.testing import CliRunner, Result

from engine import Classifier, Settings
from store import Store, TrackingRules, open_store
from store.trust import Trust
from tests.cli_support import isolate_cli
from tests.tamper_support import rewrite, rows, sql
from workbench.cli import app

pytest_plugins = ["tests.store_fixtures"]

TEXTS = ["Muslims are vermin.", "Kill all Muslims.", "A lovely walk today.", "Muslims are evil."]
HMAC_SECRET = "cli-hmac-secret-" + "7" * 24


@pytest.fixture(autouse=True)
def cli_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier
) -> Iterator[None]:
    isolate_cli(monkeypatch, tmp_path)
    monkeypatch.setattr("workbench.commands.track.build_classifier", lambda _s: classifier)
    yield


def run(args: list[str], settings: Settings | None = None) -> Result:
    return CliRunner().invoke(app, args, obj=settings)


def ok(args: list[str], settings: Settings | None = None) -> Result:
    result = run(args, settings)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def fails(args: list[str], settings: Settings | None, code: int, *words: str) -> Result:
    result = run(args, settings)
    assert result.exit_code == code, (result.stdout, result.stderr)
    if code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
        assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output
    return result


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "signing.pem"
    ok(["keys", "generate", "--output", str(path)])
    return path


def signed_settings(db_url: str, key: str, **extra: Any) -> Settings:
    return Settings(_env_file=None, tracking_db_url=db_url, signing_key=key, **extra)


def observe_all(settings: Settings, source: str = "acct:1") -> None:
    for text in TEXTS:
        ok(["track", "observe", source, text, "--json"], settings)


def opened(settings: Settings) -> Store:
    return open_store(settings)


# -- keys generate ------------------------------------------------------------------------


def test_keys_generate_writes_a_private_pem_0600_and_prints_the_public_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "k.pem"
    result = ok(["keys", "generate", "--output", str(path)])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    private = serialization.load_pem_private_key(path.read_bytes(), password=None)
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    assert result.stdout == public_pem.decode()  # stdout: the public key alone
    raw = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    key_id = hashlib.sha256(raw).hexdigest()[:16]
    assert f"key_id {key_id}" in result.stderr
    assert "PRIVATE" not in result.output
    # Never overwritten by accident; --force replaces it; --json for scripts.
    fails(["keys", "generate", "--output", str(path)], None, 2, "exists", "--force")
    data = json.loads(ok(["keys", "generate", "-o", str(path), "--force", "--json"]).stdout)
    assert set(data) == {"algorithm", "key_id", "public_key", "public_key_hex", "private_key_file"}
    assert data["algorithm"] == "ed25519" and data["key_id"] != key_id
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_keys_is_listed_in_the_root_help() -> None:
    assert "Signing keys for chain records and checkpoints." in ok(["--help"]).stdout


@pytest.mark.parametrize("value", ["short-secret", "x" * 31])
def test_a_short_signing_key_is_one_line_that_does_not_echo_it(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARMWATCH_SIGNING_KEY", value)
    result = fails(["track", "list"], None, 2, "HARMWATCH_SIGNING_KEY", "at least 32 bytes")
    assert value not in result.output


def test_a_pem_key_that_is_not_ed25519_is_refused(tmp_path: Path, db_url: str) -> None:
    pem = (
        ec.generate_private_key(ec.SECP256R1())
        .private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        .decode()
    )
    result = fails(
        ["track", "observe", "acct:1", "hi"], signed_settings(db_url, pem), 2, "not Ed25519"
    )
    assert "BEGIN" not in result.output


def test_a_checkpoint_dir_without_a_key_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HARMWATCH_CHECKPOINT_DIR", str(tmp_path / "cps"))
    fails(["track", "list"], None, 2, "HARMWATCH_CHECKPOINT_DIR needs HARMWATCH_SIGNING_KEY")


# -- signed chains through the CLI ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["ed25519", "hmac"])
def test_observes_are_signed_and_a_forged_append_is_caught(
    key_file: Path, db_url: str, rules: TrackingRules, kind: str
) -> None:
    key = key_file.read_text() if kind == "ed25519" else HMAC_SECRET
    settings = signed_settings(db_url, key)
    observe_all(settings)
    shown = json.loads(ok(["track", "show", "acct:1", "--json"], settings).stdout)
    assert all(len(o["signature"]) in (64, 128) for o in shown["observations"])
    assert json.loads(ok(["track", "verify", "acct:1", "--json"], settings).stdout)["intact"]
    store = opened(settings)
    try:
        records = rows(store)
        forged = {**records[-1], "text": "forged", "key_id": None, "signature": None}
        forged["content_hash"] = hashlib.sha256(b"forged").hexdigest()
        rewrite(store, rules, [*records, forged], keep_signatures=True)
    finally:
        store.dispose()
    result = fails(["track", "verify", "acct:1", "--json"], settings, 1)
    report = json.loads(result.stdout)
    assert report["first_broken_seq"] == 5 and "seq 5 is not signed" in report["reason"]
    # Without the key, the forged append passes: say that signatures were not checked.
    unsigned = Settings(_env_file=None, tracking_db_url=db_url)
    assert "signatures were not checked" in ok(["track", "verify", "acct:1"], unsigned).stderr


def test_a_rewrite_with_the_key_is_caught_by_a_checkpoint_file(
    key_file: Path, db_url: str, rules: TrackingRules, tmp_path: Path
) -> None:
    settings = signed_settings(db_url, key_file.read_text())
    observe_all(settings)
    observe_all(settings, "acct:2")
    single = tmp_path / "one.json"
    ok(["track", "checkpoint", "acct:1", "--output", str(single)], settings)
    stdout = ok(["track", "checkpoint", "--all"], settings).stdout
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [(c["source_id"], c["seq"], c["algorithm"]) for c in lines] == [
        ("acct:1", 4, "ed25519"),
        ("acct:2", 4, "ed25519"),
    ]
    every = tmp_path / "all.jsonl"
    summary = json.loads(
        ok(["track", "checkpoint", "--all", "-o", str(every), "--json"], settings).stdout
    )
    assert summary["checkpoints"] == 2 and summary["algorithm"] == "ed25519"
    ok(["track", "verify", "acct:1", "--checkpoint", str(single)], settings)
    ok(["track", "verify", "--all", "--checkpoint", str(every)], settings)
    # The insider softens acct:1 from seq 2 on, re-signs, recomputes the profile.
    store = opened(settings)
    signer = Trust.from_settings(settings).signer
    try:
        records = rows(store)
        softened = [
            {**r, "severity": 0, "harm_mechanism": None} if r["seq"] >= 2 else r for r in records
        ]
        rewrite(store, rules, softened, signer=signer)
    finally:
        store.dispose()
    ok(["track", "verify", "acct:1"], settings)  # signatures and profile agree
    report = json.loads(
        fails(
            ["track", "verify", "acct:1", "--checkpoint", str(single), "--json"], settings, 1
        ).stdout
    )
    assert report["first_broken_seq"] == 4 and "checkpoint of seq 4" in report["reason"]
    result = fails(["track", "verify", "--all", "--checkpoint", str(every), "--json"], settings, 1)
    assert json.loads(result.stdout)["broken"] == 1
    # A whole source deleted is caught by its checkpoint.
    store = opened(settings)
    try:
        sql(store, "DELETE FROM observations WHERE source_id = 'acct:2'")
        sql(store, "DELETE FROM source_profiles WHERE source_id = 'acct:2'")
    finally:
        store.dispose()
    result = fails(["track", "verify", "--all", "--checkpoint", str(every), "--json"], settings, 1)
    gone = [r for r in json.loads(result.stdout)["results"] if r["source_id"] == "acct:2"]
    assert "not in the store" in gone[0]["reason"]


def test_a_forged_or_foreign_checkpoint_is_an_error(
    key_file: Path, db_url: str, tmp_path: Path
) -> None:
    settings = signed_settings(db_url, key_file.read_text())
    observe_all(settings)
    path = tmp_path / "cp.json"
    ok(["track", "checkpoint", "acct:1", "-o", str(path)], settings)
    checkpoint = json.loads(path.read_text())
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({**checkpoint, "seq": 3}))
    fails(
        ["track", "verify", "acct:1", "--checkpoint", str(forged)], settings, 2, "does not verify"
    )
    fails(["track", "verify", "acct:2", "--checkpoint", str(path)], settings, 2, "no checkpoint")
    other = signed_settings(db_url, HMAC_SECRET)
    fails(["track", "verify", "acct:1", "--checkpoint", str(path)], other, 2, "signed by key")
    (tmp_path / "junk.json").write_text("[1]")
    fails(
        ["track", "verify", "acct:1", "--checkpoint", str(tmp_path / "junk.json")],
        settings,
        2,
        "must be a JSON object",
    )
    unsigned = Settings(_env_file=None, tracking_db_url=db_url)
    fails(["track", "checkpoint", "acct:1"], unsigned, 2, "need a signing key")
    fails(["track", "checkpoint"], settings, 2, "exactly one of SOURCE or --all")


def test_an_export_verifies_with_the_public_key_alone(
    key_file: Path, db_url: str, tmp_path: Path
) -> None:
    settings = signed_settings(db_url, key_file.read_text())
    observe_all(settings)
    public = tmp_path / "k.pub"
    public.write_text(
        serialization.load_pem_private_key(key_file.read_bytes(), password=None)
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    chain = tmp_path / "chain.jsonl"
    checkpoint = tmp_path / "cp.json"
    ok(["track", "export", "acct:1", "-o", str(chain)], settings)
    ok(["track", "checkpoint", "acct:1", "-o", str(checkpoint)], settings)
    third_party = Settings(_env_file=None)  # no database, no signing key
    args = ["track", "verify", "--file", str(chain), "--public-key", str(public)]
    ok(args, third_party)
    ok([*args, "--checkpoint", str(checkpoint)], third_party)
    # A signature replaced: that record no longer verifies with the public key.
    lines = chain.read_text().splitlines()
    record = json.loads(lines[1])
    record["signature"] = "00" * 64
    chain.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    report = json.loads(fails([*args, "--json"], third_party, 1).stdout)
    assert report["first_broken_seq"] == 2 and "signature of seq 2" in report["reason"]
    chain.write_text("\n".join(lines[:2]) + "\n")  # cut short: only the checkpoint can tell
    ok(args, third_party)
    report = json.loads(
        fails([*args, "--checkpoint", str(checkpoint), "--json"], third_party, 1).stdout
    )
    assert "attests seq 4" in report["reason"]
    fails(
        ["track", "verify", "--file", str(chain), "--public-key", str(chain)],
        third_party,
        2,
        "no Ed25519 public key",
    )


def test_checkpoints_are_saved_every_n_and_verify_checks_the_latest(
    key_file: Path, db_url: str, rules: TrackingRules, tmp_path: Path
) -> None:
    folder = tmp_path / "cps"
    settings = signed_settings(
        db_url, key_file.read_text(), checkpoint_dir=folder, checkpoint_every=2
    )
    observe_all(settings)
    ok(["track", "observe", "acct:1", "one more", "--json"], settings)
    (source_folder,) = folder.iterdir()
    assert sorted(p.name for p in source_folder.iterdir()) == [
        "000000000002.json",
        "000000000004.json",
    ]
    ok(["track", "verify", "acct:1"], settings)
    store = opened(settings)
    signer = Trust.from_settings(settings).signer
    try:
        records = rows(store)
        rewrite(
            store,
            rules,
            [{**r, "severity": 0, "harm_mechanism": None} for r in records],
            signer=signer,
        )
    finally:
        store.dispose()
    report = json.loads(fails(["track", "verify", "acct:1", "--json"], settings, 1).stdout)
    assert report["first_broken_seq"] == 4 and "checkpoint of seq 4" in report["reason"]
    assert os.access(source_folder / "000000000004.json", os.R_OK)


def test_verify_all_reports_a_source_deleted_whole_by_its_saved_checkpoint(
    key_file: Path, db_url: str, tmp_path: Path
) -> None:
    settings = signed_settings(
        db_url, key_file.read_text(), checkpoint_dir=tmp_path / "cps", checkpoint_every=2
    )
    observe_all(settings)
    observe_all(settings, "acct:2")
    ok(["track", "verify", "--all"], settings)
    store = opened(settings)
    try:
        sql(store, "DELETE FROM observations WHERE source_id = 'acct:2'")
        sql(store, "DELETE FROM source_profiles WHERE source_id = 'acct:2'")
    finally:
        store.dispose()
    report = json.loads(fails(["track", "verify", "--all", "--json"], settings, 1).stdout)
    assert (report["sources"], report["broken"]) == (2, 1)
    (gone,) = [r for r in report["results"] if not r["intact"]]
    assert gone["source_id"] == "acct:2" and "checkpoint of seq 4" in gone["reason"]
