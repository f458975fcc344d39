"""Tampering with a tracking store as an attacker with write access to the database would.

Shared by the store, CLI and API tests of issue 13: plain SQL on the tables,
and ``rewrite``, which replaces a chain with re-linked, re-hashed records and
a profile recomputed to match, leaving nothing the chain or the profile alone
could show.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from sqlalchemy import text

from store import Store, TrackingRules
from store.chain import GENESIS_HASH, hash_fields
from store.profile_check import ProfileCheck
from store.signing import SigningKey


def sql(store: Store, statement: str, **params: Any) -> None:
    with store.engine.begin() as conn:
        conn.execute(text(statement), params)


def rows(store: Store, source: str = "acct:1") -> list[dict[str, Any]]:
    with store.engine.connect() as conn:
        result = conn.execute(
            text("SELECT * FROM observations WHERE source_id = :s ORDER BY seq"), {"s": source}
        )
        return [dict(row._mapping) for row in result]


def rewrite(
    store: Store,
    rules: TrackingRules,
    records: list[dict[str, Any]],
    *,
    signer: SigningKey | None = None,
    keep_signatures: bool = False,
    source: str = "acct:1",
) -> None:
    """Replace the chain with ``records`` re-linked and re-hashed, and the profile to match.

    What an attacker who can write the database does to leave no trace the
    chain or the profile alone could show: every prev_hash and record_hash
    recomputed, signatures made with ``signer`` (an insider) or dropped or kept
    as they were, and every profile column recomputed from the new chain.
    """
    prev = GENESIS_HASH
    check = ProfileCheck(rules)
    rebuilt = []
    for seq, record in enumerate(records, 1):
        record = {**record, "seq": seq, "prev_hash": prev}
        decision = record.get("decision")
        record["record_hash"] = hash_fields(
            {**record, "decision": json.loads(decision) if decision is not None else None}
        )
        if signer is not None:
            record["key_id"] = signer.key_id
            record["signature"] = signer.sign(record["record_hash"].encode())
        elif not keep_signatures:
            record["key_id"] = record["signature"] = None
        # The records are in publication order (no backfill in the chains tampered with).
        check.add(record["published_at"], seq, record["harm_mechanism"], record["severity"])
        rebuilt.append(record)
        prev = record["record_hash"]
    profile = dict(check.expected())
    columns = list(rebuilt[0]) if rebuilt else []
    with store.engine.begin() as conn:
        conn.execute(text("DELETE FROM observations WHERE source_id = :s"), {"s": source})
        for record in rebuilt:
            conn.execute(
                text(
                    f"INSERT INTO observations ({', '.join(columns)}) "
                    f"VALUES ({', '.join(':' + c for c in columns)})"
                ),
                record,
            )
        conn.execute(
            text(
                "UPDATE source_profiles SET observation_count = :n, head_hash = :head, "
                "current_severity = :current_severity, "
                "current_severity_label = :current_severity_label, "
                "rolling_average_severity = :rolling_average_severity, window_size = :window, "
                "trend = :trend, risk_level = :risk_level, risk_rank = :risk_rank, "
                "first_observed_at = :first_observed_at, last_observed_at = :last_observed_at, "
                "recent_severities = :recent_severities, peak_severity = :peak_severity, "
                "severity_counts = :counts, last_escalation_at = :last_escalation_at, "
                "last_escalation_seq = :last_escalation_seq WHERE source_id = :s"
            ),
            {
                **profile,
                "counts": orjson.dumps(profile["severity_counts"]).decode(),
                "n": len(rebuilt),
                "head": prev,
                "s": source,
            },
        )
