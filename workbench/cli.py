"""The ``harmwatch`` console script: one typer app whose commands load on demand.

Each command lives in ``workbench/commands/<name>.py`` with a ``register(app)``
function and is listed in ``COMMANDS`` with a one-line summary. The root group
imports a command's module (and so the engine, the store, FastAPI or textual)
only when that command runs; ``harmwatch --help`` and ``--version`` import
none of them. The root group also maps expected errors to ``error: ...`` and
exit code 2 for every command (see ``workbench.errors``).
"""

from __future__ import annotations

import importlib
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from workbench.entry import package_version
from workbench.errors import ReportingGroup

COMMANDS: dict[str, tuple[str, str]] = {
    "classify": (
        "workbench.commands.classify",
        "Classify a text and explain the decision: matched row and pattern, suppressions, target.",
    ),
    "validate": ("workbench.commands.validate", "Measure the classifier against labelled samples."),
    "benchmark": (
        "workbench.commands.benchmark",
        "Run the functional benchmark suite of the taxonomy.",
    ),
    "track": (
        "workbench.commands.track",
        "Track named sources over time in tamper-evident hash chains.",
    ),
    "keys": ("workbench.commands.keys", "Signing keys for chain records and checkpoints."),
    "db": ("workbench.commands.db", "The tracking database: create or migrate its schema."),
    "serve": ("workbench.commands.serve", "Serve the HTTP API (FastAPI under uvicorn)."),
    "tui": (
        "workbench.commands.tui",
        "Open the analyst workbench: classify, triage files, browse and verify sources.",
    ),
}
"""Command name -> (module defining it, the summary ``harmwatch --help`` shows)."""


def command_module(name: str) -> Any:
    return importlib.import_module(COMMANDS[name][0])


class LazyGroup(ReportingGroup):
    """The root group: lists commands from ``COMMANDS``, imports one only to run it.

    While the root help is drawn, commands are stand-ins carrying the summary,
    so listing them imports nothing.
    """

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if self._listing:
            summary = COMMANDS[cmd_name][1]
            return TyperCommand(cmd_name, help=summary, short_help=summary)
        holder = typer.Typer()
        command_module(cmd_name).register(holder)
        built = typer.main.get_group(holder)
        return built.get_command(ctx, cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def shell_complete(self, ctx: Any, incomplete: str) -> Any:
        """Completing a command name lists the stand-ins too: a TAB after ``harmwatch``
        must not import every command (over a second); completing inside a command
        resolves the real one as running it would."""
        self._listing = True
        try:
            return super().shell_complete(ctx, incomplete)
        finally:
            self._listing = False


def _print_version(requested: bool) -> None:
    if requested:
        typer.echo(f"harmwatch {package_version()}")
        raise typer.Exit()


def _root(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Explainable detection of dehumanizing and violence-inciting speech against identity
    groups. Settings come from the environment and .env (HARMWATCH_TAXONOMY,
    HARMWATCH_MAX_TEXT_CHARS, ...)."""


def create_app() -> typer.Typer:
    """The CLI app; a factory so tests and embedders get a fresh one."""
    cli = typer.Typer(
        name="harmwatch",
        cls=LazyGroup,
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
    )
    cli.callback()(_root)
    return cli


app = create_app()


def main() -> None:
    """The typer app; the console script reaches it through ``workbench.entry.main``."""
    app()
