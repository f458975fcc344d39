"""POST /classify/ and POST /classify/batch.

The hot path: both routes read their body with ``api.body.parse_body`` and find
the services on the app instead of going through dependency injection (see
there for why). A short text is classified on the event loop, a long one in the
classification thread (``api.offload``); a batch is classified in one call there.
Results are written straight from the engine's dicts (``api.models`` says why).
The plain requests of both routes are usually answered before routing
(``api.hotpath``); these routes answer the rest, and define the behaviour.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from api import offload
from api.body import documented, parse_body
from api.deps import services_of
from api.edge import record_classified
from api.encoding import JSON, json_response
from api.limits import check_texts
from api.models import BatchRequest, BatchResponse, Classification, ClassifyRequest
from api.responses import INTERNAL, TOO_LARGE, UNCOMPILED, VALIDATION

router = APIRouter(
    prefix="/classify",
    tags=["classify"],
    responses={**VALIDATION, **TOO_LARGE, **UNCOMPILED, **INTERNAL},
)


@router.post(
    "/",
    response_model=Classification,
    summary="Classify one text",
    response_description="The explained decision (SPEC section 3).",
    openapi_extra=documented(ClassifyRequest),
)
async def classify(request: Request) -> Response:
    """Decide whether the text is a dehumanizing or violence-inciting narrative aimed at an
    identity group, and explain the decision: which taxonomy row and pattern fired, where,
    with what weight, and which cue suppressed what."""
    services = services_of(request)
    body = await parse_body(request, ClassifyRequest)
    check_texts([(body.text, body.context)], services.max_text_chars, ("body",), indexed=False)
    result = await offload.classify(services, body.text, body.context, body.language)
    record_classified(request.scope, services.metrics, (result,), (body.text,))
    return json_response(result.to_dict())


@router.post(
    "/batch",
    response_model=BatchResponse,
    summary="Classify 1 to 100 texts",
    response_description="One result per item, in the order of the request.",
    openapi_extra=documented(BatchRequest),
)
async def classify_batch(request: Request) -> Response:
    """Classify up to 100 texts in one request; each item is a POST /classify/ body. Any
    invalid item fails the whole request with a 422 naming the item and field."""
    services = services_of(request)
    body = await parse_body(request, BatchRequest)
    check_texts(
        ((item.text, item.context) for item in body.items),
        services.max_text_chars,
        ("body", "items"),
        indexed=True,
    )
    payload, results = await services.compute(offload.batch_results, services, body)
    texts = (item.text for item in body.items)
    record_classified(request.scope, services.metrics, results, texts, batch=True)
    return Response(payload, media_type=JSON)
