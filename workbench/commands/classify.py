"""``harmwatch classify``: one text from the argument or stdin, or a JSONL file line by line.

The command only reads input, calls the engine and renders; every decision
and every input-validation message comes from ``engine.Classifier``.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Annotated, cast

import orjson
import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from engine import Classifier, build_classifier
from workbench.options import ContextOption, JsonFlag, LanguageOption, settings_of
from workbench.output import (
    console,
    json_bytes,
    render_classification,
    severity_labels,
    write_json,
)
from workbench.text_input import STDIO, read_text

TextArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="TEXT",
        show_default=False,
        help="The text to classify; '-' or nothing reads it from stdin.",
    ),
]
InputOption = Annotated[
    Path | None,
    typer.Option(
        "--input",
        "-i",
        metavar="FILE.jsonl",
        dir_okay=False,
        show_default=False,
        help="Classify every line of a JSONL file ('-' for stdin) instead of one text.",
    ),
]
OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        metavar="FILE.jsonl",
        dir_okay=False,
        show_default=False,
        help="Where --input results go, one JSON object per line (default '-', stdout).",
    ),
]


def register(app: typer.Typer) -> None:
    app.command("classify")(classify)


def classify(
    ctx: typer.Context,
    text: TextArgument = None,
    language: LanguageOption = None,
    context: ContextOption = None,
    input_path: InputOption = None,
    output_path: OutputOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Classify a text and explain the decision: matched row and pattern, suppressions, target.

    With --input, each line is a JSON object {"text": ..., "context": ..., "language": ...,
    "id": ...} or a bare JSON string; each result line is {"id", "line", ...result}. A bad
    line gets an "error" field instead and the run goes on. -l and --context apply to lines
    that do not carry their own. Exit status: 0 done, 1 some lines failed, 2 error.
    """
    settings = settings_of(ctx)
    if input_path is not None:
        if text is not None:
            raise typer.BadParameter("give either TEXT or --input, not both", param_hint="TEXT")
        classifier = build_classifier(settings)
        failed = _classify_file(
            classifier, input_path, output_path or Path(STDIO), language, context, as_json
        )
        if failed:
            raise typer.Exit(1)
        return
    if output_path is not None:
        raise typer.BadParameter("--output needs --input", param_hint="--output")
    # Built before stdin is read, so a broken taxonomy fails before the user types.
    classifier = build_classifier(settings)
    content = read_text(text)
    result = classifier.classify(content, context=context, language=language)
    if as_json:
        write_json(result.to_dict(), typer.get_binary_stream("stdout"))
        return
    labels = severity_labels(classifier.root)
    console().print(render_classification(result, labels))


# -- JSONL files -----------------------------------------------------------------------


class _LineError(ValueError):
    """A line that cannot be classified; recorded in the output, the run goes on."""

    def __init__(self, message: str, item_id: str | int | None = None) -> None:
        super().__init__(message)
        self.item_id = item_id


@dataclass(frozen=True, slots=True)
class _Request:
    item_id: str | int | None
    text: str
    context: str | None
    language: str | None


@dataclass(slots=True)
class _Tally:
    classified: int = 0
    harmful: int = 0
    errors: int = 0


def _classify_file(
    classifier: Classifier,
    source: Path,
    target: Path,
    language: str | None,
    context: str | None,
    as_json: bool,
) -> bool:
    """Stream ``source`` to ``target``; True when some lines failed."""
    reading_stdin = str(source) == STDIO
    writing_stdout = str(target) == STDIO
    if not (reading_stdin or writing_stdout) and target.exists() and source.samefile(target):
        raise typer.BadParameter("must not be the --input file", param_hint="--output")
    show_progress = not as_json and sys.stderr.isatty()
    tally = _Tally()
    with ExitStack() as stack:
        # Input first: a missing input file must not leave an empty output behind.
        inp = (
            typer.get_binary_stream("stdin")
            if reading_stdin
            else stack.enter_context(source.open("rb"))
        )
        total = None if reading_stdin or not show_progress else _count_lines(source)
        out = (
            typer.get_binary_stream("stdout")
            if writing_stdout
            else stack.enter_context(target.open("wb"))
        )
        progress = stack.enter_context(
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=console(stderr=True),
                transient=True,
                disable=not show_progress,
            )
        )
        task = progress.add_task("classifying", total=total)
        name = STDIO if reading_stdin else str(source)
        for number, raw in enumerate(_lines(inp, _line_cap(classifier)), start=1):
            progress.advance(task)
            if raw is not None and not raw.strip():
                continue
            out.write(_process(classifier, name, number, raw, language, context, tally))
        out.flush()
    typer.echo(
        f"classified {tally.classified}, harmful {tally.harmful}, errors {tally.errors}",
        err=True,
    )
    return tally.errors > 0


def _process(
    classifier: Classifier,
    name: str,
    number: int,
    raw: bytes | None,
    language: str | None,
    context: str | None,
    tally: _Tally,
) -> bytes:
    """One output line for one input line; bad input becomes an error record."""
    try:
        if raw is None:
            limit = classifier.max_text_chars
            raise _LineError(
                f"line is over {_line_cap(classifier)} bytes, more than a text and context "
                f"of {limit} characters each (HARMWATCH_MAX_TEXT_CHARS) can take"
            )
        request = _request(classifier, _decode(name, number, raw), language, context)
    except _LineError as bad:
        tally.errors += 1
        ident = number if bad.item_id is None else bad.item_id
        return json_bytes({"id": ident, "line": number, "error": str(bad)})
    result = classifier.classify(request.text, context=request.context, language=request.language)
    tally.classified += 1
    tally.harmful += result.is_harmful
    ident = number if request.item_id is None else request.item_id
    return json_bytes({"id": ident, "line": number, **result.to_dict()})


def _lines(stream: IO[bytes], cap: int) -> Iterator[bytes | None]:
    """Physical lines, or None for a line over ``cap`` bytes, which is skipped unread.

    Reading at most ``cap + 1`` bytes at a time keeps memory bounded even when a
    file holds one enormous line.
    """
    while chunk := stream.readline(cap + 1):
        if len(chunk) > cap and not chunk.endswith(b"\n"):
            while chunk and not chunk.endswith(b"\n"):
                chunk = stream.readline(cap + 1)
            yield None
        else:
            yield chunk


def _line_cap(classifier: Classifier) -> int:
    """Bytes a valid line can need: text and context at 12 bytes a character (JSON
    surrogate-pair escapes), plus room for the id, language and keys."""
    return 2 * 12 * classifier.max_text_chars + 64 * 1024


def _count_lines(path: Path) -> int:
    """Lines in the file, for the progress bar's total, counted in 1 MiB blocks."""
    count, last = 0, b"\n"
    with path.open("rb") as stream:
        for block in iter(partial(stream.read, 1 << 20), b""):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def _decode(name: str, number: int, raw: bytes) -> str:
    """The line as text; a non-UTF-8 file is an error for the whole run, not one line."""
    if number == 1:
        raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{name}: line {number} is not valid UTF-8 (byte {exc.start + 1} of the line)"
        ) from None


_JSON_TYPES = {list: "an array", int: "a number", float: "a number", bool: "true/false"}


def _request(
    classifier: Classifier, line: str, language: str | None, context: str | None
) -> _Request:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise _LineError(f"invalid JSON: {exc}") from None
    if isinstance(value, str):
        value = {"text": value}
    if not isinstance(value, dict):
        kind = "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)
        raise _LineError(f"a line must be a JSON object with a text field or a string, not {kind}")
    item_id = value.get("id")
    if item_id is not None and (isinstance(item_id, bool) or not isinstance(item_id, str | int)):
        raise _LineError("id must be a string or an integer")
    text = value.get("text")
    if text is None:
        raise _LineError(f"text is required (1 to {classifier.max_text_chars} characters)", item_id)
    line_context = value.get("context", context)
    line_language = value.get("language") or language
    try:
        classifier.check_input(text, line_context, line_language)
    except (TypeError, ValueError) as exc:
        raise _LineError(str(exc), item_id) from None
    # check_input has verified the types.
    return _Request(
        item_id, cast(str, text), cast(str | None, line_context), cast(str | None, line_language)
    )
