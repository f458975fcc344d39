"""Tables of the tracking store: the observation chain and one profile row per source.

Timestamps are stored as the exact ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` text that the
record hash covers (fixed width, so text order is time order): verification
then re-hashes what is stored with no conversion, and no driver's time-zone
handling can change a hashed value between write and read.

The profile is derived data kept up to date by every append, so that listing
reads this one small table through an index in listing order and never
rescans observations. Two columns are not SPEC fields: ``risk_rank`` (low = 0),
because the listing sorts by risk and level names do not sort by severity; and
``recent_severities``, the window itself, so that an append reads everything it
needs from the profile row it locks.
"""

from __future__ import annotations

from sqlalchemy import (
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from store.source_id import MAX_SOURCE_ID_CHARS

TIMESTAMP_CHARS = 27  # 2026-01-02T03:04:05.678901Z
HASH_CHARS = 64
KEY_ID_CHARS = 16
SIGNATURE_CHARS = 128  # Ed25519: 64 bytes in hex; HMAC-SHA256 needs 64

# Explicit constraint names: migrations can then address them on both backends.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class SourceProfileRow(Base):
    """One row per tracked source: the SPEC's SourceProfile plus the listing's sort key."""

    __tablename__ = "source_profiles"

    source_id: Mapped[str] = mapped_column(String(MAX_SOURCE_ID_CHARS), primary_key=True)
    observation_count: Mapped[int] = mapped_column(Integer)
    current_severity: Mapped[int] = mapped_column(SmallInteger)
    current_severity_label: Mapped[str] = mapped_column(String(64))
    rolling_average_severity: Mapped[float] = mapped_column(Float)
    # "window" is a reserved word in PostgreSQL; the column is named apart from the field.
    window: Mapped[int] = mapped_column("window_size", Integer)
    trend: Mapped[str] = mapped_column(String(16))
    risk_level: Mapped[str] = mapped_column(String(32))
    risk_rank: Mapped[int] = mapped_column(SmallInteger)
    first_observed_at: Mapped[str] = mapped_column(String(TIMESTAMP_CHARS))
    last_observed_at: Mapped[str] = mapped_column(String(TIMESTAMP_CHARS))
    head_hash: Mapped[str] = mapped_column(String(HASH_CHARS))
    # The window's severities, oldest first, comma-separated: the next append's trend
    # and average come from here instead of a query on observations.
    recent_severities: Mapped[str] = mapped_column(Text)
    # SPEC 5a: the highest severity ever observed; the window's count at each severity
    # (a canonical JSON object, {"0": n, ...}); the publication time of the latest
    # observation at which the risk level rose, and its seq (not a SPEC field: it breaks
    # ties of published_at when a backfilled observation lands next to it).
    peak_severity: Mapped[int] = mapped_column(SmallInteger)
    severity_counts: Mapped[str] = mapped_column(Text)
    last_escalation_at: Mapped[str | None] = mapped_column(String(TIMESTAMP_CHARS))
    last_escalation_seq: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        # Listing order (SPEC section 5), source_id last so pages never overlap.
        Index(
            "ix_source_profiles_listing",
            risk_rank.desc(),
            current_severity.desc(),
            rolling_average_severity.desc(),
            last_observed_at.desc(),
            source_id,
        ),
        # ?risk= filter: one level, then the rest of the listing order.
        Index(
            "ix_source_profiles_risk",
            risk_level,
            current_severity.desc(),
            rolling_average_severity.desc(),
            last_observed_at.desc(),
            source_id,
        ),
        CheckConstraint("observation_count >= 0", name="count_not_negative"),
        # SQLite: the row lives in its primary-key b-tree (no separate rowid table),
        # one page fewer to write and fsync per append.
        {"sqlite_with_rowid": False},
    )


class ObservationRow(Base):
    """One link of a source's chain, keyed by ``(source_id, seq)``: a chain cannot fork.

    The natural key is the primary key (no surrogate id): it is what every read
    uses, a chain is stored in seq order inside it (SQLite: WITHOUT ROWID), so
    verification reads it sequentially, and an append writes one index fewer.
    """

    __tablename__ = "observations"

    source_id: Mapped[str] = mapped_column(
        String(MAX_SOURCE_ID_CHARS), ForeignKey("source_profiles.source_id"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    observed_at: Mapped[str] = mapped_column(String(TIMESTAMP_CHARS))
    text: Mapped[str | None] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(HASH_CHARS))
    harm_mechanism: Mapped[str | None] = mapped_column(String(64))
    severity: Mapped[int] = mapped_column(SmallInteger)
    taxonomy_version: Mapped[str] = mapped_column(String(64))
    prev_hash: Mapped[str] = mapped_column(String(HASH_CHARS))
    record_hash: Mapped[str] = mapped_column(String(HASH_CHARS))
    # Outside the hash (SPEC section 5a): set when a signing key was configured at append.
    key_id: Mapped[str | None] = mapped_column(String(KEY_ID_CHARS))
    signature: Mapped[str | None] = mapped_column(String(SIGNATURE_CHARS))
    # Record version 2 (SPEC 5a). A version-1 record (written before migration 0003) has
    # record_version 1, published_at equal to its observed_at, and nulls below.
    record_version: Mapped[int] = mapped_column(SmallInteger)
    published_at: Mapped[str] = mapped_column(String(TIMESTAMP_CHARS))
    url: Mapped[str | None] = mapped_column(Text)
    # JSON values are kept as the canonical JSON text that was hashed (like the
    # timestamps): no driver or JSON column type can re-spell a hashed value.
    # ("metadata" is the column; the attribute name is taken by DeclarativeBase.)
    metadata_json: Mapped[str | None] = mapped_column("metadata", Text)
    attachment_hash: Mapped[str | None] = mapped_column(String(HASH_CHARS))
    decision: Mapped[str | None] = mapped_column(Text)
    # Outside the hash: null, or {"at", "reason"} once the text, url and metadata were removed.
    redacted: Mapped[str | None] = mapped_column(Text)
    # 1 when the append stored the text (migration 0004): a null text with 1 here and no
    # redaction marker was removed behind the store's back, and verify says so.
    text_kept: Mapped[int] = mapped_column(SmallInteger, server_default="0")

    __table_args__ = (
        CheckConstraint("seq >= 1", name="seq_positive"),
        CheckConstraint("severity >= 0", name="severity_not_negative"),
        # The profile reads a source in publication order (ties by seq); severity makes
        # the index covering for the replays of a backfill and of verify.
        Index("ix_observations_publication", source_id, published_at, seq, severity),
        {"sqlite_with_rowid": False},
    )
