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
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any, cast

import orjson
from sqlalchemy import ClauseElement, Connection, Select, Table, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine.interfaces import DBAPICursor, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler

from engine.result import Classification
from store.chain import (
    GENESIS_HASH,
    OBSERVATION_FIELDS,
    SIGNATURE_FIELDS,
    ChainVerifier,
    VerifyResult,
    format_observed_at,
    record_hash,
    text_hash,
)
from store.errors import InvalidTextError, UnknownSource
from store.models import ObservationRow, SourceProfileRow
from store.profile_check import ProfileCheck
from store.signing import KeyRing, SigningKey
from store.source_id import validate_source_id
from store.trend import NONE_LABEL, TrackingRules, rolling_average

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
)


@dataclass(frozen=True, slots=True)
class Observation:
    """One record of a chain, with every field of SPEC section 5 (text None when not kept)."""

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
    key_id: str | None = None
    signature: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every SPEC field; ``key_id`` and ``signature`` only on a signed record."""
        fields = {name: getattr(self, name) for name in OBSERVATION_FIELDS}
        if self.signature is not None:
            fields["key_id"] = self.key_id
            fields["signature"] = self.signature
        return fields


@dataclass(frozen=True, slots=True)
class SourceProfile:
    """A source's standing (SPEC section 5 field names), as of its latest append."""

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

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in PROFILE_FIELDS}


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

    def _run(self, conn: Connection, cursor: DBAPICursor, params: dict[str, Any]) -> DBAPICursor:
        dialect = conn.dialect
        sql, bound = self._bind(dialect, params)
        try:
            cursor.execute(sql, bound)
        except dialect.loaded_dbapi.Error as exc:
            # What Connection.execute would do: SQLAlchemy's exception classes (so a
            # locked or lost database is an OperationalError like everywhere else),
            # and a dead connection is invalidated instead of going back to the pool.
            if dialect.is_disconnect(exc, conn.connection, cursor):
                conn.invalidate(exc)
            raise DBAPIError.instance(
                sql, bound, exc, dialect.loaded_dbapi.Error, dialect=dialect
            ) from exc
        return cursor


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
)
_OBSERVATION_COLUMNS = tuple(
    observations.c[name] for name in (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)
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
)

# A new source starts as an empty profile; the upsert's no-op update on an existing
# one is what takes the row lock, and RETURNING hands back the head it guards.
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
}
_LOCK_RETURNING = (
    profiles.c.observation_count,
    profiles.c.head_hash,
    profiles.c.first_observed_at,
    profiles.c.recent_severities,
)
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
_WINDOW_TAIL = (
    select(observations.c.severity)
    .where(observations.c.source_id == bindparam("sid"))
    .order_by(observations.c.seq.desc())
    .limit(bindparam("n"))
)
_INSERT_OBSERVATION = observations.insert().values(
    {name: bindparam(name) for name in (*OBSERVATION_FIELDS, *SIGNATURE_FIELDS)}
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
_INTERNAL = select(profiles.c.risk_rank, profiles.c.recent_severities).where(
    profiles.c.source_id == bindparam("sid")
)
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
    return SourceProfile(*row)


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
) -> tuple[Observation, SourceProfile]:
    """Add one classified text to the source's chain and update its profile, uncommitted.

    A not-harmful classification is recorded as ``harm_mechanism = null`` and
    ``severity = 0`` whatever the classifier's best surviving signal was, so a
    chain's severities are exactly what trend and risk are computed from.
    ``text`` is kept only with ``store_text`` (HARMWATCH_STORE_TEXT); it must be
    the text that was classified (its hash is checked against content_hash).
    ``observed_at`` defaults to now, read after the source's lock is held so
    that the chain's timestamps follow its order on any one clock.

    On SQLite, begin the transaction with ``Store.transaction(write=True)`` or
    ``Writer.transaction()`` (BEGIN IMMEDIATE), or make the append the
    transaction's first statement.

    With ``signer`` (HARMWATCH_SIGNING_KEY) the record carries its key_id and a
    signature of its record_hash, so a writer without the key cannot append
    or rewrite unnoticed.
    """
    validate_source_id(source_id)
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
        mechanism: str | None = classification.harm_mechanism
        severity = classification.severity
    else:
        mechanism, severity = None, 0
    conn = _connection(session)
    window = rules.window
    cursor = _LOCK_PROFILE[conn.dialect.name].execute(
        conn, {"sid": source_id, "window": window, "risk": rules.risk_levels[0]}
    )
    row = cursor.fetchone()
    cursor.close()
    if row is None:  # pragma: no cover - an upsert's RETURNING always yields its row
        raise RuntimeError(f"the profile of {source_id!r} was neither inserted nor locked")
    count, prev_hash, first_observed_at, recent = row
    seq = count + 1
    stamp = format_observed_at(observed_at or datetime.now(UTC))
    if count == 0:
        first_observed_at = stamp
    severities = _window(conn, source_id, count, recent, window)
    severities.append(severity)
    head = record_hash(
        source_id=source_id,
        seq=seq,
        observed_at=stamp,
        content_hash=classification.content_hash,
        harm_mechanism=mechanism,
        severity=severity,
        taxonomy_version=classification.taxonomy_version,
        prev_hash=prev_hash,
    )
    observation = Observation(
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
        key_id=signer.key_id if signer is not None else None,
        signature=signer.sign(head.encode("utf-8")) if signer is not None else None,
    )
    trend = rules.trend(severities)
    risk = rules.risk(severity, trend)
    profile = SourceProfile(
        source_id=source_id,
        observation_count=seq,
        current_severity=severity,
        current_severity_label=rules.label(mechanism, severity),
        rolling_average_severity=rolling_average(severities),
        window=window,
        trend=trend,
        risk_level=risk,
        first_observed_at=first_observed_at,
        last_observed_at=stamp,
        head_hash=head,
    )
    params = observation.to_dict()
    params.update(
        key_id=observation.key_id,
        signature=observation.signature,
        sid=source_id,
        count=seq,
        current=severity,
        label=profile.current_severity_label,
        average=profile.rolling_average_severity,
        window=window,
        trend=trend,
        risk=risk,
        rank=rules.rank(risk),
        first=first_observed_at,
        last=stamp,
        head=head,
        recent=",".join(map(str, severities)),
    )
    for statement in _SAVE[conn.dialect.name]:
        statement.execute(conn, params).close()
    return observation, profile


def _window(conn: Connection, source_id: str, count: int, recent: str, window: int) -> list[int]:
    """The latest ``window - 1`` severities before this append, oldest first.

    They come from the profile row; only when the window setting has grown
    past what the row holds are they read from the chain itself.
    """
    wanted = min(count, window - 1)
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
    return [Observation(*row) for row in rows]


def iter_chain(source_id: str, *, session: SessionLike) -> Iterator[Observation]:
    """Every observation of a source in chain order, streamed in batches (any length)."""
    get_profile(source_id, session=session)
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    for row in conn.execute(_EXPORT, {"sid": source_id}):
        yield Observation(*row)


def export_chain(source_id: str, stream: IO[bytes], *, session: SessionLike) -> int:
    """Write the chain as JSONL, one observation per line with every SPEC field; the count."""
    get_profile(source_id, session=session)
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    written = 0
    for row in conn.execute(_EXPORT, {"sid": source_id}):
        stream.write(orjson.dumps(Observation(*row).to_dict()) + b"\n")
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
            add(row[2], row[4], row[5])
            if progress is not None and verifier.checked % STREAM_BATCH == 0:
                progress(verifier.checked, expected)
    finally:
        rows.close()  # stopping early must not leave a server-side cursor open
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
    return [Observation(*row) for row in rows]


def severity_series(source_id: str, *, session: SessionLike) -> Iterator[tuple[int, str, int]]:
    """``(seq, observed_at, severity)`` of every record in chain order, streamed.

    The timeline needs only these three columns; reading whole records would
    stream every stored text of a long chain.
    """
    conn = _connection(session).execution_options(yield_per=STREAM_BATCH)
    for seq, observed_at, severity in conn.execute(_SERIES, {"sid": source_id}):
        yield int(seq), str(observed_at), int(severity)


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
