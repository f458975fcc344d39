"""Expected failures → HTTP answers, in FastAPI's standard shapes (SPEC section 6).

- request validation → 422 ``{"detail": [{type, loc, msg, ctx?}]}``; the
  offending ``input`` is left out: it may be a 20,000-character text, or
  something the client would rather not see echoed into logs and proxies;
- a body that is not JSON at all (including what ``json`` refuses beyond
  syntax: integers over 4,300 digits, nesting too deep to parse) → 422 too;
- ``UnknownSource`` → 404 ``{"detail": "unknown source '<id>'"}``;
- ``InvalidSourceId`` / ``InvalidTextError`` → 422 naming the field, and so is a
  value the database refuses (``DataError``: PostgreSQL stores no NUL character);
- ``InvalidEvidenceError`` (published_at, url, metadata) → 422 naming the field
  and the limit; ``TamperedHeadError`` → 409 (the head an observe would extend
  no longer matches its hash);
- ``StoreReadOnly`` → 503 saying the database is read-only (a write to a file
  nobody may write);
- ``StoreUnavailable`` → 503, logged with the (password-free) database URL,
  answered without it: a client has no use for the server's database address;
- ``PackCompileError`` (a language whose combined matcher is over RE2's budget,
  found at its first text) → 503 naming the language, logged with the file and rows.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DataError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from api.encoding import json_response
from api.limits import with_text_errors
from api.routing import allowed_methods
from engine.errors import PackCompileError
from store import (
    InvalidEvidenceError,
    InvalidSourceId,
    InvalidTextError,
    StoreReadOnly,
    StoreUnavailable,
    TamperedHeadError,
    UnknownSource,
)

log = logging.getLogger(__name__)

# What FastAPI answers when the body could not be read as JSON for a reason other
# than a syntax error (those are JSONDecodeError and already a 422).
_BODY_PARSE_FAILURE = "There was an error parsing the body"
_PLACES = {"body", "query", "path", "header", "cookie"}


def validation_error(loc: Sequence[str | int], msg: str, kind: str = "value_error") -> Response:
    return json_response({"detail": [{"type": kind, "loc": list(loc), "msg": msg}]}, 422)


def _describe(error: dict[str, Any]) -> dict[str, Any]:
    """One error of FastAPI's list, without ``input``, with a message naming the field."""
    loc = list(error.get("loc", ()))
    kind = str(error.get("type", "value_error"))
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    ctx = error.get("ctx") or {}
    named = [part for part in loc if part not in _PLACES]
    field = ".".join(str(part) for part in named) or (str(loc[0]) if loc else "request")
    if kind == "missing":
        msg = f"{field} is required" if named else "a JSON request body is required"
    elif kind == "too_short" and "min_length" in ctx:
        msg = f"{field} must have at least {ctx['min_length']} item(s), not {ctx['actual_length']}"
    elif kind == "too_long" and "max_length" in ctx:
        msg = f"{field} must have at most {ctx['max_length']} items, not {ctx['actual_length']}"
    elif kind == "extra_forbidden" and loc and loc[0] == "query":
        msg = f"unknown query parameter {field!r}"
    elif kind == "extra_forbidden":
        msg = f"{field} is not a field of this request"
    elif named and not msg.startswith(str(named[-1])):
        msg = f"{field}: {msg}"
    out: dict[str, Any] = {"type": kind, "loc": loc, "msg": msg}
    if ctx:
        out["ctx"] = {str(key): _plain(value) for key, value in ctx.items()}
    return out


def _plain(value: object) -> object:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


async def on_validation_error(request: Request, exc: Exception) -> Response:
    """Every problem of the request at once: the model's errors and the text-length ones it
    could not check (api.limits.with_text_errors), each naming its item and field."""
    assert isinstance(exc, RequestValidationError)
    errors = [dict(error) for error in exc.errors()]
    services = getattr(request.app.state, "services", None)
    if services is not None:
        errors = with_text_errors(errors, exc.body, services.max_text_chars)
    return json_response({"detail": [_describe(error) for error in errors]}, 422)


async def on_http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 400 and exc.detail == _BODY_PARSE_FAILURE:
        reason = type(exc.__cause__).__name__ if exc.__cause__ else "unreadable body"
        return validation_error(["body"], f"the body is not valid JSON ({reason})", "json_invalid")
    headers = dict(exc.headers) if exc.headers else {}
    if exc.status_code == 405:
        # Every method some route answers on this path (Starlette names only its first
        # route's, and /tracking/{source_id}/verify is two routes, GET and POST).
        headers["Allow"] = ", ".join(allowed_methods(request.app.router.routes, request.scope))
    return json_response({"detail": exc.detail}, exc.status_code, headers or None)


async def on_unknown_source(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, UnknownSource)
    return json_response({"detail": f"unknown source '{exc.source_id}'"}, 404)


async def on_invalid_source_id(_request: Request, exc: Exception) -> Response:
    return validation_error(["path", "source_id"], str(exc))


async def on_invalid_text(_request: Request, exc: Exception) -> Response:
    return validation_error(["body", "text"], str(exc))


async def on_invalid_evidence(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, InvalidEvidenceError)
    return validation_error(["body", exc.field], str(exc))


async def on_tampered_head(_request: Request, exc: Exception) -> Response:
    """409: the request is fine, the chain it would extend is not (docs/decisions.md)."""
    log.error("%s", exc)
    return json_response({"detail": str(exc)}, 409)


async def on_unstorable(_request: Request, exc: Exception) -> Response:
    """The database refused a value (PostgreSQL: a NUL character in a text column)."""
    assert isinstance(exc, DataError)
    original = exc.orig if exc.orig is not None else exc
    reason = str(original).strip().splitlines()[0] if str(original).strip() else "refused"
    return validation_error(["body", "text"], f"text cannot be stored: {reason}")


async def on_store_read_only(_request: Request, exc: Exception) -> Response:
    """A write to a database this server opened read-only: 503, saying so (docs/decisions.md).

    503 and not 409: nothing about the resource conflicts with the request; the
    server cannot record anything until its database is writable again.
    """
    log.error("%s", exc)
    return json_response(
        {"detail": "the tracking database is read-only on this server: nothing can be recorded"},
        503,
    )


async def on_store_unavailable(_request: Request, exc: Exception) -> Response:
    log.error("%s", exc)
    return json_response({"detail": "the tracking database is unavailable; try again later"}, 503)


async def on_pack_compile_error(_request: Request, exc: Exception) -> Response:
    """A language the server's taxonomy cannot compile: 503 for that language alone.

    The request is fine and other languages keep working; the operator's fix is in
    the taxonomy, whose file and rows the log names (the client is told the language).
    """
    assert isinstance(exc, PackCompileError)
    log.error("%s", exc)
    return json_response(
        {
            "detail": f"language {exc.language!r} cannot be classified on this server: its "
            "taxonomy pack does not compile (the server log names the file and rows)"
        },
        503,
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(HTTPException, on_http_error)
    app.add_exception_handler(UnknownSource, on_unknown_source)
    app.add_exception_handler(InvalidSourceId, on_invalid_source_id)
    app.add_exception_handler(InvalidTextError, on_invalid_text)
    app.add_exception_handler(InvalidEvidenceError, on_invalid_evidence)
    app.add_exception_handler(TamperedHeadError, on_tampered_head)
    app.add_exception_handler(StoreReadOnly, on_store_read_only)
    app.add_exception_handler(StoreUnavailable, on_store_unavailable)
    app.add_exception_handler(DataError, on_unstorable)
    app.add_exception_handler(PackCompileError, on_pack_compile_error)
