"""Opening the tracking database: URL from settings, engine, sessions, migrations on first use.

Nothing here runs at import time; a front end calls ``open_store(settings)``
once at its entry point and passes the ``Store`` down. Every failure to reach,
open or migrate the database becomes one ``StoreUnavailable`` whose message
names the URL with its password replaced.

SQLite runs in WAL mode with ``synchronous=FULL`` (an acknowledged observation
survives power loss), a busy timeout (concurrent writers wait instead of
failing) and foreign keys on. pysqlite's own transaction handling is switched
off and ``BEGIN`` is emitted explicitly, because pysqlite would otherwise run
reads outside any transaction and never take the write lock up front;
write transactions begin with ``BEGIN IMMEDIATE`` so that two appenders can
never both hold a read snapshot and then race to upgrade it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import platformdirs
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from engine.settings import Settings
from store.errors import StoreMisconfigured, StoreUnavailable
from store.url_mask import redact_url, url_secrets

Backend = Literal["sqlite", "postgresql"]

DEFAULT_FILENAME = "tracking.sqlite3"
BUSY_TIMEOUT_MS = 30_000
PG_CONNECT_TIMEOUT_S = 5
# Execution option that makes a SQLite transaction start with BEGIN IMMEDIATE.
WRITE_OPTION = "harmwatch_write"
# Key of the PostgreSQL advisory lock that serializes concurrent first-use migrations.
MIGRATION_LOCK_KEY = 0x6861726D77617463  # "harmwatc"

# Failures that waiting will not cure (StoreMisconfigured). SQLite is a local file: every
# failure to use it is one, except another process holding the lock. A PostgreSQL server
# that answers and refuses the role or the database is one; anything else (refused,
# timed out, starting up, too many clients) may pass, and is a plain StoreUnavailable.
_SQLITE_TRANSIENT = re.compile(r"database is locked|database table is locked|busy", re.I)
_POSTGRES_PERMANENT = re.compile(
    r"FATAL:.*(does not exist|authentication failed|no pg_hba\.conf entry|permission denied)",
    re.I,
)
URL_HINT = "use sqlite:///PATH or postgresql+psycopg://USER[:PASSWORD]@HOST[:PORT]/DB"


def default_url() -> str:
    """An SQLite file in the user data directory (created on first use)."""
    path = platformdirs.user_data_path("harmwatch", appauthor=False) / DEFAULT_FILENAME
    return f"sqlite:///{path}"


def resolve_url(settings: Settings) -> str:
    """TRACKING_DB_URL wins over DATABASE_URL; neither → the default SQLite file.

    ``postgres://`` and ``postgresql://`` (what hosting providers hand out) mean
    the psycopg 3 driver, the only PostgreSQL driver harmwatch installs.
    """
    url = settings.tracking_db_url or settings.database_url or default_url()
    for bare in ("postgres://", "postgresql://"):
        if url.startswith(bare):
            return "postgresql+psycopg://" + url[len(bare) :]
    return url


def _first_line(exc: BaseException, secrets: list[str]) -> str:
    """The driver's own reason, one line, with the URL's secrets scrubbed should they appear."""
    original = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    lines = [line.strip() for line in str(original).splitlines() if line.strip()]
    reason = lines[0] if lines else type(original).__name__
    for secret in secrets:
        reason = reason.replace(secret, "***")
    return reason


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What ``Store.upgrade`` did: the revision before (None = empty database) and after."""

    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


class Store:
    """An opened tracking database: its engine and the sessions callers run transactions in.

    The caller owns every transaction: ``with store.transaction(write=True) as
    session: append(..., session=session)`` commits when the block ends and
    rolls back when it raises; store functions never commit. A long run of
    appends uses ``with store.writer() as writer`` and one ``writer.transaction()``
    per commit instead (see ``Writer``).
    """

    def __init__(self, engine: Engine, url: URL) -> None:
        self.engine = engine
        self.url = redact_url(url)
        self.backend: Backend = "sqlite" if url.get_backend_name() == "sqlite" else "postgresql"
        self._secrets = url_secrets(url)
        self._readers = sessionmaker(engine, expire_on_commit=False)
        self._writers = sessionmaker(
            engine, expire_on_commit=False, execution_options={WRITE_OPTION: True}
        )

    def session(self, *, write: bool = False) -> Session:
        """A new session; ``write=True`` for one that will append (BEGIN IMMEDIATE on SQLite)."""
        return (self._writers if write else self._readers)()

    @contextmanager
    def transaction(self, *, write: bool = False) -> Iterator[Session]:
        """One transaction: commit on success, rollback on error, database failures mapped."""
        with self.unavailable_as_error(), self.session(write=write) as session, session.begin():
            yield session

    @contextmanager
    def unavailable_as_error(self) -> Iterator[None]:
        """Turn the driver's connection and locking failures into StoreUnavailable."""
        try:
            yield
        except (OperationalError, InterfaceError) as exc:
            reason = _first_line(exc, self._secrets)
            raise self.fault(exc)(self.url, reason) from exc

    def fault(self, exc: BaseException) -> type[StoreUnavailable]:
        """StoreMisconfigured when waiting will not cure this driver failure, else
        StoreUnavailable (see _SQLITE_TRANSIENT, _POSTGRES_PERMANENT)."""
        original = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
        message = str(original)
        if self.backend == "sqlite":
            permanent = not _SQLITE_TRANSIENT.search(message)
        else:
            permanent = bool(_POSTGRES_PERMANENT.search(message))
        return StoreMisconfigured if permanent else StoreUnavailable

    @contextmanager
    def writer(self) -> Iterator[Writer]:
        """A connection held for a run of write transactions; released when the block ends."""
        held = Writer(self)
        try:
            yield held
        finally:
            held.close()

    def upgrade(self) -> MigrationReport:
        """Bring the schema to the newest revision; safe to run from many processes at once."""
        from store import migrations  # alembic is only imported when a schema is checked

        with self.unavailable_as_error():
            with self.engine.connect() as conn:
                before = migrations.current_revision(conn)
                head = migrations.head_revision()
                if before == head:
                    self._check_tables(conn)
                    return MigrationReport(before, head)
            writer = self.engine.connect().execution_options(**{WRITE_OPTION: True})
            with writer as conn, conn.begin():
                # Many processes may open a new database at once; one migrates, the others
                # wait here and then find nothing left to do.
                if self.backend == "postgresql":
                    conn.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                    )
                try:
                    migrations.upgrade(conn)
                except migrations.UnknownRevisionError as exc:
                    raise StoreMisconfigured(self.url, str(exc)) from None
                except DBAPIError as exc:
                    if isinstance(exc, OperationalError | InterfaceError):
                        raise
                    reason = f"cannot create the schema: {_first_line(exc, self._secrets)}"
                    raise StoreMisconfigured(self.url, reason) from exc
        return MigrationReport(before, head)

    def _check_tables(self, conn: Connection) -> None:
        """Every table and column of the models is there (a database stamped with the
        current revision whose tables were dropped or altered by hand is refused now,
        rather than failing each request later)."""
        from sqlalchemy import inspect

        from store.models import Base

        inspector = inspect(conn)
        for table in Base.metadata.sorted_tables:
            if not inspector.has_table(table.name):
                raise StoreMisconfigured(self.url, f"the schema has no table {table.name!r}")
            present = {column["name"] for column in inspector.get_columns(table.name)}
            missing = [column.name for column in table.columns if column.name not in present]
            if missing:
                raise StoreMisconfigured(
                    self.url, f"table {table.name!r} lacks column(s) {', '.join(missing)}"
                )

    def revision(self) -> str | None:
        """The schema revision the database is at (None before the first migration)."""
        from store import migrations

        with self.unavailable_as_error(), self.engine.connect() as conn:
            return migrations.current_revision(conn)

    def dispose(self) -> None:
        """Close pooled connections (end of a CLI command, a test or a worker)."""
        self.engine.dispose()


class Writer:
    """One pooled connection kept for many write transactions, each committed on its own.

    A transaction through ``Store.transaction`` checks a connection out of the
    pool and wraps it in an ORM Session: about 110 µs before any statement
    runs, a third of an SQLite append whose commit and fsync take 150-250 µs.
    Something that appends all day (the API's appender, a bulk import) keeps
    one connection instead and pays 15 µs per transaction. Store functions take
    the transaction's Connection as their ``session=``.

    A Writer is used by one thread at a time. After a lost connection (the
    transaction fails with StoreUnavailable) the next transaction reconnects.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn: Connection | None = None

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction (BEGIN IMMEDIATE on SQLite): commit on success, else rollback."""
        with self._store.unavailable_as_error():
            conn = self._conn
            if conn is None or conn.closed:
                conn = self._store.engine.connect().execution_options(**{WRITE_OPTION: True})
                self._conn = conn
            with conn.begin():
                yield conn

    def close(self) -> None:
        """Give the connection back to the pool (a later transaction takes a new one)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()


def _sqlite_engine(url: URL) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    kwargs: dict[str, Any] = {}
    if in_memory:
        # One shared connection, or every checkout would see a new empty database.
        kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun by _begin below
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if not in_memory:
                cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = FULL")
            cursor.execute("PRAGMA foreign_keys = ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        statement = "BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION) else "BEGIN"
        # Straight to the driver: this runs once per transaction, on the append's hot
        # path. Errors are wrapped as Connection.execute would (SQLAlchemy does not wrap
        # what a begin listener raises): a busy database is an OperationalError.
        try:
            conn.connection.driver_connection.execute(statement)  # type: ignore[union-attr]
        except sqlite3.Error as exc:
            raise DBAPIError.instance(statement, (), exc, sqlite3.Error) from exc

    return engine


def _postgres_engine(url: URL) -> Engine:
    # No pool_pre_ping: it costs a round trip per transaction (a tenth of an append);
    # a connection the server dropped fails one transaction (StoreUnavailable) and
    # SQLAlchemy then discards the pool's stale connections.
    return create_engine(
        url,
        connect_args={
            "connect_timeout": PG_CONNECT_TIMEOUT_S,
            "application_name": "harmwatch",
        },
    )


def create_store_engine(url: str) -> tuple[Engine, URL]:
    """An engine for a tracking URL (SQLite or PostgreSQL through psycopg), not yet connected."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise StoreMisconfigured(redact_url(url), f"not a database URL; {URL_HINT}") from None
    if "@" in (parsed.host or "") or "@" in (parsed.username or ""):
        # SQLAlchemy splits user:p@ss@host at the first "@": the driver would be given a
        # piece of the password as the host name, and might print it.
        raise StoreMisconfigured(
            redact_url(url), "an '@' in the user name or password must be written %40"
        )
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed), parsed
    if backend == "postgresql" and parsed.get_driver_name() == "psycopg":
        return _postgres_engine(parsed), parsed
    raise StoreMisconfigured(redact_url(parsed), f"unsupported database; {URL_HINT}")


def open_store(settings: Settings, *, migrate: bool = True) -> Store:
    """Open (and, on first use, create and migrate) the database the settings name.

    The default SQLite file's directory is created; a directory named in an
    explicit URL is not, so a typo in a path is reported instead of silently
    starting an empty store somewhere unexpected.
    """
    url = resolve_url(settings)
    if url == default_url():
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    engine, parsed = create_store_engine(url)
    store = Store(engine, parsed)
    try:
        if migrate:
            store.upgrade()
        else:
            with store.unavailable_as_error(), engine.connect():
                pass
    except DBAPIError as exc:
        # Anything else the driver says while opening (a file that is not a database,
        # a schema it cannot read) means the same to the user: this store cannot be used.
        store.dispose()
        raise StoreMisconfigured(store.url, _first_line(exc, store._secrets)) from exc
    except BaseException:
        store.dispose()
        raise
    return store
