"""Reading a JSON body straight into a model, for the routes on the hot path.

FastAPI's own body handling (``json.loads``, then validation, then dependency
resolution) costs about as much as classifying a tweet-length text. The hot
routes (classify, batch, observe) take the ``Request`` instead, and pydantic
parses and validates the bytes in one pass (``model_validate_json``). Errors
come out exactly as FastAPI's would (422, ``loc`` starting with ``"body"``),
and ``documented(Model)`` puts the body in the OpenAPI document as FastAPI would.
"""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


async def parse_body(request: Request, model: type[M]) -> M:
    """The body as ``model``; as in every other route, JSON is read when the Content-Type
    says JSON or says nothing (the app is built with ``strict_content_type=False``)."""
    content_type = request.headers.get("content-type")
    if content_type is not None and not is_json(content_type):
        raise RequestValidationError([_error("model_attributes_type", (), NOT_JSON)])
    body = await request.body()
    if not body:
        raise RequestValidationError([_error("missing", (), "Field required")])
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        raise RequestValidationError(
            [_error(e["type"], e["loc"], e["msg"], e.get("ctx")) for e in errors],
            body=_loads(body),  # the error handler looks for the texts' own problems in it
        ) from None


def _loads(body: bytes) -> object:
    """The body as JSON, as FastAPI attaches it to its own validation errors; None if not JSON."""
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


NOT_JSON = "the body must be JSON (Content-Type: application/json)"


def is_json(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _error(
    kind: str, loc: tuple[str | int, ...], msg: str, ctx: dict[str, Any] | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {"type": kind, "loc": ("body", *loc), "msg": msg}
    if ctx:
        error["ctx"] = ctx
    return error


def documented(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` declaring ``model`` as the required JSON body (see api.openapi)."""
    return {
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}
            },
        }
    }
