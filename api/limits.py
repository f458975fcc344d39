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


# The lists of texts a request body may carry (classify batch items, validate samples).
TEXT_LISTS = ("items", "samples")


def body_text_errors(body: object, limit: int) -> list[ErrorDict]:
    """Every text-length problem in a JSON body as received, valid or not.

    The request model is checked first, and when it fails the route never gets as
    far as ``check_texts``: a batch with a missing field in item 2 and an empty text
    in item 5 would report item 2 only, and the client would learn about item 5 on
    its next try. The error handler adds these to the model's errors
    (``with_text_errors``) so one 422 lists every problem with every item.
    """
    if not isinstance(body, dict):
        return []
    errors = _object_text_errors(body, limit, ("body",))
    for key in TEXT_LISTS:
        items = body.get(key)
        if isinstance(items, list):
            for index, item in enumerate(items):
                if isinstance(item, dict):
                    errors.extend(_object_text_errors(item, limit, ("body", key, index)))
    return errors


def _object_text_errors(obj: dict[str, Any], limit: int, loc: Loc) -> list[ErrorDict]:
    text, context = obj.get("text"), obj.get("context")
    if not isinstance(text, str):  # missing or not a string: the model says so
        return []
    return text_errors(text, context if isinstance(context, str) else None, limit, loc)


def with_text_errors(errors: list[ErrorDict], body: object, limit: int) -> list[ErrorDict]:
    """The model's ``errors`` and the text-length problems it could not see, in item order;
    a place the model already reported on (a ``text`` of the wrong type, a field not
    allowed there) is not reported twice."""
    seen = {tuple(error.get("loc", ())) for error in errors}
    extra = [error for error in body_text_errors(body, limit) if tuple(error["loc"]) not in seen]
    if not extra:
        return errors
    return sorted([*errors, *extra], key=_item_index)


def _item_index(error: ErrorDict) -> int:
    loc = tuple(error.get("loc", ()))
    return loc[2] if len(loc) > 2 and isinstance(loc[2], int) else -1


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
