"""The /tracking routes: observe, profile, listing, verify and signed checkpoints.

Every rule (source_id, trend, risk, the chain) lives in ``store``; a route
validates input, calls the engine and the store, and writes the store's own
dicts. Reads run in the request's transaction (``SessionDep``); observe is on
the hot path (``api.body``) and its append goes through the group commit of
``api.writer``, committed before the 201 is sent.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from api import offload
from api.body import documented, parse_body
from api.deps import ServicesDep, SessionDep, SourceId, services_of
from api.encoding import json_response
from api.limits import check_texts
from api.models import (
    Checkpoint,
    ClassifyRequest,
    ErrorMessage,
    ListingQuery,
    ObserveResponse,
    SourceProfile,
    VerifyReport,
)
from api.responses import INTERNAL, TOO_LARGE, UNAVAILABLE, UNKNOWN_SOURCE
from api.signing import sign_checkpoint
from store import (
    count_profiles,
    format_observed_at,
    get_profile,
    list_profiles,
    verify_source,
)

NO_SIGNING_KEY = (
    "signed checkpoints are not enabled on this server (HARMWATCH_SIGNING_KEY is not set)"
)

router = APIRouter(prefix="/tracking", tags=["tracking"], responses={**UNAVAILABLE, **INTERNAL})


@router.post(
    "/{source_id}/observe",
    status_code=201,
    response_model=ObserveResponse,
    responses={**TOO_LARGE},
    summary="Classify a text a source published and append it to the source's chain",
    response_description="The new chain record, the classification and the updated profile.",
    openapi_extra=documented(ClassifyRequest),
)
async def observe(source_id: SourceId, request: Request) -> Response:
    """The observation and the source's profile (severity, rolling average, trend, risk) are
    written together and committed before the 201 is sent. Concurrent observes of one
    source, from any number of workers, form one unbroken chain."""
    services = services_of(request)
    body = await parse_body(request, ClassifyRequest)
    check_texts([(body.text, body.context)], services.max_text_chars, ("body",), indexed=False)
    result = await offload.classify(services, body.text, body.context, body.language)
    observation, profile = await services.appender().append(source_id, result, body.text)
    payload = {
        "observation": observation.to_dict(),
        "classification": result.to_dict(),
        "profile": profile.to_dict(),
    }
    return json_response(payload, 201)


@router.get(
    "",
    response_model=list[SourceProfile],
    summary="List source profiles, riskiest first",
    responses={
        200: {
            "description": "Profiles in listing order: risk, current severity, rolling average, "
            "last observed (all descending), then source_id.",
            "headers": {
                "X-Total-Count": {
                    "description": "How many profiles match the filter in all.",
                    "schema": {"type": "integer", "minimum": 0},
                }
            },
        }
    },
)
def list_sources(
    query: Annotated[ListingQuery, Query()], services: ServicesDep, session: SessionDep
) -> Response:
    """A page of profiles; ``X-Total-Count`` says how many match in all. Reads the profile
    table only, so listing never rescans observations."""
    risk, limit, offset = query.risk, query.limit, query.offset
    levels = services.rules.risk_levels
    if risk is not None and risk not in levels:
        raise RequestValidationError(
            [
                {
                    "type": "enum",
                    "loc": ("query", "risk"),
                    "msg": f"risk must be one of {', '.join(levels)}",
                    "ctx": {"expected": ", ".join(levels)},
                }
            ]
        )
    total = count_profiles(session=session, risk=risk)
    profiles = list_profiles(session=session, risk=risk, limit=limit, offset=offset)
    return json_response(
        [profile.to_dict() for profile in profiles], headers={"X-Total-Count": str(total)}
    )


@router.get(
    "/{source_id}",
    response_model=SourceProfile,
    responses=UNKNOWN_SOURCE,
    summary="A source's profile",
)
def show(source_id: SourceId, session: SessionDep) -> Response:
    """Where the source stands as of its latest observation."""
    return json_response(get_profile(source_id, session=session).to_dict())


def _verify(source_id: str, session: SessionDep) -> Response:
    return json_response(verify_source(source_id, session=session).to_dict())


VERIFY_SUMMARY = "Re-hash a source's whole chain"
VERIFY_DESCRIPTION = (
    "Checks every record in order (seq, prev_hash, record_hash, text hash) and that the "
    "chain ends at the profile's head. `intact: false` is a normal answer (200) that says "
    "where the chain breaks and why. POST is accepted too, for clients that send every "
    "action as POST."
)


@router.get(
    "/{source_id}/verify",
    response_model=VerifyReport,
    responses=UNKNOWN_SOURCE,
    summary=VERIFY_SUMMARY,
    description=VERIFY_DESCRIPTION,
)
def verify(source_id: SourceId, session: SessionDep) -> Response:
    return _verify(source_id, session)


@router.post(
    "/{source_id}/verify",
    response_model=VerifyReport,
    responses={**UNKNOWN_SOURCE, **TOO_LARGE},
    summary=VERIFY_SUMMARY + " (POST)",
    description=VERIFY_DESCRIPTION,
)
def verify_post(source_id: SourceId, session: SessionDep) -> Response:
    return _verify(source_id, session)


async def signing_key(services: ServicesDep) -> bytes:
    """The signing key, or 501 for every checkpoint request when none is configured."""
    if services.signing_key is None:
        raise HTTPException(501, NO_SIGNING_KEY)
    return services.signing_key


@router.get(
    "/{source_id}/checkpoint",
    response_model=Checkpoint,
    responses={
        **UNKNOWN_SOURCE,
        501: {
            "model": ErrorMessage,
            "description": "No HARMWATCH_SIGNING_KEY is configured: checkpoints are disabled.",
            "content": {"application/json": {"example": {"detail": NO_SIGNING_KEY}}},
        },
    },
    summary="A signed statement of a source's current head",
)
def checkpoint(
    key: Annotated[bytes, Depends(signing_key)], source_id: SourceId, session: SessionDep
) -> Response:
    """HMAC-SHA256 (key HARMWATCH_SIGNING_KEY) over the canonical JSON of
    `{source_id, seq, head_hash, issued_at, key_id}`. Keep checkpoints outside the server:
    a later chain whose record at `seq` does not carry `head_hash` was rewritten. The
    checkpoint attests the head as stored; run verify to re-hash the chain itself."""
    profile = get_profile(source_id, session=session)
    signed = sign_checkpoint(
        key,
        source_id=profile.source_id,
        seq=profile.observation_count,
        head_hash=profile.head_hash,
        issued_at=format_observed_at(datetime.now(UTC)),
    )
    return json_response(signed)
