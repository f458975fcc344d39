"""Writing JSON responses: fast, and never failing on what a client sent.

orjson is several times faster than the standard library at the dicts the
engine produces. It refuses lone surrogates (a JSON body may carry ``"\\ud800"``,
which Python decodes to an unpaired surrogate that has no UTF-8 form); such a
payload is written with ``ensure_ascii`` instead, which escapes it back to
``\\ud800`` — valid JSON that round-trips to the same string.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

JSON = "application/json"


def dumps(payload: Any) -> bytes:
    try:
        return orjson.dumps(payload)
    except orjson.JSONEncodeError:
        return json.dumps(payload, ensure_ascii=True, allow_nan=False, default=str).encode("ascii")


def json_response(
    payload: Any, status_code: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(dumps(payload), status_code=status_code, headers=headers, media_type=JSON)
