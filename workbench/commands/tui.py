"""``harmwatch tui``: the analyst workbench (Textual).

textual is imported only when this command runs (through ``importlib``, so
that the import contract that keeps textual out of the CLI holds statically
too): every other command starts without it.
"""

from __future__ import annotations

import importlib
from typing import Annotated

import typer

from workbench.options import settings_of

THEMES = ("harmwatch-dark", "harmwatch-light")


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)


def tui(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            show_default=False,
            help="Tracking database URL (default: TRACKING_DB_URL, DATABASE_URL, else the "
            "SQLite file in the user data directory).",
        ),
    ] = None,
    theme: Annotated[
        str,
        typer.Option("--theme", metavar="NAME", help=f"Colour theme: {', '.join(THEMES)}."),
    ] = THEMES[0],
) -> None:
    """Open the analyst workbench: classify, triage files, browse and verify sources."""
    if theme not in THEMES:
        raise typer.BadParameter(f"must be one of {', '.join(THEMES)}", param_hint="--theme")
    settings = settings_of(ctx)
    if db is not None:
        settings = settings.model_copy(update={"tracking_db_url": db})
    app_module = importlib.import_module("workbench.tui.app")
    app_module.create_app(settings, theme=theme).run()
