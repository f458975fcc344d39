"""Whether a record's text was kept at append: how verify tells a redaction from a removal.

A record's text is outside the hash; it may be null because it was never kept
(HARMWATCH_STORE_TEXT=false) or because it was redacted (then ``redacted`` says
so). Without this column a text deleted behind the store's back would look
like the first. ``text_kept`` is set by every append (1 when the text was
stored) and never changed; verify reports a record with ``text_kept = 1``, no
text and no redaction marker. Existing records get 1 where they hold a text
(nothing was redacted before this revision: the marker is newer still).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A NOT NULL column with a constant default: no table copy on SQLite.
    op.add_column(
        "observations",
        sa.Column("text_kept", sa.SmallInteger(), nullable=False, server_default="0"),
    )
    op.execute("UPDATE observations SET text_kept = 1 WHERE text IS NOT NULL")


def downgrade() -> None:
    with op.batch_alter_table("observations") as batch:
        batch.drop_column("text_kept")
