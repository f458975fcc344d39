"""Issue 14, evidence-grade records: record version 2, publication order, the analyst's
profile fields, the tampered-head refusal and the migration of version-1 databases.

Store tests run on SQLite and PostgreSQL (``store`` of tests/store_fixtures.py).
The profile after backfills is checked two ways: against a naive replay written
here from SPEC 5a's words, and by verify, whose profile check replays the chain
in publication order from scratch (the append only replays the region a
backfill changes).
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from alembic import command
from sqlalchemy import text

from engine import Settings
from store import (
    Entry,
    InvalidEvidenceError,
    Store,
    TamperedHeadError,
    TrackingRules,
    append,
    append_chunks,
    append_many,
    export_chain,
    get_profile,
    make_evidence,
    migrations,
    open_store,
    verify_source,
)
from store.chain import GENESIS_HASH, format_observed_at, record_hash
from store.evidence import MAX_METADATA_BYTES
from store.trend import rolling_average
from tests.store_fixtures import at, classified

pytest_plugins = ["tests.store_fixtures"]

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tracking.md"
DAY0 = datetime(2025, 6, 1, tzinfo=UTC)
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def day(n: int) -> str:
    return format_observed_at(DAY0 + timedelta(days=n))


def observe(
    store: Store,
    rules: TrackingRules,
    source: str,
    severity: int,
    *,
    published: str | None = None,
    step: int = 0,
    **evidence: Any,
) -> Any:
    content = f"{source} said {severity} at {published} ({step})"
    with store.transaction(write=True) as session:
        return append(
            source,
            classified(severity, content),
            text=content,
            store_text=True,
            rules=rules,
            session=session,
            observed_at=at(step),
            evidence=make_evidence(published_at=published, now=NOW, **evidence),
            taxonomy_digest="d" * 64,
        )


def dated_entry(severity: int, content: str, published: str) -> Entry:
    """An entry classified at ``severity`` and published at ``published``."""
    return Entry(
        classified(severity, content), content, make_evidence(published_at=published, now=NOW)
    )


def naive_profile(rules: TrackingRules, records: list[tuple[str, int, int]]) -> dict[str, Any]:
    """SPEC 5a from its words: sort by (published_at, seq), replay the risk step by step."""
    ordered = sorted(records)
    severities = [severity for _, _, severity in ordered]
    previous, escalation = 0, None
    for index, (published, _seq, severity) in enumerate(ordered):
        window = severities[max(0, index + 1 - rules.window) : index + 1]
        rank = rules.rank(rules.risk(severity, rules.trend(window)))
        if rank > previous:
            escalation = published
        previous = rank
    window = severities[-rules.window :]
    counts = {str(level): window.count(level) for level in sorted(rules.risk_by_severity)}
    return {
        "current_severity": severities[-1],
        "rolling_average_severity": rolling_average(window),
        "trend": rules.trend(window),
        "risk_level": rules.risk(severities[-1], rules.trend(window)),
        "first_observed_at": ordered[0][0],
        "last_observed_at": ordered[-1][0],
        "peak_severity": max(severities),
        "severity_counts": counts,
        "last_escalation_at": escalation,
    }


def picked(profile: Any, names: dict[str, Any]) -> dict[str, Any]:
    return {name: getattr(profile, name) for name in names}


# -- publication order ---------------------------------------------------------------------


def test_a_backfilled_archive_gives_the_trend_by_publication_time(
    store: Store, rules: TrackingRules
) -> None:
    """Appended newest first (an archive loaded backwards), published calm then violent:
    by append order the source calms down, by publication time it escalates."""
    severities_by_day = {1: 0, 2: 0, 3: 0, 4: 0, 5: 4, 6: 4, 7: 4, 8: 4}
    for step, n in enumerate(range(8, 0, -1)):
        observation, profile = observe(
            store, rules, "acct:1", severities_by_day[n], published=day(n), step=step
        )
        assert observation.seq == step + 1  # the chain stays in append order
    assert profile.trend == "escalating"
    assert profile.current_severity == 4  # day 8, the first appended
    assert profile.risk_level == "critical"
    assert (profile.first_observed_at, profile.last_observed_at) == (day(1), day(8))
    assert profile.peak_severity == 4
    assert profile.severity_counts == {"0": 4, "1": 0, "2": 0, "3": 0, "4": 4}
    # low at days 1-4, critical from day 5 (the first 4 by publication)
    assert profile.last_escalation_at == day(5)
    with store.transaction() as session:
        assert verify_source("acct:1", session=session, rules=rules).intact
        assert get_profile("acct:1", session=session) == profile


@pytest.mark.parametrize("seed", [1, 2])
def test_random_backfills_keep_the_profile_exact(
    store: Store, rules: TrackingRules, seed: int
) -> None:
    """Appends and chunks published at random times (ties included), window 5: after
    each, the profile is the naive replay's and verify recomputes the same."""
    small = replace(rules, window=5)
    chance = random.Random(seed)
    records: list[tuple[str, int, int]] = []
    seq = 0
    for step in range(14):
        size = chance.choice([1, 1, 1, 3, 6])
        entries: list[Entry] = []
        for _ in range(size):
            severity = chance.choice([0, 0, 1, 2, 3, 4])
            published = day(chance.randrange(0, 30))
            content = f"step {step} item {len(entries)} severity {severity}"
            entries.append(dated_entry(severity, content, published))
            seq += 1
            records.append((published, seq, severity))
        with store.transaction(write=True) as session:
            written, profile = append_many(
                "acct:r", entries, store_text=True, rules=small, session=session
            )
        assert [o.seq for o in written] == list(range(seq - size + 1, seq + 1))
        expected = naive_profile(small, records)
        assert picked(profile, expected) == expected, f"step {step}"
    with store.transaction() as session:
        result = verify_source("acct:r", session=session, rules=small)
    assert result.intact, result.reason


def test_one_transaction_of_several_sources_keeps_each_profile_exact(
    store: Store, rules: TrackingRules
) -> None:
    """append_chunks (what an ingest transaction does): several sources' chunks, forward
    and backfilled, written by one insert after their profile updates; each profile is
    still the naive replay's, each chain verifies, and a source given twice is refused
    before anything is written."""
    small = replace(rules, window=4)
    chance = random.Random(7)
    sources = ["feed:a", "feed:b", "feed:c"]
    records: dict[str, list[tuple[str, int, int]]] = {source: [] for source in sources}
    for step in range(6):
        chunks = []
        for source in sources:
            entries: list[Entry] = []
            for item in range(chance.choice([1, 2, 5])):
                severity = chance.choice([0, 1, 2, 3, 4])
                published = day(chance.randrange(0, 20))
                content = f"{source} step {step} item {item} severity {severity}"
                entries.append(dated_entry(severity, content, published))
                records[source].append((published, len(records[source]) + 1, severity))
            chunks.append((source, entries))
        with store.transaction(write=True) as session:
            written = append_chunks(chunks, store_text=True, rules=small, session=session)
        assert [len(each) for each in written] == [len(entries) for _, entries in chunks]
        with store.transaction() as session:
            for source in sources:
                expected = naive_profile(small, records[source])
                profile = get_profile(source, session=session)
                assert picked(profile, expected) == expected, f"{source} at step {step}"
    with store.transaction() as session:
        for source in sources:
            result = verify_source(source, session=session, rules=small)
            assert result.intact, (source, result.reason)
    twice = [("feed:a", chunks[0][1]), ("feed:a", chunks[0][1])]
    with (
        pytest.raises(ValueError, match="each source once"),
        store.transaction(write=True) as session,
    ):
        append_chunks(twice, store_text=True, rules=small, session=session)
    with store.transaction() as session:
        assert get_profile("feed:a", session=session).observation_count == len(records["feed:a"])


def test_verify_names_an_edited_analyst_field(store: Store, rules: TrackingRules) -> None:
    for step, severity in enumerate([0, 2, 4, 1]):
        observe(store, rules, "acct:1", severity, published=day(step), step=step)
    for column, value in (
        ("peak_severity", 1),
        ("last_escalation_at", None),
        ("severity_counts", '{"0":4}'),
    ):
        field = column
        with store.engine.begin() as conn:
            saved = conn.execute(text("SELECT * FROM source_profiles")).one()._mapping
            conn.execute(text(f"UPDATE source_profiles SET {column} = :v"), {"v": value})
        with store.transaction() as session:
            result = verify_source("acct:1", session=session, rules=rules)
        assert not result.intact and f"profile field {field}" in (result.reason or "")
        with store.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE source_profiles SET peak_severity = :peak_severity, "
                    "last_escalation_at = :last_escalation_at, "
                    "severity_counts = :severity_counts"
                ),
                dict(saved),
            )


def test_a_moved_published_at_breaks_the_chain(store: Store, rules: TrackingRules) -> None:
    for step in range(3):
        observe(store, rules, "acct:1", 2, published=day(step), step=step)
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE observations SET published_at = :d WHERE seq = 2"), {"d": day(9)})
    with store.transaction() as session:
        result = verify_source("acct:1", session=session, rules=rules)
    assert (result.first_broken_seq, result.reason) == (
        2,
        "record_hash of seq 2 does not match its fields",
    )


# -- evidence ------------------------------------------------------------------------------


def test_evidence_is_hashed_and_kept(store: Store, rules: TrackingRules) -> None:
    observation, _ = observe(
        store,
        rules,
        "acct:1",
        3,
        published="2025-12-31T23:00:00-02:00",
        url="https://example.org/p/1?x=ü",
        metadata={"thread": 7, "tags": ["a", "b"], "score": 0.5},
    )
    assert observation.published_at == "2026-01-01T01:00:00.000000Z"  # UTC
    assert observation.metadata == {"score": 0.5, "tags": ["a", "b"], "thread": 7}
    assert observation.attachment_hash is not None
    assert observation.decision["taxonomy_digest"] == "d" * 64
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE observations SET url = 'https://example.org/elsewhere'"))
    with store.transaction() as session:
        result = verify_source("acct:1", session=session, rules=rules)
    assert result.reason == "url or metadata of seq 1 does not match its attachment_hash"


@pytest.mark.parametrize(
    ("given", "field", "needle"),
    [
        ({"published_at": "2026-01-02T03:20:00Z"}, "published_at", "at most 300 s"),
        ({"published_at": "2026-01-02T03:04:05"}, "published_at", "has no time zone"),
        ({"published_at": "yesterday"}, "published_at", "must be an ISO-8601 date"),
        ({"url": "ftp://example.org/x"}, "url", "http:// or https://"),
        ({"url": "javascript:alert(1)"}, "url", "http:// or https://"),
        ({"url": "https:///nohost"}, "url", "must name a host"),
        ({"metadata": {"a": {"b": {"c": {"d": {}}}}}}, "metadata", "nested 5 levels"),
        ({"metadata": {"x": "y" * MAX_METADATA_BYTES}}, "metadata", "the limit is 4096"),
        ({"metadata": {"x": 1e-05}}, "metadata", "send it as a string"),
        ({"metadata": {"x": float("nan")}}, "metadata", "NaN"),
        ({"metadata": [1, 2]}, "metadata", "must be a JSON object"),
    ],
)
def test_bad_evidence_names_the_field_and_the_limit(
    given: dict[str, Any], field: str, needle: str
) -> None:
    with pytest.raises(InvalidEvidenceError) as caught:
        make_evidence(now=NOW, max_future_skew_s=300, **given)
    assert caught.value.field == field
    assert str(caught.value).startswith(field)
    assert needle in str(caught.value)


def test_the_skew_limit_is_a_setting() -> None:
    later = "2026-01-02T04:04:05Z"  # an hour ahead
    assert make_evidence(published_at=later, now=NOW, max_future_skew_s=3600).published_at
    assert Settings(_env_file=None, HARMWATCH_MAX_FUTURE_SKEW_S="60").max_future_skew_s == 60


def test_metadata_at_the_limits_is_accepted() -> None:
    deep = {"a": {"b": {"c": {"d": 1}}}}
    assert make_evidence(metadata=deep).metadata == '{"a":{"b":{"c":{"d":1}}}}'
    filler = "y" * (MAX_METADATA_BYTES - len('{"x":""}'))
    assert len(make_evidence(metadata={"x": filler}).metadata or "") == MAX_METADATA_BYTES


# -- a tampered head is not extended --------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "needle"),
    [
        ("UPDATE observations SET severity = 0 WHERE seq = 2", "no longer matches its record_hash"),
        ("UPDATE source_profiles SET head_hash = :h", "does not carry the profile's head_hash"),
        ("DELETE FROM observations WHERE seq = 2", "is missing"),
    ],
)
def test_an_observe_refuses_a_tampered_head(
    store: Store, rules: TrackingRules, statement: str, needle: str
) -> None:
    observe(store, rules, "acct:1", 3, step=0)
    observe(store, rules, "acct:1", 4, step=1)
    with store.engine.begin() as conn:
        conn.execute(text(statement), {"h": "f" * 64})
    with pytest.raises(TamperedHeadError, match=needle) as caught:
        observe(store, rules, "acct:1", 1, step=2)
    assert "seq 2" in str(caught.value) and "nothing was appended" in str(caught.value)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM observations WHERE seq = 3")).scalar() == 0


# -- migration of a version-1 database ------------------------------------------------------


def _v1_database(url: str, rules: TrackingRules) -> list[str]:
    """A database at revision 0002 holding version-1 chains written as the old store did."""
    from sqlalchemy import create_engine

    engine = create_engine(url)
    sources = ["acct:a", "acct:b"]
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "0002")
        for source, severities in zip(sources, ([0, 2, 3, 4, 1, 0], [4, 4]), strict=True):
            prev = GENESIS_HASH
            recent: list[int] = []
            for seq, severity in enumerate(severities, 1):
                result = classified(severity, f"{source} {seq}")
                row = {
                    "source_id": source,
                    "seq": seq,
                    "observed_at": format_observed_at(at(seq)),
                    "content_hash": result.content_hash,
                    "harm_mechanism": result.harm_mechanism,
                    "severity": severity,
                    "taxonomy_version": "1.0.0",
                    "prev_hash": prev,
                }
                row["record_hash"] = record_hash(**row)
                row["text"] = f"{source} {seq}"
                recent = [*recent, severity][-rules.window :]
                trend = rules.trend(recent)
                risk = rules.risk(severity, trend)
                profile = {
                    "sid": source,
                    "count": seq,
                    "current": severity,
                    "label": rules.label(result.harm_mechanism, severity),
                    "average": rolling_average(recent),
                    "window": rules.window,
                    "trend": trend,
                    "risk": risk,
                    "rank": rules.rank(risk),
                    "first": format_observed_at(at(1)),
                    "last": row["observed_at"],
                    "head": row["record_hash"],
                    "recent": ",".join(map(str, recent)),
                }
                if seq == 1:
                    conn.execute(
                        text(
                            "INSERT INTO source_profiles VALUES (:sid, :count, :current, :label, "
                            ":average, :window, :trend, :risk, :rank, :first, :last, :head, "
                            ":recent)"
                        ),
                        profile,
                    )
                else:
                    conn.execute(
                        text(
                            "UPDATE source_profiles SET observation_count = :count, "
                            "current_severity = :current, current_severity_label = :label, "
                            "rolling_average_severity = :average, trend = :trend, "
                            "risk_level = :risk, risk_rank = :rank, last_observed_at = :last, "
                            "head_hash = :head, recent_severities = :recent "
                            "WHERE source_id = :sid"
                        ),
                        profile,
                    )
                conn.execute(
                    text(
                        f"INSERT INTO observations ({', '.join(row)}) "
                        f"VALUES ({', '.join(':' + name for name in row)})"
                    ),
                    row,
                )
                prev = row["record_hash"]
    engine.dispose()
    return sources


def docs_snippet() -> str:
    found = re.search(
        r"<!-- verify-snippet -->\n```python\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S
    )
    assert found, "docs/tracking.md lost its verify snippet"
    return found.group(1)


def test_a_migrated_version_1_database_keeps_every_chain_verifying(
    db_url: str, rules: TrackingRules, tmp_path: Path
) -> None:
    sources = _v1_database(db_url, rules)
    store = open_store(Settings(_env_file=None, tracking_db_url=db_url))  # migrates
    try:
        assert store.revision() == migrations.head_revision()
        with store.transaction() as session:
            for source in sources:
                result = verify_source(source, session=session, rules=rules)
                assert result.intact, (source, result.reason)
            migrated = get_profile("acct:a", session=session)
        assert (migrated.peak_severity, migrated.last_escalation_at) == (
            4,
            format_observed_at(at(4)),
        )
        assert migrated.severity_counts == {"0": 2, "1": 1, "2": 1, "3": 1, "4": 1}
        # A version-2 record extends the version-1 chain; both verify, in the store ...
        observe(store, rules, "acct:a", 2, published=day(3), step=20, url="https://e.org/1")
        with store.transaction() as session:
            assert verify_source("acct:a", session=session, rules=rules).intact
            out = io.BytesIO()
            export_chain("acct:a", out, session=session)
    finally:
        store.dispose()
    lines = [orjson.loads(line) for line in out.getvalue().splitlines()]
    assert [line["record_version"] for line in lines] == [1] * 6 + [2]
    # ... and with the stdlib snippet of docs/tracking.md, every field of every line.
    script = tmp_path / "verify_chain.py"
    script.write_text(docs_snippet(), encoding="utf-8")
    chain = tmp_path / "chain.jsonl"
    chain.write_bytes(out.getvalue())
    done = subprocess.run(
        [sys.executable, "-I", str(script), str(chain)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"intact: 7 records, head {lines[-1]['record_hash']}"
    lines[6]["metadata"] = {"added": True}
    chain.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(script), str(chain)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr.strip()) == (1, "broken at seq 7")
