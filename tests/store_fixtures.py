"""Shared fixtures of the store tests: one store per test on SQLite and on PostgreSQL.

SQLite stores are files in ``tmp_path``. PostgreSQL tests run in a database
this module creates for the session (``harmwatch_test_<random>``, through the
``postgres`` maintenance database of the server in HARMWATCH_TEST_PG_URL) and
drops at the end; each test gets its own schema in it, so every test starts
from an empty, never-migrated store and nothing that existed before is
touched. An unreachable server skips those tests, unless CI=true, where it
fails them: CI must never pass by skipping.

Import what a test module needs from here (``from tests.store_fixtures import
...``): conftest.py belongs to the engine tests.
"""

from __future__ import annotations

import hashlib
import os
import secrets
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from sqlalchemy.engine import make_url

from engine import Classification, Settings
from engine.amplification import AmplificationResult
from engine.taxonomy import LoadedTaxonomy
from store import Store, TrackingRules, open_store

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]
MECHANISM_OF = {
    1: "false_attribution",
    2: "demonization",
    3: "animalization",
    4: "direct_call_to_violence",
}
CATEGORY_OF = {
    0: "none",
    1: "narrative_distortion",
    2: "dehumanization",
    3: "dehumanization",
    4: "incitement",
}
T0 = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def pg_test_url() -> str:
    return os.environ.get("HARMWATCH_TEST_PG_URL", DEFAULT_PG_URL)


def _conninfo(url: str, database: str) -> str:
    """A libpq URI for ``database`` on the server of an SQLAlchemy URL."""
    parsed = make_url(url).set(drivername="postgresql", database=database)
    return parsed.render_as_string(hide_password=False)


def _unreachable(reason: str) -> None:
    redacted = make_url(pg_test_url()).render_as_string(hide_password=True)
    message = f"PostgreSQL at {redacted} is unreachable ({reason}); set HARMWATCH_TEST_PG_URL"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}. CI=true: PostgreSQL tests must run, not skip.")
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A database created for this test session; dropped (it alone) at the end."""
    # Imported here, not at the top: the concurrency test's SQLite workers import
    # this module in fresh interpreters and have no use for the driver.
    import psycopg
    from psycopg import sql

    url = pg_test_url()
    name = f"harmwatch_test_{secrets.token_hex(6)}"
    try:
        maintenance = psycopg.connect(
            _conninfo(url, "postgres"), autocommit=True, connect_timeout=5
        )
    except psycopg.OperationalError as exc:
        _unreachable(str(exc).splitlines()[0])
    with maintenance:
        maintenance.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield str(make_url(url).set(database=name).render_as_string(hide_password=False))
    finally:
        with psycopg.connect(_conninfo(url, "postgres"), autocommit=True) as maintenance:
            maintenance.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def fresh_pg_schema(database_url: str) -> str:
    """A new empty schema in the session's database, and a URL whose search_path is it."""
    import psycopg
    from psycopg import sql

    schema = f"t_{secrets.token_hex(6)}"
    with psycopg.connect(_conninfo(database_url, make_url(database_url).database or "")) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    return f"{database_url}?options={quote(f'-csearch_path={schema}')}"


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A URL for an empty, never-migrated store on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/tracking.sqlite3"
    database: str = request.getfixturevalue("pg_database")
    return fresh_pg_schema(database)


@pytest.fixture
def settings(db_url: str) -> Settings:
    return Settings(_env_file=None, tracking_db_url=db_url)


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    opened = open_store(settings)
    try:
        yield opened
    finally:
        opened.dispose()


@pytest.fixture(scope="session")
def rules(taxonomy: LoadedTaxonomy) -> TrackingRules:
    """The shipped taxonomy's tracking rules: window 20, delta 0.5, 4 observations.

    ``taxonomy`` is conftest.py's session-wide shipped taxonomy.
    """
    return TrackingRules.from_taxonomy(taxonomy.root)


def classified(severity: int, text: str | None = None, *, version: str = "1.0.0") -> Classification:
    """A classification at a given severity without running the classifier.

    Tests of the store need exact severity sequences; which words would
    produce them is the engine's business, tested there.
    """
    content = text if text is not None else f"text of severity {severity}"
    harmful = severity > 0
    return Classification(
        is_harmful=harmful,
        harm_category=CATEGORY_OF[severity],
        confidence=0.9 if harmful else 0.0,
        target_type="religious_group" if harmful else None,
        identity_axis="religion" if harmful else None,
        harm_mechanism=MECHANISM_OF.get(severity),
        signals_matched=(),
        signals_suppressed=(),
        decision_rationale="HARM DETECTED: test." if harmful else "NO HARM: test.",
        taxonomy_version=version,
        language="en",
        language_confidence="verified",
        dogwhistle_matched=None,
        counter_narrative_guidance=None,
        content_hash=hashlib.sha256(content.encode("utf-8")).hexdigest(),
        matched_pattern=None,
        amplification=AmplificationResult(1.0, None, None, "not_configured"),
        timestamp="2026-01-02T03:04:05.678901Z",
        severity=severity,
    )


def with_text(result: Classification, text: str) -> Classification:
    return replace(result, content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest())


def at(step: int) -> datetime:
    """A fixed clock: observation ``step`` happens ``step`` seconds after T0."""
    return T0 + timedelta(seconds=step)


def append_worker(url: str, source_id: str, worker: int, count: int, barrier: object) -> None:
    """One process of the concurrency test: open the store, wait for the others, append.

    Module-level so that the spawn start method can import it in the child.
    """
    from store import append

    settings = Settings(_env_file=None, tracking_db_url=url)
    # The shipped taxonomy's tracking block, spelled out: loading the taxonomy in
    # eight fresh interpreters at once would take longer than all their appends.
    worker_rules = TrackingRules(
        window=20,
        trend_delta=0.5,
        min_observations=4,
        risk_levels=("low", "watch", "elevated", "critical"),
        risk_by_severity={0: "low", 1: "low", 2: "watch", 3: "elevated", 4: "critical"},
        escalation_raise=1,
    )
    barrier.wait()  # type: ignore[attr-defined]
    store = open_store(settings)
    try:
        # Even workers hold one connection (store.Writer, as the API's appender does),
        # odd ones take a Session per append (as a CLI observe does): both contend.
        with store.writer() as writer:
            for index in range(count):
                text = f"worker {worker} observation {index}"
                result = classified((worker + index) % 5, text)
                scope = writer.transaction() if worker % 2 == 0 else store.transaction(write=True)
                with scope as session:
                    append(
                        source_id,
                        result,
                        text=text,
                        store_text=True,
                        rules=worker_rules,
                        session=session,
                    )
    finally:
        store.dispose()
