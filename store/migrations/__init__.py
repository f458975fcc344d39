"""Alembic migrations of the tracking schema, run programmatically (no alembic.ini at runtime).

``Store.upgrade`` calls ``upgrade(connection)`` inside a transaction it owns
(after taking a lock that serializes concurrent first uses), so env.py runs
the migrations on that connection instead of opening its own. Developers
write a new revision with ``alembic -c store/migrations/alembic.ini revision
--autogenerate -m "..."`` against a scratch database.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import Connection

HERE = Path(__file__).resolve().parent


class UnknownRevisionError(Exception):
    """The database is at a revision this version of harmwatch does not know (it is newer)."""


def config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(HERE))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(config()).get_current_head()
    if head is None:  # pragma: no cover - the package always ships a revision
        raise RuntimeError("no migration revisions found")
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision stamped in the database; None when it was never migrated."""
    return MigrationContext.configure(connection).get_current_revision()


def check_known(current: str | None) -> None:
    """UnknownRevisionError when a newer harmwatch wrote the schema: no migration of ours
    can bring it back, so the message says to upgrade harmwatch, not the database."""
    script = ScriptDirectory.from_config(config())
    if current is not None and current not in {rev.revision for rev in script.walk_revisions()}:
        head = script.get_current_head()
        raise UnknownRevisionError(
            f"the database is at schema revision {current!r}, which this harmwatch does not "
            f"know (its newest is {head!r}); upgrade harmwatch"
        )


def upgrade(connection: Connection) -> None:
    """Apply every missing revision on ``connection``, inside the caller's transaction."""
    check_known(current_revision(connection))
    try:
        command.upgrade(config(connection), "head")
    except CommandError as exc:
        raise UnknownRevisionError(str(exc)) from None
