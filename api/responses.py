"""The error responses each route documents, declared once (``responses=`` of the routers).

422 is added by FastAPI to every route whose input it validates (VALIDATION
declares it for the others); 401 is added by ``api.openapi`` only when the
server has an API key.
"""

from __future__ import annotations

from typing import Any

from api.models import ErrorMessage, InternalError

Responses = dict[int | str, dict[str, Any]]

# FastAPI adds this itself to routes whose parameters it validates; the hot routes read
# their body themselves (api.body) and declare it here.
VALIDATION: Responses = {
    422: {
        "description": "Validation Error",
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/HTTPValidationError"}}
        },
    }
}
INTERNAL: Responses = {
    500: {"model": InternalError, "description": "Unexpected failure (logged under request_id)."}
}
# Every route that reads a body: too large, or too slow to arrive (api.edge).
TOO_LARGE: Responses = {
    408: {
        "model": ErrorMessage,
        "description": "The body did not arrive within HARMWATCH_BODY_TIMEOUT_S; the "
        "connection is closed.",
    },
    413: {"model": ErrorMessage, "description": "Body over 2 MiB."},
}
UNKNOWN_SOURCE: Responses = {
    404: {
        "model": ErrorMessage,
        "description": "No observation was ever recorded for this source_id.",
        "content": {"application/json": {"example": {"detail": "unknown source 'acct:1'"}}},
    }
}
TAMPERED_HEAD: Responses = {
    409: {
        "model": ErrorMessage,
        "description": "The source's head record no longer matches its hash (it was altered "
        "in the database): nothing was appended; verify the source.",
    }
}
UNCOMPILED: Responses = {
    503: {
        "model": ErrorMessage,
        "description": "The requested language's taxonomy pack does not compile on this "
        "server (the server log names the file and rows); other languages answer.",
    }
}
UNAVAILABLE: Responses = {
    503: {"model": ErrorMessage, "description": "The tracking database cannot be reached."}
}
