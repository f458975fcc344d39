"""Observations (the hash chains) and source profiles.

Revision ID: 0001
Revises:
Create Date: 2026-05-09
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_profiles",
        sa.Column("source_id", sa.String(200), nullable=False),
        sa.Column("observation_count", sa.Integer(), nullable=False),
        sa.Column("current_severity", sa.SmallInteger(), nullable=False),
        sa.Column("current_severity_label", sa.String(64), nullable=False),
        sa.Column("rolling_average_severity", sa.Float(), nullable=False),
        sa.Column("window_size", sa.Integer(), nullable=False),
        sa.Column("trend", sa.String(16), nullable=False),
        sa.Column("risk_level", sa.String(32), nullable=False),
        sa.Column("risk_rank", sa.SmallInteger(), nullable=False),
        sa.Column("first_observed_at", sa.String(27), nullable=False),
        sa.Column("last_observed_at", sa.String(27), nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("recent_severities", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("source_id", name="pk_source_profiles"),
        sa.CheckConstraint("observation_count >= 0", name="ck_source_profiles_count_not_negative"),
        sqlite_with_rowid=False,
    )
    op.create_index(
        "ix_source_profiles_listing",
        "source_profiles",
        [
            sa.literal_column("risk_rank DESC"),
            sa.literal_column("current_severity DESC"),
            sa.literal_column("rolling_average_severity DESC"),
            sa.literal_column("last_observed_at DESC"),
            "source_id",
        ],
    )
    op.create_index(
        "ix_source_profiles_risk",
        "source_profiles",
        [
            "risk_level",
            sa.literal_column("current_severity DESC"),
            sa.literal_column("rolling_average_severity DESC"),
            sa.literal_column("last_observed_at DESC"),
            "source_id",
        ],
    )
    op.create_table(
        "observations",
        sa.Column("source_id", sa.String(200), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("observed_at", sa.String(27), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("harm_mechanism", sa.String(64), nullable=True),
        sa.Column("severity", sa.SmallInteger(), nullable=False),
        sa.Column("taxonomy_version", sa.String(64), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("record_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("source_id", "seq", name="pk_observations"),
        sa.CheckConstraint("seq >= 1", name="ck_observations_seq_positive"),
        sa.CheckConstraint("severity >= 0", name="ck_observations_severity_not_negative"),
        sa.ForeignKeyConstraint(
            ["source_id"],
            ["source_profiles.source_id"],
            name="fk_observations_source_id_source_profiles",
        ),
        sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("observations")
    op.drop_index("ix_source_profiles_risk", table_name="source_profiles")
    op.drop_index("ix_source_profiles_listing", table_name="source_profiles")
    op.drop_table("source_profiles")
