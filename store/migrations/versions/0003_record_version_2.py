"""Record version 2 (SPEC 5a): evidence columns on observations, analyst fields on profiles.

Nothing is lost or rewritten: every existing record keeps its fields and its
record_hash, gets ``record_version`` 1 and ``published_at`` equal to its
``observed_at`` (what the profile orders by; a version-1 record's hash never
covered it, so verify requires the two to be equal), and null evidence
columns. New appends are version 2.

Profiles gain ``peak_severity``, ``severity_counts`` and ``last_escalation_at``
(with its seq). The first is the chain's maximum; the other two need the
tracking rules (risk levels, trend), so they are computed here by replaying
each chain in publication order with the rules of the settings in force
(``TRACKING_WINDOW``, ``HARMWATCH_TAXONOMY``...), loaded only when there is a
profile to fill. Front ends may hand their own rules in
``config.attributes["tracking_rules"]``.

``published_at`` and the two NOT NULL profile columns are added with a
constant server default (SQLite adds a NOT NULL column only with one; no
table copy) and filled in the same transaction.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import context, op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "observations",
        sa.Column("record_version", sa.SmallInteger(), nullable=False, server_default="1"),
    )
    op.add_column(
        "observations",
        sa.Column("published_at", sa.String(27), nullable=False, server_default=""),
    )
    for name, kind in (
        ("url", sa.Text()),
        ("metadata", sa.Text()),
        ("attachment_hash", sa.String(64)),
        ("decision", sa.Text()),
        ("redacted", sa.Text()),
    ):
        op.add_column("observations", sa.Column(name, kind, nullable=True))
    op.add_column(
        "source_profiles",
        sa.Column("peak_severity", sa.SmallInteger(), nullable=False, server_default="0"),
    )
    op.add_column(
        "source_profiles",
        sa.Column("severity_counts", sa.Text(), nullable=False, server_default="{}"),
    )
    op.add_column("source_profiles", sa.Column("last_escalation_at", sa.String(27)))
    op.add_column("source_profiles", sa.Column("last_escalation_seq", sa.Integer()))

    op.execute("UPDATE observations SET published_at = observed_at")
    op.create_index(
        "ix_observations_publication",
        "observations",
        ["source_id", "published_at", "seq", "severity"],
    )
    _fill_profiles()


def _fill_profiles() -> None:
    """Peak, window counts and last escalation of every existing source, from its chain."""
    conn = op.get_bind()
    if conn.execute(sa.text("SELECT COUNT(*) FROM source_profiles")).scalar_one() == 0:
        return
    from store.trend import Replay, severity_counts

    rules = context.config.attributes.get("tracking_rules") or _rules_from_settings()
    levels = list(rules.risk_by_severity)
    rows = conn.execute(
        sa.text(
            "SELECT source_id, published_at, seq, severity FROM observations "
            "ORDER BY source_id, published_at, seq"
        )
    )
    update = sa.text(
        "UPDATE source_profiles SET peak_severity = :peak, severity_counts = :counts, "
        "last_escalation_at = :at, last_escalation_seq = :seq WHERE source_id = :sid"
    )
    for source_id, chain in groupby(rows, key=lambda row: row[0]):
        replay = Replay(rules)
        peak = 0
        for _, published_at, seq, severity in chain:
            replay.step(published_at, seq, severity)
            peak = max(peak, severity)
        at, seq = replay.escalation or (None, None)
        counts = orjson.dumps(severity_counts(list(replay.recent), levels)).decode()
        conn.execute(
            update, {"peak": peak, "counts": counts, "at": at, "seq": seq, "sid": source_id}
        )


def _rules_from_settings() -> Any:
    from engine.rules.load import load_taxonomy
    from engine.settings import Settings
    from store.trend import TrackingRules

    settings = Settings()
    return TrackingRules.from_taxonomy(load_taxonomy(settings.taxonomy_path).root, settings)


def downgrade() -> None:
    op.drop_index("ix_observations_publication", table_name="observations")
    with op.batch_alter_table("source_profiles") as batch:
        for name in (
            "last_escalation_seq",
            "last_escalation_at",
            "severity_counts",
            "peak_severity",
        ):
            batch.drop_column(name)
    with op.batch_alter_table("observations") as batch:
        for name in (
            "redacted",
            "decision",
            "attachment_hash",
            "metadata",
            "url",
            "published_at",
            "record_version",
        ):
            batch.drop_column(name)
