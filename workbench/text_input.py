"""Where a command's TEXT comes from: the argument, or standard input.

Shared by every command that takes one text (classify, track observe), so the
rules for stdin (UTF-8, one trailing newline dropped, a hint on a terminal) and
for undecodable argument bytes are the same everywhere.
"""

from __future__ import annotations

import typer

STDIO = "-"  # the conventional file name for standard input and output


def read_text(text: str | None) -> str:
    """The text of a TEXT argument, reading stdin for ``-`` or no argument."""
    return _stdin_text() if text is None or text == STDIO else _argument_text(text)


def _argument_text(text: str) -> str:
    """The argument as given; undecodable argv bytes arrive as lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"TEXT is not valid UTF-8 (character {exc.start + 1})") from None
    return text


def _stdin_text() -> str:
    """All of stdin as UTF-8, minus the one newline that ends what was typed or piped."""
    stdin = typer.get_binary_stream("stdin")
    if stdin.isatty():
        typer.echo("Reading the text from stdin; finish with Ctrl-D.", err=True)
    try:
        text = stdin.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"stdin is not valid UTF-8 (byte {exc.start + 1})") from None
    if text.endswith("\n"):
        text = text[:-1].removesuffix("\r")
    return text
