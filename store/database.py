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

An SQLite file can also be opened read-only (``open_store(read_only=True)``,
what the reading commands do, or by itself when nobody may write the file):
see ``sqlite_read_only_uri`` and docs/tracking.md, "Evidence on read-only
media". Such a store never migrates, never changes the journal mode, and
refuses every write transaction with ``StoreReadOnly``.
"""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import platformdirs
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from engine.settings import Settings
from store.errors import StoreMisconfigured, StoreReadOnly, StoreUnavailable
from store.url_mask import redact_url, url_secrets

Backend = Literal["sqlite", "postgresql"]

DEFAULT_FILENAME = "tracking.sqlite3"
BUSY_TIMEOUT_MS = 30_000
# Switching a new file to WAL takes an exclusive lock for which SQLite may answer
# "database is locked" at once instead of calling the busy handler: processes that
# open one new database together retry it, this often, for the busy timeout.
WAL_RETRY_S = 0.02
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
# What SQLite says when a write reaches a file it opened read-only.
_SQLITE_READ_ONLY = re.compile(r"readonly database|read-only file system", re.I)


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

    def __init__(self, engine: Engine, url: URL, *, read_only: str | None = None) -> None:
        self.engine = engine
        self.url = redact_url(url)
        self.backend: Backend = "sqlite" if url.get_backend_name() == "sqlite" else "postgresql"
        # Why the store is read-only (a phrase for the error line), or None when it is not.
        self.read_only = read_only
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
        """One transaction: commit on success, rollback on error, database failures mapped.

        ``write=True`` on a read-only store is refused (StoreReadOnly) before anything runs.
        """
        if write:
            self.check_writable()
        with self.unavailable_as_error(), self.session(write=write) as session, session.begin():
            yield session

    def check_writable(self) -> None:
        """StoreReadOnly when this store was opened read-only: one line saying why."""
        if self.read_only is not None:
            raise StoreReadOnly(self.url, f"nothing can be recorded ({self.read_only})")

    @contextmanager
    def unavailable_as_error(self) -> Iterator[None]:
        """Turn the driver's connection and locking failures into StoreUnavailable."""
        try:
            yield
        except (OperationalError, InterfaceError) as exc:
            reason = _first_line(exc, self._secrets)
            if self.backend == "sqlite" and _SQLITE_READ_ONLY.search(reason):
                # A file that became read-only after it was opened, or one its owner may
                # not write although the permission bits said otherwise.
                raise StoreReadOnly(self.url, f"SQLite refused the write ({reason})") from exc
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
            if self.read_only is not None:
                # Migrating would write: a read-only open reports the schema instead, and a
                # schema newer than this harmwatch says so as a writable open would.
                try:
                    migrations.check_known(before)
                except migrations.UnknownRevisionError as exc:
                    raise StoreMisconfigured(self.url, str(exc)) from exc
                at = f"revision {before}" if before is not None else "no harmwatch schema"
                raise StoreMisconfigured(
                    self.url,
                    f"it is opened read-only ({self.read_only}) and its schema is at {at}, "
                    f"not {head}; migrate a writable copy with `harmwatch db upgrade`",
                )
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
        self._store.check_writable()
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


def sqlite_path(url: URL) -> Path | None:
    """The file an SQLite URL names; None for an in-memory database or a ``file:`` URI."""
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    if database.startswith("file:") or url.query.get("uri"):
        return None
    return Path(database)


def _no_write_bits(mode: int) -> bool:
    return not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def frozen_reason(path: Path) -> str | None:
    """Why nobody can be writing this database file, or None when someone may.

    Permission bits and the mount are what count, not ``os.access``: root may
    write anything, and a file another user owns is no less alive for being
    unwritable by us. Frozen means: a read-only file system; a file with no
    write bit at all; or a directory with no write bit and no ``-wal`` file
    (no writer could create its journal or write-ahead log there).
    """
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return "its file system is mounted read-only"
        if _no_write_bits(path.stat().st_mode):
            return f"nobody may write the file (mode {stat.S_IMODE(path.stat().st_mode):04o})"
        wal = Path(f"{path}-wal")
        if _no_write_bits(path.parent.stat().st_mode) and not wal.exists():
            return "nobody may write its directory"
    except OSError:
        return None
    return None


def sqlite_read_only_uri(path: Path, frozen: str | None) -> str:
    """The ``file:`` URI that reads ``path`` without writing anything beside it.

    ``mode=ro``: SQLite never writes the database. It still creates the
    ``-wal`` and ``-shm`` companions of a WAL-mode file where it can (it reads
    the log through them), so a frozen file (``frozen_reason``) is opened
    ``immutable=1`` as well: no locks, no companions. That is only safe when
    nobody writes the file and no log holds committed pages the file lacks:
    SQLite ignores the log of an immutable database, and would then read an
    older state without a word. So a frozen file with a non-empty ``-wal`` is
    opened ``mode=ro`` only, which needs its ``-shm`` to exist or to be
    creatable; where neither holds, opening fails and the error says why.
    """
    wal = Path(f"{path}-wal")
    logged = wal.exists() and wal.stat().st_size > 0
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    if frozen is not None and not logged:
        uri += "&immutable=1"
    return uri


def _unreadable_log(path: Path) -> str | None:
    """The reason a read-only open of ``path`` cannot read its write-ahead log, if it cannot."""
    wal, shm = Path(f"{path}-wal"), Path(f"{path}-shm")
    logged = wal.exists() and wal.stat().st_size > 0
    if not logged or shm.exists():
        return None
    mounted_read_only = bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    if not mounted_read_only and os.access(path.parent, os.W_OK):
        return None
    return (
        f"{wal.name} holds committed records not yet in the file, and SQLite needs "
        f"{shm.name} beside it to read them, which it cannot create here; copy the "
        f"database together with {wal.name} to a writable directory, or open it "
        "once with write access so the log is folded into the file"
    )


def _set_wal(cursor: sqlite3.Cursor) -> None:
    """Switch a file to WAL, retrying while another process holds the lock (WAL_RETRY_S)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if not _SQLITE_TRANSIENT.search(str(exc)) or time.monotonic() >= deadline:
                raise
            time.sleep(WAL_RETRY_S)


def _sqlite_engine(url: URL, *, read_only_uri: str | None = None) -> Engine:
    database = url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    kwargs: dict[str, Any] = {}
    if in_memory:
        # One shared connection, or every checkout would see a new empty database.
        kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
    if read_only_uri is not None:
        # The driver's own URI form; SQLAlchemy's URL would have to escape it again.
        # check_same_thread off as SQLAlchemy sets it for files: the pool hands a
        # connection to one thread at a time, and a streamed export may go on in another.
        kwargs["creator"] = lambda: sqlite3.connect(
            read_only_uri, uri=True, check_same_thread=False
        )
    engine = create_engine(url, **kwargs)

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: sqlite3.Connection, _record: ConnectionPoolEntry) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun by _begin below
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if read_only_uri is None:
                # Setting the journal mode writes the file's header: never on a read-only open.
                if not in_memory:
                    _set_wal(cursor)
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


def create_store_engine(url: str, *, read_only_uri: str | None = None) -> tuple[Engine, URL]:
    """An engine for a tracking URL (SQLite or PostgreSQL through psycopg), not yet connected.

    ``read_only_uri`` (``sqlite_read_only_uri``) connects an SQLite file read-only.
    """
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
        return _sqlite_engine(parsed, read_only_uri=read_only_uri), parsed
    if backend == "postgresql" and parsed.get_driver_name() == "psycopg":
        return _postgres_engine(parsed), parsed
    raise StoreMisconfigured(redact_url(parsed), f"unsupported database; {URL_HINT}")


def open_store(settings: Settings, *, migrate: bool = True, read_only: bool | None = None) -> Store:
    """Open (and, on first use, create and migrate) the database the settings name.

    The default SQLite file's directory is created; a directory named in an
    explicit URL is not, so a typo in a path is reported instead of silently
    starting an empty store somewhere unexpected.

    ``read_only=True`` (the reading commands) opens an existing SQLite file
    read-only: nothing is migrated or written, and a schema that is behind is
    an error. ``None`` does so only for a file nobody may write
    (``frozen_reason``); ``False`` never. A file that does not exist yet is
    created as always, and PostgreSQL is opened as always: a role without
    write grants is its read-only form.
    """
    url = resolve_url(settings)
    if url == default_url():
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    why: str | None = None
    uri: str | None = None
    if read_only is not False:
        path = sqlite_path(make_url(url)) if url.startswith("sqlite") else None
        if path is not None and path.is_file():
            frozen = frozen_reason(path)
            why = frozen if frozen is not None else "a reading command" if read_only else None
            if why is not None:
                unreadable = _unreadable_log(path)
                if unreadable is not None:
                    raise StoreMisconfigured(redact_url(url), unreadable)
                uri = sqlite_read_only_uri(path, frozen)
    engine, parsed = create_store_engine(url, read_only_uri=uri)
    store = Store(engine, parsed, read_only=why)
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
