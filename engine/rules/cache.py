"""An on-disk cache of the loaded taxonomy, so a command-line call does not parse
and re-check every YAML file on each start (issue 15: fast start).

What is cached is the validated ``LoadedTaxonomy`` (pydantic models, forms) and,
per language, the RE2 *sources* its patterns, anchors and cues expand to (a
``CompileMemo``): never RE2 automata, which cannot be serialized and are compiled
lazily by the classifier.

Trust rules, each tested in tests/engine/test_taxonomy_cache.py:

* The entry's name hashes the root file's resolved path and the *engine
  fingerprint* (package version, Python version and a hash of every engine source
  file), so an entry is never read by another engine, not even a development
  checkout whose models changed without a version bump.
* Inside, the entry lists the files the taxonomy was built from and their digest.
  On read the files are hashed again (cheap next to parsing them) and the entry is
  used only if the digest is unchanged: editing any pack or forms file invalidates it.
* The payload carries its own SHA-256; a truncated or corrupt file, or one that no
  longer unpickles, is ignored and rebuilt.
* Writes go to a temporary file in the same directory and are renamed into place,
  so concurrent processes only ever see a whole entry; the last writer wins, and
  every writer writes the same content.
* Pickle runs code when read, so the directory is created private (0700) and an
  entry that is not owned by this user, or is writable by others, is ignored.
* Any failure to write (read-only or full disk) only costs the speed-up.
* A language's memo sits beside the entry (same name, then ``.<code>.memo``) and
  carries the taxonomy digest it was expanded from; a memo of another digest is
  ignored and rewritten.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
import time
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from engine.languages import LANGUAGES
from engine.rules.load import DEFAULT_TAXONOMY, LoadedTaxonomy, load_taxonomy
from engine.rules.morphology import forms_path

_MAGIC = b"harmwatch-taxonomy-cache 1\n"
_MEMO_MAGIC = b"harmwatch-compile-memo 1\n"
_ENGINE_ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """Package version, Python version and a hash of the engine's source files.

    Hashing the sources (a few hundred kilobytes, about a millisecond) is what makes
    the cache safe in a checkout where models change between commits of one version.
    """
    try:
        package = version("harmwatch")
    except PackageNotFoundError:  # a checkout that was never installed
        package = "unknown"
    digest = hashlib.sha256()
    digest.update(f"{package}\0{sys.version}\0".encode())
    for source in sorted(_ENGINE_ROOT.rglob("*.py")):
        digest.update(source.relative_to(_ENGINE_ROOT).as_posix().encode() + b"\0")
        digest.update(source.read_bytes())
    return f"{package}-{digest.hexdigest()[:16]}"


def default_cache_dir() -> Path:
    """The user cache directory (``~/.cache/harmwatch/taxonomy`` on Linux)."""
    import platformdirs

    return platformdirs.user_cache_path("harmwatch", appauthor=False) / "taxonomy"


def source_files(loaded: LoadedTaxonomy) -> list[Path]:
    """The files ``load_taxonomy`` read, in the order its digest hashed them."""
    base = loaded.path.parent
    files = [loaded.path]
    for code in LANGUAGES:
        if code not in loaded.packs:
            continue
        pack_path = base / loaded.root.languages[code].file
        files.append(pack_path)
        if loaded.packs[code].words:
            files.append(forms_path(pack_path, code))
    files.append(base / loaded.root.dogwhistles)
    return files


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_entry(cache_dir: Path, root_path: Path) -> Path:
    """Where the entry for one taxonomy file and this engine lives:
    ``<hash of the root path>-<hash of the engine fingerprint>.pickle``."""
    place = hashlib.sha256(str(root_path).encode()).hexdigest()[:16]
    engine = hashlib.sha256(engine_fingerprint().encode()).hexdigest()[:16]
    return cache_dir / f"{place}-{engine}.pickle"


def _prune(entry: Path) -> None:
    """Remove the entries other engines wrote for the same taxonomy file (they can never
    be read again by this one) and temporaries left by a writer that died an hour ago."""
    place = entry.name.split("-", 1)[0]
    ours = entry.name.removesuffix(".pickle")
    old = time.time() - 3600
    for other in entry.parent.iterdir():
        stale = other.name.startswith(f"{place}-") and not other.name.startswith(ours)
        abandoned = other.name.startswith(".tmp-")
        with contextlib.suppress(OSError):
            if stale or (abandoned and other.stat().st_mtime < old):
                other.unlink()


def load_taxonomy_cached(path: Path | str | None, cache_dir: Path | None) -> LoadedTaxonomy:
    """``load_taxonomy(path)``, from the cache when it holds this taxonomy for this engine.

    ``cache_dir=None`` loads without the cache.
    """
    root_path = (Path(path) if path is not None else DEFAULT_TAXONOMY).resolve()
    if cache_dir is None:
        return load_taxonomy(root_path)
    entry = cache_entry(cache_dir, root_path)
    cached = read_entry(entry)
    if cached is not None:
        return _placed(cached, entry)
    loaded = load_taxonomy(root_path)
    write_entry(entry, loaded)
    return _placed(loaded, entry)


def _placed(loaded: LoadedTaxonomy, entry: Path) -> LoadedTaxonomy:
    """The taxonomy, told where its entry lives so its languages find their memos.

    Set after the entry is written, so it is never part of an entry."""
    object.__setattr__(loaded, "_cache_entry", entry)
    return loaded


def _read_payload(entry: Path, magic: bytes) -> Any:
    """The unpickled payload of a private, checksummed file, or None."""
    try:
        with entry.open("rb") as stream:
            status = os.fstat(stream.fileno())
            if status.st_uid != os.getuid() or status.st_mode & 0o022:
                return None
            blob = stream.read()
    except OSError:
        return None
    header, _, rest = blob.partition(b"\n")
    if header + b"\n" != magic:
        return None
    check, _, payload = rest.partition(b"\n")
    if hashlib.sha256(payload).hexdigest().encode() != check:
        return None
    try:
        return pickle.loads(payload)  # private, owner-only, checksummed
    except Exception:  # any unreadable file is rebuilt, never trusted
        return None


def read_entry(entry: Path) -> LoadedTaxonomy | None:
    """The cached taxonomy, or None when the entry is missing, stale, foreign or corrupt."""
    stored: Any = _read_payload(entry, _MAGIC)
    if stored is None:
        return None
    try:
        files = [Path(name) for name in stored["files"]]
        loaded = stored["taxonomy"]
        if stored["engine"] != engine_fingerprint() or not isinstance(loaded, LoadedTaxonomy):
            return None
        if _digest(files) != loaded.digest:
            return None  # a taxonomy file changed since the entry was written
    except Exception:  # any unreadable entry is rebuilt, never trusted
        return None
    return loaded


def write_entry(entry: Path, loaded: LoadedTaxonomy) -> bool:
    """Write the entry atomically; False (and nothing on disk) when it cannot be written
    or the files changed while the taxonomy was being loaded."""
    try:
        files = source_files(loaded)
        if _digest(files) != loaded.digest:
            return False
    except OSError:
        return False
    stored = {
        "engine": engine_fingerprint(),
        "files": [str(path) for path in files],
        "taxonomy": loaded,
    }
    if not _write_payload(entry, _MAGIC, stored):
        return False
    with contextlib.suppress(OSError):
        _prune(entry)
    return True


def _write_payload(entry: Path, magic: bytes, stored: object) -> bool:
    """Write a private, checksummed pickle atomically; False when it cannot be."""
    try:
        payload = pickle.dumps(stored, protocol=pickle.HIGHEST_PROTOCOL)
        entry.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".pickle")
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return False
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(magic)
            stream.write(hashlib.sha256(payload).hexdigest().encode() + b"\n")
            stream.write(payload)
        Path(temporary).replace(entry)
    except OSError:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        return False
    return True


class CompileMemo:
    """The expanded RE2 sources of one language (``PatternCompiler``'s memo), kept
    between processes: a command-line call then compiles automata only.

    ``values`` is handed to the compiler, which adds what it expands; ``save``
    writes the memo when something was added. Without a cache (a taxonomy loaded
    directly) the memo lives and dies with the pipeline.
    """

    def __init__(self, loaded: LoadedTaxonomy, code: str, *, spelt: bool = False) -> None:
        entry: Path | None = getattr(loaded, "_cache_entry", None)
        self._digest = loaded.digest
        self._key = (code, spelt)
        self._path = (
            None
            if entry is None
            else entry.with_name(
                entry.name.removesuffix(".pickle") + f".{code}{'-spelt' if spelt else ''}.memo"
            )
        )
        self.values: dict[tuple[object, ...], Any] = self._read()
        self._size = len(self.values)

    def _read(self) -> dict[tuple[object, ...], Any]:
        if self._path is None:
            return {}
        stored: Any = _read_payload(self._path, _MEMO_MAGIC)
        try:
            if (
                stored["engine"] == engine_fingerprint()
                and stored["digest"] == self._digest
                and tuple(stored["key"]) == self._key
                and isinstance(stored["values"], dict)
            ):
                return dict(stored["values"])
        except (TypeError, KeyError, IndexError):
            pass
        return {}

    def save(self) -> bool:
        """Write the memo if the build added to it (False when nothing was written)."""
        if self._path is None or len(self.values) == self._size:
            return False
        stored = {
            "engine": engine_fingerprint(),
            "digest": self._digest,
            "key": self._key,
            "values": self.values,
        }
        written = _write_payload(self._path, _MEMO_MAGIC, stored)
        if written:
            self._size = len(self.values)
        return written
