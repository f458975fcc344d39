"""The /tracking routes: observe, profile, listing, verify, signed checkpoints, the record
read back (observations, export), redaction and deletion.

Every rule (source_id, trend, risk, the chain) lives in ``store``; a route
validates input, calls the engine and the store, and writes the store's own
dicts. Reads run in the request's transaction (``SessionDep``); observe is on
the hot path (``api.body``) and its append goes through the group commit of
``api.writer``, committed before the 201 is sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from api import offload
from api.body import documented, parse_body
from api.deps import ServicesDep, SessionDep, SourceId, services_of
from api.edge import record_classified
from api.encoding import json_response
from api.limits import check_texts
from api.models import (
    MAX_LANGUAGE_CHARS,
    MAX_OFFSET,
    Checkpoint,
    ErrorMessage,
    ForgetQuery,
    Forgotten,
    IngestItem,
    IngestRequest,
    IngestResponse,
    ListingQuery,
    Observation,
    ObservationsQuery,
    ObserveRequest,
    ObserveResponse,
    RedactRequest,
    SourceProfile,
    VerifyReport,
    VerifyRequest,
)
from api.responses import (
    INTERNAL,
    TAMPERED_HEAD,
    TOO_LARGE,
    UNAVAILABLE,
    UNKNOWN_SOURCE,
    VALIDATION,
)
from api.services import Services
from store import (
    AlreadyRedacted,
    UnknownObservation,
    count_profiles,
    get_profile,
    list_profiles,
    verify_source,
)
from store.checkpoints import Checkpoint as SignedCheckpoint
from store.checkpoints import CheckpointError, parse
from store.evidence import make_evidence
from store.ingest import IngestError, IngestRow, ingest
from store.reading import export_file_name, export_lines, observations_page
from store.redaction import InvalidReasonError, forget, forget_checkpoints, redact

JSONL = "application/x-ndjson"

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
    responses={**TOO_LARGE, **TAMPERED_HEAD},
    summary="Classify a text a source published and append it to the source's chain",
    response_description="The new chain record, the classification and the updated profile.",
    openapi_extra=documented(ObserveRequest),
)
async def observe(source_id: SourceId, request: Request) -> Response:
    """The observation and the source's profile (severity, rolling average, trend, risk) are
    written together and committed before the 201 is sent. Concurrent observes of one
    source, from any number of workers, form one unbroken chain.

    ``published_at`` (default: now) places the text in the profile's timeline: an older
    one than the source's latest is placed by its time, while the chain stays in append
    order. A head record that no longer matches its hash is not extended: 409."""
    services = services_of(request)
    body = await parse_body(request, ObserveRequest)
    check_texts([(body.text, body.context)], services.max_text_chars, ("body",), indexed=False)
    evidence = make_evidence(
        published_at=body.published_at,
        url=body.url,
        metadata=body.metadata,
        max_future_skew_s=services.settings.max_future_skew_s,
    )
    result = await offload.classify(services, body.text, body.context, body.language)
    record_classified(request.scope, services.metrics, (result,), (body.text,))
    observation, profile = await services.appender().append(source_id, result, body.text, evidence)
    payload = {
        "observation": observation.to_dict(),
        "classification": result.to_dict(),
        "profile": profile.to_dict(),
    }
    return json_response(payload, 201)


@router.post(
    "/ingest",
    response_model=IngestResponse,
    responses={**TOO_LARGE, **VALIDATION},
    summary="Classify and append up to 1,000 observations of any sources",
    response_description="How many were appended and skipped, and each refused item.",
    openapi_extra=documented(IngestRequest),
)
async def ingest_route(request: Request) -> Response:
    """Every valid item is classified (``classify_many``) and appended to its source's
    chain, source by source in batched transactions; within a source, items keep their
    order. An item that fails a check (source_id, text, published_at, url, metadata) is
    listed in ``errors`` with its index and why, and nothing of it is written, while the
    others are appended: the answer is 200 either way. Only a malformed body is a 422."""
    services = services_of(request)
    body = await parse_body(request, IngestRequest)
    rows = [_ingest_row(index, item) for index, item in enumerate(body.items)]
    trust = services.trust
    report = await run_in_threadpool(
        ingest,
        rows,
        classifier=services.classifier,
        store=services.store(),
        rules=services.rules,
        store_text=services.settings.store_text,
        max_future_skew_s=services.settings.max_future_skew_s,
        skip_existing=body.skip_existing,
        signer=trust.signer,
        after_commit=trust.after_commit,
    )
    return json_response(report.to_dict("index"), 200)


def _ingest_row(index: int, item: IngestItem) -> IngestRow | IngestError:
    """The item as ``store.ingest`` reads it. Its values are unchecked (any JSON type: see
    ``IngestItem``); ingest checks them all but the language's length, which observe's
    schema limits and the CLI does not, so it is checked here."""
    language = item.language
    if isinstance(language, str) and len(language) > MAX_LANGUAGE_CHARS:
        return IngestError(
            index,
            f"language is {len(language)} characters; the limit is {MAX_LANGUAGE_CHARS}",
        )
    return IngestRow(
        position=index,
        source_id=item.source_id,
        text=item.text,
        language=language,
        published_at=item.published_at,
        url=item.url,
        metadata=item.metadata,
    )


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


# -- reading the record back, redaction, forgetting (issue 14) --------------------------

TOTAL_COUNT_HEADER = {
    "X-Total-Count": {
        "description": "How many observations the source has in all.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


@router.get(
    "/{source_id}/observations",
    response_model=list[Observation],
    responses={
        **UNKNOWN_SOURCE,
        200: {
            "description": "A page of the source's observations by seq (SPEC 5a: every field, "
            "`redacted` set on a redacted record).",
            "headers": TOTAL_COUNT_HEADER,
        },
    },
    summary="A page of a source's observations, newest first by default",
)
def list_observations(
    source_id: SourceId,
    query: Annotated[ObservationsQuery, Query()],
    session: SessionDep,
) -> Response:
    """Pages are seq ranges, so any page of a long chain costs what its own rows cost."""
    total, page = observations_page(
        source_id, session=session, order=query.order, limit=query.limit, offset=query.offset
    )
    return json_response(
        [observation.to_dict() for observation in page],
        headers={"X-Total-Count": str(total)},
    )


def _chain_stream(services: Services, source_id: str) -> Iterator[bytes]:
    """The export in its own read transaction: the request's ends before the body is sent."""
    with services.store().transaction() as session:
        yield from export_lines(source_id, session=session)


@router.get(
    "/{source_id}/export",
    response_class=StreamingResponse,
    responses={
        **UNKNOWN_SOURCE,
        200: {
            "description": "The whole chain as JSONL, oldest first: one observation per line "
            "with every field (text, url and metadata absent from a redacted record, whose "
            "`redacted` says when and why). `harmwatch track verify --file` or the stdlib "
            "snippet in docs/tracking.md re-verifies it.",
            "content": {JSONL: {"schema": {"type": "string"}}},
        },
    },
    summary="Stream a source's chain as JSONL",
)
def export(source_id: SourceId, services: ServicesDep, session: SessionDep) -> Response:
    """Streamed in batches from one read transaction: memory stays flat at any chain length."""
    profile = get_profile(source_id, session=session)  # 404 before the stream starts
    return StreamingResponse(
        _chain_stream(services, source_id),
        media_type=JSONL,
        headers={
            "X-Total-Count": str(profile.observation_count),
            "Content-Disposition": f'attachment; filename="{export_file_name(source_id)}"',
        },
    )


@router.post(
    "/{source_id}/redact/{seq}",
    response_model=Observation,
    responses={
        **TOO_LARGE,
        404: {
            "model": ErrorMessage,
            "description": "Unknown source, or no record at this seq.",
        },
        409: {"model": ErrorMessage, "description": "The record is already redacted."},
    },
    summary="Remove a record's text, url and metadata, keeping its hashes",
)
def redact_record(
    source_id: SourceId,
    seq: Annotated[int, FastPath(ge=1, le=MAX_OFFSET, description="The record's seq.")],
    body: RedactRequest,
    services: ServicesDep,
) -> Response:
    """The record keeps every hashed field, so the chain still verifies; it is marked
    `redacted: {at, reason}`, which verify and the export show."""
    try:
        with services.store().transaction(write=True) as session:
            observation = redact(source_id, seq, body.reason, session=session)
    except InvalidReasonError as exc:
        raise RequestValidationError(
            [{"type": "value_error", "loc": ("body", "reason"), "msg": str(exc)}]
        ) from None
    except UnknownObservation as exc:
        raise HTTPException(404, str(exc)) from None
    except AlreadyRedacted as exc:
        raise HTTPException(409, str(exc)) from None
    return json_response(observation.to_dict())


@router.delete(
    "/{source_id}",
    response_model=Forgotten,
    responses=UNKNOWN_SOURCE,
    summary="Delete a whole source (a data-protection request)",
)
def forget_source(
    source_id: SourceId,
    query: Annotated[ForgetQuery, Query()],
    services: ServicesDep,
) -> Response:
    """Deletes every observation and the profile in one transaction, then the source's
    saved checkpoints. `confirm` must repeat the source_id (422 otherwise)."""
    if query.confirm != source_id:
        raise RequestValidationError(
            [
                {
                    "type": "value_error",
                    "loc": ("query", "confirm"),
                    "msg": "confirm must equal the source_id in the path to delete the source",
                }
            ]
        )
    with services.store().transaction(write=True) as session:
        forgotten = forget(source_id, session=session)
    removed = forget_checkpoints(services.trust.archive, source_id)
    return json_response({**forgotten.to_dict(), "deleted_checkpoints": removed})
