"""`make perf` section "store" (issue 3): appends, verification and listing.

Targets, each recorded next to its measurement:

- store-level append of already-classified results on an SQLite file with
  ``synchronous=FULL``: >= 2,000/s, and within 3x of a plain ``sqlite3``
  insert-per-transaction loop on the same file in the same run;
- on PostgreSQL: >= 1,000/s;
- verify: >= 200,000 records/s over a 100,000-record chain, flat memory;
- ``track list``'s first page of 100 among 100,000 sources: < 20 ms.

An fsync per commit makes append rates depend on the disk and on whatever
else the machine is doing, so the store and the plain loop run in
alternating rounds and each reports its median round; the ratio is taken
per round. PostgreSQL figures need the server of HARMWATCH_TEST_PG_URL (a
scratch database is created and dropped); without it they are skipped with
the reason.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from sqlalchemy.engine import make_url

from engine import Classification, Classifier, Settings, load_taxonomy
from store import (
    Store,
    TrackingRules,
    append,
    count_profiles,
    list_profiles,
    open_store,
    verify_source,
)
from store.chain import (
    GENESIS_HASH,
    VerifyResult,
    canonical_decision,
    format_observed_at,
    record_hash_v2,
)
from store.signing import KeyRing, generate_ed25519, parse_signing_key
from store.tracking import observations, profiles

APPEND_ROUNDS = 5
APPEND_PER_ROUND = 300
PG_APPEND_PER_ROUND = 200
CHAIN_RECORDS = 100_000
SMALL_CHAIN_RECORDS = 10_000
PROFILES = 100_000
PAGE = 100
LIST_REPEATS = 30
SOURCES = 50
TEXTS = (
    "I had a lovely walk along the river today.",
    "Muslims are evil.",
    "Muslims are vermin.",
    "Immigrants are criminals.",
    "Kill all Muslims.",
)
TARGETS = {
    "sqlite_append_per_s_min": 2000.0,
    "sqlite_ratio_to_plain_max": 3.0,
    "postgresql_append_per_s_min": 1000.0,
    "verify_records_per_s_min": 200_000.0,
    "list_first_page_ms_max": 20.0,
}
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _median(values: list[float]) -> float:
    return float(statistics.median(values))


def _classified() -> list[Classification]:
    """Real classifications of texts at severities 0, 2, 3, 3 and 4."""
    classifier = Classifier(load_taxonomy())
    return [classifier.classify(text) for text in TEXTS]


def _rules() -> TrackingRules:
    return TrackingRules.from_taxonomy(load_taxonomy().root, Settings(_env_file=None))


def _open(url: str) -> Store:
    return open_store(Settings(_env_file=None, tracking_db_url=url))


def _append_round(
    store: Store,
    rules: TrackingRules,
    results: list[Classification],
    count: int,
    offset: int,
    *,
    held: bool = True,
) -> float:
    """Appends per second over one round, each in its own transaction and commit.

    ``held``: on one connection kept for the round (``Store.writer``, what the API's
    appender does); otherwise a pooled Session per append (what one CLI observe does).
    """
    start = time.perf_counter()
    with store.writer() as writer:
        for i in range(offset, offset + count):
            result = results[i % len(results)]
            scope = writer.transaction() if held else store.transaction(write=True)
            with scope as session:
                append(
                    f"source-{i % SOURCES}",
                    result,
                    text=TEXTS[i % len(TEXTS)],
                    store_text=True,
                    rules=rules,
                    session=session,
                )
    return count / (time.perf_counter() - start)


def _plain_round(path: Path, count: int, offset: int) -> float:
    """The baseline: one INSERT per transaction with the raw sqlite3 module, same pragmas."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS perf_plain (id INTEGER PRIMARY KEY, source_id TEXT, "
            "seq INTEGER, payload TEXT, UNIQUE (source_id, seq))"
        )
        payload = "x" * 64
        start = time.perf_counter()
        for i in range(offset, offset + count):
            conn.execute("BEGIN")
            conn.execute(
                "INSERT INTO perf_plain (source_id, seq, payload) VALUES (?, ?, ?)",
                (f"source-{i % SOURCES}", i, payload),
            )
            conn.execute("COMMIT")
        return count / (time.perf_counter() - start)
    finally:
        conn.close()


def _plain_pg_round(url: str, count: int, offset: int) -> float:
    """PostgreSQL's baseline: one INSERT per transaction with psycopg, nothing else."""
    conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as conn:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS perf_plain (id BIGSERIAL PRIMARY KEY, source_id TEXT, "
            "seq INTEGER, payload TEXT, UNIQUE (source_id, seq))"
        )
        conn.commit()
        payload = "x" * 64
        start = time.perf_counter()
        for i in range(offset, offset + count):
            conn.execute(
                "INSERT INTO perf_plain (source_id, seq, payload) VALUES (%s, %s, %s)",
                (f"source-{i % SOURCES}", i, payload),
            )
            conn.commit()
        return count / (time.perf_counter() - start)


def _sqlite_appends(
    directory: Path, results: list[Classification], rules: TrackingRules
) -> dict[str, Any]:
    path = directory / "append.sqlite3"
    store = _open(f"sqlite:///{path}")
    try:
        _append_round(store, rules, results, 50, 0)  # warm caches and compiled statements
        store_rates: list[float] = []
        session_rates: list[float] = []
        plain_rates: list[float] = []
        for round_no in range(APPEND_ROUNDS):
            offset = 50 + 2 * round_no * APPEND_PER_ROUND
            store_rates.append(_append_round(store, rules, results, APPEND_PER_ROUND, offset))
            session_rates.append(
                _append_round(
                    store, rules, results, APPEND_PER_ROUND, offset + APPEND_PER_ROUND, held=False
                )
            )
            plain_rates.append(_plain_round(path, APPEND_PER_ROUND, offset))
    finally:
        store.dispose()
    ratios = [plain / ours for plain, ours in zip(plain_rates, store_rates, strict=True)]
    store_rate, ratio = _median(store_rates), _median(ratios)
    return {
        "file": "WAL, synchronous=FULL",
        "rounds": APPEND_ROUNDS,
        "per_round": APPEND_PER_ROUND,
        "store_append_per_s": round(store_rate),
        "store_append": "one connection held (Store.writer), a transaction and commit per append",
        "session_append_per_s": round(_median(session_rates)),
        "session_append": "a pooled Session per append (Store.transaction), as one CLI observe",
        "plain_sqlite3_insert_per_s": round(_median(plain_rates)),
        "ratio_plain_to_store": round(ratio, 2),
        "store_rounds_per_s": [round(r) for r in store_rates],
        "plain_rounds_per_s": [round(r) for r in plain_rates],
        "target_rate_met": store_rate >= TARGETS["sqlite_append_per_s_min"],
        "target_ratio_met": ratio <= TARGETS["sqlite_ratio_to_plain_max"],
    }


# -- building large chains and profile tables directly ----------------------------------


def _chain_rows(source_id: str, count: int, *, texts: bool = True) -> Iterator[dict[str, Any]]:
    """Version-2 records exactly as appends would write them, computed without the database."""
    hashes = [hashlib.sha256(text.encode()).hexdigest() for text in TEXTS]
    mechanisms = [
        None,
        "demonization",
        "animalization",
        "criminalization",
        "direct_call_to_violence",
    ]
    severities = [0, 2, 3, 3, 4]
    decisions = [
        canonical_decision(
            {
                "harm_category": "none" if severity == 0 else "dehumanization",
                "confidence": 0.0 if severity == 0 else 0.95,
                "matched_pattern": None if severity == 0 else f"D2.4a-00{severity}:en:0",
                "row_id": None if severity == 0 else f"D2.4a-00{severity}",
                "spans": [] if severity == 0 else [[0, 12]],
                "suppressions": [],
                "language": "en",
                "taxonomy_digest": "d" * 64,
            }
        )
        for severity in severities
    ]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    prev = GENESIS_HASH
    for seq in range(1, count + 1):
        k = seq % len(TEXTS)
        observed_at = format_observed_at(start + timedelta(microseconds=seq * 1000))
        digest = record_hash_v2(
            source_id=source_id,
            seq=seq,
            observed_at=observed_at,
            published_at=observed_at,
            content_hash=hashes[k],
            attachment_hash=None,
            harm_mechanism=mechanisms[k],
            severity=severities[k],
            decision=decisions[k],
            taxonomy_version="1.0.0",
            prev_hash=prev,
        )
        yield {
            "source_id": source_id,
            "seq": seq,
            "observed_at": observed_at,
            "text": TEXTS[k] if texts else None,
            "content_hash": hashes[k],
            "harm_mechanism": mechanisms[k],
            "severity": severities[k],
            "taxonomy_version": "1.0.0",
            "prev_hash": prev,
            "record_hash": digest,
            "record_version": 2,
            "published_at": observed_at,
            "decision": decisions[k],
        }
        prev = digest


def _profile_row(source_id: str, i: int, count: int, head: str) -> dict[str, Any]:
    levels = ("low", "watch", "elevated", "critical")
    severity = i % 5
    rank = (0, 0, 1, 2, 3)[severity]
    return {
        "source_id": source_id,
        "observation_count": count,
        "current_severity": severity,
        "current_severity_label": "NONE (0)",
        "rolling_average_severity": (i * 7919 % 400) / 100,
        "window_size": 20,
        "trend": "stable",
        "risk_level": levels[rank],
        "risk_rank": rank,
        "first_observed_at": "2026-01-01T00:00:00.000000Z",
        "last_observed_at": f"2026-01-{1 + i % 28:02d}T00:00:{i % 60:02d}.{i % 999_999:06d}Z",
        "head_hash": head,
        "recent_severities": str(severity),
    }


def _load_chain(store: Store, source_id: str, count: int) -> None:
    rows = list(_chain_rows(source_id, count))
    with store.transaction(write=True) as session:
        conn = session.connection()
        head = rows[-1]["record_hash"]
        profile = _profile_row(source_id, 0, count, head)
        # The fields verify recomputes from the records alone (without the rules).
        profile.update(
            current_severity=rows[-1]["severity"],
            first_observed_at=rows[0]["published_at"],
            last_observed_at=rows[-1]["published_at"],
            peak_severity=max(row["severity"] for row in rows),
        )
        conn.execute(profiles.insert(), [profile])
        for start in range(0, count, 10_000):
            conn.execute(observations.insert(), rows[start : start + 10_000])


def _analyze(store: Store) -> None:
    """Planner statistics after a bulk load, as autovacuum would gather them in service."""
    if store.backend == "postgresql":
        with store.transaction(write=True) as session:
            session.connection().exec_driver_sql("ANALYZE")


def _verify_figures(store: Store) -> dict[str, Any]:
    _load_chain(store, "chain-100k", CHAIN_RECORDS)
    _load_chain(store, "chain-10k", SMALL_CHAIN_RECORDS)
    _analyze(store)

    def verify(source_id: str) -> VerifyResult:
        with store.transaction() as session:
            return verify_source(source_id, session=session)

    verify("chain-10k")  # warm
    times = []
    for _ in range(3):
        start = time.perf_counter()
        result = verify("chain-100k")
        times.append(time.perf_counter() - start)
    if not (result.intact and result.checked == CHAIN_RECORDS):
        raise RuntimeError(f"the generated chain does not verify: {result}")
    best = min(times)
    peaks = {}
    for source_id in ("chain-10k", "chain-100k"):
        tracemalloc.start()
        verify(source_id)
        peaks[source_id] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    rate = CHAIN_RECORDS / best
    return {
        "records": CHAIN_RECORDS,
        "with_texts": True,
        "seconds": round(best, 3),
        "records_per_s": round(rate),
        "peak_traced_kib_10k_chain": round(peaks["chain-10k"] / 1024),
        "peak_traced_kib_100k_chain": round(peaks["chain-100k"] / 1024),
        "target_met": rate >= TARGETS["verify_records_per_s_min"],
    }


SIGNED_RECORDS = 20_000


def signed_verify_figures(results: list[Classification], rules: TrackingRules) -> dict[str, Any]:
    """Issue 13: verify with signatures, records/s, on SQLite chains appended by ``append``.

    One chain per key kind, signed as the API signs (HARMWATCH_SIGNING_KEY), then
    verified: unsigned (the baseline walk), HMAC-SHA256, Ed25519 by the holder of
    the private key (the server: it checks by re-signing) and Ed25519 by a third
    party holding only the public key (``track verify --public-key``).
    """
    _, ed25519 = generate_ed25519()
    public = ed25519.public_key()
    if public is None:  # pragma: no cover - an Ed25519 key always has one
        raise RuntimeError("an Ed25519 key without a public half")
    hmac_key = parse_signing_key("perf-hmac-secret-" + "8" * 32)
    chains = {"unsigned": None, "hmac-sha256": hmac_key, "ed25519": ed25519}
    with tempfile.TemporaryDirectory(prefix="harmwatch-perf-signed-") as tmp:
        store = _open(f"sqlite:///{tmp}/signed.sqlite3")
        try:
            for name, signer in chains.items():
                with store.transaction(write=True) as session:
                    for i in range(SIGNED_RECORDS):
                        append(
                            f"signed-{name}",
                            results[i % len(results)],
                            text=TEXTS[i % len(TEXTS)],
                            store_text=True,
                            rules=rules,
                            session=session,
                            signer=signer,
                        )
            cases: dict[str, tuple[str, KeyRing | None]] = {
                "unsigned_no_key": ("unsigned", None),
                "hmac_sha256": ("hmac-sha256", KeyRing.of(hmac_key)),
                "ed25519_private_key_holder": ("ed25519", KeyRing.of(ed25519)),
                "ed25519_public_key_only": ("ed25519", KeyRing([public])),
            }
            figures: dict[str, Any] = {"records": SIGNED_RECORDS}
            for case, (chain, keys) in cases.items():
                times, cpu = [], []
                for _ in range(3):
                    with store.transaction() as session:
                        started, started_cpu = time.perf_counter(), time.process_time()
                        result = verify_source(f"signed-{chain}", session=session, keys=keys)
                        times.append(time.perf_counter() - started)
                        cpu.append(time.process_time() - started_cpu)
                    if not (result.intact and result.checked == SIGNED_RECORDS):
                        raise RuntimeError(f"the signed chain does not verify: {result}")
                # Per CPU second too: SQLite runs in this process, so that figure is what
                # one core does, whatever else the machine is doing.
                figures[case] = {
                    "records_per_s": round(SIGNED_RECORDS / min(times)),
                    "records_per_cpu_s": round(SIGNED_RECORDS / min(cpu)),
                }
        finally:
            store.dispose()
    return figures


def _listing_figures(store: Store) -> dict[str, Any]:
    rows = [_profile_row(f"listed-{i:06d}", i, 1, "a" * 64) for i in range(PROFILES)]
    with store.transaction(write=True) as session:
        conn = session.connection()
        for start in range(0, PROFILES, 10_000):
            conn.execute(profiles.insert(), rows[start : start + 10_000])
    _analyze(store)

    def timed_ms(fn: Callable[[Any], object]) -> float:
        samples = []
        for _ in range(LIST_REPEATS):
            start = time.perf_counter()
            with store.transaction() as session:
                fn(session)
            samples.append((time.perf_counter() - start) * 1000)
        return round(_median(samples), 2)

    page = timed_ms(lambda s: list_profiles(session=s, limit=PAGE))
    page_risk = timed_ms(lambda s: list_profiles(session=s, risk="watch", limit=PAGE))
    count = timed_ms(lambda s: count_profiles(session=s))
    with_total = timed_ms(
        lambda s: (count_profiles(session=s), list_profiles(session=s, limit=PAGE))
    )
    return {
        "sources": PROFILES + 2,
        "first_page_of_100_ms": page,
        "first_page_risk_filter_ms": page_risk,
        "count_ms": count,
        "first_page_with_total_count_ms": with_total,
        "target_met": page <= TARGETS["list_first_page_ms_max"],
    }


# -- PostgreSQL ---------------------------------------------------------------------------


def _maintenance_url() -> str:
    base = make_url(os.environ.get("HARMWATCH_TEST_PG_URL", DEFAULT_PG_URL))
    return base.set(drivername="postgresql", database="postgres").render_as_string(
        hide_password=False
    )


def _pg_unreachable() -> str | None:
    try:
        psycopg.connect(_maintenance_url(), connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        return str(exc).splitlines()[0]
    return None


@contextmanager
def _scratch_pg_database() -> Iterator[str]:
    """A database made for this run through the ``postgres`` maintenance database."""
    base = make_url(os.environ.get("HARMWATCH_TEST_PG_URL", DEFAULT_PG_URL))
    maintenance = _maintenance_url()
    name = f"harmwatch_perf_{secrets.token_hex(6)}"
    with psycopg.connect(maintenance, autocommit=True, connect_timeout=5) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield base.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(maintenance, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def _postgres(results: list[Classification], rules: TrackingRules) -> dict[str, Any]:
    reason = _pg_unreachable()
    if reason is not None:
        return {"skipped": f"PostgreSQL unreachable: {reason}"}
    with _scratch_pg_database() as url:
        store = _open(url)
        try:
            _append_round(store, rules, results, 50, 0)
            rates: list[float] = []
            session_rates: list[float] = []
            plain: list[float] = []
            for r in range(APPEND_ROUNDS):
                offset = 50 + 2 * r * PG_APPEND_PER_ROUND
                rates.append(_append_round(store, rules, results, PG_APPEND_PER_ROUND, offset))
                session_rates.append(
                    _append_round(
                        store,
                        rules,
                        results,
                        PG_APPEND_PER_ROUND,
                        offset + PG_APPEND_PER_ROUND,
                        held=False,
                    )
                )
                plain.append(_plain_pg_round(url, PG_APPEND_PER_ROUND, offset))
            rate = _median(rates)
            ratios = [p / ours for p, ours in zip(plain, rates, strict=True)]
            return {
                "append": {
                    "store_append_per_s": round(rate),
                    "session_append_per_s": round(_median(session_rates)),
                    "plain_psycopg_insert_per_s": round(_median(plain)),
                    "ratio_plain_to_store": round(_median(ratios), 2),
                    "store_rounds_per_s": [round(r) for r in rates],
                    "plain_rounds_per_s": [round(p) for p in plain],
                    "target_met": rate >= TARGETS["postgresql_append_per_s_min"],
                },
                "verify": _verify_figures(store),
                "list": _listing_figures(store),
            }
        finally:
            store.dispose()


def store_section() -> dict[str, Any]:
    """Issue 3: append, verify and listing speed on SQLite and PostgreSQL."""
    results = _classified()
    rules = _rules()
    with tempfile.TemporaryDirectory(prefix="harmwatch-perf-") as tmp:
        directory = Path(tmp)
        sqlite_append = _sqlite_appends(directory, results, rules)
        store = _open(f"sqlite:///{directory / 'bulk.sqlite3'}")
        try:
            verify = _verify_figures(store)
            listing = _listing_figures(store)
        finally:
            store.dispose()
    return {
        "targets": TARGETS,
        "sqlite": {
            "append": sqlite_append,
            "verify": verify,
            "signed_verify": signed_verify_figures(results, rules),
            "list": listing,
        },
        "postgresql": _postgres(results, rules),
    }
