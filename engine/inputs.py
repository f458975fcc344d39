"""The one input check and the language resolver, shared by every front end."""

from __future__ import annotations

from collections.abc import Container

from engine.errors import InputError


def check_input(text: object, context: object, language: object, max_chars: int) -> None:
    """Raise TypeError, or InputError (a ValueError), naming the field and the limit."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, not {type(text).__name__}")
    if not text or text.isspace():
        raise InputError(f"text must not be empty (1 to {max_chars} characters)")
    if len(text) > max_chars:
        raise InputError(
            f"text is {len(text)} characters; the limit is {max_chars} (HARMWATCH_MAX_TEXT_CHARS)"
        )
    if context is not None:
        if not isinstance(context, str):
            raise TypeError(f"context must be a string or None, not {type(context).__name__}")
        if len(context) > max_chars:
            raise InputError(
                f"context is {len(context)} characters; the limit is {max_chars} "
                "(HARMWATCH_MAX_TEXT_CHARS)"
            )
    if language is not None and not isinstance(language, str):
        raise TypeError(f"language must be a string or None, not {type(language).__name__}")


def resolve_language(
    language: str | None, known: Container[str], default: str
) -> tuple[str, str | None]:
    """The language to use and, for an unknown code, the note the rationale ends with."""
    if language is None:
        return default, None
    code = language.strip().lower().replace("_", "-").split("-", 1)[0]
    if code in known:
        return code, None
    return default, f" Language '{language}' not recognized; fell back to {default}."
