"""What every command receives: the shared options, declared once, and the settings.

Declaring ``--json``, ``--language`` and ``--context`` here keeps their flags,
metavars and help identical in every command that takes them.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from engine.languages import AUTO, LANGUAGES
from engine.settings import Settings

JsonFlag = Annotated[
    bool,
    typer.Option("--json", help="Print JSON for scripts instead of tables."),
]

LanguageOption = Annotated[
    str | None,
    typer.Option(
        "--language",
        "-l",
        metavar="LANG",
        show_default=False,
        help=(
            f"Language of the text: {', '.join(LANGUAGES)} (default en), or {AUTO} to "
            "identify it. An unknown code, or an unsure identification, falls back to en "
            "and the rationale says so."
        ),
    ),
]

ContextOption = Annotated[
    str | None,
    typer.Option(
        "--context",
        metavar="TEXT",
        show_default=False,
        help="Surrounding text (e.g. the post replied to); a group it names can be "
        "the target of a pronoun in the text.",
    ),
]


def column_option(flag: str, help_text: str) -> Any:
    """A ``--*-col NAME`` option: which column (CSV) or key (JSONL) holds a field."""
    return typer.Option(flag, metavar="NAME", show_default=False, help=help_text)


# The column options shared by ``validate custom`` and ``classify --input``.
TextCol = Annotated[str, column_option("--text-col", "Column with the text (default text).")]
LanguageCol = Annotated[
    str | None,
    column_option("--language-col", "Column with the language code (default language)."),
]
IdCol = Annotated[str | None, column_option("--id-col", "Column with a sample id (default id).")]
ContextCol = Annotated[
    str | None,
    column_option(
        "--context-col", "Column with the text's context, as --context (default context)."
    ),
]


def settings_of(ctx: typer.Context) -> Settings:
    """The invocation's settings: injected by the caller (tests, embedding) or from the env.

    Built once per invocation and passed down explicitly, so no command reads
    the environment on its own.
    """
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj
