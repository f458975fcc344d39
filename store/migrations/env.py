"""Alembic environment: migrations run on the connection the store hands over.

At runtime ``Store.upgrade`` passes its connection in ``config.attributes``.
A developer writing a new revision runs the alembic command line against a
scratch database instead::

    alembic -c store/migrations/alembic.ini -x url=sqlite:////tmp/scratch.db upgrade head
    alembic -c store/migrations/alembic.ini -x url=sqlite:////tmp/scratch.db \\
        revision --autogenerate -m "what changes"
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.engine import Connection

from store.models import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # SQLite can only ALTER a table by copying it; batch mode does that for later revisions.
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


_given = context.config.attributes.get("connection")
if isinstance(_given, Connection):
    _run(_given)
else:
    _url = context.get_x_argument(as_dictionary=True).get("url")
    if not _url:
        raise RuntimeError("pass -x url=DATABASE_URL (a scratch database) to the alembic command")
    with create_engine(_url).connect() as _connection:
        _run(_connection)
        _connection.commit()
