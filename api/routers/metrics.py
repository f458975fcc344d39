"""GET /metrics: the Prometheus text format (``api.metrics`` lists what is measured).

Behind the API key like every route but /health and the docs (SPEC section 6):
Prometheus sends it with the scrape job's ``http_headers``. The labels hold route
templates, methods, statuses, mechanisms and language codes: nothing a client sent.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from api.deps import ServicesDep
from api.metrics import CONTENT_TYPE
from api.responses import INTERNAL

router = APIRouter(tags=["health"], responses=INTERNAL)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE.split(";")[0]: {"schema": {"type": "string"}}}}},
)
async def metrics(services: ServicesDep) -> Response:
    """Requests and latency by route, classifications by mechanism and language, store
    append latency and chain verifications, in the Prometheus text exposition format."""
    return Response(services.metrics.exposition(), media_type=CONTENT_TYPE)
