"""Signed checkpoints: an HMAC-SHA256 over a source's head, verifiable by anyone with the key.

The signed bytes are the canonical JSON of SPEC section 5 (keys sorted,
separators ``,`` ``:``, UTF-8, no ASCII escaping) of the five fields
``source_id, seq, head_hash, issued_at, key_id``; the checkpoint is those
fields plus ``signature`` (lowercase hex). ``key_id`` names the key without
revealing it, so a verifier holding several keys (rotation) knows which to use.
docs/api.md shows the check in a few lines of standard-library Python.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import orjson

SIGNED_FIELDS = ("source_id", "seq", "head_hash", "issued_at", "key_id")


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:16]


def canonical(fields: dict[str, Any]) -> bytes:
    """What ``json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    writes, as UTF-8 (orjson writes exactly that for strings and integers)."""
    return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)


def sign_checkpoint(
    key: bytes, *, source_id: str, seq: int, head_hash: str, issued_at: str
) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "source_id": source_id,
        "seq": seq,
        "head_hash": head_hash,
        "issued_at": issued_at,
        "key_id": key_id(key),
    }
    signature = hmac.new(key, canonical(fields), hashlib.sha256).hexdigest()
    return {**fields, "signature": signature}


def verify_checkpoint(key: bytes, checkpoint: dict[str, Any]) -> bool:
    """True when the checkpoint was signed with this key and not altered since."""
    fields = {name: checkpoint[name] for name in SIGNED_FIELDS}
    expected = hmac.new(key, canonical(fields), hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, str(checkpoint.get("signature", "")))
