"""The hash chain on its own: canonical JSON, record_hash, file verification, the docs snippet.

No database here: these are the pure functions that both the store and an
exported file are checked with, and the independent verifier of the docs.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from store.chain import (
    GENESIS_HASH,
    HASHED_FIELDS,
    HASHED_FIELDS_V2,
    OBSERVATION_FIELDS,
    V1_OBSERVATION_FIELDS,
    ChainRecord,
    canonical_decision,
    canonical_json,
    format_observed_at,
    record_hash,
    verify_jsonl,
    verify_records,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tracking.md"


def stdlib_canonical(fields: dict[str, Any]) -> bytes:
    """SPEC section 5 spelled with the standard library: the reference implementation."""
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def build_chain(
    n: int,
    source_id: str = "acct:1",
    *,
    texts: bool = True,
    start: int = 1,
    v2_from: int | None = None,
) -> list[dict[str, Any]]:
    """n exported records, linked and hashed exactly as the store writes them.

    Without ``v2_from``: version-1 records in the version-1 layout (an export
    written before record version 2). With it: from that seq on, version-2
    records (published a day before they were observed on even seqs, a url and
    metadata on every third), all in the full layout of today's exports.
    """
    records: list[dict[str, Any]] = []
    prev = GENESIS_HASH
    for seq in range(start, start + n):
        text = f"observation number {seq} — «ünïcode»" if texts else None
        severity = seq % 5
        observed = datetime(2026, 1, 2, tzinfo=UTC) + timedelta(seconds=seq)
        fields: dict[str, Any] = {
            "source_id": source_id,
            "seq": seq,
            "observed_at": format_observed_at(observed),
            "content_hash": hashlib.sha256(
                f"observation number {seq} — «ünïcode»".encode()
            ).hexdigest(),
            "harm_mechanism": None if severity == 0 else "animalization",
            "severity": severity,
            "taxonomy_version": "1.0.0",
            "prev_hash": prev,
        }
        extra: dict[str, Any] = {
            "record_version": 1,
            "published_at": fields["observed_at"],
            "url": None,
            "metadata": None,
            "attachment_hash": None,
            "decision": None,
            "redacted": None,
        }
        if v2_from is not None and seq >= v2_from:
            url: str | None = None
            metadata: dict[str, Any] | None = None
            attached = None
            if seq % 3 == 0:
                url = f"https://example.org/posts/{seq}?ref=ü"
                metadata = {"channel": "feed", "n": seq, "nested": {"score": 0.25, "ok": True}}
                attachment = stdlib_canonical({"metadata": metadata, "url": url})
                attached = hashlib.sha256(attachment).hexdigest()
            fields.update(
                record_version=2,
                published_at=format_observed_at(observed - timedelta(days=seq % 2)),
                attachment_hash=attached,
                decision={
                    "harm_category": "none" if severity == 0 else "dehumanization",
                    "confidence": round(seq / 1000 + 0.5, 3),
                    "matched_pattern": None if severity == 0 else f"D2.4a-001:en:{seq}",
                    "row_id": None if severity == 0 else "D2.4a-001",
                    "spans": [[0, 7], [3, 12]],
                    "suppressions": [{"reason": "negation", "cue": "not ü"}],
                    "language": "en",
                    "taxonomy_digest": "d" * 64,
                },
            )
            extra.update(
                record_version=2,
                published_at=fields["published_at"],
                url=url,
                metadata=metadata,
                attachment_hash=fields["attachment_hash"],
                decision=fields["decision"],
            )
        digest = hashlib.sha256(stdlib_canonical(fields)).hexdigest()
        records.append({**fields, **extra, "text": text, "record_hash": digest})
        prev = digest
    layout = V1_OBSERVATION_FIELDS if v2_from is None else OBSERVATION_FIELDS
    return [{name: record[name] for name in layout} for record in records]


def rehash(record: dict[str, Any]) -> dict[str, Any]:
    hashed = HASHED_FIELDS_V2 if record.get("record_version", 1) == 2 else HASHED_FIELDS
    fields = {name: record[name] for name in hashed}
    return {**record, "record_hash": hashlib.sha256(stdlib_canonical(fields)).hexdigest()}


def jsonl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


def verify_bytes(data: bytes) -> Any:
    return verify_jsonl(io.BytesIO(data))


def as_records(records: list[dict[str, Any]]) -> list[ChainRecord]:
    return [
        ChainRecord(
            r["source_id"],
            r["seq"],
            r["observed_at"],
            r["content_hash"],
            r["harm_mechanism"],
            r["severity"],
            r["taxonomy_version"],
            r["prev_hash"],
            r["record_hash"],
            r["text"],
        )
        for r in records
    ]


# -- canonical JSON and record_hash -------------------------------------------------------


def test_hashed_fields_are_exactly_the_spec_eight() -> None:
    assert set(HASHED_FIELDS) == {
        "source_id",
        "seq",
        "observed_at",
        "content_hash",
        "harm_mechanism",
        "severity",
        "taxonomy_version",
        "prev_hash",
    }


def test_canonical_json_is_sorted_compact_utf8() -> None:
    data = canonical_json(
        source_id="квартал/ü",
        seq=7,
        observed_at="2026-01-02T03:04:05.678901Z",
        content_hash="ab" * 32,
        harm_mechanism=None,
        severity=0,
        taxonomy_version="1.0.0",
        prev_hash=GENESIS_HASH,
    )
    text = data.decode("utf-8")
    assert text.startswith('{"content_hash":"abab')
    assert '"harm_mechanism":null' in text
    assert '"seq":7,"severity":0,"source_id":"квартал/ü"' in text
    assert " " not in text
    assert "\\u" not in text
    keys = re.findall(r'"([a-z_]+)":', text)
    assert keys == sorted(HASHED_FIELDS)


def test_record_hash_matches_an_independent_computation() -> None:
    fields: dict[str, Any] = {
        "source_id": "acct:1",
        "seq": 1,
        "observed_at": "2026-01-02T03:04:05.678901Z",
        "content_hash": hashlib.sha256(b"Muslims are vermin.").hexdigest(),
        "harm_mechanism": "animalization",
        "severity": 3,
        "taxonomy_version": "1.0.0",
        "prev_hash": "0" * 64,
    }
    expected = hashlib.sha256(stdlib_canonical(fields)).hexdigest()
    assert record_hash(**fields) == expected


@given(
    source_id=st.text(min_size=1, max_size=40),
    mechanism=st.one_of(st.none(), st.text(max_size=20)),
    version=st.text(max_size=12),
    seq=st.integers(min_value=1, max_value=2**31 - 1),
    severity=st.integers(min_value=0, max_value=4),
)
def test_canonical_json_equals_the_stdlib_spelling(
    source_id: str, mechanism: str | None, version: str, seq: int, severity: int
) -> None:
    """orjson (fast) and json.dumps (the docs' verifier) must agree byte for byte."""
    fields: dict[str, Any] = {
        "source_id": source_id,
        "seq": seq,
        "observed_at": "2026-01-02T03:04:05.678901Z",
        "content_hash": "0f" * 32,
        "harm_mechanism": mechanism,
        "severity": severity,
        "taxonomy_version": version,
        "prev_hash": GENESIS_HASH,
    }
    try:
        reference = stdlib_canonical(fields)
    except UnicodeEncodeError:
        return  # lone surrogates: no UTF-8 form, refused before hashing (see source_id rules)
    assert canonical_json(**fields) == reference


def test_observed_at_format() -> None:
    moment = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    assert format_observed_at(moment) == "2026-01-02T03:04:05.678901Z"
    assert format_observed_at(moment.replace(microsecond=0)) == "2026-01-02T03:04:05.000000Z"
    east = moment.astimezone(timezone(timedelta(hours=5, minutes=30)))
    assert format_observed_at(east) == "2026-01-02T03:04:05.678901Z"
    assert format_observed_at(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000000Z"
    with pytest.raises(ValueError, match="timezone-aware"):
        format_observed_at(datetime(2026, 1, 2))


# -- verifying records --------------------------------------------------------------------


def test_an_intact_chain_verifies() -> None:
    records = build_chain(25)
    result = verify_records(as_records(records))
    assert result.to_dict() == {
        "source_id": "acct:1",
        "intact": True,
        "checked": 25,
        "head_hash": records[-1]["record_hash"],
        "first_broken_seq": None,
        "reason": None,
    }


def test_an_empty_record_stream_is_intact_with_the_genesis_head() -> None:
    result = verify_records([])
    assert result.intact and result.checked == 0 and result.head_hash == GENESIS_HASH


def test_records_of_another_source_break_the_chain() -> None:
    records = build_chain(5)
    other = build_chain(6, source_id="acct:2")
    mixed = [*records, other[5]]
    result = verify_records(as_records(mixed))
    assert (result.intact, result.first_broken_seq) == (False, 6)
    assert "belongs to source 'acct:2'" in (result.reason or "")


def test_a_chain_not_starting_at_genesis_breaks_at_seq_1() -> None:
    records = build_chain(3)
    records[0] = rehash({**records[0], "prev_hash": "1" * 64})
    result = verify_records(as_records(records))
    assert result.first_broken_seq == 1
    assert "genesis" in (result.reason or "")
    assert result.head_hash == GENESIS_HASH


# -- tampering with an exported file ------------------------------------------------------


def _edited(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[4] = {**records[4], "severity": 4, "harm_mechanism": "direct_call_to_violence"}
    return records


def _deleted(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    del records[4]
    return records


def _inserted_well_formed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    forged = rehash({**records[4], "content_hash": "f" * 64, "text": None})
    return [*records[:4], forged, *records[4:]]


def _inserted_garbage(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    forged = {**records[4], "content_hash": "f" * 64, "text": None}
    return [*records[:4], forged, *records[4:]]


def _swapped(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[4], records[5] = records[5], records[4]
    return records


def _swapped_renumbered(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    fifth, sixth = records[4], records[5]
    records[4], records[5] = {**sixth, "seq": 5}, {**fifth, "seq": 6}
    return records


def _rewritten_hash(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[4] = rehash({**records[4], "severity": 1, "harm_mechanism": "false_attribution"})
    return records


def _edited_text(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[4] = {**records[4], "text": "something else entirely"}
    return records


def _duplicated(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [*records[:5], records[4], *records[5:]]


@pytest.mark.parametrize(
    ("tamper", "broken_at", "reason"),
    [
        (_edited, 5, "record_hash of seq 5 does not match its fields"),
        (_deleted, 5, "seq 5 is missing or out of order (found seq 6)"),
        (_inserted_well_formed, 6, "seq 6 expected, found seq 5"),
        (_inserted_garbage, 5, "record_hash of seq 5 does not match"),
        (_swapped, 5, "seq 5 is missing or out of order (found seq 6)"),
        (_swapped_renumbered, 5, "prev_hash of seq 5 does not match the record_hash of seq 4"),
        (_rewritten_hash, 6, "prev_hash of seq 6 does not match the record_hash of seq 5"),
        (_edited_text, 5, "text of seq 5 does not match its content_hash"),
        (_duplicated, 6, "seq 6 expected, found seq 5 again"),
    ],
)
def test_file_tampering_is_caught_at_the_right_seq(
    tamper: Any, broken_at: int, reason: str
) -> None:
    tampered = tamper(build_chain(10))
    result = verify_bytes(jsonl(tampered))
    assert not result.intact
    assert result.first_broken_seq == broken_at
    assert result.checked == broken_at - 1
    assert reason in (result.reason or "")
    # The head is the last record that verified: the chain can be trusted up to it.
    assert result.head_hash == tampered[broken_at - 2]["record_hash"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "holds no records"),
        (b"\n\n", "holds no records"),
        (b"{not json\n", "line 1 is not valid JSON"),
        (b"[1, 2]\n", "line 1 is not a JSON object"),
        (b'{"seq": 1}\n', "line 1 lacks source_id"),
    ],
)
def test_malformed_files_are_broken_with_a_reason(data: bytes, reason: str) -> None:
    result = verify_bytes(data)
    assert not result.intact
    assert result.first_broken_seq == 1
    assert reason in (result.reason or "")


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("seq", True, "field seq must be an integer"),
        ("seq", "1", "field seq must be an integer"),
        ("severity", 3.0, "field severity must be an integer"),
        ("prev_hash", None, "field prev_hash must be a string"),
        ("harm_mechanism", 3, "field harm_mechanism must be a string or null"),
        ("text", ["x"], "field text must be a string or null"),
    ],
)
def test_wrongly_typed_fields_break_the_chain(field: str, value: Any, reason: str) -> None:
    records = build_chain(3)
    records[1] = {**records[1], field: value}
    result = verify_bytes(jsonl(records))
    assert (result.intact, result.first_broken_seq) == (False, 2)
    assert f"line 2 {reason}" == result.reason


def test_blank_lines_and_a_missing_final_newline_are_fine() -> None:
    records = build_chain(3)
    data = jsonl(records).replace(b"\n", b"\n\n", 1).rstrip(b"\n")
    assert verify_bytes(data).intact


def test_a_file_without_texts_verifies() -> None:
    assert verify_bytes(jsonl(build_chain(4, texts=False))).intact


# -- the docs' independent verifier -------------------------------------------------------


def docs_snippet() -> str:
    text = DOCS.read_text(encoding="utf-8")
    match = re.search(r"<!-- verify-snippet -->\n```python\n(.*?)```", text, re.S)
    assert match, "docs/tracking.md lost its verify snippet"
    return match.group(1)


def run_snippet(tmp_path: Path, records: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "verify_chain.py"
    script.write_text(docs_snippet(), encoding="utf-8")
    chain = tmp_path / "chain.jsonl"
    chain.write_bytes(jsonl(records))
    return subprocess.run(
        [sys.executable, "-I", str(script), str(chain)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_docs_snippet_is_short_and_uses_only_the_standard_library() -> None:
    snippet = docs_snippet()
    # Both record versions, the text and the url/metadata checks: still one screen.
    assert len(snippet.strip().splitlines()) <= 30
    imports = re.findall(r"^import (.*)$|^from (\S+) import", snippet, re.M)
    assert imports == [("hashlib, json, sys", "")]


def test_docs_snippet_verifies_an_intact_export(tmp_path: Path) -> None:
    records = build_chain(12)
    done = run_snippet(tmp_path, records)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"intact: 12 records, head {records[-1]['record_hash']}"


@pytest.mark.parametrize(
    ("tamper", "broken_at"),
    [(_edited, 5), (_deleted, 5), (_swapped, 5), (_rewritten_hash, 6), (_inserted_garbage, 5)],
)
def test_docs_snippet_catches_tampering(tmp_path: Path, tamper: Any, broken_at: int) -> None:
    done = run_snippet(tmp_path, tamper(build_chain(10)))
    assert done.returncode == 1
    assert done.stderr.strip() == f"broken at seq {broken_at}"


# -- record version 2 (SPEC 5a) -----------------------------------------------------------


def test_hashed_fields_of_version_2_are_exactly_the_spec_twelve() -> None:
    assert set(HASHED_FIELDS_V2) == {
        "record_version",
        "source_id",
        "seq",
        "observed_at",
        "published_at",
        "content_hash",
        "attachment_hash",
        "harm_mechanism",
        "severity",
        "decision",
        "taxonomy_version",
        "prev_hash",
    }


def test_every_three_decimal_confidence_has_one_canonical_spelling() -> None:
    """The decision's one float: orjson (the store) and json.dumps (the snippet) agree on
    every value the store can write, so the two compute the same record_hash."""
    for thousandths in range(1001):
        confidence = round(thousandths / 1000, 3) + 0.0
        decision = {"confidence": confidence, "spans": [[0, 1]], "z": None}
        assert canonical_decision(decision).encode("utf-8") == stdlib_canonical(decision)


def test_a_mixed_chain_verifies_with_the_store_and_the_snippet(tmp_path: Path) -> None:
    records = build_chain(12, v2_from=5)
    assert [r["record_version"] for r in records] == [1] * 4 + [2] * 8
    assert any(r["metadata"] for r in records) and any(
        r["published_at"] != r["observed_at"] for r in records
    )
    result = verify_bytes(jsonl(records))
    assert result.intact and result.checked == 12, result.reason
    assert result.head_hash == records[-1]["record_hash"]
    done = run_snippet(tmp_path, records)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"intact: 12 records, head {records[-1]['record_hash']}"


def _decision_edited(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    decision = {**records[5]["decision"], "confidence": 0.999}
    records[5] = {**records[5], "decision": decision}
    return records


def _published_at_edited(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[5] = {**records[5], "published_at": "2025-06-01T00:00:00.000000Z"}
    return records


def _metadata_edited(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[5] = {**records[5], "metadata": {**records[5]["metadata"], "channel": "other"}}
    return records


def _url_edited(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records[5] = {**records[5], "url": "https://example.org/elsewhere"}
    return records


def _demoted_to_version_1(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Claiming version 1 leaves published_at and the decision outside the hash.
    records[5] = {**records[5], "record_version": 1}
    return records


def _v1_published_at_moved(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Not hashed in version 1, so the store requires it to equal observed_at.
    records[1] = {**records[1], "published_at": "2020-01-01T00:00:00.000000Z"}
    return records


@pytest.mark.parametrize(
    ("tamper", "broken_at", "reason"),
    [
        (_decision_edited, 6, "record_hash of seq 6 does not match its fields"),
        (_published_at_edited, 6, "record_hash of seq 6 does not match its fields"),
        (_metadata_edited, 6, "url or metadata of seq 6 does not match its attachment_hash"),
        (_url_edited, 6, "url or metadata of seq 6 does not match its attachment_hash"),
        (_demoted_to_version_1, 6, "decision must be null on a version-1 record"),
        (_edited, 5, "record_hash of seq 5 does not match its fields"),
        (_rewritten_hash, 6, "prev_hash of seq 6 does not match the record_hash of seq 5"),
        (_edited_text, 5, "text of seq 5 does not match its content_hash"),
    ],
)
def test_version_2_tampering_is_caught_by_the_store_and_the_snippet(
    tmp_path: Path, tamper: Any, broken_at: int, reason: str
) -> None:
    tampered = tamper(build_chain(10, v2_from=4))
    result = verify_bytes(jsonl(tampered))
    assert (result.intact, result.first_broken_seq) == (False, broken_at)
    assert reason in (result.reason or "")
    done = run_snippet(tmp_path, tampered)
    assert done.returncode == 1
    assert done.stderr.strip() == f"broken at seq {broken_at}"


def test_a_version_1_published_at_must_be_its_observed_at() -> None:
    result = verify_bytes(jsonl(_v1_published_at_moved(build_chain(6, v2_from=4))))
    assert (result.intact, result.first_broken_seq) == (False, 2)
    assert "published_at of seq 2 differs from its observed_at" in (result.reason or "")


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({"extra": 1}, "field decision must have exactly"),
        ("not an object", "field decision must be an object"),
        ({"confidence": 1e-05}, "decision.confidence must be a number from 0.0 to 1.0"),
        ({"confidence": 0.12345}, "decision.confidence must be a number from 0.0 to 1.0"),
        ({"confidence": 1}, "decision.confidence must be a number from 0.0 to 1.0"),
        ({"spans": [[0, "1"]]}, "decision.spans must be a list of [start, end] integers"),
        ({"suppressions": [{"reason": "x"}]}, "decision.suppressions must be a list"),
        ({"row_id": 7}, "decision.row_id must be a string or null"),
    ],
)
def test_a_malformed_decision_is_refused_naming_the_field(patch: Any, reason: str) -> None:
    """Only decisions whose canonical JSON every conforming encoder writes alike are read."""
    records = build_chain(5, v2_from=2)
    decision = {**records[2]["decision"], **patch} if isinstance(patch, dict) else patch
    records[2] = {**records[2], "decision": decision}
    result = verify_bytes(jsonl(records))
    assert (result.intact, result.first_broken_seq) == (False, 3)
    assert reason in (result.reason or "")
