"""``harmwatch track ingest FILE``: many observations of many sources from a JSONL or CSV file.

The file is read in full first (``workbench.ingest_file``): a file that cannot
be read or decoded, or a column option naming a column the file lacks, stops
the command with one ``error:`` line and exit 2 before anything is appended.
Then ``store.ingest`` checks, classifies and appends the rows, source by
source in batched transactions, with a progress bar on stderr. A row that
fails a check is listed with its line number and skipped, never half-written;
the command then exits 1 after appending the valid rows.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from engine import build_classifier
from store import TrackingRules
from store.ingest import IngestReport, ingest
from store.trust import Trust
from workbench.commands.db import opened_store, store_errors
from workbench.ingest_file import IngestColumns, IngestFile
from workbench.options import JsonFlag, settings_of
from workbench.output import console, visible, write_json
from workbench.samples import SampleFormat, detect_format

EXIT_ROWS_REFUSED = 1
# Errors listed on the terminal before the rest are summed up (--json lists them all).
SHOWN_ERRORS = 20


class IngestFormat(StrEnum):
    CSV = "csv"
    JSONL = "jsonl"


def column_option(flag: str, help_text: str) -> Any:
    """A ``--*-col NAME`` option, spelled as ``validate custom``'s column options."""
    return typer.Option(flag, metavar="NAME", show_default=False, help=help_text)


FileArgument = Annotated[
    Path,
    typer.Argument(
        metavar="FILE",
        show_default=False,
        help="A .jsonl or .csv file: one observation a row.",
    ),
]
TextCol = Annotated[str | None, column_option("--text-col", "Column with the text (default text).")]
LanguageCol = Annotated[
    str | None,
    column_option("--language-col", "Column with the language code (default language)."),
]
SourceCol = Annotated[
    str | None,
    column_option("--source-col", "Column with the source's id (default source_id)."),
]
PublishedCol = Annotated[
    str | None,
    column_option(
        "--published-col",
        "Column with the publication time, ISO-8601 with a time zone (default published_at).",
    ),
]
UrlCol = Annotated[str | None, column_option("--url-col", "Column with the url (default url).")]
MetadataCol = Annotated[
    str | None,
    column_option("--metadata-col", "Column with a JSON object of metadata (default metadata)."),
]
FormatOption = Annotated[
    IngestFormat | None,
    typer.Option(
        "--format",
        case_sensitive=False,
        show_default=False,
        help="jsonl or csv (default: from the file's extension).",
    ),
]
SkipExisting = Annotated[
    bool,
    typer.Option(
        "--skip-existing",
        help="Leave out a row whose source already has the same text (content hash) "
        "published at the same time: a rerun of a file appends nothing twice.",
    ),
]


def ingest_command(
    ctx: typer.Context,
    file: FileArgument,
    fmt: FormatOption = None,
    source_col: SourceCol = None,
    text_col: TextCol = None,
    published_col: PublishedCol = None,
    url_col: UrlCol = None,
    language_col: LanguageCol = None,
    metadata_col: MetadataCol = None,
    skip_existing: SkipExisting = False,
    as_json: JsonFlag = False,
) -> None:
    """Classify every row of FILE and append it to its source's chain.

    Columns: source_id and text (required), published_at, url, language and metadata
    (read when present); other columns are ignored. A row that fails a check (bad
    source_id, empty text, published_at without a time zone or in the future, metadata
    over 4 KiB...) is listed with its line number and skipped. Exit status: 0 all rows
    appended (or skipped as already there), 1 some rows were refused, 2 error.
    """
    settings = settings_of(ctx)
    trust = Trust.from_settings(settings)
    # Problems with the file as a whole (unreadable, not UTF-8, a named column missing)
    # raise here, before the store is opened: one error line, exit 2, nothing appended.
    sample_format = detect_format(file, None if fmt is None else SampleFormat(fmt.value))
    reader = IngestFile(
        file,
        sample_format,
        IngestColumns(
            source_id=source_col,
            text=text_col,
            published_at=published_col,
            url=url_col,
            language=language_col,
            metadata=metadata_col,
        ),
        settings.max_text_chars,
    )
    rows = reader.scan()
    with opened_store(settings) as store:
        classifier = build_classifier(settings)
        rules = TrackingRules.from_taxonomy(classifier.root, settings)
        with store_errors(), _progress(rows, show=not as_json and sys.stderr.isatty()) as step:
            result = ingest(
                reader.rows(),
                classifier=classifier,
                store=store,
                rules=rules,
                store_text=settings.store_text,
                max_future_skew_s=settings.max_future_skew_s,
                skip_existing=skip_existing,
                signer=trust.signer,
                after_commit=trust.after_commit,
                progress=step,
            )
    if as_json:
        write_json(result.to_dict("line"), typer.get_binary_stream("stdout"))
    else:
        _summary(file, result)
    if result.errors:
        raise typer.Exit(EXIT_ROWS_REFUSED)


def _summary(file: Path, result: IngestReport) -> None:
    out = console()
    err = console(stderr=True)
    for error in result.errors[:SHOWN_ERRORS]:
        err.print(f"{visible(str(file))}:{error.position}: {visible(error.detail)}", markup=False)
    if len(result.errors) > SHOWN_ERRORS:
        err.print(f"... and {len(result.errors) - SHOWN_ERRORS} more refused rows (see --json)")
    out.print(
        f"appended {result.appended} observation(s) to {len(result.sources)} source(s); "
        f"skipped {result.skipped} already recorded; refused {len(result.errors)} row(s)",
        markup=False,
    )


@contextmanager
def _progress(total: int, *, show: bool) -> Iterator[Callable[[int], None]]:
    """A bar over the file's rows on stderr; a no-op when nobody would see it."""
    if not show:
        yield lambda _rows: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console(stderr=True), transient=True) as progress:
        task = progress.add_task("ingesting", total=total)
        yield lambda rows: progress.advance(task, rows)
