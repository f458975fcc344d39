"""``harmwatch db``: the tracking database, for operators; and how every command opens it.

The store migrates itself on first use, so ``db upgrade`` exists for operators
who want the schema change to happen at a moment they choose (before a deploy,
with a user allowed to run DDL). ``opened_store`` is what ``track`` uses: one
store per command, closed at the end, with the store's failures turned into
the one ``error:`` line and exit code 2 of the CLI conventions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from engine import Settings
from store import Store, StoreError, open_store
from workbench.errors import EXIT_ERROR, report
from workbench.options import JsonFlag, settings_of
from workbench.output import write_json


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        name="db",
        help="The tracking database (TRACKING_DB_URL, else DATABASE_URL, else an SQLite file "
        "in the user data directory).",
        no_args_is_help=True,
    )
    group.command("upgrade")(upgrade)
    app.add_typer(group, name="db")


@contextmanager
def store_errors() -> Iterator[None]:
    """Unreachable database, unknown source, bad source_id: one line and exit 2."""
    try:
        yield
    except StoreError as exc:
        report(exc)
        raise typer.Exit(EXIT_ERROR) from None


@contextmanager
def opened_store(
    settings: Settings, *, migrate: bool = True, read_only: bool | None = None
) -> Iterator[Store]:
    """The settings' store for the length of one command (migrated on first use).

    The reading commands pass ``read_only=True``: an existing SQLite file is then
    opened read-only and never changed, not even migrated (``store.open_store``).
    Store failures inside the ``with`` body are reported the same way.
    """
    with store_errors():
        store = open_store(settings, migrate=migrate, read_only=read_only)
        try:
            yield store
        finally:
            store.dispose()


def upgrade(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create or migrate the tracking schema to the newest revision and print it."""
    settings = settings_of(ctx)
    with opened_store(settings, migrate=False, read_only=False) as store:
        migration = store.upgrade()
    if as_json:
        write_json(
            {
                "database": store.url,
                "backend": store.backend,
                "revision_before": migration.before,
                "revision": migration.after,
                "upgraded": migration.changed,
            },
            typer.get_binary_stream("stdout"),
        )
        return
    if migration.changed:
        was = migration.before or "empty"
        message = f"upgraded {store.url} from {was} to revision {migration.after}"
    else:
        message = f"{store.url} is at revision {migration.after} (up to date)"
    typer.echo(message)  # one line a script can grep, never wrapped at the console width
