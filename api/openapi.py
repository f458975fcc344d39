"""The published OpenAPI document: FastAPI's, plus what only this server's settings know.

The request models are static, but some limits are settings or taxonomy data:
the text length (HARMWATCH_MAX_TEXT_CHARS), the risk levels (the taxonomy's
``tracking.risk_levels``) and whether an API key is required at all. They are
written in here so that /docs and /openapi.json describe the server as it is
running, and schema-driven clients and fuzzers generate what it accepts.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from api.middleware import OPEN_PATHS
from api.models import BatchRequest, ClassifyRequest, IngestRequest, ObserveRequest
from api.services import Services

SECURITY_SCHEME = "APIKeyHeader"
REF_TEMPLATE = "#/components/schemas/{model}"
BODY_MODELS: tuple[type[BaseModel], ...] = (
    ClassifyRequest,
    BatchRequest,
    ObserveRequest,
    IngestRequest,
)
# Python's str.strip() and JSON Schema's \S agree on what "only whitespace" is for every
# character a client is likely to send; the server's own check is str.strip().
NOT_BLANK = r"\S"

DESCRIPTION = """\
Rule-based detection of dehumanizing and violence-inciting speech aimed at identity
groups, with tamper-evident tracking of named sources. Every decision is explained: the
taxonomy row and pattern that fired, where, with what weight, and what suppressed what.

* Bodies are JSON, at most 2 MiB (413 beyond).
* Invalid input is a 422 in FastAPI's standard shape; each message names the field and
  the limit.
* When the server has an API key (HARMWATCH_API_KEY), every route but /health, /docs and
  /openapi.json needs the header `X-API-Key` (401 otherwise).
* An unexpected failure is a 500 carrying only a `request_id`, under which it was logged.

See docs/api.md for checkpoint signatures and how to verify them.
"""


def build_openapi(app: FastAPI, services: Services) -> dict[str, Any]:
    if app.openapi_schema is not None:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=DESCRIPTION,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    _add_models(schema["components"]["schemas"], BODY_MODELS)
    _text_limits(schema["components"]["schemas"], services.max_text_chars)
    _risk_levels(schema["paths"], list(services.rules.risk_levels))
    _suite_names(schema["components"]["schemas"], services)
    _links(schema["paths"])
    if services.settings.api_key is not None:
        _require_key(schema)
    app.openapi_schema = schema
    return schema


OBSERVE = "/tracking/{source_id}/observe"


def _links(paths: dict[str, Any]) -> None:
    """OpenAPI links from an observe's 201 to every operation on that source: a client (or
    schemathesis in stateful mode) learns that ``observation.source_id`` names the source
    the profile, verify and checkpoint routes take."""
    created = paths.get(OBSERVE, {}).get("post", {}).get("responses", {}).get("201")
    if created is None:
        return
    links: dict[str, Any] = {}
    for path, operations in paths.items():
        if not path.startswith("/tracking/{source_id}"):
            continue
        for method, operation in operations.items():
            if method in ("delete", "parameters") or "operationId" not in operation:
                continue
            links[operation["operationId"].split("_tracking_", 1)[0]] = {
                "operationId": operation["operationId"],
                "parameters": {"source_id": "$response.body#/observation/source_id"},
            }
    created["links"] = links


def _add_models(components: dict[str, Any], models: tuple[type[BaseModel], ...]) -> None:
    """The bodies the hot routes read themselves (api.body), as FastAPI would list them."""
    _, top = models_json_schema(
        [(model, "validation") for model in models], ref_template=REF_TEMPLATE
    )
    for name, definition in top.get("$defs", {}).items():
        components.setdefault(name, definition)


def _text_limits(components: dict[str, Any], limit: int) -> None:
    for model, fields in (
        ("ClassifyRequest", ("text", "context")),
        ("ObserveRequest", ("text", "context")),
        ("Sample", ("text",)),
    ):
        properties = components[model]["properties"]
        for field in fields:
            prop = properties[field]
            strings = [part for part in prop.get("anyOf", [prop]) if part.get("type") == "string"]
            for string in strings:
                string["maxLength"] = limit
                if field == "text":
                    string.update(minLength=1, pattern=NOT_BLANK)


def _risk_levels(paths: dict[str, Any], levels: list[str]) -> None:
    for parameter in paths["/tracking"]["get"]["parameters"]:
        if parameter["name"] == "risk":
            parameter["schema"] = {"anyOf": [{"enum": levels, "type": "string"}, {"type": "null"}]}


def _suite_names(components: dict[str, Any], services: Services) -> None:
    """The capabilities and languages the taxonomy's benchmark suite has: nothing else is
    accepted (a typo must not pass with zero cases)."""
    suite = services.suite
    properties = components["BenchmarkRequest"]["properties"]
    for field, names in (("capabilities", suite.capabilities), ("languages", suite.languages)):
        for part in properties[field]["anyOf"]:
            if part.get("type") == "array":
                part["items"] = {"type": "string", "enum": list(names)}


def _require_key(schema: dict[str, Any]) -> None:
    schema["components"].setdefault("securitySchemes", {})[SECURITY_SCHEME] = {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": "The server's HARMWATCH_API_KEY.",
    }
    for path, operations in schema["paths"].items():
        if path in OPEN_PATHS:
            continue
        for operation in operations.values():
            operation["security"] = [{SECURITY_SCHEME: []}]
            operation["responses"]["401"] = {
                "description": "X-API-Key missing or wrong.",
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ErrorMessage"}}
                },
            }
