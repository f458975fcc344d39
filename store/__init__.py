"""harmwatch's tracking store: hash-chained observations and source profiles (SPEC section 5).

Open it once at an entry point with ``open_store(settings)``; run store
functions inside a transaction the caller owns::

    store = open_store(settings)
    with store.transaction(write=True) as session:
        observation, profile = append(source_id, result, text=text,
                                      store_text=settings.store_text,
                                      rules=rules, session=session)

A long run of appends holds one connection and commits each on its own::

    with store.writer() as writer:
        for source_id, result, text in incoming:
            with writer.transaction() as conn:
                append(source_id, result, text=text, store_text=settings.store_text,
                       rules=rules, session=conn)

Importing this package opens nothing and reads no settings.
"""

from __future__ import annotations

from store.chain import (
    GENESIS_HASH,
    ChainRecord,
    ChainVerifier,
    VerifyResult,
    canonical_json,
    format_observed_at,
    record_hash,
    verify_jsonl,
    verify_records,
)
from store.database import (
    MigrationReport,
    Store,
    Writer,
    open_store,
    resolve_url,
)
from store.errors import (
    AlreadyRedacted,
    InvalidSourceId,
    InvalidTextError,
    StoreError,
    StoreMisconfigured,
    StoreReadOnly,
    StoreUnavailable,
    UnknownObservation,
    UnknownSource,
)
from store.evidence import Evidence, InvalidEvidenceError, make_evidence
from store.source_id import validate_source_id
from store.tracking import (
    Entry,
    Observation,
    SourceProfile,
    TamperedHeadError,
    all_source_ids,
    append,
    append_chunks,
    append_many,
    count_profiles,
    export_chain,
    get_profile,
    iter_chain,
    latest_observations,
    list_profiles,
    list_profiles_near,
    observations_between,
    publication_series,
    severity_series,
    source_ids_with_prefix,
    verify_source,
)
from store.trend import TrackingRules, risk_of, trend_of
from store.url_mask import redact_url

__all__ = [
    "GENESIS_HASH",
    "AlreadyRedacted",
    "ChainRecord",
    "ChainVerifier",
    "Entry",
    "Evidence",
    "InvalidEvidenceError",
    "InvalidSourceId",
    "InvalidTextError",
    "MigrationReport",
    "Observation",
    "SourceProfile",
    "Store",
    "StoreError",
    "StoreMisconfigured",
    "StoreReadOnly",
    "StoreUnavailable",
    "TamperedHeadError",
    "TrackingRules",
    "UnknownObservation",
    "UnknownSource",
    "VerifyResult",
    "Writer",
    "all_source_ids",
    "append",
    "append_chunks",
    "append_many",
    "canonical_json",
    "count_profiles",
    "export_chain",
    "format_observed_at",
    "get_profile",
    "iter_chain",
    "latest_observations",
    "list_profiles",
    "list_profiles_near",
    "make_evidence",
    "observations_between",
    "open_store",
    "publication_series",
    "record_hash",
    "redact_url",
    "resolve_url",
    "risk_of",
    "severity_series",
    "source_ids_with_prefix",
    "trend_of",
    "validate_source_id",
    "verify_jsonl",
    "verify_records",
    "verify_source",
]
