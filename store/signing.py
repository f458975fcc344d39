"""Signing keys (SPEC section 5a): who may extend a chain, and who can check that they did.

``HARMWATCH_SIGNING_KEY`` holds either an Ed25519 private key in PEM (the
``ed25519`` algorithm: anyone holding the public key can check a signature, so
a third party can verify an exported chain) or any other value of at least 32
bytes, an ``hmac-sha256`` secret (only a holder of the secret can check).
``key_id`` names a key without revealing it: the first 16 hex characters of
sha256 of the raw 32-byte public key (of the secret's UTF-8 bytes, for HMAC).
Signatures are lowercase hex.

Records are signed over the UTF-8 bytes of their ``record_hash`` hex string;
checkpoints over the canonical JSON of their other fields (``store.checkpoints``).
Nothing here logs or formats a secret: error messages name the setting, never
its value.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

Algorithm = Literal["ed25519", "hmac-sha256"]
ALGORITHMS: tuple[Algorithm, ...] = ("ed25519", "hmac-sha256")
MIN_SECRET_BYTES = 32
KEY_ID_CHARS = 16
ED25519_SIGNATURE_HEX = 128
HMAC_SIGNATURE_HEX = 64
SETTING = "HARMWATCH_SIGNING_KEY"
_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----.+?-----END \1-----", re.DOTALL)
_HEX_KEY = re.compile(r"[0-9a-fA-F]{64}")


class SigningKeyError(ValueError):
    """A key that cannot be used; the message names the setting or file, never the key."""


def key_id_of(material: bytes) -> str:
    """First 16 hex characters of sha256 of the key material (public key or secret)."""
    return hashlib.sha256(material).hexdigest()[:KEY_ID_CHARS]


def _raw_public(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


@dataclass(frozen=True, slots=True, eq=False)
class VerifyKey:
    """What checks signatures: an Ed25519 public key, or an HMAC secret (which can also sign)."""

    algorithm: Algorithm
    key_id: str
    _public: Ed25519PublicKey | None = None
    _secret: bytes | None = None
    _private: Ed25519PrivateKey | None = None

    def verify(self, data: bytes, signature: str) -> bool:
        """Whether ``signature`` (hex) is this key's signature of ``data``; never raises."""
        if self._secret is not None:
            expected = hmac.new(self._secret, data, hashlib.sha256).hexdigest()
            return hmac.compare_digest(expected, signature)
        if self._private is not None:
            # Ed25519 signatures are deterministic: re-signing costs two thirds of a check.
            return hmac.compare_digest(self._private.sign(data).hex(), signature)
        if self._public is None:  # pragma: no cover - every constructor sets one
            return False
        try:
            self._public.verify(bytes.fromhex(signature), data)
        except (InvalidSignature, ValueError):
            return False
        return True

    def __repr__(self) -> str:  # never the secret
        return f"VerifyKey({self.algorithm}, key_id={self.key_id})"


@dataclass(frozen=True, slots=True, eq=False)
class SigningKey:
    """The configured key: signs records and checkpoints, and checks them."""

    algorithm: Algorithm
    key_id: str
    _secret: bytes | None = None
    _private: Ed25519PrivateKey | None = None

    def sign(self, data: bytes) -> str:
        if self._secret is not None:
            return hmac.new(self._secret, data, hashlib.sha256).hexdigest()
        if self._private is None:  # pragma: no cover - every constructor sets one
            raise RuntimeError("a signing key without key material")
        return self._private.sign(data).hex()

    def verifier(self) -> VerifyKey:
        """The same key as a ``VerifyKey`` (holding the private key: checks by re-signing)."""
        if self._private is not None:
            public = self._private.public_key()
            return VerifyKey(self.algorithm, self.key_id, _public=public, _private=self._private)
        return VerifyKey(self.algorithm, self.key_id, _secret=self._secret)

    def public_key(self) -> VerifyKey | None:
        """What a third party may hold: the public key (Ed25519), None for an HMAC secret."""
        if self._private is None:
            return None
        return VerifyKey(self.algorithm, self.key_id, _public=self._private.public_key())

    def public_pem(self) -> str | None:
        if self._private is None:
            return None
        data = self._private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return data.decode("ascii")

    def public_hex(self) -> str | None:
        if self._private is None:
            return None
        return _raw_public(self._private.public_key()).hex()

    def __repr__(self) -> str:  # never the secret
        return f"SigningKey({self.algorithm}, key_id={self.key_id})"


class KeyRing(Mapping[str, VerifyKey]):
    """The keys a verification accepts, by key_id (the configured one, given public keys)."""

    def __init__(self, keys: Iterable[VerifyKey] = ()) -> None:
        self._keys: dict[str, VerifyKey] = {}
        for key in keys:
            self._keys.setdefault(key.key_id, key)

    def __getitem__(self, key_id: str) -> VerifyKey:
        return self._keys[key_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def describe(self) -> str:
        """``ed25519 key 1a2b…`` or a list: how reasons name the keys that were tried."""
        names = [f"{key.algorithm} key {key.key_id}" for key in self._keys.values()]
        return ", ".join(names) if names else "no key"

    @classmethod
    def of(cls, signing: SigningKey | None, extra: Iterable[VerifyKey] = ()) -> KeyRing | None:
        """The configured key and any public keys given; None when there is none at all."""
        keys = [*([signing.verifier()] if signing is not None else []), *extra]
        return cls(keys) if keys else None


def _ed25519_from_private(key: Ed25519PrivateKey) -> SigningKey:
    return SigningKey("ed25519", key_id_of(_raw_public(key.public_key())), _private=key)


def _pem_blocks(data: bytes) -> list[bytes]:
    return [match.group(0) for match in _PEM_BLOCK.finditer(data)]


def parse_signing_key(value: str) -> SigningKey:
    """The key a ``HARMWATCH_SIGNING_KEY`` value selects (SPEC section 5a).

    A value holding a PEM block must be an unencrypted Ed25519 private key; a
    ``.env`` line may write its newlines as ``\\n``. Anything else is an HMAC
    secret and must be at least 32 bytes long.
    """
    if "-----BEGIN" in value:
        text = value.replace("\\n", "\n").strip()
        blocks = _pem_blocks(text.encode("utf-8"))
        if len(blocks) != 1:
            raise SigningKeyError(f"{SETTING} holds a malformed PEM block")
        try:
            key = serialization.load_pem_private_key(blocks[0], password=None)
        except (ValueError, TypeError, InvalidSignature):
            raise SigningKeyError(
                f"{SETTING} holds a PEM block that is not an unencrypted private key"
            ) from None
        except Exception:  # cryptography raises its own UnsupportedAlgorithm
            raise SigningKeyError(f"{SETTING} holds a PEM key of an unsupported kind") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SigningKeyError(f"{SETTING} holds a PEM private key that is not Ed25519")
        return _ed25519_from_private(key)
    secret = value.encode("utf-8", "surrogatepass")
    if len(secret) < MIN_SECRET_BYTES:
        raise SigningKeyError(
            f"{SETTING} must be an Ed25519 private key (PEM) or a secret of at least "
            f"{MIN_SECRET_BYTES} bytes (it has {len(secret)})"
        )
    return SigningKey("hmac-sha256", key_id_of(secret), _secret=secret)


def generate_ed25519() -> tuple[bytes, SigningKey]:
    """A new Ed25519 key: its private PEM (PKCS#8, unencrypted) and the signing key."""
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return pem, _ed25519_from_private(private)


def parse_public_key(data: bytes, *, source: str) -> VerifyKey:
    """An Ed25519 public key from a file's bytes: PEM (public or private key) or 64 hex digits.

    ``source`` names the file in errors. A private key is accepted (its public
    half is used), so the key file itself also works for verification.
    """
    stripped = data.strip()
    if _HEX_KEY.fullmatch(stripped.decode("ascii", "replace")):
        try:
            public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(stripped.decode("ascii")))
        except ValueError:
            raise SigningKeyError(f"{source}: not an Ed25519 public key") from None
        return VerifyKey("ed25519", key_id_of(_raw_public(public)), _public=public)
    for block in _pem_blocks(stripped):
        if b"PRIVATE KEY" in block.split(b"\n", 1)[0]:
            try:
                private = serialization.load_pem_private_key(block, password=None)
            except Exception:
                raise SigningKeyError(f"{source}: the PEM private key cannot be read") from None
            if not isinstance(private, Ed25519PrivateKey):
                raise SigningKeyError(f"{source}: the PEM private key is not Ed25519")
            public_half = private.public_key()
            return VerifyKey("ed25519", key_id_of(_raw_public(public_half)), _public=public_half)
        try:
            loaded = serialization.load_pem_public_key(block)
        except Exception:
            raise SigningKeyError(f"{source}: the PEM public key cannot be read") from None
        if not isinstance(loaded, Ed25519PublicKey):
            raise SigningKeyError(f"{source}: the PEM public key is not Ed25519")
        return VerifyKey("ed25519", key_id_of(_raw_public(loaded)), _public=loaded)
    raise SigningKeyError(
        f"{source}: no Ed25519 public key found (expected a PEM block or 64 hex digits)"
    )


def signing_key_from_setting(value: str | None) -> SigningKey | None:
    """The settings' key, or None when ``HARMWATCH_SIGNING_KEY`` is unset or empty."""
    return parse_signing_key(value) if value else None
