"""What every command receives: the shared options, declared once, and the settings.

Declaring ``--json``, ``--language`` and ``--context`` here keeps their flags,
metavars and help identical in every command that takes them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from engine.languages import LANGUAGES
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
            f"Language of the text: {', '.join(LANGUAGES)} (default en). "
            "An unknown code falls back to en and the rationale says so."
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


def settings_of(ctx: typer.Context) -> Settings:
    """The invocation's settings: injected by the caller (tests, embedding) or from the env.

    Built once per invocation and passed down explicitly, so no command reads
    the environment on its own.
    """
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = Settings()
    return root.obj
