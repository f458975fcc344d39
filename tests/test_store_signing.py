"""Every tamper caught (issue 13): signed records, checkpoints and profile recomputation.

On SQLite and PostgreSQL, an attacker edits the database directly, as anyone
with write access could: each kind of tampering must be caught at the right
seq with a reason naming it. An attacker without the key cannot append or
rewrite unnoticed (signatures); an insider with the key who rewrites the
whole chain is caught by a checkpoint issued earlier; an edited profile is
caught by recomputing it from the chain.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from store import Store, TrackingRules, append, export_chain, get_profile
from store.chain import VerifyResult, hash_fields, verify_jsonl
from store.checkpoints import (
    Checkpoint,
    CheckpointArchive,
    CheckpointError,
    authenticate,
    issue,
    parse,
    read_file,
    write_file,
)
from store.signing import (
    KeyRing,
    SigningKey,
    SigningKeyError,
    generate_ed25519,
    parse_public_key,
    parse_signing_key,
)
from store.tracking import Observation, verify_source
from store.trust import Trust

pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import at, classified  # noqa: E402
from tests.tamper_support import rewrite, rows, sql  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

SOURCE = "acct:1"
SEVERITIES = [1, 2, 3, 4, 2, 3, 0, 4]
HMAC_SECRET = "an-hmac-secret-of-at-least-32-bytes!"


@pytest.fixture(params=["ed25519", "hmac-sha256"])
def signer(request: pytest.FixtureRequest) -> SigningKey:
    if request.param == "ed25519":
        return generate_ed25519()[1]
    return parse_signing_key(HMAC_SECRET)


@pytest.fixture
def ed25519() -> tuple[bytes, SigningKey]:
    return generate_ed25519()


def observe(
    store: Store,
    rules: TrackingRules,
    severities: Sequence[int],
    *,
    signer: SigningKey | None,
    start: int = 0,
    trust: Trust | None = None,
) -> list[Observation]:
    out = []
    for step, severity in enumerate(severities, start=start):
        content = f"{SOURCE} says thing {step}"
        with store.transaction(write=True) as session:
            observation, _ = append(
                SOURCE,
                classified(severity, content),
                text=content,
                store_text=True,
                rules=rules,
                session=session,
                observed_at=at(step),
                signer=signer,
            )
        if trust is not None:
            trust.after_commit([observation])
        out.append(observation)
    return out


def verify(
    store: Store,
    rules: TrackingRules,
    keys: KeyRing | None,
    checkpoints: Sequence[Checkpoint] = (),
) -> VerifyResult:
    with store.transaction() as session:
        return verify_source(
            SOURCE, session=session, rules=rules, keys=keys, checkpoints=checkpoints
        )


def broken_at(result: VerifyResult, seq: int, *words: str) -> None:
    assert not result.intact, result
    assert result.first_broken_seq == seq, result
    assert result.checked == seq - 1
    for word in words:
        assert word in (result.reason or ""), result.reason


# -- keys ---------------------------------------------------------------------------------


def test_key_ids_follow_the_spec(ed25519: tuple[bytes, SigningKey]) -> None:
    pem, key = ed25519
    assert key.algorithm == "ed25519"
    raw = bytes.fromhex(key.public_hex() or "")
    assert len(raw) == 32
    assert key.key_id == hashlib.sha256(raw).hexdigest()[:16]
    assert parse_signing_key(pem.decode()).key_id == key.key_id
    # A .env line may write the PEM's newlines as \n.
    assert parse_signing_key(pem.decode().replace("\n", "\\n")).key_id == key.key_id
    secret = parse_signing_key(HMAC_SECRET)
    assert secret.algorithm == "hmac-sha256"
    assert secret.key_id == hashlib.sha256(HMAC_SECRET.encode()).hexdigest()[:16]
    message = b"abc"
    assert secret.sign(message) == hmac.new(HMAC_SECRET.encode(), message, "sha256").hexdigest()
    assert len(key.sign(message)) == 128
    assert repr(secret).count(HMAC_SECRET) == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("short", "at least 32 bytes (it has 5)"),
        ("-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----", "PEM"),
        ("-----BEGIN PRIVATE KEY-----", "malformed PEM"),
    ],
)
def test_a_bad_signing_key_names_the_setting_not_the_value(value: str, message: str) -> None:
    with pytest.raises(SigningKeyError) as caught:
        parse_signing_key(value)
    assert "HARMWATCH_SIGNING_KEY" in str(caught.value)
    assert message in str(caught.value)
    assert "not base64" not in str(caught.value)


def test_public_keys_are_read_from_pem_hex_or_the_private_key(
    tmp_path: Path, ed25519: tuple[bytes, SigningKey]
) -> None:
    pem, key = ed25519
    for data in (key.public_pem().encode(), (key.public_hex() or "").encode(), pem):  # type: ignore[union-attr]
        public = parse_public_key(data, source="k")
        assert public.key_id == key.key_id
        assert public.verify(b"m", key.sign(b"m"))
        assert not public.verify(b"n", key.sign(b"m"))
        assert not public.verify(b"m", "zz")
    with pytest.raises(SigningKeyError, match="no Ed25519 public key"):
        parse_public_key(b"hello", source="k.pub")


# -- signed records -----------------------------------------------------------------------


def test_signed_records_carry_key_id_and_signature_outside_the_hash(
    store: Store, rules: TrackingRules, signer: SigningKey
) -> None:
    chain = observe(store, rules, SEVERITIES, signer=signer)
    for observation in chain:
        assert observation.key_id == signer.key_id
        assert signer.verifier().verify(
            observation.record_hash.encode(), observation.signature or ""
        )
        assert observation.to_dict()["signature"] == observation.signature
    assert rows(store)[0]["signature"] == chain[0].signature
    result = verify(store, rules, KeyRing.of(signer))
    assert result.intact and result.checked == len(SEVERITIES)
    # Without a key the hashes alone are checked: still intact.
    assert verify(store, rules, None).intact


def test_unsigned_records_have_no_signature_fields(store: Store, rules: TrackingRules) -> None:
    (observation,) = observe(store, rules, [3], signer=None)
    assert "signature" not in observation.to_dict()
    assert "key_id" not in observation.to_dict()


TAMPERS = [
    # (name, seq caught, words in the reason)
    ("edit", 3, "record_hash of seq 3"),
    ("delete", 3, "seq 3 is missing"),
    ("insert", 3, "signature of seq 3 does not verify"),
    ("swap", 3, "prev_hash of seq 3"),
    ("text", 3, "text of seq 3"),
    ("forged append", 9, "seq 9 is not signed"),
    ("forged append with a key of its own", 9, "seq 9 is signed by key"),
    ("forged append with a copied signature", 9, "signature of seq 9 does not verify"),
    ("rewrite from seq 3 without the key", 3, "signature of seq 3 does not verify"),
    ("full rewrite without the key", 1, "seq 1 is not signed"),
    ("cut the tail and the profile", 7, "chain ends at seq 6 but the profile records 8"),
]


def tamper(store: Store, rules: TrackingRules, name: str, chain: list[Observation]) -> None:
    records = rows(store)
    if name == "edit":
        sql(
            store, "UPDATE observations SET severity = 0 WHERE source_id = :s AND seq = 3", s=SOURCE
        )
    elif name == "delete":
        sql(store, "DELETE FROM observations WHERE source_id = :s AND seq = 3", s=SOURCE)
    elif name == "insert":
        # A well-formed record inserted as seq 3 (everything after renumbered and re-linked),
        # profile recomputed: only the signature can tell.
        forged = {**records[2], "text": "never said", "content_hash": _sha("never said")}
        rewrite(store, rules, [*records[:2], forged, *records[2:]], keep_signatures=True)
    elif name == "swap":
        third, fourth = records[2], records[3]
        for seq, record in ((3, fourth), (4, third)):
            fields = {k: v for k, v in record.items() if k not in ("source_id", "seq")}
            assignments = ", ".join(f"{k} = :{k}" for k in fields)
            sql(
                store,
                f"UPDATE observations SET {assignments} WHERE source_id = :s AND seq = :q",
                **fields,
                s=SOURCE,
                q=seq,
            )
    elif name == "text":
        sql(
            store,
            "UPDATE observations SET text = 'edited' WHERE source_id = :s AND seq = 3",
            s=SOURCE,
        )
    elif name.startswith("forged append"):
        extra = {**records[-1], "text": "forged", "content_hash": _sha("forged"), "severity": 0}
        extra["harm_mechanism"] = None
        if name.endswith("of its own"):
            rewrite(store, rules, [*records, extra], keep_signatures=True)
            _resign_last(store, generate_ed25519()[1])
        elif name.endswith("copied signature"):
            rewrite(store, rules, [*records, extra], keep_signatures=True)
        else:
            rewrite(
                store,
                rules,
                [*records, {**extra, "key_id": None, "signature": None}],
                keep_signatures=True,
            )
    elif name == "rewrite from seq 3 without the key":
        softened = [
            {**r, "severity": 0, "harm_mechanism": None} if r["seq"] >= 3 else r for r in records
        ]
        rewrite(store, rules, softened, keep_signatures=True)
    elif name == "full rewrite without the key":
        rewrite(store, rules, [{**r, "severity": 0, "harm_mechanism": None} for r in records])
    elif name == "cut the tail and the profile":
        sql(store, "DELETE FROM observations WHERE source_id = :s AND seq > 6", s=SOURCE)
    else:  # pragma: no cover
        raise AssertionError(name)


def _sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _resign_last(store: Store, key: SigningKey) -> None:
    last = rows(store)[-1]
    sql(
        store,
        "UPDATE observations SET key_id = :k, signature = :sig WHERE source_id = :s AND seq = :q",
        k=key.key_id,
        sig=key.sign(last["record_hash"].encode()),
        s=SOURCE,
        q=last["seq"],
    )


@pytest.mark.parametrize(("name", "seq", "reason"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_every_tamper_without_the_key_is_caught_at_its_seq(
    store: Store, rules: TrackingRules, signer: SigningKey, name: str, seq: int, reason: str
) -> None:
    chain = observe(store, rules, SEVERITIES, signer=signer)
    assert verify(store, rules, KeyRing.of(signer)).intact
    tamper(store, rules, name, chain)
    broken_at(verify(store, rules, KeyRing.of(signer)), seq, reason)


def test_an_unsigned_chain_is_reported_once_a_key_is_configured(
    store: Store, rules: TrackingRules, signer: SigningKey
) -> None:
    observe(store, rules, [1, 2], signer=None)
    observe(store, rules, [3], signer=signer, start=2)
    assert verify(store, rules, None).intact
    broken_at(verify(store, rules, KeyRing.of(signer)), 1, "seq 1 is not signed")


def test_a_record_signed_by_a_retired_key_verifies_when_that_key_is_given(
    store: Store, rules: TrackingRules, ed25519: tuple[bytes, SigningKey]
) -> None:
    old = ed25519[1]
    new = generate_ed25519()[1]
    observe(store, rules, [1, 2], signer=old)
    observe(store, rules, [3], signer=new, start=2)
    broken_at(verify(store, rules, KeyRing.of(new)), 1, f"signed by key {old.key_id}")
    public = old.public_key()
    assert public is not None
    assert verify(store, rules, KeyRing.of(new, [public])).intact


# -- profile recomputation ----------------------------------------------------------------

PROFILE_EDITS = [
    ("current_severity", "current_severity = 1"),
    ("current_severity_label", "current_severity_label = 'NONE (0)'"),
    ("rolling_average_severity", "rolling_average_severity = 0.5"),
    ("window", "window_size = 3"),
    ("trend", "trend = 'de-escalating'"),
    ("risk_level", "risk_level = 'low'"),
    ("risk_rank", "risk_rank = 0"),
    ("first_observed_at", "first_observed_at = '2020-01-01T00:00:00.000000Z'"),
    ("last_observed_at", "last_observed_at = '2020-01-01T00:00:00.000000Z'"),
    ("recent_severities", "recent_severities = '0,0,0'"),
    ("head_hash", "head_hash = '" + "a" * 64 + "'"),
    ("observation_count", "observation_count = 7"),
]


@pytest.mark.parametrize(("field", "assignment"), PROFILE_EDITS, ids=[p[0] for p in PROFILE_EDITS])
def test_each_profile_field_edited_is_caught_naming_the_field(
    store: Store, rules: TrackingRules, field: str, assignment: str
) -> None:
    # Unsigned on purpose: the profile is checked against the chain with or without a key.
    observe(store, rules, SEVERITIES, signer=None)
    assert verify(store, rules, None).intact
    sql(store, f"UPDATE source_profiles SET {assignment} WHERE source_id = :s", s=SOURCE)
    result = verify(store, rules, None)
    assert not result.intact
    if field == "observation_count":
        broken_at(result, 8, "lies beyond the profile's head")
    elif field == "head_hash":
        broken_at(result, 8, "head_hash")
    else:
        broken_at(result, 8, f"profile field {field} is")


def test_a_lowered_risk_is_caught_even_with_every_derived_field_consistent(
    store: Store, rules: TrackingRules
) -> None:
    """The issue's case: risk, severity and average lowered together (the source would
    vanish from `track list --risk elevated`)."""
    observe(store, rules, SEVERITIES, signer=None)
    sql(
        store,
        "UPDATE source_profiles SET current_severity = 0, current_severity_label = 'NONE (0)', "
        "rolling_average_severity = 0.0, risk_level = 'low', risk_rank = 0, trend = 'stable' "
        "WHERE source_id = :s",
        s=SOURCE,
    )
    broken_at(verify(store, rules, None), 8, "profile field current_severity is 0")


# -- checkpoints --------------------------------------------------------------------------


def test_a_full_rewrite_with_the_key_is_caught_by_an_earlier_checkpoint(
    store: Store, rules: TrackingRules, signer: SigningKey
) -> None:
    observe(store, rules, SEVERITIES[:5], signer=signer)
    with store.transaction() as session:
        checkpoint = Trust(signer).issue(get_profile(SOURCE, session=session))
    assert checkpoint.seq == 5
    observe(store, rules, SEVERITIES[5:], signer=signer, start=5)
    keys = KeyRing.of(signer)
    assert verify(store, rules, keys, [checkpoint]).intact
    # The insider softens seq 2 onwards, re-signs every record, recomputes the profile.
    records = rows(store)
    softened = [
        {**r, "severity": 0, "harm_mechanism": None} if r["seq"] >= 2 else r for r in records
    ]
    rewrite(store, rules, softened, signer=signer)
    assert verify(store, rules, keys).intact  # nothing else can tell
    broken_at(
        verify(store, rules, keys, [checkpoint]), 5, "seq 5 is not the one", "checkpoint of seq 5"
    )


def test_records_cut_after_a_checkpoint_are_caught(
    store: Store, rules: TrackingRules, signer: SigningKey
) -> None:
    observe(store, rules, SEVERITIES, signer=signer)
    with store.transaction() as session:
        checkpoint = Trust(signer).issue(get_profile(SOURCE, session=session))
    rewrite(store, rules, rows(store)[:5], signer=signer)
    keys = KeyRing.of(signer)
    assert verify(store, rules, keys).intact
    broken_at(verify(store, rules, keys, [checkpoint]), 6, "ends at seq 5", "attests seq 8")


def test_checkpoints_are_signed_over_every_other_field(signer: SigningKey) -> None:
    checkpoint = issue(signer, source_id=SOURCE, seq=3, head_hash="b" * 64)
    data = checkpoint.to_dict()
    assert list(data) == [
        "source_id",
        "seq",
        "head_hash",
        "issued_at",
        "key_id",
        "algorithm",
        "signature",
    ]
    assert data["algorithm"] == signer.algorithm
    fields = {k: v for k, v in data.items() if k != "signature"}
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert signer.verifier().verify(canonical.encode(), data["signature"])
    keys = KeyRing.of(signer)
    authenticate(parse(data), keys)
    for change in (
        {"seq": 4},
        {"head_hash": "c" * 64},
        {"source_id": "other"},
        {"issued_at": "2020-01-01T00:00:00.000000Z"},
    ):
        with pytest.raises(CheckpointError, match="does not verify") as caught:
            authenticate(parse({**data, **change}), keys)
        assert caught.value.field == "signature"


def test_a_checkpoint_issued_before_the_algorithm_field_is_read_as_hmac() -> None:
    """What GET /tracking/{id}/checkpoint returned before issue 13: five signed fields."""
    key = HMAC_SECRET.encode()
    fields = {
        "source_id": SOURCE,
        "seq": 2,
        "head_hash": "d" * 64,
        "issued_at": "2026-01-02T03:04:05.678901Z",
        "key_id": hashlib.sha256(key).hexdigest()[:16],
    }
    canonical = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    old = {**fields, "signature": hmac.new(key, canonical.encode(), "sha256").hexdigest()}
    checkpoint = parse(old)
    assert checkpoint.algorithm is None and checkpoint.effective_algorithm == "hmac-sha256"
    assert checkpoint.to_dict() == old  # read back as issued
    authenticate(checkpoint, KeyRing.of(parse_signing_key(HMAC_SECRET)))
    with pytest.raises(CheckpointError, match="does not verify"):
        authenticate(parse({**old, "seq": 3}), KeyRing.of(parse_signing_key(HMAC_SECRET)))
    # An Ed25519 key of the same key_id does not exist; another key is named.
    with pytest.raises(CheckpointError, match="signed by key"):
        authenticate(checkpoint, KeyRing.of(generate_ed25519()[1]))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seq": 0}, "seq"),
        ({"seq": True}, "seq"),
        ({"head_hash": "X" * 64}, "head_hash"),
        ({"signature": "not hex"}, "signature"),
        ({"algorithm": "rsa"}, "algorithm"),
        ({"algorithm": None}, "algorithm"),
        ({"extra": 1}, "extra"),
        ({"issued_at": 5}, "issued_at"),
        ({"issued_at": "\ud800"}, "issued_at"),
        ({"issued_at": "yesterday"}, "issued_at"),
        ({"key_id": "XYZ"}, "key_id"),
        ({"source_id": "\udfff"}, "source_id"),
    ],
)
def test_a_malformed_checkpoint_names_the_field(
    signer: SigningKey, change: dict[str, Any], field: str
) -> None:
    data = {**issue(signer, source_id=SOURCE, seq=3, head_hash="b" * 64).to_dict(), **change}
    with pytest.raises(CheckpointError) as caught:
        parse(data)
    assert caught.value.field == field
    assert field in str(caught.value)


def test_checkpoint_files_hold_one_or_many(tmp_path: Path, signer: SigningKey) -> None:
    first = issue(signer, source_id="a", seq=1, head_hash="b" * 64)
    second = issue(signer, source_id="b", seq=2, head_hash="c" * 64)
    path = tmp_path / "cps.jsonl"
    assert write_file(path, [first, second]) == 2
    assert read_file(path) == [first, second]
    (tmp_path / "one.json").write_text(json.dumps(first.to_dict()))
    assert read_file(tmp_path / "one.json") == [first]
    (tmp_path / "many.json").write_text(json.dumps([first.to_dict(), second.to_dict()]))
    assert read_file(tmp_path / "many.json") == [first, second]
    (tmp_path / "bad.json").write_text("{}\n{")
    with pytest.raises(CheckpointError, match="line 2 is not valid JSON"):
        read_file(tmp_path / "bad.json")


def test_checkpoints_are_saved_every_n_observations_and_the_latest_is_checked(
    store: Store, rules: TrackingRules, signer: SigningKey, tmp_path: Path
) -> None:
    trust = Trust(signer, CheckpointArchive(tmp_path / "checkpoints", every=3))
    observe(store, rules, SEVERITIES, signer=signer, trust=trust)
    folder = next((tmp_path / "checkpoints").iterdir())
    assert sorted(p.name for p in folder.iterdir()) == ["000000000003.json", "000000000006.json"]
    assert list(trust.archive.sources()) == [SOURCE]  # type: ignore[union-attr]
    keys = trust.keys()
    latest = trust.checkpoints_for(SOURCE, keys)
    assert [c.seq for c in latest] == [6]
    assert verify(store, rules, keys, latest).intact
    records = rows(store)
    rewrite(
        store, rules, [{**r, "severity": 0, "harm_mechanism": None} for r in records], signer=signer
    )
    broken_at(verify(store, rules, keys, trust.checkpoints_for(SOURCE, keys)), 6, "checkpoint")
    # A file in the archive altered by someone without the key: verify refuses it.
    path = folder / "000000000006.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "head_hash": records[5]["prev_hash"]}))
    with pytest.raises(CheckpointError, match=f"{path}.*does not verify"):
        trust.checkpoints_for(SOURCE, keys)
    # Files signed by another key (before a rotation) are passed over.
    assert trust.checkpoints_for(SOURCE, KeyRing.of(generate_ed25519()[1])) == []


def test_source_ids_that_a_file_system_would_mangle_get_their_own_folder(
    tmp_path: Path, signer: SigningKey
) -> None:
    archive = CheckpointArchive(tmp_path, every=1)
    names = ["..", ".", "A", "a", "x" * 200, "ünï:cödé", "a\\b"]
    for name in names:
        archive.save(issue(signer, source_id=name, seq=1, head_hash="b" * 64))
    assert sorted(archive.sources()) == sorted(names)
    assert all(p.parent == tmp_path for p in tmp_path.iterdir())


# -- exported chains and public keys -------------------------------------------------------


def test_an_exported_chain_verifies_with_the_public_key_alone(
    store: Store, rules: TrackingRules, ed25519: tuple[bytes, SigningKey]
) -> None:
    key = ed25519[1]
    observe(store, rules, SEVERITIES, signer=key)
    buffer = io.BytesIO()
    with store.transaction() as session:
        export_chain(SOURCE, buffer, session=session)
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert all(line["key_id"] == key.key_id for line in lines)
    public = parse_public_key((key.public_pem() or "").encode(), source="pub")
    keys = KeyRing([public])
    assert verify_jsonl(io.BytesIO(buffer.getvalue()), keys=keys).intact
    # A record forged onto the export's end: well-formed, but not signed by the key.
    last = lines[-1]
    forged = {**last, "seq": last["seq"] + 1, "prev_hash": last["record_hash"], "severity": 0}
    forged["record_hash"] = hash_fields(forged)
    data = buffer.getvalue() + (json.dumps(forged) + "\n").encode()
    broken_at(verify_jsonl(io.BytesIO(data), keys=keys), 9, "signature of seq 9 does not verify")
    stripped = {k: v for k, v in forged.items() if k not in ("key_id", "signature")}
    data = buffer.getvalue() + (json.dumps(stripped) + "\n").encode()
    broken_at(verify_jsonl(io.BytesIO(data), keys=keys), 9, "seq 9 is not signed")
    # A checkpoint of seq 8 catches the same file cut short at seq 6.
    checkpoint = issue(key, source_id=SOURCE, seq=8, head_hash=last["record_hash"])
    cut = b"".join(buffer.getvalue().splitlines(keepends=True)[:6])
    broken_at(
        verify_jsonl(io.BytesIO(cut), keys=keys, checkpoints=[checkpoint]), 7, "attests seq 8"
    )


# -- the docs' verifier with signatures ------------------------------------------------------

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tracking.md"


def signed_snippet() -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- verify-signed-snippet -->\n```python\n(.*?)```", text, re.S)
    assert match, "docs/tracking.md lost its signed verify snippet"
    return match.group(1)


def run_signed_snippet(
    tmp_path: Path, chain: bytes, *extra: Path
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "verify_signed.py"
    script.write_text(signed_snippet(), encoding="utf-8")
    (tmp_path / "chain.jsonl").write_bytes(chain)
    return subprocess.run(
        [sys.executable, str(script), str(tmp_path / "chain.jsonl"), *map(str, extra)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_docs_signed_snippet_checks_signatures_and_checkpoints(
    store: Store, rules: TrackingRules, ed25519: tuple[bytes, SigningKey], tmp_path: Path
) -> None:
    key = ed25519[1]
    observe(store, rules, SEVERITIES, signer=key)
    buffer = io.BytesIO()
    with store.transaction() as session:
        export_chain(SOURCE, buffer, session=session)
        checkpoint = Trust(key).issue(get_profile(SOURCE, session=session))
    public = tmp_path / "signing.pub"
    public.write_text(key.public_pem() or "")
    saved = tmp_path / "checkpoint.json"
    saved.write_text(json.dumps(checkpoint.to_dict()))
    chain = buffer.getvalue()
    done = run_signed_snippet(tmp_path, chain, public, saved)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"intact: 8 records, head {checkpoint.head_hash}"
    # A record re-hashed without the key (severity lowered): its signature no longer holds.
    lines = [json.loads(line) for line in chain.splitlines()]
    lines[4]["severity"] = 0
    lines[4]["record_hash"] = hash_fields(lines[4])
    forged = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    done = run_signed_snippet(tmp_path, forged, public)
    assert (done.returncode, done.stderr.strip()) == (1, "bad signature at seq 5")
    cut = b"".join(chain.splitlines(keepends=True)[:6])
    assert run_signed_snippet(tmp_path, cut, public).returncode == 0
    done = run_signed_snippet(tmp_path, cut, public, saved)
    assert (done.returncode, done.stderr.strip()) == (1, "cut short: the checkpoint attests seq 8")
    saved.write_text(json.dumps({**checkpoint.to_dict(), "seq": 6}))
    done = run_signed_snippet(tmp_path, cut, public, saved)
    assert (done.returncode, done.stderr.strip()) == (1, "the checkpoint is not signed by this key")
