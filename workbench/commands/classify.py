"""``harmwatch classify``: one text from the argument or stdin, or every text of a file.

The command only reads input, calls the engine and renders; every decision
and every input-validation message comes from ``engine.Classifier``. Files are
read by ``workbench.samples`` (JSONL, CSV or plain text, with the column options
and messages of ``validate custom``); a row that cannot be read becomes an error
record and the run goes on.
"""

from __future__ import annotations

import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from engine import Classifier, PackCompileError, build_classifier
from engine.validation import Sample
from workbench.options import (
    ContextCol,
    ContextOption,
    IdCol,
    JsonFlag,
    LanguageCol,
    LanguageOption,
    TextCol,
    settings_of,
)
from workbench.output import (
    console,
    json_bytes,
    render_classification,
    severity_labels,
    write_json,
)
from workbench.samples import (
    Columns,
    Labels,
    SampleFileError,
    SampleFormat,
    SampleReader,
    count_lines,
    detect_format,
)
from workbench.text_input import STDIO, read_text

INPUT_FORMATS = (SampleFormat.JSONL, SampleFormat.CSV, SampleFormat.TXT)

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
        metavar="FILE",
        dir_okay=False,
        show_default=False,
        help="Classify every text of a .jsonl, .csv or .txt file (one text a line) instead "
        "of one text; '-' reads stdin as JSONL unless --format says otherwise.",
    ),
]
FormatOption = Annotated[
    SampleFormat | None,
    typer.Option(
        "--format",
        show_default=False,
        help="Read --input as this format whatever its extension.",
    ),
]
FailOnHarmFlag = Annotated[
    bool,
    typer.Option("--fail-on-harm", help="Exit 1 when any text is harmful (for pipelines)."),
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
    fmt: FormatOption = None,
    text_col: TextCol = "text",
    language_col: LanguageCol = None,
    context_col: ContextCol = None,
    id_col: IdCol = None,
    fail_on_harm: FailOnHarmFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Classify a text and explain the decision: matched row and pattern, suppressions, target.

    With --input, each row of a .jsonl file (a JSON object, or a bare JSON string), a .csv
    file (with a header row) or a .txt file (one text a line) gives one result line
    {"id", "line", ...result}; the column options say where the text, language, context
    and id are (as in validate custom). A row that cannot be read gets an "error" field
    instead and the run goes on. -l and --context apply to rows that do not carry their
    own; -l auto identifies each text's language. Exit status: 0 done, 1 some rows failed
    or, with --fail-on-harm, some text is harmful, 2 error.
    """
    settings = settings_of(ctx)
    columns = Columns(
        text=text_col,
        label=None,
        language=language_col,
        id=id_col,
        context=context_col,
        default_language=language,
        default_context=context,
    )
    if input_path is not None:
        if text is not None:
            raise typer.BadParameter("give either TEXT or --input, not both", param_hint="TEXT")
        sample_format = _input_format(input_path, fmt, columns)
        if str(input_path) != STDIO:
            with input_path.open("rb"):  # a missing file fails before the slow classifier build
                pass
        classifier = build_classifier(settings)
        tally = _classify_file(
            classifier, input_path, output_path or Path(STDIO), sample_format, columns, as_json
        )
        if tally.foreign_script:
            typer.echo(
                f"warning: {tally.foreign_script} texts are mostly in a non-Latin script and "
                f"had no language, so they were read as {classifier.root.default_language}; "
                "pass -l auto, a language column or -l <code>",
                err=True,
            )
        if tally.errors or (fail_on_harm and tally.harmful):
            raise typer.Exit(1)
        return
    if output_path is not None:
        raise typer.BadParameter("--output needs --input", param_hint="--output")
    if fmt is not None or columns != Columns(
        label=None, default_language=language, default_context=context
    ):
        raise typer.BadParameter("--format and the column options need --input")
    # Built before stdin is read, so a broken taxonomy fails before the user types.
    classifier = build_classifier(settings)
    content = read_text(text)
    result = classifier.classify(content, context=context, language=language)
    if as_json:
        write_json(result.to_dict(), typer.get_binary_stream("stdout"))
    else:
        labels = severity_labels(classifier.root)
        console().print(render_classification(result, labels))
    script = classifier.foreign_script(content) if language is None else None
    if script is not None:
        typer.echo(
            f"warning: the text is mostly in {script} script and no language was given, so it "
            f"was read as {classifier.root.default_language}; pass -l auto or -l <code>",
            err=True,
        )
    if fail_on_harm and result.is_harmful:
        raise typer.Exit(1)


def _input_format(path: Path, fmt: SampleFormat | None, columns: Columns) -> SampleFormat:
    """The format of --input: --format, else the extension; stdin is JSONL by default."""
    if fmt is None and str(path) == STDIO:
        fmt = SampleFormat.JSONL
    found = detect_format(path, fmt, INPUT_FORMATS)
    if found is SampleFormat.TXT and (
        columns.text != "text" or columns.language or columns.context or columns.id
    ):
        raise SampleFileError(
            path,
            None,
            "a .txt file has one text a line and no columns; use .jsonl or .csv for "
            "--text-col, --language-col, --context-col or --id-col",
        )
    return found


# -- files ----------------------------------------------------------------------------


@dataclass(slots=True)
class _Tally:
    classified: int = 0
    harmful: int = 0
    errors: int = 0
    foreign_script: int = 0
    """Texts read in the default language, for want of one, though mostly in another script."""


def _classify_file(
    classifier: Classifier,
    source: Path,
    target: Path,
    fmt: SampleFormat,
    columns: Columns,
    as_json: bool,
) -> _Tally:
    """Stream ``source`` to ``target``, one result or error record per row."""
    reading_stdin = str(source) == STDIO
    writing_stdout = str(target) == STDIO
    if not (reading_stdin or writing_stdout) and target.exists() and source.samefile(target):
        raise typer.BadParameter("must not be the --input file", param_hint="--output")
    show_progress = not as_json and sys.stderr.isatty()
    reader = SampleReader(
        Path(STDIO) if reading_stdin else source,
        fmt,
        columns,
        Labels.of((), ()),
        check=lambda text, language: classifier.check_input(text, None, language),
        max_text_chars=classifier.max_text_chars,
    )
    tally = _Tally()
    with ExitStack() as stack:
        # Input first: a missing input file must not leave an empty output behind.
        inp = (
            typer.get_binary_stream("stdin")
            if reading_stdin
            else stack.enter_context(source.open("rb"))
        )
        total = None if reading_stdin or not show_progress else count_lines(source)
        out = (
            typer.get_binary_stream("stdout")
            if writing_stdout
            else stack.enter_context(target.open("wb"))
        )
        # Imported here: a one-text call never shows a bar (rich.progress is slow to load).
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
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
        for line, item in reader.records(reader.raw_lines(inp)):
            progress.update(task, completed=reader.line)
            out.write(_record(classifier, line, item, tally))
        out.flush()
    typer.echo(
        f"classified {tally.classified}, harmful {tally.harmful}, errors {tally.errors}",
        err=True,
    )
    return tally


def _record(
    classifier: Classifier, line: int, item: Sample | SampleFileError, tally: _Tally
) -> bytes:
    """The output line of one row: its result, or an error record naming the problem."""
    if isinstance(item, SampleFileError):
        tally.errors += 1
        return _error(line, item.item_id, item.problem)
    try:
        result = classifier.classify(item.text, context=item.context, language=item.language)
    except PackCompileError:
        raise  # the taxonomy, not this row: every later row of the language would fail
    except (TypeError, ValueError) as exc:  # a context over the limit
        tally.errors += 1
        return _error(line, item.id, str(exc))
    tally.classified += 1
    tally.harmful += result.is_harmful
    tally.foreign_script += _read_despite_script(classifier, item)
    return json_bytes(
        {"id": line if item.id is None else item.id, "line": line, **result.to_dict()}
    )


def _error(line: int, item_id: str | None, problem: str) -> bytes:
    return json_bytes({"id": line if item_id is None else item_id, "line": line, "error": problem})


def _read_despite_script(classifier: Classifier, item: Sample) -> bool:
    """Whether a text without a language was mostly in another script (the rationale's note)."""
    return item.language is None and classifier.foreign_script(item.text) is not None
