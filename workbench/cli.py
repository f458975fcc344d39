"""The ``harmwatch`` console script: one typer app; each command lives in its own module.

To add a command group, write ``workbench/commands/<name>.py`` with a
``register(app)`` function and list it in ``REGISTRARS``. The root group maps
expected errors to ``error: ...`` and exit code 2 for every command (see
``workbench.errors``).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from workbench.commands import benchmark, classify, db, serve, track, validate
from workbench.errors import ReportingGroup

REGISTRARS: tuple[Callable[[typer.Typer], None], ...] = (
    classify.register,
    validate.register,
    benchmark.register,
    track.register,
    db.register,
    serve.register,
)


def package_version() -> str:
    try:
        return version("harmwatch")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown"


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
        cls=ReportingGroup,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    cli.callback()(_root)
    for register in REGISTRARS:
        register(cli)
    return cli


app = create_app()


def main() -> None:
    """Console-script entry point (``harmwatch = "workbench.cli:main"``)."""
    app()
