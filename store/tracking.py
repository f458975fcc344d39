"""Appending observations to a source's chain, and reading profiles and chains back.

Every function takes the caller's ``session=`` (an ORM Session, or the
Connection of a ``Writer`` transaction) and never commits: an append and its
profile update land together when the caller's transaction commits, or not
at all.

Appends to one source are serialized by a lock on its profile row, taken by
the append's first statement: an upsert of the profile that returns the
current head. On PostgreSQL the upsert's row lock makes a concurrent append
wait, then read the head the other one committed (READ COMMITTED). On SQLite
the first write takes the database's write lock (the busy timeout makes a
concurrent writer wait), after which nothing can commit under it. The
``(source_id, seq)`` primary key stays as the backstop: a bug that allocated
a seq twice would fail the append instead of forking the chain.

Statements are Core constructs on the tables, built once at import (they
hold no engine) and compiled once per dialect: an append is three statements
on SQLite, two on PostgreSQL, and the caller's commit.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, ClassVar, NamedTuple, cast

import orjson
from sqlalchemy import (
    ClauseElement,
    Connection,
    Select,
    Table,
    Text,
    bindparam,
    case,
    func,
    literal_column,
    select,
    tuple_,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine.interfaces import DBAPICursor, Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler

from engine.result import Classification
from store.chain import (
    GENESIS_HASH,
    OBSERVATION_FIELDS,
    RECORD_VERSION,
    SIGNATURE_FIELDS,
    ChainRecord,
    ChainVerifier,
    VerifyResult,
    attachment_hash,
    canonical_decision,
    format_observed_at,
    recompute_hash,
    record_hash_v2,
    text_hash,
)
from store.errors import InvalidTextError, StoreError, UnknownSource
from store.evidence import NO_EVIDENCE, Evidence, decision_of
from store.models import ObservationRow, SourceProfileRow
from store.profile_check import ProfileCheck
from store.signing import KeyRing, SigningKey
from store.source_id import validate_source_id
from store.trend import NONE_LABEL, Replay, TrackingRules, rolling_average, severity_counts

if TYPE_CHECKING:
    from store.checkpoints import Checkpoint

profiles = cast(Table, SourceProfileRow.__table__)
# What the caller's ``session=`` may be: a Store.transaction's Session or a Writer's Connection.
SessionLike = Session | Connection
observations = cast(Table, ObservationRow.__table__)

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
STREAM_BATCH = 2000

PROFILE_FIELDS: tuple[str, ...] = (
    "source_id",
    "observation_count",
    "current_severity",
    "current_severity_label",
    "rolling_average_severity",
    "window",
    "trend",
    "risk_level",
    "first_observed_at",
    "last_observed_at",
    "head_hash",
    "peak_severity",
    "severity_counts",
    "last_escalation_at",
)
# The observation fields stored as canonical JSON text and handed out as objects.
_JSON_FIELDS = frozenset({"metadata", "decision", "redacted"})


class TamperedHeadError(StoreError):
    """The record an append would extend no longer matches its hash (HTTP 409, exit 2).

    Extending it would bury the alteration under a valid-looking record; the
    chain has to be examined (``track verify``) before anything is appended.
    """

    def __init__(self, source_id: str, seq: int, reason: str) -> None:
        super().__init__(
            f"source {source_id!r}: the head record (seq {seq}) {reason}; nothing was "
            "appended. Run 'harmwatch track verify' on this source"
        )
        self.source_id = source_id
        self.seq = seq


@dataclass(frozen=True, slots=True)
class Observation:
    """One record of a chain with every field of SPEC 5 and 5a (text None when not kept).

    A version-1 record (written before record version 2) has ``record_version``
    1, ``published_at`` equal to its ``observed_at`` and null evidence fields.
    """

    source_id: str
    seq: int
    observed_at: str
    text: str | None
    content_hash: str
    harm_mechanism: str | None
    severity: int
    taxonomy_version: str
    prev_hash: str
    record_hash: str
    record_version: int = 1
    published_at: str = ""
    url: str | None = None
    metadata: dict[str, Any] | None = None
    attachment_hash: str | None = None
    decision: dict[str, Any] | None = None
    redacted: dict[str, Any] | None = None
    key_id: str | None = None
    signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every SPEC field; ``key_id`` and ``signature`` only on a signed record."""
        fields = {name: getattr(self, name) for name in OBSERVATION_FIELDS}
        if self.signature is not None:
            fields["key_id"] = self.key_id
            fields["signature"] = self.signature
        return fields

    def to_row(self) -> dict[str, Any]:
        """The record as the observations table holds it: every column, the JSON fields
        as their canonical JSON text (what was hashed, for ``decision``)."""
        row = {name: getattr(self, name) for name in (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)}
        for name in _JSON_FIELDS:
            value = row[name]
            if value is not None:
                row[name] = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        return row


def _observation(row: Any) -> Observation:
    """An Observation from a row of ``_OBSERVATION_COLUMNS`` (JSON columns parsed)."""
    values = list(row)
    for index in _JSON_POSITIONS:
        if values[index] is not None:
            values[index] = orjson.loads(values[index])
    return Observation(*values)


@dataclass(frozen=True, slots=True)
class SourceProfile:
    """A source's standing (SPEC 5 and 5a field names), read in publication order.

    ``severity_counts`` maps each severity (as a string) to the number of the
    window's observations at it; ``last_escalation_at`` is the publication
    time of the latest observation at which the risk level rose (None: never).
    """

    source_id: str
    observation_count: int
    current_severity: int
    current_severity_label: str
    rolling_average_severity: float
    window: int
    trend: str
    risk_level: str
    first_observed_at: str
    last_observed_at: str
    head_hash: str
    peak_severity: int = 0
    severity_counts: dict[str, int] = field(default_factory=dict)
    last_escalation_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in PROFILE_FIELDS}


@dataclass(frozen=True, slots=True)
class Entry:
    """One text to append: its classification, the text (kept with store_text) and evidence."""

    classification: Classification
    text: str | None
    evidence: Evidence = NO_EVIDENCE


# -- statements -------------------------------------------------------------------------


class _DriverStatement:
    """A Core statement compiled once per dialect and run on the driver's own cursor.

    An append's three statements through ``Connection.execute`` cost about
    30 µs each in SQLAlchemy's per-call machinery, a third of the append
    budget on SQLite (2,000/s with an fsync per commit); on the cursor they
    cost what the database costs. The statement is still the typed Core
    construct, compiled by SQLAlchemy for the connection's dialect, and it
    runs on the session's connection inside the caller's transaction. Only
    the append uses this; everything else goes through ``Connection.execute``.
    """

    __slots__ = ("_forms", "_statement")

    def __init__(self, statement: ClauseElement) -> None:
        self._statement = statement
        self._forms: dict[str, tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}

    def _bind(self, dialect: Dialect, params: dict[str, Any]) -> tuple[str, Any]:
        form = self._forms.get(dialect.name)
        if form is None:
            compiled = cast(SQLCompiler, self._statement.compile(dialect=dialect))
            names = tuple(compiled.positiontup or ()) if compiled.positional else None
            form = (str(compiled), names, dict(compiled.params))
            self._forms[dialect.name] = form
        sql, names, defaults = form
        values = {**defaults, **params}
        return sql, [values[name] for name in names] if names is not None else values

    def execute(self, conn: Connection, params: dict[str, Any]) -> DBAPICursor:
        return self._run(conn, conn.connection.cursor(), params)

    def stream(self, conn: Connection, params: dict[str, Any]) -> Generator[Any, None, None]:
        """The rows as the driver's tuples, fetched in batches: constant memory at any length.

        PostgreSQL needs a named (server-side) cursor for that; SQLite's cursor
        steps through the result as it is read.
        """
        if conn.dialect.name == "postgresql":
            raw = conn.connection.driver_connection
            cursor = raw.cursor(name=f"harmwatch_{secrets.token_hex(4)}")  # type: ignore[union-attr]
        else:
            cursor = conn.connection.cursor()
        try:
            self._run(conn, cursor, params)
            while rows := cursor.fetchmany(STREAM_BATCH):
                yield from rows
        finally:
            cursor.close()

    def execute_many(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        """The statement once per row in one driver call (a chunk of an ingest)."""
        dialect = conn.dialect
        cursor = conn.connection.cursor()
        try:
            sql, _ = self._bind(dialect, rows[0])
            self._call(conn, cursor, sql, [self._bind(dialect, row)[1] for row in rows], many=True)
        finally:
            cursor.close()

    def _run(self, conn: Connection, cursor: DBAPICursor, params: dict[str, Any]) -> DBAPICursor:
        sql, bound = self._bind(conn.dialect, params)
        self._call(conn, cursor, sql, bound, many=False)
        return cursor

    @staticmethod
    def _call(conn: Connection, cursor: DBAPICursor, sql: str, bound: Any, *, many: bool) -> None:
        dialect = conn.dialect
        try:
            if many:
                cursor.executemany(sql, bound)
            else:
                cursor.execute(sql, bound)
        except dialect.loaded_dbapi.Error as exc:
            raise _translated(conn, cursor, sql, bound, exc) from exc


def _translated(
    conn: Connection, cursor: DBAPICursor, sql: str, bound: Any, exc: Exception
) -> StatementError:
    """What Connection.execute would raise for a driver error: SQLAlchemy's exception
    classes (so a locked or lost database is an OperationalError like everywhere
    else), with a dead connection invalidated instead of going back to the pool."""
    dialect = conn.dialect
    if dialect.is_disconnect(cast(Any, exc), conn.connection, cursor):
        conn.invalidate(exc)
    return DBAPIError.instance(sql, bound, exc, dialect.loaded_dbapi.Error, dialect=dialect)


class _CopyObservations:
    """A chunk of records into PostgreSQL with one COPY instead of one INSERT per row.

    An ingest chunk through ``executemany`` is a pipelined INSERT per record; its
    parse, bind and execute messages and their replies held a PostgreSQL ingest to
    3,500 records/s against SQLite's 5,600 (issue 14's target is 5,000 on both). COPY
    streams the chunk as rows of one statement, inside the caller's transaction, under
    the same constraints and indexes. ``text_kept`` is what the INSERT's CASE gives:
    1 when the text is stored, 0 when it is null.
    """

    columns: ClassVar[tuple[str, ...]] = (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)

    def __init__(self) -> None:
        self._sql: str | None = None

    def execute_many(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        sql = self._sql
        if sql is None:
            quote = conn.dialect.identifier_preparer.quote
            names = ", ".join(quote(name) for name in (*self.columns, "text_kept"))
            sql = self._sql = f"COPY {quote(observations.name)} ({names}) FROM STDIN"
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        columns = self.columns
        try:
            with cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(
                        (*[row[name] for name in columns], 0 if row["text"] is None else 1)
                    )
        except conn.dialect.loaded_dbapi.Error as exc:
            raise _translated(conn, cursor, sql, None, exc) from exc
        finally:
            cursor.close()


_PROFILE_COLUMNS = (
    profiles.c.source_id,
    profiles.c.observation_count,
    profiles.c.current_severity,
    profiles.c.current_severity_label,
    profiles.c.rolling_average_severity,
    profiles.c.window_size,
    profiles.c.trend,
    profiles.c.risk_level,
    profiles.c.first_observed_at,
    profiles.c.last_observed_at,
    profiles.c.head_hash,
    profiles.c.peak_severity,
    profiles.c.severity_counts,
    profiles.c.last_escalation_at,
)
_OBSERVATION_COLUMNS = tuple(
    observations.c[name] for name in (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)
)
_JSON_POSITIONS = tuple(
    index
    for index, name in enumerate((*OBSERVATION_FIELDS, *SIGNATURE_FIELDS))
    if name in _JSON_FIELDS
)
# ChainRecord's field order.
_CHAIN_COLUMNS = (
    observations.c.source_id,
    observations.c.seq,
    observations.c.observed_at,
    observations.c.content_hash,
    observations.c.harm_mechanism,
    observations.c.severity,
    observations.c.taxonomy_version,
    observations.c.prev_hash,
    observations.c.record_hash,
    observations.c.text,
    observations.c.key_id,
    observations.c.signature,
    observations.c.record_version,
    observations.c.published_at,
    observations.c.attachment_hash,
    observations.c.decision,
    observations.c.url,
    observations.c["metadata"],
    observations.c.redacted,
    observations.c.text_kept,
)

# A new source starts as an empty profile; the upsert's no-op update on an existing
# one is what takes the row lock, and RETURNING hands back the profile it guards.
_PLACEHOLDER = {
    "source_id": bindparam("sid"),
    "observation_count": 0,
    "current_severity": 0,
    "current_severity_label": NONE_LABEL,
    "rolling_average_severity": 0.0,
    "window_size": bindparam("window"),
    "trend": "stable",
    "risk_level": bindparam("risk"),
    "risk_rank": 0,
    # Overwritten by the same transaction's profile update.
    "first_observed_at": "",
    "last_observed_at": "",
    "head_hash": GENESIS_HASH,
    "recent_severities": "",
    "peak_severity": 0,
    "severity_counts": "{}",
    "last_escalation_at": None,
    "last_escalation_seq": None,
}
# What an append reads of the profile it locks, in ``_Locked``'s order.
_LOCK_RETURNING = (
    profiles.c.observation_count,
    profiles.c.head_hash,
    profiles.c.first_observed_at,
    profiles.c.last_observed_at,
    profiles.c.recent_severities,
    profiles.c.risk_rank,
    profiles.c.peak_severity,
    profiles.c.last_escalation_at,
    profiles.c.last_escalation_seq,
    profiles.c.current_severity,
    profiles.c.current_severity_label,
    profiles.c.rolling_average_severity,
    profiles.c.trend,
    profiles.c.risk_level,
    profiles.c.severity_counts,
)


class _Locked(NamedTuple):
    """The locked profile row as an append reads it (``_LOCK_RETURNING``)."""

    total: int
    head: str
    first: str
    last: str
    recent: str
    rank: int
    peak: int
    escalation_at: str | None
    escalation_seq: int | None
    current: int
    label: str
    average: float
    trend: str
    risk: str
    counts: str


_LOCK_PROFILE = {
    name: _DriverStatement(
        dialect.insert(profiles)
        .values(_PLACEHOLDER)
        .on_conflict_do_update(
            index_elements=[profiles.c.source_id],
            set_={"observation_count": profiles.c.observation_count},
        )
        .returning(*_LOCK_RETURNING)
    )
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}
# The record an append extends, re-hashed before anything is written (SPEC 5a).
_HEAD = _DriverStatement(
    select(*_CHAIN_COLUMNS).where(
        observations.c.source_id == bindparam("sid"), observations.c.seq == bindparam("seq")
    )
)
_publication_key = tuple_(observations.c.published_at, observations.c.seq)
_WINDOW_TAIL = (
    select(observations.c.severity)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.published_at.desc(), observations.c.seq.desc())
    .limit(bindparam("n"))
)
# A backfill's replay (see ``_backfilled``): what lies before, in and after the region
# of publication order whose windows the new records change. All read through the
# (source_id, published_at, seq, severity) index.
_REPLAY_COLUMNS = (
    observations.c.published_at,
    observations.c.seq,
    observations.c.severity,
    observations.c.harm_mechanism,
)
_BEFORE = (
    select(*_REPLAY_COLUMNS)
    .where(
        observations.c.source_id == bindparam("sid"),
        _publication_key < tuple_(bindparam("at"), bindparam("seq")),
    )
    .order_by(observations.c.published_at.desc(), observations.c.seq.desc())
    .limit(bindparam("n"))
)
_REGION = (
    select(*_REPLAY_COLUMNS)
    .where(
        observations.c.source_id == bindparam("sid"),
        _publication_key >= tuple_(bindparam("at"), bindparam("seq")),
        _publication_key <= tuple_(bindparam("to_at"), bindparam("to_seq")),
    )
    .order_by(observations.c.published_at, observations.c.seq)
)
_AFTER = (
    select(*_REPLAY_COLUMNS)
    .where(
        observations.c.source_id == bindparam("sid"),
        _publication_key > tuple_(bindparam("at"), bindparam("seq")),
    )
    .order_by(observations.c.published_at, observations.c.seq)
    .limit(bindparam("n"))
)
_UP_TO = (
    select(observations.c.published_at, observations.c.seq, observations.c.severity)
    .where(
        observations.c.source_id == bindparam("sid"),
        _publication_key < tuple_(bindparam("at"), bindparam("seq")),
    )
    .order_by(observations.c.published_at, observations.c.seq)
)
# What an ingest with skip_existing looks up: the source's records published at given times.
_EXISTING = select(observations.c.published_at, observations.c.content_hash).where(
    observations.c.source_id == bindparam("sid"),
    observations.c.published_at.in_(bindparam("ats", expanding=True)),
)
# ... and, for rows without a published_at, the source's records of those texts that were
# themselves appended undated (published_at defaulted to observed_at; see ``_new_entries``).
# No index serves content_hash: this reads the source's records, once per chunk that holds
# undated rows, and only with skip_existing.
_EXISTING_UNDATED = select(observations.c.content_hash).where(
    observations.c.source_id == bindparam("sid"),
    observations.c.published_at == observations.c.observed_at,
    observations.c.content_hash.in_(bindparam("hashes", expanding=True)),
)
# Verify's second pass, for a chain whose publication order is not its seq order.
PUBLICATION_ORDER = (
    select(
        observations.c.published_at,
        observations.c.seq,
        observations.c.severity,
        observations.c.harm_mechanism,
    )
    .where(observations.c.source_id == bindparam("sid"), observations.c.seq <= bindparam("n"))
    .order_by(observations.c.published_at, observations.c.seq)
)
_INSERT_OBSERVATION = observations.insert().values(
    {
        **{name: bindparam(name) for name in (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)},
        # Whether the text was stored, from the text itself (store.redaction, migration 0004).
        "text_kept": case(
            (sql_cast(bindparam("text"), Text).is_(None), literal_column("0")),
            else_=literal_column("1"),
        ),
    }
)
_UPDATE_PROFILE = (
    update(profiles)
    .where(profiles.c.source_id == bindparam("sid"))
    .values(
        observation_count=bindparam("count"),
        current_severity=bindparam("current"),
        current_severity_label=bindparam("label"),
        rolling_average_severity=bindparam("average"),
        window_size=bindparam("window"),
        trend=bindparam("trend"),
        risk_level=bindparam("risk"),
        risk_rank=bindparam("rank"),
        first_observed_at=bindparam("first"),
        last_observed_at=bindparam("last"),
        head_hash=bindparam("head"),
        recent_severities=bindparam("recent"),
        peak_severity=bindparam("peak"),
        severity_counts=bindparam("counts"),
        last_escalation_at=bindparam("escalation_at"),
        last_escalation_seq=bindparam("escalation_seq"),
    )
)
# The new record and the profile it moves forward. PostgreSQL takes both in one
# statement (a data-modifying CTE), saving a network round trip per append.
_SAVE = {
    "postgresql": (
        _DriverStatement(_UPDATE_PROFILE.add_cte(_INSERT_OBSERVATION.cte("new_observation"))),
    ),
    "sqlite": (_DriverStatement(_INSERT_OBSERVATION), _DriverStatement(_UPDATE_PROFILE)),
}
# A chunk of records: one executemany of the insert (a COPY on PostgreSQL), then one
# profile update.
_INSERT_ONE = _DriverStatement(_INSERT_OBSERVATION)
_INSERT_MANY: dict[str, _CopyObservations | _DriverStatement] = {
    "postgresql": _CopyObservations(),
    "sqlite": _INSERT_ONE,  # its executemany: one statement, compiled once per dialect
}
_UPDATE_ONCE = _DriverStatement(_UPDATE_PROFILE)
_GET_PROFILE = select(*_PROFILE_COLUMNS).where(profiles.c.source_id == bindparam("sid"))
_LISTING_ORDER = (
    profiles.c.current_severity.desc(),
    profiles.c.rolling_average_severity.desc(),
    profiles.c.last_observed_at.desc(),
    profiles.c.source_id,
)
# The same order walked from the other end (the listing index read backwards), so that
# a page near the end of a long listing never pays for a deep OFFSET.
_FROM_END_ORDER = (
    profiles.c.current_severity.asc(),
    profiles.c.rolling_average_severity.asc(),
    profiles.c.last_observed_at.asc(),
    profiles.c.source_id.desc(),
)


def _listing_ids(*, filtered: bool, from_end: bool) -> Select[Any]:
    """A page of source ids in listing order, optionally for one risk level (``:risk``).

    A page is two reads: the ids from the listing index alone (a covering scan, so an
    OFFSET skips index entries only: 0.7 ms at offset 50,000 on SQLite, where skipping
    whole rows took 38 ms), then those ids' rows by primary key (``_BY_IDS``).
    """
    order = _FROM_END_ORDER if from_end else _LISTING_ORDER
    statement = select(profiles.c.source_id)
    if filtered:
        statement = statement.where(profiles.c.risk_level == bindparam("risk"))
    else:
        rank = profiles.c.risk_rank.asc() if from_end else profiles.c.risk_rank.desc()
        order = (rank, *order)
    return statement.order_by(*order).limit(bindparam("limit")).offset(bindparam("offset"))


_LIST_ALL = _listing_ids(filtered=False, from_end=False)
_LIST_RISK = _listing_ids(filtered=True, from_end=False)
_LIST_ALL_FROM_END = _listing_ids(filtered=False, from_end=True)
_LIST_RISK_FROM_END = _listing_ids(filtered=True, from_end=True)
_BY_IDS = select(*_PROFILE_COLUMNS).where(
    profiles.c.source_id.in_(bindparam("ids", expanding=True))
)
_COUNT_ALL = select(func.count()).select_from(profiles)
_COUNT_RISK = (
    select(func.count()).select_from(profiles).where(profiles.c.risk_level == bindparam("risk"))
)
_LATEST = (
    select(*_OBSERVATION_COLUMNS)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.seq.desc())
    .limit(bindparam("limit"))
)
# Verification reads every record: on the driver's tuples it runs a third faster.
_CHAIN = _DriverStatement(
    select(*_CHAIN_COLUMNS)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.seq)
)
_EXPORT = (
    select(*_OBSERVATION_COLUMNS)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.seq)
)
# The profile row's listing columns, which verify recomputes like the SPEC fields.
_INTERNAL = select(
    profiles.c.risk_rank, profiles.c.recent_severities, profiles.c.last_escalation_seq
).where(profiles.c.source_id == bindparam("sid"))
_ALL_SOURCE_IDS = select(profiles.c.source_id).order_by(profiles.c.source_id)
_BETWEEN = (
    select(*_OBSERVATION_COLUMNS)
    .where(
        observations.c.source_id == bindparam("sid"),
        observations.c.seq >= bindparam("first"),
        observations.c.seq <= bindparam("last"),
    )
    .order_by(observations.c.seq)
)
_SERIES = (
    select(observations.c.seq, observations.c.observed_at, observations.c.severity)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.seq)
)
# The same three columns in publication order, read through the (covering) publication index.
_PUBLICATION_SERIES = (
    select(observations.c.seq, observations.c.published_at, observations.c.severity)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.published_at, observations.c.seq)
)
# A prefix compared as a substring, not LIKE (whose case folding and escapes differ
# between backends) nor a key range (which a PostgreSQL locale collation reorders).
_PREFIX = (
    select(profiles.c.source_id)
    .where(func.substr(profiles.c.source_id, 1, bindparam("n")) == bindparam("prefix"))
    .order_by(profiles.c.source_id)
    .limit(bindparam("limit"))
)


def _connection(session: SessionLike) -> Connection:
    """The Connection a store function runs on, whichever the caller holds."""
    return session if isinstance(session, Connection) else session.connection()


def _profile(row: Any) -> SourceProfile:
    values = list(row)
    values[12] = orjson.loads(values[12]) if values[12] else {}
    return SourceProfile(*values)


# -- append -----------------------------------------------------------------------------


def append(
    source_id: str,
    classification: Classification,
    *,
    text: str | None,
    store_text: bool,
    rules: TrackingRules,
    session: SessionLike,
    observed_at: datetime | None = None,
    signer: SigningKey | None = None,
    evidence: Evidence = NO_EVIDENCE,
    taxonomy_digest: str | None = None,
) -> tuple[Observation, SourceProfile]:
    """Add one classified text to the source's chain and update its profile, uncommitted.

    A not-harmful classification is recorded as ``harm_mechanism = null`` and
    ``severity = 0`` whatever the classifier's best surviving signal was, so a
    chain's severities are exactly what trend and risk are computed from.
    ``text`` is kept only with ``store_text`` (HARMWATCH_STORE_TEXT); it must be
    the text that was classified (its hash is checked against content_hash).
    ``observed_at`` defaults to now, read after the source's lock is held so
    that the chain's timestamps follow its order on any one clock.

    The record is version 2 (SPEC 5a): ``evidence`` (``store.evidence.make_evidence``)
    gives its published_at (default: observed_at), url and metadata; the decision
    evidence comes from the classification, with ``taxonomy_digest`` (the
    classifier's ``taxonomy.digest``; null when a library caller has none).
    Before anything is written the head record is re-hashed: ``TamperedHeadError``
    when it no longer matches.

    On SQLite, begin the transaction with ``Store.transaction(write=True)`` or
    ``Writer.transaction()`` (BEGIN IMMEDIATE), or make the append the
    transaction's first statement.

    With ``signer`` (HARMWATCH_SIGNING_KEY) the record carries its key_id and a
    signature of its record_hash, so a writer without the key cannot append
    or rewrite unnoticed.
    """
    written, profile = append_many(
        source_id,
        [Entry(classification, text, evidence)],
        store_text=store_text,
        rules=rules,
        session=session,
        observed_at=observed_at,
        signer=signer,
        taxonomy_digest=taxonomy_digest,
    )
    assert profile is not None  # nothing is skipped without skip_existing
    return written[0], profile


def append_many(
    source_id: str,
    entries: Sequence[Entry],
    *,
    store_text: bool,
    rules: TrackingRules,
    session: SessionLike,
    observed_at: datetime | None = None,
    signer: SigningKey | None = None,
    taxonomy_digest: str | None = None,
    skip_existing: bool = False,
    _pending: list[dict[str, Any]] | None = None,
) -> tuple[list[Observation], SourceProfile | None]:
    """Append several records of one source under one lock, and update its profile once.

    What a bulk ingest does per chunk: the records take consecutive seqs in the
    order given (the chain is append order) while the profile places each by
    its published_at. Everything ``append`` says holds; either every record of
    the chunk is written (when the caller commits) or none is.

    ``skip_existing``: an entry whose (content_hash, published_at) the source
    already has, or an earlier entry of the chunk has, is left out; an undated
    entry, one whose content_hash the source holds from an undated append
    (``_new_entries``). Checked under the source's lock, so two concurrent
    ingests of one file append it once. The profile is None when every entry
    was left out.

    ``_pending`` (``append_chunks``): the records are added to it for the caller to
    insert, after the profile update, in the same transaction.
    """
    validate_source_id(source_id)
    if not entries:
        raise ValueError("append_many needs at least one entry")
    prepared = [_prepared(entry, store_text, taxonomy_digest) for entry in entries]
    conn = _connection(session)
    window = rules.window
    cursor = _LOCK_PROFILE[conn.dialect.name].execute(
        conn, {"sid": source_id, "window": window, "risk": rules.risk_levels[0]}
    )
    row = cursor.fetchone()
    cursor.close()
    if row is None:  # pragma: no cover - an upsert's RETURNING always yields its row
        raise RuntimeError(f"the profile of {source_id!r} was neither inserted nor locked")
    locked = _Locked(*row)
    if locked.total:
        _check_head(conn, source_id, locked)
    stamp = format_observed_at(observed_at or datetime.now(UTC))
    if skip_existing:
        entries, prepared = _new_entries(conn, source_id, entries, prepared, locked.total)
        if not entries:
            return [], None
    prev_hash = locked.head
    written: list[Observation] = []
    rows: list[dict[str, Any]] = []
    for offset, (entry, (stored_text, mechanism, severity, decision)) in enumerate(
        zip(entries, prepared, strict=True), start=1
    ):
        classification = entry.classification
        evidence = entry.evidence
        seq = locked.total + offset
        published = evidence.published_at or stamp
        attached = attachment_hash(evidence.url, evidence.metadata)
        decision_text = canonical_decision(decision)
        head = record_hash_v2(
            source_id=source_id,
            seq=seq,
            observed_at=stamp,
            published_at=published,
            content_hash=classification.content_hash,
            attachment_hash=attached,
            harm_mechanism=mechanism,
            severity=severity,
            decision=decision_text,
            taxonomy_version=classification.taxonomy_version,
            prev_hash=prev_hash,
        )
        key_id = signer.key_id if signer is not None else None
        signature = signer.sign(head.encode("utf-8")) if signer is not None else None
        written.append(
            Observation(
                source_id=source_id,
                seq=seq,
                observed_at=stamp,
                text=stored_text,
                content_hash=classification.content_hash,
                harm_mechanism=mechanism,
                severity=severity,
                taxonomy_version=classification.taxonomy_version,
                prev_hash=prev_hash,
                record_hash=head,
                record_version=RECORD_VERSION,
                published_at=published,
                url=evidence.url,
                metadata=None if evidence.metadata is None else orjson.loads(evidence.metadata),
                attachment_hash=attached,
                decision=decision,
                key_id=key_id,
                signature=signature,
            )
        )
        rows.append(
            {
                "source_id": source_id,
                "seq": seq,
                "observed_at": stamp,
                "text": stored_text,
                "content_hash": classification.content_hash,
                "harm_mechanism": mechanism,
                "severity": severity,
                "taxonomy_version": classification.taxonomy_version,
                "prev_hash": prev_hash,
                "record_hash": head,
                "record_version": RECORD_VERSION,
                "published_at": published,
                "url": evidence.url,
                "metadata": evidence.metadata,
                "attachment_hash": attached,
                "decision": decision_text,
                "redacted": None,
                "key_id": key_id,
                "signature": signature,
            }
        )
        prev_hash = head
    forward = locked.total == 0 or min(each.published_at for each in written) >= locked.last
    if forward:
        profile, params = _forward_profile(conn, source_id, locked, written, rules)
    else:
        profile, params = _backfilled_profile(conn, source_id, locked, written, rules)
    if _pending is not None:
        _pending.extend(rows)
        _UPDATE_ONCE.execute(conn, params).close()
    elif len(rows) == 1:
        # One record: PostgreSQL writes it and the profile in one statement.
        for statement in _SAVE[conn.dialect.name]:
            statement.execute(conn, {**rows[0], **params}).close()
    else:
        _INSERT_MANY[conn.dialect.name].execute_many(conn, rows)
        _UPDATE_ONCE.execute(conn, params).close()
    return written, profile


def append_chunks(
    chunks: Sequence[tuple[str, Sequence[Entry]]],
    *,
    store_text: bool,
    rules: TrackingRules,
    session: SessionLike,
    signer: SigningKey | None = None,
    taxonomy_digest: str | None = None,
    skip_existing: bool = False,
) -> list[list[Observation]]:
    """Several sources' chunks in one transaction, their records written by one insert.

    Each chunk is an ``append_many`` (its source locked, its head checked, its
    profile updated), but the records of all of them go in together at the end:
    one COPY on PostgreSQL instead of one per source. A feed of many sources
    gives each transaction a few records per source, and a COPY's fixed cost
    (about a millisecond and a half for 25 rows) was what held PostgreSQL's
    ingest below 5,000 records/s. Nothing in the transaction reads a source's
    new records before they are written: its profile is computed from the
    records it held before (``_backfilled_profile`` merges the new ones in
    memory), and a source appears once per call. Lock the sources in ascending
    id order (as ``store.ingest`` does) so that concurrent writers cannot
    deadlock.
    """
    ids = [source_id for source_id, _ in chunks]
    if len(set(ids)) != len(ids):
        raise ValueError("append_chunks takes each source once")
    pending: list[dict[str, Any]] = []
    written = [
        append_many(
            source_id,
            entries,
            store_text=store_text,
            rules=rules,
            session=session,
            signer=signer,
            taxonomy_digest=taxonomy_digest,
            skip_existing=skip_existing,
            _pending=pending,
        )[0]
        for source_id, entries in chunks
    ]
    if pending:
        conn = _connection(session)
        _INSERT_MANY[conn.dialect.name].execute_many(conn, pending)
    return written


def _new_entries(
    conn: Connection,
    source_id: str,
    entries: Sequence[Entry],
    prepared: list[_Prepared],
    total: int,
) -> tuple[list[Entry], list[_Prepared]]:
    """The entries the source does not hold yet, nor an earlier entry of the chunk.

    A dated entry repeats a record with the same (content_hash, published_at). An
    undated one (no published_at: the append would publish it "now") repeats a record
    with the same content_hash that was itself appended undated, i.e. whose
    published_at is its observed_at: otherwise "now" would differ on every rerun and
    an undated row would be appended again each time. An undated entry never repeats
    a dated record (the same text published at a known time is another claim), and
    the same text observed undated twice is kept once: without a publication time
    nothing tells a repost from a rerun. Version-1 records (published_at =
    observed_at) count as undated, which they were.
    """
    dated = {each.evidence.published_at for each in entries if each.evidence.published_at}
    undated = {
        each.classification.content_hash for each in entries if each.evidence.published_at is None
    }
    seen: set[tuple[str, str | None]] = set()
    if total and dated:
        found = conn.execute(_EXISTING, {"sid": source_id, "ats": sorted(dated)})
        seen.update((str(content_hash), str(at)) for at, content_hash in found)
    if total and undated:
        hashes = conn.execute(_EXISTING_UNDATED, {"sid": source_id, "hashes": sorted(undated)})
        seen.update((str(content_hash), None) for content_hash in hashes.scalars())
    kept: list[Entry] = []
    kept_prepared: list[_Prepared] = []
    for entry, ready in zip(entries, prepared, strict=True):
        key = (entry.classification.content_hash, entry.evidence.published_at)
        if key in seen:
            continue
        seen.add(key)
        kept.append(entry)
        kept_prepared.append(ready)
    return kept, kept_prepared


_Prepared = tuple[str | None, str | None, int, dict[str, Any]]


def _prepared(entry: Entry, store_text: bool, taxonomy_digest: str | None) -> _Prepared:
    """``(stored text, harm_mechanism, severity, decision)`` of an entry, checked first
    (before any lock is taken), so that a bad entry is refused with nothing written."""
    classification = entry.classification
    text = entry.text
    stored_text: str | None = None
    if store_text and text is not None:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidTextError(
                "text holds lone surrogates, which cannot be stored; "
                "send valid UTF-8 or set HARMWATCH_STORE_TEXT=false"
            ) from None
        if text_hash(text) != classification.content_hash:
            raise ValueError("text is not the text that was classified (content_hash differs)")
        stored_text = text
    if classification.is_harmful and classification.harm_mechanism is not None:
        return (
            stored_text,
            classification.harm_mechanism,
            classification.severity,
            decision_of(classification, taxonomy_digest),
        )
    return stored_text, None, 0, decision_of(classification, taxonomy_digest)


def _check_head(conn: Connection, source_id: str, locked: _Locked) -> None:
    """Re-hash the record an append is about to extend (one primary-key read): refuse to
    build on a head whose fields were altered, or that is not the profile's head."""
    cursor = _HEAD.execute(conn, {"sid": source_id, "seq": locked.total})
    row = cursor.fetchone()
    cursor.close()
    if row is None:
        raise TamperedHeadError(source_id, locked.total, "is missing")
    record = ChainRecord(*row)
    if record.record_hash != locked.head:
        raise TamperedHeadError(source_id, locked.total, "does not carry the profile's head_hash")
    if recompute_hash(record) != record.record_hash:
        raise TamperedHeadError(
            source_id,
            locked.total,
            "no longer matches its record_hash: its fields were altered after it was written",
        )


def _profile_params(
    source_id: str,
    profile: SourceProfile,
    rules: TrackingRules,
    severities: Sequence[int],
    escalation_seq: int | None,
) -> dict[str, Any]:
    return {
        "sid": source_id,
        "count": profile.observation_count,
        "current": profile.current_severity,
        "label": profile.current_severity_label,
        "average": profile.rolling_average_severity,
        "window": profile.window,
        "trend": profile.trend,
        "risk": profile.risk_level,
        "rank": rules.rank(profile.risk_level),
        "first": profile.first_observed_at,
        "last": profile.last_observed_at,
        "head": profile.head_hash,
        "recent": ",".join(map(str, severities)),
        "peak": profile.peak_severity,
        "counts": orjson.dumps(profile.severity_counts).decode(),
        "escalation_at": profile.last_escalation_at,
        "escalation_seq": escalation_seq,
    }


def _old_escalation(locked: _Locked) -> tuple[str, int] | None:
    if locked.escalation_at is None or locked.escalation_seq is None:
        return None
    return locked.escalation_at, locked.escalation_seq


def _assembled(
    source_id: str,
    locked: _Locked,
    written: list[Observation],
    rules: TrackingRules,
    *,
    severities: list[int],
    current: tuple[int, str],
    trend: str,
    risk: str,
    first: str,
    last: str,
    escalation: tuple[str, int] | None,
) -> tuple[SourceProfile, dict[str, Any]]:
    """The profile and its row parameters once a replay (forward or backfilled) has settled
    the window, the latest record and the last escalation: one place builds both."""
    profile = SourceProfile(
        source_id=source_id,
        observation_count=written[-1].seq,
        current_severity=current[0],
        current_severity_label=current[1],
        rolling_average_severity=rolling_average(severities),
        window=rules.window,
        trend=trend,
        risk_level=risk,
        first_observed_at=first,
        last_observed_at=last,
        head_hash=written[-1].record_hash,
        peak_severity=max(locked.peak, *(each.severity for each in written)),
        severity_counts=severity_counts(severities, rules.risk_by_severity),
        last_escalation_at=escalation[0] if escalation else None,
    )
    return profile, _profile_params(
        source_id, profile, rules, severities, escalation[1] if escalation else None
    )


def _forward_profile(
    conn: Connection,
    source_id: str,
    locked: _Locked,
    written: list[Observation],
    rules: TrackingRules,
) -> tuple[SourceProfile, dict[str, Any]]:
    """The profile when every new record is published at or after the source's latest:
    the replay continues from the stored window and risk, reading nothing more."""
    window = rules.window
    held = _window(conn, source_id, locked.total, locked.recent, window)
    replay = Replay(rules, held, locked.rank if locked.total else 0)
    replay.escalation = _old_escalation(locked)
    ordered = sorted(written, key=lambda each: (each.published_at, each.seq))
    for each in ordered:
        replay.step(each.published_at, each.seq, each.severity)
    latest = ordered[-1]
    severities = list(replay.recent)
    trend = rules.trend(severities)
    risk = rules.risk(latest.severity, trend)
    escalation = replay.escalation
    return _assembled(
        source_id,
        locked,
        written,
        rules,
        severities=severities,
        current=(latest.severity, rules.label(latest.harm_mechanism, latest.severity)),
        trend=trend,
        risk=risk,
        first=locked.first if locked.total else ordered[0].published_at,
        last=latest.published_at,
        escalation=escalation,
    )


def _backfilled_profile(
    conn: Connection,
    source_id: str,
    locked: _Locked,
    written: list[Observation],
    rules: TrackingRules,
) -> tuple[SourceProfile, dict[str, Any]]:
    """The profile after records published before the source's latest (not yet inserted:
    the region read from the chain is merged with ``written`` in memory).

    Only the steps whose window holds a new record change: from the earliest new
    record (key ``low``) to ``window`` records past the latest one (``high``).
    That region is replayed from the ``window`` records before it, read through
    the publication index, so a backfill costs O(window + the records published
    between its earliest and latest), not the chain's length. Beyond the
    region every window, and so every risk, is as before: the stored current
    fields stand unless the region reaches the end of the chain, and the stored
    last escalation stands if it lies beyond the region. Only when it lay inside
    the region and the replay finds none there is the part before the region
    replayed in full to find the previous one.
    """
    window = rules.window
    keys = sorted((each.published_at, each.seq) for each in written)
    low, high = keys[0], keys[-1]
    sid = source_id
    before = conn.execute(_BEFORE, {"sid": sid, "at": low[0], "seq": low[1], "n": window}).all()[
        ::-1
    ]
    held = [int(each[2]) for each in before]
    rank = rules.rank(rules.risk(held[-1], rules.trend(held))) if held else 0
    stored = conn.execute(
        _REGION, {"sid": sid, "at": low[0], "seq": low[1], "to_at": high[0], "to_seq": high[1]}
    ).all()
    region = sorted(
        [
            *stored,
            *(
                (each.published_at, each.seq, each.severity, each.harm_mechanism)
                for each in written
            ),
        ],
        key=lambda row: (row[0], row[1]),
    )
    after = conn.execute(_AFTER, {"sid": sid, "at": high[0], "seq": high[1], "n": window + 1}).all()
    replay = Replay(rules, held, rank)
    for published_at, seq, severity, _ in (*region, *after):
        replay.step(published_at, seq, int(severity))
    last_row = after[-1] if after else region[-1]
    last_key = (last_row[0], last_row[1])
    old = _old_escalation(locked)
    if old is not None and old > last_key:
        escalation: tuple[str, int] | None = old
    elif replay.escalation is not None:
        escalation = replay.escalation
    elif old is None or old < low:
        escalation = old
    else:
        escalation = _escalation_before(conn, sid, low, rules)
    reached_end = len(after) <= window
    if reached_end:
        severities = list(replay.recent)
        current = int(last_row[2])
        trend_now = rules.trend(severities)
        trend: str = trend_now
        risk = rules.risk(current, trend_now)
        label = rules.label(last_row[3], current)
        last = last_row[0]
    else:
        severities = [int(value) for value in locked.recent.split(",")] if locked.recent else []
        current, trend, risk, label = locked.current, locked.trend, locked.risk, locked.label
        last = locked.last
    return _assembled(
        source_id,
        locked,
        written,
        rules,
        severities=severities,
        current=(current, label),
        trend=trend,
        risk=risk,
        first=min(locked.first, low[0]),
        last=last,
        escalation=escalation,
    )


def _escalation_before(
    conn: Connection, source_id: str, key: tuple[str, int], rules: TrackingRules
) -> tuple[str, int] | None:
    """The latest escalation among the records published before ``key``: their windows
    and risks are unchanged, but where the last of them rose is stored nowhere."""
    replay = Replay(rules)
    for published_at, seq, severity in conn.execute(
        _UP_TO, {"sid": source_id, "at": key[0], "seq": key[1]}
    ):
        replay.step(published_at, seq, int(severity))
    return replay.escalation


def _window(conn: Connection, source_id: str, count: int, recent: str, window: int) -> list[int]:
    """The latest ``window`` severities by publication order, oldest first.

    They come from the profile row; only when the window setting has grown
    past what the row holds are they read from the chain itself.
    """
    wanted = min(count, window)
    if wanted <= 0:
        return []
    held = [int(value) for value in recent.split(",")] if recent else []
    if len(held) >= wanted:
        return held[len(held) - wanted :]
    tail = conn.execute(_WINDOW_TAIL, {"sid": source_id, "n": wanted}).scalars().all()
    return [*reversed(tail)]


# -- reading ----------------------------------------------------------------------------


def get_profile(source_id: str, *, session: SessionLike) -> SourceProfile:
    """The source's profile; UnknownSource when nothing was ever observed for it."""
    validate_source_id(source_id)
    row = _connection(session).execute(_GET_PROFILE, {"sid": source_id}).one_or_none()
    if row is None:
        raise UnknownSource(source_id)
    return _profile(row)


def list_profiles(
    *,
    session: SessionLike,
    risk: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
) -> list[SourceProfile]:
    """Profiles in listing order (risk, current severity, rolling average, last seen: all
    descending; source_id ascending breaks ties so pages never overlap).

    Reads the profile table only, through the index in that order; ``risk``
    keeps one level (an unknown level matches nothing: front ends validate it
    against the taxonomy's levels).
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")
    conn = _connection(session)
    if risk is None:
        ids = conn.execute(_LIST_ALL, {"limit": limit, "offset": offset})
    else:
        ids = conn.execute(_LIST_RISK, {"risk": risk, "limit": limit, "offset": offset})
    return _profiles_in_order(conn, list(ids.scalars()))


def _profiles_in_order(conn: Connection, ids: list[str]) -> list[SourceProfile]:
    """The profiles of ``ids``, in that order (read in the caller's transaction)."""
    if not ids:
        return []
    found = {row[0]: row for row in conn.execute(_BY_IDS, {"ids": ids})}
    return [_profile(found[source_id]) for source_id in ids if source_id in found]


def list_profiles_near(
    *,
    session: SessionLike,
    total: int,
    risk: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
) -> list[SourceProfile]:
    """``list_profiles``'s page at ``offset``, read from whichever end of the listing is nearer.

    ``total`` is the listing's size (``count_profiles``). An OFFSET costs the index
    entries it skips, so no page costs more than half the list.
    Should the listing change between the count and the read, the page is the
    one at that distance from the end, as a scrolling view expects.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    if offset < 0:
        raise ValueError(f"offset must be 0 or more, not {offset}")
    if offset + limit / 2 <= total / 2:
        return list_profiles(session=session, risk=risk, limit=limit, offset=offset)
    wanted = min(limit, total - offset)
    if wanted <= 0:
        return []
    params = {"limit": wanted, "offset": total - offset - wanted}
    conn = _connection(session)
    if risk is None:
        ids = list(conn.execute(_LIST_ALL_FROM_END, params).scalars())
    else:
        ids = list(conn.execute(_LIST_RISK_FROM_END, {**params, "risk": risk}).scalars())
    ids.reverse()
    return _profiles_in_order(conn, ids)


def count_profiles(*, session: SessionLike, risk: str | None = None) -> int:
    """How many sources a listing with this filter has in all (X-Total-Count)."""
    conn = _connection(session)
    if risk is None:
        return int(conn.execute(_COUNT_ALL).scalar_one())
    return int(conn.execute(_COUNT_RISK, {"risk": risk}).scalar_one())


def latest_observations(
    source_id: str, *, session: SessionLike, limit: int = 10
) -> list[Observation]:
    """The newest ``limit`` observations of a source, newest first."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    get_profile(source_id, session=session)
    rows = _connection(session).execute(_LATEST, {"sid": source_id, "limit": limit})
    return [_observation(row) for row in rows]


def iter_chain(source_id: str, *, session: SessionLike) -> Iterator[Observation]:
    """Every observation of a source in chain order, streamed in batches (any length)."""
    get_profile(source_id, session=session)
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    for row in conn.execute(_EXPORT, {"sid": source_id}):
        yield _observation(row)


def export_chain(source_id: str, stream: IO[bytes], *, session: SessionLike) -> int:
    """Write the chain as JSONL, one observation per line with every SPEC field; the count."""
    get_profile(source_id, session=session)
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    written = 0
    for row in conn.execute(_EXPORT, {"sid": source_id}):
        stream.write(orjson.dumps(_observation(row).to_dict()) + b"\n")
        written += 1
    return written


def verify_source(
    source_id: str,
    *,
    session: SessionLike,
    progress: Callable[[int, int], None] | None = None,
    rules: TrackingRules | None = None,
    keys: KeyRing | None = None,
    checkpoints: Iterable[Checkpoint] = (),
) -> VerifyResult:
    """Re-hash the source's whole chain in one streaming pass and check it against its profile.

    Beyond the chain rules (see ``ChainVerifier``), the chain must end exactly
    at the profile's observation_count with the profile's head_hash: that is
    what catches rows deleted from the end, rows appended behind the store's
    back, and a chain rewritten consistently from some point on. Every profile
    field is recomputed from the chain (the rule-derived ones only with
    ``rules``) and a difference breaks the chain at its head, naming the field.
    With ``keys`` every record must carry a valid signature by one of them;
    ``checkpoints`` (authenticated by the caller: ``store.checkpoints.authenticate``)
    must each be extended by the chain.

    ``progress(checked, total)`` is called every ``STREAM_BATCH`` records and
    once at the end, so a front end can draw a bar; an exception it raises
    (a cancel) stops the walk and propagates, with the cursor closed.
    """
    profile = get_profile(source_id, session=session)
    expected = profile.observation_count
    verifier = ChainVerifier(source_id, keys=keys, checkpoints=checkpoints)
    feed = verifier.feed
    recomputed = ProfileCheck(rules)
    add = recomputed.add
    # The profile follows publication order; while the chain's published_at never goes
    # back (no backfill), that is seq order and the profile is checked in this same walk.
    in_order = True
    latest = ""
    rows = _CHAIN.stream(_connection(session), {"sid": source_id})
    try:
        for row in rows:
            if verifier.checked == expected:
                verifier.fail(
                    f"seq {row[1]} lies beyond the profile's head "
                    f"(observation_count {expected}): a record was added behind the store's back"
                )
                break
            if not feed(row):
                break
            if in_order:
                published_at = row[13]
                if published_at < latest:
                    in_order = False
                else:
                    latest = published_at
                    add(published_at, row[1], row[4], row[5])
            if progress is not None and verifier.checked % STREAM_BATCH == 0:
                progress(verifier.checked, expected)
    finally:
        rows.close()  # stopping early must not leave a server-side cursor open
    if not in_order and not verifier.broken:
        recomputed = _in_publication_order(_connection(session), source_id, expected, rules)
    if progress is not None:
        progress(verifier.checked, expected)
    if not verifier.broken:
        if verifier.checked < expected:
            verifier.fail(
                f"the chain ends at seq {verifier.checked} but the profile records "
                f"{expected} observations (seq {verifier.checked + 1} is missing)"
            )
        elif verifier.head_hash != profile.head_hash:
            verifier.reject_head(
                f"the head record (seq {expected}) does not carry the profile's head_hash: "
                "the chain was rewritten or the profile edited"
            )
        else:
            internal = _connection(session).execute(_INTERNAL, {"sid": source_id}).one()
            mismatch = recomputed.mismatch(profile, dict(internal._mapping))
            if mismatch is not None:
                verifier.reject_head(f"at the head (seq {expected}): {mismatch}")
    verifier.end()
    return verifier.result()


def _in_publication_order(
    conn: Connection, source_id: str, count: int, rules: TrackingRules | None
) -> ProfileCheck:
    """The profile check fed the verified records in publication order (a second
    streaming read through the publication index, up to the verified seq)."""
    check = ProfileCheck(rules)
    add = check.add
    for published_at, seq, severity, mechanism in conn.execution_options(
        yield_per=STREAM_BATCH
    ).execute(PUBLICATION_ORDER, {"sid": source_id, "n": count}):
        add(published_at, seq, mechanism, int(severity))
    return check


def observations_between(
    source_id: str, first_seq: int, last_seq: int, *, session: SessionLike
) -> list[Observation]:
    """The records with ``first_seq <= seq <= last_seq``, oldest first (at most MAX_LIMIT).

    Seqs are dense from 1, so this is also how a front end pages a chain
    newest-first by seq range (an index range scan, never a deep OFFSET), and
    how it shows the records on both sides of a break.
    """
    if last_seq - first_seq + 1 > MAX_LIMIT:
        raise ValueError(f"at most {MAX_LIMIT} records at once, not {last_seq - first_seq + 1}")
    rows = _connection(session).execute(
        _BETWEEN, {"sid": source_id, "first": first_seq, "last": last_seq}
    )
    return [_observation(row) for row in rows]


def severity_series(source_id: str, *, session: SessionLike) -> Iterator[tuple[int, str, int]]:
    """``(seq, observed_at, severity)`` of every record in chain order, streamed.

    The timeline needs only these three columns; reading whole records would
    stream every stored text of a long chain.
    """
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    for seq, observed_at, severity in conn.execute(_SERIES, {"sid": source_id}):
        yield int(seq), str(observed_at), int(severity)


def publication_series(source_id: str, *, session: SessionLike) -> Iterator[tuple[int, str, int]]:
    """``(seq, published_at, severity)`` of every record in publication order (ties by seq),
    streamed: the order the profile reads (SPEC 5a), so a timeline drawn from it shows the
    trend the source had when it published, a backfilled archive included."""
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    for seq, published_at, severity in conn.execute(_PUBLICATION_SERIES, {"sid": source_id}):
        yield int(seq), str(published_at), int(severity)


def source_ids_with_prefix(prefix: str, *, session: SessionLike, limit: int = 20) -> list[str]:
    """Up to ``limit`` source ids starting with ``prefix``, in id order (jump to a source)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be 1 to {MAX_LIMIT}, not {limit}")
    rows = _connection(session).execute(
        _PREFIX, {"n": len(prefix), "prefix": prefix, "limit": limit}
    )
    return [str(value) for value in rows.scalars()]


def all_source_ids(*, session: SessionLike) -> Iterator[str]:
    """Every tracked source_id, in order, streamed (for ``verify --all``)."""
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    yield from conn.execute(_ALL_SOURCE_IDS).scalars()
