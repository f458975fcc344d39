"""The text-length rules of SPEC section 6, as FastAPI validation errors.

The limit is a setting (HARMWATCH_MAX_TEXT_CHARS), so it cannot live in the
static request models; it is checked here and published in the schema by
``api.openapi``. Errors use FastAPI's own shape (``type``, ``loc``, ``msg``,
``ctx``) with a message that names the field and the limit, and every problem
of a request is reported at once (a batch names each failing item).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from fastapi.exceptions import RequestValidationError

Loc = tuple[str | int, ...]
ErrorDict = dict[str, Any]
SETTING = "HARMWATCH_MAX_TEXT_CHARS"


def text_ok(text: str, context: str | None, limit: int) -> bool:
    """Whether ``text_errors`` would find nothing, without building its messages."""
    return (
        0 < len(text) <= limit and not text.isspace() and (context is None or len(context) <= limit)
    )


def text_errors(text: str, context: str | None, limit: int, loc: Loc) -> list[ErrorDict]:
    """Problems with one text and its context (empty, or over the limit)."""
    errors: list[ErrorDict] = []
    if not text.strip():
        errors.append(
            {
                "type": "string_too_short",
                "loc": (*loc, "text"),
                "msg": f"text must not be empty or only whitespace (1 to {limit} characters)",
                "ctx": {"min_length": 1, "max_length": limit},
            }
        )
    elif len(text) > limit:
        errors.append(_too_long("text", len(text), limit, loc))
    if context is not None and len(context) > limit:
        errors.append(_too_long("context", len(context), limit, loc))
    return errors


def _too_long(field: str, length: int, limit: int, loc: Loc) -> ErrorDict:
    return {
        "type": "string_too_long",
        "loc": (*loc, field),
        "msg": f"{field} is {length} characters; the limit is {limit} ({SETTING})",
        "ctx": {"max_length": limit},
    }


def check_texts(
    items: Iterable[tuple[str, str | None]], limit: int, loc: Loc, *, indexed: bool
) -> None:
    """Raise one RequestValidationError listing every text over (or under) the limit."""
    items = list(items)
    if all(text_ok(text, context, limit) for text, context in items):
        return
    errors: list[ErrorDict] = []
    for index, (text, context) in enumerate(items):
        where: Sequence[str | int] = (*loc, index) if indexed else loc
        errors.extend(text_errors(text, context, limit, tuple(where)))
    if errors:
        raise RequestValidationError(errors)
