"""The tracking store on SQLite and PostgreSQL: rules, appends, profiles, listing, verify, export.

The trend/risk table of SPEC section 5 is tested first as pure functions,
case by case, then through appends so the window the store cuts is tested
too. Tamper cases edit the database directly, as an attacker with write
access would.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

import store.tracking as tracking
from engine import LoadedTaxonomy, Settings
from store import (
    GENESIS_HASH,
    InvalidSourceId,
    InvalidTextError,
    Observation,
    Store,
    StoreUnavailable,
    TrackingRules,
    UnknownSource,
    Writer,
    append,
    count_profiles,
    export_chain,
    get_profile,
    iter_chain,
    latest_observations,
    list_profiles,
    open_store,
    redact_url,
    resolve_url,
    risk_of,
    trend_of,
    validate_source_id,
    verify_jsonl,
    verify_source,
)
from store.chain import canonical_decision, hash_fields, record_hash_v2
from store.database import default_url
from store.migrations import head_revision
from store.models import Base
from store.trend import Trend

# The shared store fixtures (db_url, settings, store, rules) form a plugin, because
# conftest.py is the engine's; registered for assertion rewriting before the import
# of its helpers, as pytest would do for a plugin it imports itself.
pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import at, classified, fresh_pg_schema  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

LEVELS = ("low", "watch", "elevated", "critical")


@pytest.fixture
def loaded(taxonomy: LoadedTaxonomy) -> LoadedTaxonomy:
    """conftest's session-wide shipped taxonomy (loading it takes a third of a second)."""
    return taxonomy


BY_SEVERITY = {0: "low", 1: "low", 2: "watch", 3: "elevated", 4: "critical"}


def trend(severities: Sequence[int], delta: float = 0.5) -> Trend:
    return trend_of(severities, delta=delta, min_observations=4)


# -- trend (SPEC section 5), case by case -------------------------------------------------


@pytest.mark.parametrize(
    ("severities", "expected"),
    [
        # k < 4 → stable, however steep
        ([4], "stable"),
        ([0, 4], "stable"),
        ([0, 0, 4], "stable"),
        ([4, 4, 0], "stable"),
        # k = 4: halves of two
        ([0, 0, 1, 1], "escalating"),
        ([1, 1, 0, 0], "de-escalating"),
        ([2, 2, 2, 2], "stable"),
        # the ±0.5 boundaries are inclusive
        ([1, 1, 1, 2], "escalating"),  # diff +0.5
        ([2, 1, 1, 1], "de-escalating"),  # diff -0.5
        ([1, 1, 1, 1, 1, 1, 1, 2], "stable"),  # diff +0.25
        ([1, 1, 1, 1, 1, 1, 2, 2], "escalating"),  # diff +0.5 over halves of 4
        ([2, 2, 1, 1, 1, 1, 1, 1], "de-escalating"),  # diff -0.5 over halves of 4
        ([1, 1, 1, 1, 1, 2], "stable"),  # diff +1/3
        ([1, 1, 1, 1, 2, 2], "escalating"),  # diff +2/3
        # odd k drops the middle observation
        ([0, 0, 4, 0, 0], "stable"),
        ([4, 4, 0, 4, 4], "stable"),
        ([0, 0, 0, 1, 1], "escalating"),
        ([2, 2, 4, 1, 1], "de-escalating"),
        ([1, 1, 1, 1, 4, 1, 1, 2, 2], "escalating"),  # [1,1,1,1] vs [1,1,2,2]: +0.5
    ],
)
def test_trend_table(severities: list[int], expected: Trend) -> None:
    assert trend(severities) == expected


def test_trend_delta_is_exact_for_decimal_settings() -> None:
    """0.7 − 0.4 is 0.29999999999999993 in floats; three tenths must still count as 0.3."""
    older = [0] * 6 + [1] * 4  # mean 0.4
    newer = [0] * 3 + [1] * 7  # mean 0.7
    assert trend(older + newer, delta=0.3) == "escalating"
    assert trend(newer + older, delta=0.3) == "de-escalating"
    assert trend(older + newer, delta=0.31) == "stable"


def test_trend_min_observations_is_a_parameter() -> None:
    assert trend_of([0, 4], delta=0.5, min_observations=2) == "escalating"
    assert trend_of([0, 0, 0, 4, 4, 4], delta=0.5, min_observations=7) == "stable"


# -- risk ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severity", "stable", "escalating"),
    [
        (0, "low", "watch"),
        (1, "low", "watch"),
        (2, "watch", "elevated"),
        (3, "elevated", "critical"),
        (4, "critical", "critical"),  # capped
    ],
)
def test_risk_table(severity: int, stable: str, escalating: str) -> None:
    def risk(t: Trend) -> str:
        return risk_of(severity, t, levels=LEVELS, by_severity=BY_SEVERITY, escalation_raise=1)

    assert risk("stable") == stable
    assert risk("de-escalating") == stable  # de-escalating never lowers it
    assert risk("escalating") == escalating


def test_rules_come_from_the_taxonomy_and_settings_win(loaded: LoadedTaxonomy) -> None:
    taxonomy = loaded.root
    defaults = TrackingRules.from_taxonomy(taxonomy, Settings(_env_file=None))
    assert (defaults.window, defaults.trend_delta, defaults.min_observations) == (20, 0.5, 4)
    assert defaults.risk_levels == LEVELS
    assert defaults.label("direct_call_to_violence", 4) == "DIRECT_VIOLENCE_CALL (4)"
    assert defaults.label(None, 0) == "NONE (0)"
    assert defaults.label("retired_mechanism", 2) == "RETIRED_MECHANISM (2)"
    tuned = TrackingRules.from_taxonomy(
        taxonomy, Settings(_env_file=None, tracking_window=6, tracking_trend_delta=1.0)
    )
    assert (tuned.window, tuned.trend_delta) == (6, 1.0)


# -- source_id ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source_id", ["x", "acct:12", "a" * 200, "ünïcødé", "emoji😀", 'quo"te', "back\\slash"]
)
def test_valid_source_ids(source_id: str) -> None:
    assert validate_source_id(source_id) == source_id


@pytest.mark.parametrize(
    ("source_id", "rule"),
    [
        ("", "must be 1–200 characters, not 0"),
        ("a" * 201, "must be 1–200 characters, not 201"),
        ("a b", "must not contain whitespace (U+0020 at character 2"),
        ("a\tb", "must not contain whitespace (U+0009 at character 2"),
        ("a\u00a0b", "must not contain whitespace (U+00A0"),
        ("a/b", "must not contain '/' (character 2"),
        ("a\x00b", "must not contain control characters (U+0000 at character 2"),
        ("a\x1bb", "must not contain control characters (U+001B"),
        ("a\x85b", "must not contain whitespace (U+0085"),
        ("a\u200bb", "must not contain control characters (U+200B"),
        ("a\u202eb", "must not contain control characters (U+202E"),
        ("a\ud800b", "must not contain surrogates (U+D800"),
    ],
)
def test_invalid_source_ids_name_the_rule(source_id: str, rule: str) -> None:
    with pytest.raises(InvalidSourceId) as caught:
        validate_source_id(source_id)
    message = str(caught.value)
    assert message.startswith(f"source_id {rule}")
    assert "no whitespace, no '/', no control characters" in message
    assert isinstance(caught.value, ValueError)  # a 422 for the API


# -- settings, URLs, migrations -----------------------------------------------------------


def test_tracking_db_url_wins_over_database_url() -> None:
    both = Settings(_env_file=None, tracking_db_url="sqlite:///a.db", database_url="sqlite:///b")
    assert resolve_url(both) == "sqlite:///a.db"
    assert resolve_url(Settings(_env_file=None, database_url="sqlite:///b")) == "sqlite:///b"
    hosted = Settings(_env_file=None, database_url="postgres://u:p@h/db")
    assert resolve_url(hosted) == "postgresql+psycopg://u:p@h/db"


def test_default_is_an_sqlite_file_in_the_user_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    settings = Settings(_env_file=None)
    assert resolve_url(settings) == default_url()
    assert default_url() == f"sqlite:///{tmp_path}/data/harmwatch/tracking.sqlite3"
    opened = open_store(settings)
    try:
        assert (tmp_path / "data" / "harmwatch" / "tracking.sqlite3").is_file()
        with opened.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar_one() >= 5000
    finally:
        opened.dispose()


def test_redact_url_hides_only_the_password() -> None:
    url = "postgresql+psycopg://analyst:s3cr3t@db.example:5432/harmwatch"
    assert redact_url(url) == "postgresql+psycopg://analyst:***@db.example:5432/harmwatch"
    assert "s3cr3t" not in redact_url("weird://analyst:s3cr3t@host:notaport/x")


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("postgresql+psycopg://u:hunter2@127.0.0.1:1/x", "u:***@127.0.0.1:1/x"),
        ("sqlite:////nonexistent-dir/sub/tracking.db", "unable to open database file"),
        ("mysql://u:hunter2@host/db", "unsupported database"),
        ("not a url", "not a database URL"),
    ],
)
def test_an_unusable_database_is_one_clear_error(url: str, needle: str) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        open_store(Settings(_env_file=None, tracking_db_url=url))
    message = str(caught.value)
    assert needle in message
    assert "hunter2" not in message
    assert "\n" not in message


def test_first_use_migrates_to_head_and_matches_the_models(store: Store) -> None:
    assert store.revision() == head_revision() == "0004"
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diffs == []
    assert not store.upgrade().changed


def test_a_newer_schema_is_refused_with_a_clear_message(store: Store) -> None:
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(StoreUnavailable, match=r"revision '9999'.*upgrade harmwatch"):
        store.upgrade()


def test_importing_store_loads_no_front_end_and_no_alembic() -> None:
    code = (
        "import sys, store\n"
        "bad = [m for m in ('fastapi', 'typer', 'textual', 'uvicorn', 'rich', 'workbench',"
        " 'alembic') if m in sys.modules]\n"
        "print(','.join(bad))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""


# -- append -------------------------------------------------------------------------------


def observe(
    store: Store,
    rules: TrackingRules,
    source_id: str,
    severities: Sequence[int],
    *,
    start: int = 0,
) -> list[Any]:
    """Append one observation per severity, each in its own transaction, on a fixed clock."""
    out = []
    for step, severity in enumerate(severities, start=start):
        content = f"{source_id} says thing {step}"
        with store.transaction(write=True) as session:
            out.append(
                append(
                    source_id,
                    classified(severity, content),
                    text=content,
                    store_text=True,
                    rules=rules,
                    session=session,
                    observed_at=at(step),
                )
            )
    return out


def test_the_first_append_starts_the_chain(store: Store, rules: TrackingRules) -> None:
    ((observation, profile),) = observe(store, rules, "acct:1", [3])
    assert observation.seq == 1
    assert observation.prev_hash == GENESIS_HASH
    assert observation.observed_at == "2026-01-02T03:04:05.678901Z"
    assert observation.text == "acct:1 says thing 0"
    assert observation.record_version == 2
    assert observation.published_at == observation.observed_at  # none given: observed_at
    assert observation.decision == {
        "harm_category": "dehumanization",
        "confidence": 0.9,
        "matched_pattern": None,
        "row_id": None,
        "spans": [],
        "suppressions": [],
        "language": "en",
        "taxonomy_digest": None,
    }
    assert observation.record_hash == record_hash_v2(
        source_id="acct:1",
        seq=1,
        observed_at=observation.observed_at,
        published_at=observation.observed_at,
        content_hash=hashlib.sha256(b"acct:1 says thing 0").hexdigest(),
        attachment_hash=None,
        harm_mechanism="animalization",
        severity=3,
        decision=canonical_decision(observation.decision),
        taxonomy_version="1.0.0",
        prev_hash=GENESIS_HASH,
    )
    assert profile.to_dict() == {
        "source_id": "acct:1",
        "observation_count": 1,
        "current_severity": 3,
        "current_severity_label": "ANIMALIZATION (3)",
        "rolling_average_severity": 3.0,
        "window": 20,
        "trend": "stable",
        "risk_level": "elevated",
        "first_observed_at": observation.observed_at,
        "last_observed_at": observation.observed_at,
        "head_hash": observation.record_hash,
        "peak_severity": 3,
        "severity_counts": {"0": 0, "1": 0, "2": 0, "3": 1, "4": 0},
        "last_escalation_at": observation.published_at,  # low -> elevated at the first
    }
    with store.transaction() as session:
        assert get_profile("acct:1", session=session) == profile


def test_appends_link_and_the_profile_follows(store: Store, rules: TrackingRules) -> None:
    results = observe(store, rules, "acct:1", [0, 0, 0, 4, 4])
    observations = [o for o, _ in results]
    assert [o.seq for o in observations] == [1, 2, 3, 4, 5]
    for before, after in itertools.pairwise(observations):
        assert after.prev_hash == before.record_hash
    profile = results[-1][1]
    assert profile.observation_count == 5
    assert profile.current_severity_label == "DIRECT_VIOLENCE_CALL (4)"
    assert profile.rolling_average_severity == pytest.approx(1.6)
    assert profile.trend == "escalating"  # [0,0] vs [4,4]
    assert profile.risk_level == "critical"
    assert profile.first_observed_at == observations[0].observed_at
    assert profile.last_observed_at == observations[-1].observed_at
    assert profile.head_hash == observations[-1].record_hash


def test_a_not_harmful_observation_is_null_mechanism_and_severity_0(
    store: Store, rules: TrackingRules
) -> None:
    # A classifier result that is not harmful but names its best surviving mechanism.
    weak = replace(classified(3, "x"), is_harmful=False)
    with store.transaction(write=True) as session:
        observation, profile = append(
            "acct:1", weak, text="x", store_text=True, rules=rules, session=session
        )
    assert (observation.harm_mechanism, observation.severity) == (None, 0)
    assert profile.current_severity_label == "NONE (0)"
    assert profile.risk_level == "low"


@pytest.mark.parametrize(
    ("steps", "average", "expected_trend", "risk"),
    [
        (3, 8 / 3, "stable", "low"),  # [4,4,0]: k < 4
        (4, 2.0, "de-escalating", "low"),  # [4,4,0,0]
        (5, 1.0, "de-escalating", "low"),  # [4,0,0,0]: the first 4 left the window
        (6, 0.0, "stable", "low"),  # [0,0,0,0]
        (8, 1.0, "escalating", "elevated"),  # [0,0,2,2]: watch (2) raised one level
    ],
)
def test_the_window_slides(
    db_url: str, loaded: LoadedTaxonomy, steps: int, average: float, expected_trend: str, risk: str
) -> None:
    """TRACKING_WINDOW=4: only the latest four observations count."""
    settings = Settings(_env_file=None, tracking_db_url=db_url, tracking_window=4)
    window_rules = TrackingRules.from_taxonomy(loaded.root, settings)
    opened = open_store(settings)
    try:
        severities = [4, 4, 0, 0, 0, 0, 2, 2][:steps]
        profile = observe(opened, window_rules, "acct:1", severities)[-1][1]
    finally:
        opened.dispose()
    assert profile.window == 4
    assert profile.rolling_average_severity == pytest.approx(average)
    assert profile.trend == expected_trend
    assert profile.risk_level == risk


def test_a_larger_window_setting_reads_the_older_severities_back(
    db_url: str, loaded: LoadedTaxonomy
) -> None:
    small = Settings(_env_file=None, tracking_db_url=db_url, tracking_window=2)
    large = Settings(_env_file=None, tracking_db_url=db_url, tracking_window=6)
    taxonomy = loaded.root
    opened = open_store(small)
    try:
        observe(opened, TrackingRules.from_taxonomy(taxonomy, small), "acct:1", [0, 0, 0, 4, 4])
        profile = observe(
            opened, TrackingRules.from_taxonomy(taxonomy, large), "acct:1", [4], start=5
        )[-1][1]
    finally:
        opened.dispose()
    # Window 6 over [0,0,0,4,4,4]: the profile held only two, the chain gave the rest.
    assert profile.rolling_average_severity == pytest.approx(2.0)
    assert profile.trend == "escalating"


def test_store_text_false_keeps_no_text(store: Store, rules: TrackingRules) -> None:
    with store.transaction(write=True) as session:
        observation, _ = append(
            "acct:1",
            classified(2, "private words"),
            text="private words",
            store_text=False,
            rules=rules,
            session=session,
        )
    assert observation.text is None
    with store.engine.connect() as conn:
        stored = conn.execute(text("SELECT text, content_hash FROM observations")).one()
    assert stored == (None, hashlib.sha256(b"private words").hexdigest())
    with store.transaction() as session:
        assert verify_source("acct:1", session=session).intact


@pytest.mark.parametrize("write", [True, False])
def test_a_locked_sqlite_database_is_unavailable_not_a_crash(
    tmp_path: Path, rules: TrackingRules, monkeypatch: pytest.MonkeyPatch, write: bool
) -> None:
    """Another writer holding the lock past the busy timeout: a clear StoreUnavailable,
    whether the wait happens at BEGIN IMMEDIATE or at the append's first write."""
    monkeypatch.setattr("store.database.BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "locked.sqlite3"
    opened = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{path}"))
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with (
            pytest.raises(StoreUnavailable, match="database is locked"),
            opened.transaction(write=write) as session,
        ):
            append(
                "acct:1", classified(1), text=None, store_text=False, rules=rules, session=session
            )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        opened.dispose()


def test_a_text_that_is_not_the_classified_one_is_refused(
    store: Store, rules: TrackingRules
) -> None:
    with (
        pytest.raises(ValueError, match="content_hash differs"),
        store.transaction(write=True) as session,
    ):
        append("a", classified(2, "one"), text="two", store_text=True, rules=rules, session=session)
    lone = "bad \ud800 text"
    result = replace(
        classified(2),
        content_hash=hashlib.sha256(lone.encode("utf-8", "surrogatepass")).hexdigest(),
    )
    with (
        pytest.raises(InvalidTextError, match="lone surrogates"),
        store.transaction(write=True) as session,
    ):
        append("a", result, text=lone, store_text=True, rules=rules, session=session)


def test_an_invalid_source_id_never_reaches_the_database(
    store: Store, rules: TrackingRules
) -> None:
    with pytest.raises(InvalidSourceId), store.transaction(write=True) as session:
        append("a b", classified(1), text=None, store_text=True, rules=rules, session=session)
    with store.transaction() as session:
        assert count_profiles(session=session) == 0


class _Boom:
    """A statement that fails after the observation is written: a crash mid-append."""

    def execute(self, conn: Connection, params: dict[str, Any]) -> Any:
        raise RuntimeError("crash after the observation insert")


@pytest.mark.parametrize("existing", [0, 3])
def test_an_append_lands_with_its_profile_update_or_not_at_all(
    store: Store, rules: TrackingRules, monkeypatch: pytest.MonkeyPatch, existing: int
) -> None:
    observe(store, rules, "acct:1", [2] * existing)
    with store.engine.connect() as conn:
        before = conn.execute(text("SELECT * FROM source_profiles")).all()
    dialect = store.engine.dialect.name
    saving = tracking._SAVE[dialect]
    monkeypatch.setitem(tracking._SAVE, dialect, (*saving, _Boom()))
    with pytest.raises(RuntimeError, match="crash after"), store.transaction(write=True) as session:
        append(
            "acct:1", classified(4, "x"), text="x", store_text=True, rules=rules, session=session
        )
        # Inside the transaction the observation was there...
    monkeypatch.setitem(tracking._SAVE, dialect, saving)
    with store.engine.connect() as conn:
        # ...and after the rollback nothing of it is left.
        assert conn.execute(text("SELECT count(*) FROM observations")).scalar() == existing
        assert conn.execute(text("SELECT * FROM source_profiles")).all() == before
    if existing:
        with store.transaction() as session:
            assert verify_source("acct:1", session=session).checked == existing
    [(observation, _profile)] = observe(store, rules, "acct:1", [1], start=existing)
    assert observation.seq == existing + 1


def test_the_seq_is_unique_per_source(store: Store, rules: TrackingRules) -> None:
    """The backstop: even a buggy writer cannot give two records the same seq."""
    first = observe(store, rules, "acct:1", [1])[0][0]
    row = {**first.to_row(), "record_hash": "e" * 64}
    with pytest.raises(IntegrityError), store.engine.begin() as conn:
        conn.execute(tracking.observations.insert(), row)


def _writer_append(writer: Writer, rules: TrackingRules, source_id: str, step: int) -> Any:
    content = f"{source_id} says thing {step}"
    with writer.transaction() as conn:
        return append(
            source_id,
            classified(step % 5, content),
            text=content,
            store_text=True,
            rules=rules,
            session=conn,
            observed_at=at(step),
        )


def test_a_writer_commits_each_transaction_on_one_held_connection(
    store: Store, rules: TrackingRules
) -> None:
    with store.writer() as writer:
        first = _writer_append(writer, rules, "acct:1", 0)
        with writer.transaction() as conn:
            held = conn.connection.dbapi_connection
        for step in range(1, 6):
            _writer_append(writer, rules, "acct:1" if step % 2 else "acct:2", step)
        with writer.transaction() as conn:
            assert conn.connection.dbapi_connection is held
    assert first[0].seq == 1
    # Every transaction was committed on its own: a fresh session sees them all.
    with store.transaction() as session:
        assert get_profile("acct:1", session=session).observation_count == 4
        assert get_profile("acct:2", session=session).observation_count == 2
        assert verify_source("acct:1", session=session).intact
        assert verify_source("acct:2", session=session).intact
        chain = [o.to_dict() for o in iter_chain("acct:1", session=session)]
    # The same appends through one Session each give the same records.
    assert chain[0] == first[0].to_dict()


def test_a_failed_writer_transaction_rolls_back_and_the_writer_goes_on(
    store: Store, rules: TrackingRules, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialect = store.engine.dialect.name
    saving = tracking._SAVE[dialect]
    with store.writer() as writer:
        _writer_append(writer, rules, "acct:1", 0)
        monkeypatch.setitem(tracking._SAVE, dialect, (*saving, _Boom()))
        with pytest.raises(RuntimeError, match="crash after"):
            _writer_append(writer, rules, "acct:1", 1)
        monkeypatch.setitem(tracking._SAVE, dialect, saving)
        observation, profile = _writer_append(writer, rules, "acct:1", 2)
    assert (observation.seq, profile.observation_count) == (2, 2)
    with store.transaction() as session:
        assert verify_source("acct:1", session=session).checked == 2


def test_a_writer_reconnects_after_the_server_drops_its_connection(
    pg_database: str, rules: TrackingRules
) -> None:
    """PostgreSQL only: a server that ends the session under a held connection."""
    store = open_store(Settings(_env_file=None, tracking_db_url=fresh_pg_schema(pg_database)))
    with store.writer() as writer:
        _writer_append(writer, rules, "acct:1", 0)
        with writer.transaction() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with store.engine.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            admin.commit()
        with pytest.raises(StoreUnavailable):
            _writer_append(writer, rules, "acct:1", 1)
        observation, _ = _writer_append(writer, rules, "acct:1", 2)
    store.dispose()
    assert observation.seq == 2


def test_a_locked_sqlite_database_fails_a_writer_transaction_then_it_goes_on(
    tmp_path: Path, rules: TrackingRules, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("store.database.BUSY_TIMEOUT_MS", 50)
    path = tmp_path / "locked.sqlite3"
    opened = open_store(Settings(_env_file=None, tracking_db_url=f"sqlite:///{path}"))
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        with opened.writer() as writer:
            holder.execute("BEGIN IMMEDIATE")
            with pytest.raises(StoreUnavailable, match="database is locked"):
                _writer_append(writer, rules, "acct:1", 0)
            holder.execute("ROLLBACK")
            observation, _ = _writer_append(writer, rules, "acct:1", 1)
        assert observation.seq == 1
    finally:
        holder.close()
        opened.dispose()


# -- reading ------------------------------------------------------------------------------


def test_unknown_source_is_a_clear_error(store: Store) -> None:
    with store.transaction() as session:
        for call in (get_profile, verify_source, latest_observations):
            with pytest.raises(UnknownSource, match=r"^unknown source 'nobody'$"):
                call("nobody", session=session)
        with pytest.raises(UnknownSource):
            export_chain("nobody", io.BytesIO(), session=session)
        with pytest.raises(UnknownSource):
            list(iter_chain("nobody", session=session))


def test_latest_observations_are_newest_first(store: Store, rules: TrackingRules) -> None:
    observe(store, rules, "acct:1", [0, 1, 2, 3, 4])
    observe(store, rules, "acct:2", [4])
    with store.transaction() as session:
        latest = latest_observations("acct:1", session=session, limit=3)
        chain = list(iter_chain("acct:1", session=session))
    assert [o.seq for o in latest] == [5, 4, 3]
    assert [o.severity for o in latest] == [4, 3, 2]
    assert [o.seq for o in chain] == [1, 2, 3, 4, 5]


def _profiles_fixture(store: Store, rules: TrackingRules) -> None:
    """Sources that differ in exactly one listing key at a time."""
    plan = {
        "crit-old": [4],
        "crit-new": [4],
        "elev-esc": [0, 0, 2, 2],  # watch raised to elevated by escalation; severity 2
        "elev-plain": [3],  # elevated, severity 3: before elev-esc
        "watch-hi-avg": [4, 4, 4, 2],  # watch, average 3.5
        "watch-lo-avg": [2, 2, 2, 2],  # watch, average 2.0
        "low-b": [1],
        "low-a": [1],  # same keys as low-b except source_id
        "low-zero": [0],
    }
    step = 0
    for source_id, severities in plan.items():
        observe(store, rules, source_id, severities, start=step)
        step += len(severities)
    # low-a and low-b must tie on last_observed_at to exercise the source_id tie-break.
    with store.engine.begin() as conn:
        conn.execute(
            text("UPDATE source_profiles SET last_observed_at = :t WHERE source_id LIKE 'low-_'"),
            {"t": "2026-01-02T03:10:00.000000Z"},
        )


LISTING = [
    "crit-new",
    "crit-old",
    "elev-plain",
    "elev-esc",
    "watch-hi-avg",
    "watch-lo-avg",
    "low-a",
    "low-b",
    "low-zero",
]


def test_listing_order(store: Store, rules: TrackingRules) -> None:
    _profiles_fixture(store, rules)
    with store.transaction() as session:
        listed = list_profiles(session=session)
        assert [p.source_id for p in listed] == LISTING
        assert count_profiles(session=session) == len(LISTING)
        pages = [
            p.source_id
            for offset in range(0, len(LISTING), 4)
            for p in list_profiles(session=session, limit=4, offset=offset)
        ]
    assert pages == LISTING
    escalated = next(p for p in listed if p.source_id == "elev-esc")
    assert (escalated.trend, escalated.risk_level) == ("escalating", "elevated")


@pytest.mark.parametrize(
    ("risk", "expected"),
    [
        ("critical", ["crit-new", "crit-old"]),
        ("elevated", ["elev-plain", "elev-esc"]),
        ("watch", ["watch-hi-avg", "watch-lo-avg"]),
        ("low", ["low-a", "low-b", "low-zero"]),
        ("unheard-of", []),
    ],
)
def test_risk_filter(store: Store, rules: TrackingRules, risk: str, expected: list[str]) -> None:
    _profiles_fixture(store, rules)
    with store.transaction() as session:
        assert [p.source_id for p in list_profiles(session=session, risk=risk)] == expected
        assert count_profiles(session=session, risk=risk) == len(expected)


@pytest.mark.parametrize(("limit", "offset"), [(0, 0), (1001, 0), (10, -1)])
def test_listing_bounds(store: Store, limit: int, offset: int) -> None:
    with store.transaction() as session, pytest.raises(ValueError, match=r"limit|offset"):
        list_profiles(session=session, limit=limit, offset=offset)


@pytest.fixture
def statements(store: Store) -> Iterator[list[str]]:
    seen: list[str] = []

    def record(_c: Any, _cur: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", record)
    yield seen
    event.remove(store.engine, "before_cursor_execute", record)


def test_listing_reads_the_profile_table_only_through_its_index(
    store: Store, rules: TrackingRules, statements: list[str]
) -> None:
    _profiles_fixture(store, rules)
    statements.clear()
    with store.transaction() as session:
        list_profiles(session=session)
        list_profiles(session=session, risk="low")
        count_profiles(session=session)
    assert statements
    assert not [s for s in statements if "observations" in s]
    with store.engine.connect() as conn:
        if store.backend == "sqlite":
            for query, index in (
                (tracking._LIST_ALL, "ix_source_profiles_listing"),
                (tracking._LIST_RISK, "ix_source_profiles_risk"),
            ):
                plan = _sqlite_plan(conn, str(query.compile(store.engine)))
                assert index in plan
                assert "TEMP B-TREE" not in plan  # no sort: the index is in listing order
        else:
            conn.exec_driver_sql("SET enable_seqscan = off")
            plan = _pg_plan(
                conn,
                "risk_rank DESC, current_severity DESC, rolling_average_severity DESC, "
                "last_observed_at DESC, source_id",
            )
            assert "ix_source_profiles_listing" in plan
            assert "Sort" not in plan


def _sqlite_plan(conn: Connection, query: str) -> str:
    params = tuple(["low", 50, 0] if query.count("?") == 3 else [50, 0])
    rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {query}", params).all()
    return " | ".join(str(row[-1]) for row in rows)


def _pg_plan(conn: Connection, order: str) -> str:
    rows = conn.exec_driver_sql(
        f"EXPLAIN SELECT * FROM source_profiles ORDER BY {order} LIMIT 100"
    ).all()
    return " | ".join(str(row[0]) for row in rows)


# -- verify and export --------------------------------------------------------------------


@pytest.fixture
def chain10(store: Store, rules: TrackingRules) -> list[Any]:
    return [o for o, _ in observe(store, rules, "acct:1", [0, 1, 2, 3, 4, 0, 1, 2, 3, 4])]


def _verify(store: Store) -> Any:
    with store.transaction() as session:
        return verify_source("acct:1", session=session)


def _sql(store: Store, statement: str, **params: Any) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(statement), params)


def _rehashed(observation: Observation, **changes: Any) -> dict[str, Any]:
    """The record changed and re-hashed (version 2, as appended), as a table row."""
    changed = replace(observation, **changes)
    digest = hash_fields(changed.to_dict())
    return replace(changed, record_hash=digest).to_row()


def test_an_untouched_chain_is_intact(store: Store, chain10: list[Any]) -> None:
    assert _verify(store).to_dict() == {
        "source_id": "acct:1",
        "intact": True,
        "checked": 10,
        "head_hash": chain10[-1].record_hash,
        "first_broken_seq": None,
        "reason": None,
    }


def test_edited_field_is_caught(store: Store, chain10: list[Any]) -> None:
    _sql(store, "UPDATE observations SET severity = 0, harm_mechanism = NULL WHERE seq = 5")
    result = _verify(store)
    assert (result.first_broken_seq, result.checked) == (5, 4)
    assert result.reason == "record_hash of seq 5 does not match its fields"
    assert result.head_hash == chain10[3].record_hash


def test_edited_timestamp_is_caught(store: Store, chain10: list[Any]) -> None:
    _sql(store, "UPDATE observations SET observed_at = '2020-01-01T00:00:00.000000Z' WHERE seq = 2")
    assert _verify(store).first_broken_seq == 2


def test_deleted_row_is_caught(store: Store, chain10: list[Any]) -> None:
    _sql(store, "DELETE FROM observations WHERE seq = 5")
    result = _verify(store)
    assert result.first_broken_seq == 5
    assert result.reason == "seq 5 is missing or out of order (found seq 6)"


def test_inserted_row_is_caught(store: Store, chain10: list[Any]) -> None:
    """A well-formed forgery at seq 5 (later rows renumbered) passes; seq 6 no longer links."""
    for seq in range(10, 4, -1):  # one row at a time: the unique (source_id, seq) holds
        _sql(store, "UPDATE observations SET seq = seq + 1 WHERE seq = :s", s=seq)
    forged = _rehashed(chain10[4], content_hash="f" * 64, text=None)
    with store.engine.begin() as conn:
        conn.execute(tracking.observations.insert(), forged)
    result = _verify(store)
    assert result.first_broken_seq == 6
    assert result.reason == "prev_hash of seq 6 does not match the record_hash of seq 5"


def test_swapped_rows_are_caught(store: Store, chain10: list[Any]) -> None:
    _sql(store, "UPDATE observations SET seq = 100 WHERE seq = 5")
    _sql(store, "UPDATE observations SET seq = 5 WHERE seq = 6")
    _sql(store, "UPDATE observations SET seq = 6 WHERE seq = 100")
    result = _verify(store)
    assert result.first_broken_seq == 5
    assert result.reason == "prev_hash of seq 5 does not match the record_hash of seq 4"


def test_rewritten_hash_is_caught_at_the_next_record(store: Store, chain10: list[Any]) -> None:
    forged = _rehashed(chain10[4], severity=0, harm_mechanism=None)
    _sql(
        store,
        "UPDATE observations SET severity = 0, harm_mechanism = NULL, record_hash = :h "
        "WHERE seq = 5",
        h=forged["record_hash"],
    )
    result = _verify(store)
    assert result.first_broken_seq == 6
    assert result.reason == "prev_hash of seq 6 does not match the record_hash of seq 5"


def test_a_consistently_rewritten_tail_is_caught_by_the_profile(
    store: Store, chain10: list[Any]
) -> None:
    prev = chain10[6].record_hash
    for observation in chain10[7:]:
        forged = _rehashed(observation, prev_hash=prev, severity=0, harm_mechanism=None)
        _sql(
            store,
            "UPDATE observations SET severity = 0, harm_mechanism = NULL, prev_hash = :p, "
            "record_hash = :h WHERE seq = :s",
            p=prev,
            h=forged["record_hash"],
            s=observation.seq,
        )
        prev = forged["record_hash"]
    result = _verify(store)
    assert (result.first_broken_seq, result.checked) == (10, 9)
    assert "does not carry the profile's head_hash" in (result.reason or "")


def test_deleted_tail_is_caught_by_the_profile(store: Store, chain10: list[Any]) -> None:
    _sql(store, "DELETE FROM observations WHERE seq >= 9")
    result = _verify(store)
    assert result.first_broken_seq == 9
    assert "ends at seq 8 but the profile records 10" in (result.reason or "")


def test_a_record_appended_behind_the_stores_back_is_caught(
    store: Store, chain10: list[Any]
) -> None:
    extra = _rehashed(replace(chain10[-1], seq=11, prev_hash=chain10[-1].record_hash))
    with store.engine.begin() as conn:
        conn.execute(tracking.observations.insert(), extra)
    result = _verify(store)
    assert result.first_broken_seq == 11
    assert "beyond the profile's head" in (result.reason or "")


def test_edited_text_is_caught(store: Store, chain10: list[Any]) -> None:
    _sql(store, "UPDATE observations SET text = 'innocent words' WHERE seq = 3")
    result = _verify(store)
    assert result.first_broken_seq == 3
    assert result.reason == "text of seq 3 does not match its content_hash"


def test_export_then_verify_the_file(store: Store, chain10: list[Any], tmp_path: Path) -> None:
    out = io.BytesIO()
    with store.transaction() as session:
        written = export_chain("acct:1", out, session=session)
    assert written == 10
    lines = out.getvalue().splitlines()
    first = orjson.loads(lines[0])
    assert list(first) == [
        "source_id",
        "seq",
        "observed_at",
        "text",
        "content_hash",
        "harm_mechanism",
        "severity",
        "taxonomy_version",
        "prev_hash",
        "record_hash",
        "record_version",
        "published_at",
        "url",
        "metadata",
        "attachment_hash",
        "decision",
        "redacted",
    ]
    assert first == chain10[0].to_dict()
    result = verify_jsonl(io.BytesIO(out.getvalue()))
    assert result.intact and result.checked == 10
    assert result.head_hash == _verify(store).head_hash
    tampered = out.getvalue().replace(b'"severity":3', b'"severity":1', 1)
    assert verify_jsonl(io.BytesIO(tampered)).first_broken_seq == 4
