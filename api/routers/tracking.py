"""The /tracking routes: observe, profile, listing, verify and signed checkpoints.

Every rule (source_id, trend, risk, the chain) lives in ``store``; a route
validates input, calls the engine and the store, and writes the store's own
dicts. Reads run in the request's transaction (``SessionDep``); observe is on
the hot path (``api.body``) and its append goes through the group commit of
``api.writer``, committed before the 201 is sent.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from api import offload
from api.body import documented, parse_body
from api.deps import ServicesDep, SessionDep, SourceId, services_of
from api.edge import record_classified
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
    VerifyRequest,
)
from api.responses import INTERNAL, TOO_LARGE, UNAVAILABLE, UNKNOWN_SOURCE
from api.services import Services
from store import (
    count_profiles,
    get_profile,
    list_profiles,
    verify_source,
)
from store.checkpoints import Checkpoint as SignedCheckpoint
from store.checkpoints import CheckpointError, parse

NO_SIGNING_KEY = (
    "signed checkpoints are not enabled on this server (HARMWATCH_SIGNING_KEY is not set)"
)
NO_CHECKPOINT_KEY = (
    "checkpoints cannot be checked on this server (HARMWATCH_SIGNING_KEY is not set)"
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
    record_classified(request.scope, services.metrics, (result,), (body.text,))
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


def _verify(
    source_id: str,
    services: Services,
    session: SessionDep,
    given: dict[str, Any] | None = None,
) -> Response:
    """Verify with the server's key and rules, against ``given`` or the latest saved checkpoint."""
    trust = services.trust
    keys = trust.keys()
    get_profile(source_id, session=session)  # 404 before any checkpoint is looked at
    checkpoints: list[SignedCheckpoint]
    if given is not None:
        try:
            checkpoint = parse(given)
            if keys is None:
                raise HTTPException(501, NO_CHECKPOINT_KEY)
            checkpoints = trust.checkpoints_for(source_id, keys, [checkpoint], origin="the request")
        except CheckpointError as exc:
            loc = ["body", "checkpoint", *([exc.field] if exc.field else [])]
            raise RequestValidationError(
                [{"type": "value_error", "loc": tuple(loc), "msg": str(exc)}]
            ) from None
    else:
        try:
            checkpoints = trust.checkpoints_for(source_id, keys)
        except CheckpointError as exc:
            # The server's own archive holds a checkpoint it cannot trust: someone altered it.
            raise HTTPException(409, f"the saved checkpoints cannot be used: {exc}") from None
    result = verify_source(
        source_id,
        session=session,
        rules=services.rules,
        keys=keys,
        checkpoints=checkpoints,
    )
    services.metrics.verified(result.intact)
    return json_response(result.to_dict())


VERIFY_SUMMARY = "Re-hash a source's whole chain"
VERIFY_DESCRIPTION = (
    "Checks every record in order (seq, prev_hash, record_hash, text hash), that the chain "
    "ends at the profile's head and that every profile field is what the chain gives. With "
    "HARMWATCH_SIGNING_KEY every record must carry a valid signature, and the chain must "
    "extend the latest checkpoint saved in HARMWATCH_CHECKPOINT_DIR (if any). "
    "`intact: false` is a normal answer (200) that says where the chain breaks and why. "
    "POST is accepted too, and may send a checkpoint to verify against."
)
VERIFY_ERRORS: dict[int | str, dict[str, Any]] = {
    409: {
        "model": ErrorMessage,
        "description": "A checkpoint saved in HARMWATCH_CHECKPOINT_DIR fails its signature.",
    },
}


@router.get(
    "/{source_id}/verify",
    response_model=VerifyReport,
    responses={**UNKNOWN_SOURCE, **VERIFY_ERRORS},
    summary=VERIFY_SUMMARY,
    description=VERIFY_DESCRIPTION,
)
def verify(source_id: SourceId, services: ServicesDep, session: SessionDep) -> Response:
    return _verify(source_id, services, session)


@router.post(
    "/{source_id}/verify",
    response_model=VerifyReport,
    responses={
        **UNKNOWN_SOURCE,
        **TOO_LARGE,
        **VERIFY_ERRORS,
        501: {
            "model": ErrorMessage,
            "description": "A checkpoint was sent but no HARMWATCH_SIGNING_KEY is configured.",
        },
    },
    summary=VERIFY_SUMMARY + " (POST), optionally against a checkpoint",
    description=VERIFY_DESCRIPTION
    + " A checkpoint that is malformed, of another source or not signed by the server's key "
    "is a 422 naming the field; a chain that no longer extends it is `intact: false`.",
)
def verify_post(
    source_id: SourceId,
    services: ServicesDep,
    session: SessionDep,
    body: Annotated[VerifyRequest | None, Body()] = None,
) -> Response:
    given = None
    if body is not None and body.checkpoint is not None:
        # As sent: a checkpoint without ``algorithm`` stays one (its signature covers five fields).
        given = body.checkpoint.model_dump(exclude_unset=True)
    return _verify(source_id, services, session, given)


async def signing_key(services: ServicesDep) -> None:
    """501 for every checkpoint request when no signing key is configured."""
    if services.trust.signer is None:
        raise HTTPException(501, NO_SIGNING_KEY)


@router.get(
    "/{source_id}/checkpoint",
    response_model=Checkpoint,
    dependencies=[Depends(signing_key)],
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
def checkpoint(source_id: SourceId, services: ServicesDep, session: SessionDep) -> Response:
    """Signed with HARMWATCH_SIGNING_KEY (Ed25519 or HMAC-SHA256, named by `algorithm`) over
    the canonical JSON of every other field. Keep checkpoints outside the server: verify
    (POST with `{checkpoint}`, or `track verify --checkpoint`) reports a chain whose record
    at `seq` no longer has `head_hash`, even one rewritten by someone holding the key."""
    profile = get_profile(source_id, session=session)
    return json_response(services.trust.issue(profile).to_dict())
