"""Record signatures: nullable key_id and signature on observations, outside the hash.

Existing records keep verifying (their hash never covered these columns);
they stay unsigned. See docs/tracking.md for how verify treats unsigned
records once a signing key is configured.

Revision ID: 0002
Revises: 0001
Create Date: 2026-05-20
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # ADD COLUMN of a nullable column: no table copy on SQLite, no rewrite on PostgreSQL.
    op.add_column("observations", sa.Column("key_id", sa.String(16), nullable=True))
    op.add_column("observations", sa.Column("signature", sa.String(128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("observations") as batch:
        batch.drop_column("signature")
        batch.drop_column("key_id")
