"""GET /health: versions, taxonomy identity, provider and database status; never a secret.

Always open (no API key) and always 200 while the process can answer, so a
load balancer can tell "up but degraded" from "down"; ``status`` says which.
The database is probed with one ``SELECT 1``; the text-analytics provider is
*not* called (that would spend quota on every probe): its status comes from the
outcome of recent calls.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from api.deps import ServicesDep
from api.encoding import json_response
from api.models import Health
from api.responses import INTERNAL
from engine.text import langid

router = APIRouter(tags=["health"], responses=INTERNAL)


@router.get("/health", response_model=Health, summary="Service health")
def health(services: ServicesDep) -> Response:
    """Liveness and what this server runs: app and taxonomy versions, the taxonomy digest
    and baseline tag, the status of the text-analytics provider and the database, and the
    language-identification library and cut-off that language "auto" uses."""
    classifier = services.classifier
    root = classifier.root
    provider_status = classifier.amplifier.status()
    database_status = services.database_status()
    degraded = database_status != "ok" or provider_status == "unreachable"
    return json_response(
        {
            "status": "degraded" if degraded else "ok",
            "app_version": services.app_version,
            "taxonomy_version": root.version,
            "taxonomy_digest": classifier.taxonomy.digest,
            "baseline_tag": root.baseline_tag,
            "text_analytics": {
                "provider": (
                    None if provider_status == "not_configured" else root.amplification.provider
                ),
                "status": provider_status,
            },
            "database": {"backend": services.database_backend, "status": database_status},
            "signing": services.trust.describe(),
            "language_identification": {
                "library": langid.LIBRARY,
                "version": langid.library_version(),
                "min_confidence": root.language_identification.min_confidence,
            },
        }
    )
