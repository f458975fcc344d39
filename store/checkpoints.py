"""Signed checkpoints (SPEC section 5a): a key holder's statement of a source's head, kept apart.

A checkpoint is ``{source_id, seq, head_hash, issued_at, key_id, algorithm,
signature}``; the signature covers the canonical JSON of the other fields. One
issued before ``algorithm`` existed has no such field and is ``hmac-sha256``
over the five fields it has. A chain *extends* a checkpoint when its record at
``seq`` has ``record_hash == head_hash``: so a checkpoint kept where the
database's writers cannot reach catches even an insider who holds the key and
rewrote the chain, signatures and profile after it was issued.

``CheckpointArchive`` is ``HARMWATCH_CHECKPOINT_DIR``: a checkpoint is saved
there every ``HARMWATCH_CHECKPOINT_EVERY`` observations of a source (by the
front end, after the append committed) and verification checks the latest
one by default. Layout: one directory per source, named by a readable prefix
of the source_id and 16 hex digits of its sha256 (source ids may hold
characters a file system would mangle or fold), holding ``<seq>.json`` files.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from store.chain import format_observed_at
from store.signing import ALGORITHMS, KeyRing, SigningKey

SIGNED_FIELDS = ("source_id", "seq", "head_hash", "issued_at", "key_id", "algorithm")
CHECKPOINT_FIELDS = (*SIGNED_FIELDS, "signature")
LEGACY_ALGORITHM = "hmac-sha256"
MAX_CHECKPOINT_FILE_BYTES = 64 * 1024 * 1024
_HEX64 = re.compile(r"[0-9a-f]{64}")
_HEX = re.compile(r"(?:[0-9a-f]{2})+")
_KEY_ID = re.compile(r"[0-9a-f]{16}")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SEQ_FILE = re.compile(r"(\d{1,19})\.json")


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: malformed, for another source, or not authentic.

    ``field`` names the checkpoint field at fault (the API reports it in the
    422's ``loc``); the message is one line for the CLI.
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """One checkpoint as issued; ``algorithm`` None means a checkpoint from before it existed."""

    source_id: str
    seq: int
    head_hash: str
    issued_at: str
    key_id: str
    algorithm: str | None
    signature: str

    @property
    def effective_algorithm(self) -> str:
        return self.algorithm or LEGACY_ALGORITHM

    def signed_bytes(self) -> bytes:
        """The canonical JSON of every field but the signature (as many as it was issued with)."""
        fields = self.to_dict()
        del fields["signature"]
        return orjson.dumps(fields, option=orjson.OPT_SORT_KEYS)

    def to_dict(self) -> dict[str, Any]:
        """The fields as issued: a legacy checkpoint keeps having no ``algorithm``."""
        fields: dict[str, Any] = {
            "source_id": self.source_id,
            "seq": self.seq,
            "head_hash": self.head_hash,
            "issued_at": self.issued_at,
            "key_id": self.key_id,
        }
        if self.algorithm is not None:
            fields["algorithm"] = self.algorithm
        fields["signature"] = self.signature
        return fields

    def describe(self) -> str:
        return f"the checkpoint of seq {self.seq} issued {self.issued_at}"


def issue(
    signer: SigningKey,
    *,
    source_id: str,
    seq: int,
    head_hash: str,
    issued_at: datetime | None = None,
) -> Checkpoint:
    """Sign a statement that ``source_id``'s record at ``seq`` has ``head_hash``."""
    unsigned = Checkpoint(
        source_id=source_id,
        seq=seq,
        head_hash=head_hash,
        issued_at=format_observed_at(issued_at or datetime.now(UTC)),
        key_id=signer.key_id,
        algorithm=signer.algorithm,
        signature="",
    )
    signature = signer.sign(unsigned.signed_bytes())
    return Checkpoint(**{**unsigned.to_dict(), "signature": signature})


def parse(value: object) -> Checkpoint:
    """A checkpoint from decoded JSON, checked field by field (CheckpointError names the field).

    Unknown fields are refused: the signature covers every field but itself, so
    a field this version does not know would be covered without being understood.
    """
    if not isinstance(value, dict):
        raise CheckpointError("a checkpoint must be a JSON object")
    unknown = sorted(set(value) - set(CHECKPOINT_FIELDS))
    if unknown:
        raise CheckpointError(f"unknown checkpoint field {unknown[0]!r}", field=unknown[0])
    for name in ("source_id", "seq", "head_hash", "issued_at", "key_id", "signature"):
        if name not in value:
            raise CheckpointError(f"checkpoint field {name} is missing", field=name)
    for name in ("source_id", "head_hash", "issued_at", "key_id", "signature"):
        if type(value[name]) is not str:
            raise CheckpointError(f"checkpoint field {name} must be a string", field=name)
    for name in ("source_id", "issued_at", "key_id"):
        try:
            value[name].encode("utf-8")
        except UnicodeEncodeError:
            raise CheckpointError(
                f"checkpoint field {name} holds a lone surrogate", field=name
            ) from None
    if not _TIMESTAMP.fullmatch(value["issued_at"]):
        raise CheckpointError(
            "checkpoint field issued_at must be YYYY-MM-DDTHH:MM:SS.ffffffZ", field="issued_at"
        )
    if not _KEY_ID.fullmatch(value["key_id"]):
        raise CheckpointError(
            "checkpoint field key_id must be 16 lowercase hex digits", field="key_id"
        )
    seq = value["seq"]
    if type(seq) is not int or seq < 1:
        raise CheckpointError("checkpoint field seq must be an integer of 1 or more", field="seq")
    if not _HEX64.fullmatch(value["head_hash"]):
        raise CheckpointError(
            "checkpoint field head_hash must be 64 lowercase hex digits", field="head_hash"
        )
    if not _HEX.fullmatch(value["signature"]):
        raise CheckpointError("checkpoint field signature must be lowercase hex", field="signature")
    algorithm = value.get("algorithm")
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise CheckpointError(
            f"checkpoint field algorithm must be one of {', '.join(ALGORITHMS)}",
            field="algorithm",
        )
    if "algorithm" in value and algorithm is None:
        raise CheckpointError("checkpoint field algorithm must not be null", field="algorithm")
    return Checkpoint(
        source_id=value["source_id"],
        seq=seq,
        head_hash=value["head_hash"],
        issued_at=value["issued_at"],
        key_id=value["key_id"],
        algorithm=algorithm,
        signature=value["signature"],
    )


def authenticate(checkpoint: Checkpoint, keys: KeyRing | None) -> None:
    """Raise CheckpointError unless one of ``keys`` signed this very checkpoint."""
    if keys is None or not keys:
        raise CheckpointError(
            f"{checkpoint.describe()} cannot be checked: no key is configured "
            "(set HARMWATCH_SIGNING_KEY, or give the signer's public key)",
            field="key_id",
        )
    key = keys.get(checkpoint.key_id)
    if key is None:
        raise CheckpointError(
            f"{checkpoint.describe()} was signed by key {checkpoint.key_id}, "
            f"not by {keys.describe()}",
            field="key_id",
        )
    if key.algorithm != checkpoint.effective_algorithm:
        raise CheckpointError(
            f"{checkpoint.describe()} says {checkpoint.effective_algorithm}, "
            f"but key {key.key_id} is {key.algorithm}",
            field="algorithm",
        )
    if not key.verify(checkpoint.signed_bytes(), checkpoint.signature):
        raise CheckpointError(
            f"the signature of {checkpoint.describe()} does not verify with key {key.key_id}: "
            "the checkpoint was altered or forged",
            field="signature",
        )


# -- files ------------------------------------------------------------------------------


def read_file(path: Path) -> list[Checkpoint]:
    """Checkpoints from a file: one JSON object, a JSON array, or JSON Lines (one per line)."""
    with path.open("rb") as stream:
        data = stream.read(MAX_CHECKPOINT_FILE_BYTES + 1)
    if len(data) > MAX_CHECKPOINT_FILE_BYTES:
        raise CheckpointError(f"{path}: larger than {MAX_CHECKPOINT_FILE_BYTES} bytes")
    try:
        whole: Any = orjson.loads(data)
    except orjson.JSONDecodeError:
        whole = None
        values: list[Any] = []
        for number, line in enumerate(data.splitlines(), 1):
            if not line.strip():
                continue
            try:
                values.append(orjson.loads(line))
            except orjson.JSONDecodeError as exc:
                raise CheckpointError(f"{path}: line {number} is not valid JSON ({exc})") from None
    else:
        values = whole if isinstance(whole, list) else [whole]
    checkpoints: list[Checkpoint] = []
    for index, value in enumerate(values, 1):
        try:
            checkpoints.append(parse(value))
        except CheckpointError as exc:
            raise CheckpointError(f"{path}: checkpoint {index}: {exc}", field=exc.field) from None
    if not checkpoints:
        raise CheckpointError(f"{path}: holds no checkpoint")
    return checkpoints


def dumps(checkpoint: Checkpoint) -> bytes:
    """One checkpoint as a line of JSON (field order as issued)."""
    return orjson.dumps(checkpoint.to_dict()) + b"\n"


def write_file(path: Path, checkpoints: Iterable[Checkpoint]) -> int:
    """Write checkpoints as JSON Lines beside ``path`` and rename: never half a file."""
    lines = [dumps(each) for each in checkpoints]
    _write_atomically(path, lines)
    return len(lines)


def _write_atomically(path: Path, lines: list[bytes]) -> None:
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    try:
        with temporary.open("xb") as stream:
            for line in lines:
                stream.write(line)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# -- the archive (HARMWATCH_CHECKPOINT_DIR) -----------------------------------------------


def source_directory_name(source_id: str) -> str:
    """``<readable prefix>-<16 hex of sha256(source_id)>``: unique, portable, at most 81 bytes."""
    readable = _SAFE.sub("_", source_id)[:64].lstrip(".") or "_"
    digest = hashlib.sha256(source_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{readable}-{digest}"


class CheckpointArchive:
    """Checkpoints saved by the server and the CLI, and the latest one per source."""

    def __init__(self, directory: Path, every: int) -> None:
        if every < 1:
            raise ValueError(f"HARMWATCH_CHECKPOINT_EVERY must be 1 or more, not {every}")
        self.directory = directory
        self.every = every

    def due(self, seq: int) -> bool:
        """Whether the append that made ``seq`` is one after which a checkpoint is saved."""
        return seq % self.every == 0

    def path_of(self, checkpoint: Checkpoint) -> Path:
        folder = self.directory / source_directory_name(checkpoint.source_id)
        return folder / f"{checkpoint.seq:012d}.json"

    def save(self, checkpoint: Checkpoint) -> Path:
        """Write one checkpoint (created directories, atomic file); its path."""
        path = self.path_of(checkpoint)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(path, [dumps(checkpoint)])
        return path

    def _files(self, source_id: str) -> list[tuple[int, Path]]:
        folder = self.directory / source_directory_name(source_id)
        try:
            paths = list(folder.iterdir())
        except FileNotFoundError:
            return []
        found = []
        for path in paths:
            match = _SEQ_FILE.fullmatch(path.name)
            if match:
                found.append((int(match.group(1)), path))
        found.sort(reverse=True)
        return found

    def latest(self, source_id: str, keys: KeyRing | None) -> tuple[Path, Checkpoint] | None:
        """The saved checkpoint of ``source_id`` with the highest seq signed by one of ``keys``.

        Files signed by other keys (before a key rotation) are passed over; a
        file that is not a checkpoint of this source is an error naming it,
        because something other than harmwatch wrote into the archive.
        """
        for _seq, path in self._files(source_id):
            (checkpoint,) = read_file(path)[:1]
            if checkpoint.source_id != source_id:
                raise CheckpointError(
                    f"{path}: holds a checkpoint of source {checkpoint.source_id!r}, "
                    f"not {source_id!r}",
                    field="source_id",
                )
            if keys is None or checkpoint.key_id in keys:
                return path, checkpoint
        return None

    def sources(self) -> Iterator[str]:
        """The source_id of every source with a saved checkpoint (read from its latest file)."""
        try:
            folders = sorted(self.directory.iterdir())
        except FileNotFoundError:
            return
        for folder in folders:
            if not folder.is_dir():
                continue
            files = sorted(path for path in folder.iterdir() if _SEQ_FILE.fullmatch(path.name))
            if files:
                yield read_file(files[-1])[0].source_id
