"""The one place where an expected failure becomes ``error: ...`` on stderr and exit code 2.

A user of a command-line tool needs one line they can act on (which file, which
setting, which limit), never a traceback. Only failures that bad input or a bad
environment can cause are mapped; anything else is a bug and keeps its traceback.
The mapping sits on the root command group, so every command and group that is
registered later gets it without having to remember a decorator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click: its context stack and exceptions are not click's
    from typer._click.exceptions import ClickException
    from typer._click.globals import get_current_context
except ImportError:  # pragma: no cover - typer < 0.20 uses click itself
    from click import ClickException, get_current_context  # type: ignore[assignment,no-redef]

EXIT_ERROR = 2
_JSON_ERRORS = "harmwatch.json_errors"

# The engine's TaxonomyError and pydantic's ValidationError are ValueErrors: they are
# the failures users actually meet (a bad taxonomy file, a bad setting). They are not
# imported here, because this module loads with the CLI itself, before any command
# has asked for the engine or pydantic. TypeError/ValueError are the engine's
# input-validation errors (naming the field and the limit); OSError covers files.
EXPECTED: tuple[type[Exception], ...] = (
    TypeError,
    ValueError,
    OSError,
)


def describe(exc: BaseException) -> str:
    """One line for the user: multi-line messages (taxonomy, YAML) are joined with '; '."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        # Never echo the offending input: it may be a secret (API or signing key).
        problems = (
            f"{'.'.join(str(part) for part in error['loc']) or exc.title}: {error['msg']}"
            for error in exc.errors()
        )
        message = f"invalid {exc.title}: " + "; ".join(problems)
    elif isinstance(exc, OSError) and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    else:
        message = str(exc) or type(exc).__name__
    return "; ".join(line.strip() for line in message.splitlines() if line.strip())


def report(exc: BaseException, *, as_json: bool | None = None, exit_code: int = EXIT_ERROR) -> None:
    """Print the ``error:`` line; plain echo because Rich would wrap it at the console width.

    With ``--json`` on the command line (seen by the root group, whatever the command)
    the line is one JSON object instead, so a script that parses the command's output
    can parse its failure the same way.
    """
    if as_json is None:
        ctx = get_current_context(silent=True)
        as_json = bool(ctx is not None and ctx.meta.get(_JSON_ERRORS, False))
    message = describe(exc)
    if as_json:
        typer.echo(
            json.dumps({"error": message, "exit_code": exit_code}, ensure_ascii=False), err=True
        )
    else:
        typer.echo(f"error: {message}", err=True)


def wants_json(args: Sequence[str]) -> bool:
    """Whether ``--json`` is among the options (not after ``--``, where it would be a text)."""
    head = list(args)
    if "--" in head:
        head = head[: head.index("--")]
    return "--json" in head


@contextmanager
def reported(*, as_json: bool = False) -> Iterator[None]:
    """Turn the expected failures into the error line and exit code 2."""
    try:
        yield
    except BrokenPipeError:
        # `harmwatch ... | head`: the command-line layer closes stdout quietly.
        raise
    except EXPECTED as exc:
        report(exc, as_json=as_json)
        raise typer.Exit(EXIT_ERROR) from None
    except ClickException as exc:
        # A usage error (unknown option, bad value) under --json: JSON too; without
        # --json click's own usage message is the better help.
        if not as_json:
            raise
        typer.echo(
            json.dumps(
                {"error": exc.format_message(), "exit_code": exc.exit_code}, ensure_ascii=False
            ),
            err=True,
        )
        raise typer.Exit(exc.exit_code) from None


class ReportingGroup(TyperGroup):
    """The root group: runs every subcommand inside ``reported()``."""

    # ``Any``: the click Context type lives in click for typer < 0.20 and in a
    # private vendored module after, so neither can be named portably here.
    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_JSON_ERRORS] = wants_json(args)
        return list(super().parse_args(ctx, args))

    def invoke(self, ctx: Any) -> Any:
        with reported(as_json=bool(ctx.meta.get(_JSON_ERRORS, False))):
            return super().invoke(ctx)
