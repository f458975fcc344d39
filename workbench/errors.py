"""The one place where an expected failure becomes ``error: ...`` on stderr and exit code 2.

A user of a command-line tool needs one line they can act on (which file, which
setting, which limit), never a traceback. Only failures that bad input or a bad
environment can cause are mapped; anything else is a bug and keeps its traceback.
The mapping sits on the root command group, so every command and group that is
registered later gets it without having to remember a decorator.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer
from typer.core import TyperGroup

EXIT_ERROR = 2

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


def report(exc: BaseException) -> None:
    """Print the ``error:`` line; plain echo because Rich would wrap it at the console width."""
    typer.echo(f"error: {describe(exc)}", err=True)


@contextmanager
def reported() -> Iterator[None]:
    """Turn the expected failures into the error line and exit code 2."""
    try:
        yield
    except BrokenPipeError:
        # `harmwatch ... | head`: the command-line layer closes stdout quietly.
        raise
    except EXPECTED as exc:
        report(exc)
        raise typer.Exit(EXIT_ERROR) from None


class ReportingGroup(TyperGroup):
    """The root group: runs every subcommand inside ``reported()``."""

    # ``Any``: the click Context type lives in click for typer < 0.20 and in a
    # private vendored module after, so neither can be named portably here.
    def invoke(self, ctx: Any) -> Any:
        with reported():
            return super().invoke(ctx)
