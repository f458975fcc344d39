"""The on-disk taxonomy cache (engine/rules/cache.py): used only when it is whole,
current and this engine's, rebuilt otherwise, written atomically under concurrency.

A private copy of the shipped taxonomy directory stands in, so that the tests may
edit its files (loading it once per module costs about a second).
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from engine.rules import cache
from engine.rules.cache import (
    cache_entry,
    load_taxonomy_cached,
    read_entry,
    source_files,
    write_entry,
)
from engine.rules.load import DEFAULT_TAXONOMY, LoadedTaxonomy, load_taxonomy


@pytest.fixture(scope="module")
def copy_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("taxonomy-copy") / "taxonomy"
    shutil.copytree(DEFAULT_TAXONOMY.parent, target, ignore=shutil.ignore_patterns("*.py*"))
    return target / DEFAULT_TAXONOMY.name


@pytest.fixture(scope="module")
def loaded(copy_root: Path) -> LoadedTaxonomy:
    return load_taxonomy(copy_root)


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_a_written_entry_is_read_back_whole(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    assert write_entry(entry, loaded)
    assert oct(cache_dir.stat().st_mode & 0o777) == "0o700"
    back = read_entry(entry)
    assert back is not None
    assert back.digest == loaded.digest
    assert back.root == loaded.root
    assert back.packs == loaded.packs
    assert back.dogwhistles == loaded.dogwhistles
    assert back.forms.keys() == loaded.forms.keys()
    assert [p.name for p in os.scandir(cache_dir)] == [entry.name]  # no temporary left


def test_a_warm_cache_does_not_load_the_yaml(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_entry(cache_entry(cache_dir, copy_root), loaded)
    monkeypatch.setattr(cache, "load_taxonomy", _refuse)
    assert load_taxonomy_cached(copy_root, cache_dir).digest == loaded.digest


def _refuse(_path: object) -> LoadedTaxonomy:
    raise AssertionError("the taxonomy was loaded instead of read from the cache")


def test_the_digest_covers_every_source_file(loaded: LoadedTaxonomy) -> None:
    files = source_files(loaded)
    assert files[0] == loaded.path
    assert len(files) >= 2 + len(loaded.packs) + len(loaded.forms) - 1
    assert all(path.is_file() for path in files)


def test_an_edited_taxonomy_file_makes_the_entry_stale(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    write_entry(entry, loaded)
    pack = source_files(loaded)[1]  # a language pack, not the root
    original = pack.read_bytes()
    try:
        pack.write_bytes(original + b"\n# edited\n")
        assert read_entry(entry) is None
        rebuilt = load_taxonomy_cached(copy_root, cache_dir)
        assert rebuilt.digest != loaded.digest
        again = read_entry(entry)
        assert again is not None and again.digest == rebuilt.digest
    finally:
        pack.write_bytes(original)
    assert read_entry(entry) is None  # the entry now holds the edited digest


def test_an_entry_is_never_trusted_by_another_engine(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    write_entry(entry, loaded)
    monkeypatch.setattr(cache, "engine_fingerprint", lambda: "9.9.9-other")
    assert cache_entry(cache_dir, copy_root) != entry  # another version, another file
    assert read_entry(entry) is None  # and the old file, found anyway, is refused
    # The new engine's first write removes the entry it can never read.
    assert write_entry(cache_entry(cache_dir, copy_root), loaded)
    assert sorted(p.name for p in os.scandir(cache_dir)) == [cache_entry(cache_dir, copy_root).name]


@pytest.mark.parametrize(
    "damage",
    ["truncate", "flip", "garbage", "empty", "bad-pickle"],
)
def test_a_corrupt_entry_is_ignored_and_rebuilt(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path, damage: str
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    write_entry(entry, loaded)
    blob = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip":
        entry.write_bytes(blob[:-10] + bytes([blob[-10] ^ 0xFF]) + blob[-9:])
    elif damage == "garbage":
        entry.write_bytes(os.urandom(4096))
    elif damage == "empty":
        entry.write_bytes(b"")
    else:  # a well-formed header over a payload that does not unpickle
        import hashlib

        payload = b"not a pickle"
        header = blob.split(b"\n", 1)[0] + b"\n"
        entry.write_bytes(header + hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    assert read_entry(entry) is None
    assert load_taxonomy_cached(copy_root, cache_dir).digest == loaded.digest
    assert read_entry(entry) is not None  # rewritten whole


def test_an_entry_others_can_write_is_ignored(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    write_entry(entry, loaded)
    entry.chmod(0o666)
    assert read_entry(entry) is None


def test_an_unwritable_cache_only_costs_the_speed_up(
    copy_root: Path, loaded: LoadedTaxonomy, tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("x")
    assert not write_entry(cache_entry(blocker, copy_root), loaded)
    assert load_taxonomy_cached(copy_root, blocker).digest == loaded.digest


def _write_many(entry: Path, loaded: LoadedTaxonomy, times: int) -> None:
    for _ in range(times):
        assert write_entry(entry, loaded)


def test_concurrent_writers_and_readers_only_see_whole_entries(
    copy_root: Path, loaded: LoadedTaxonomy, cache_dir: Path
) -> None:
    entry = cache_entry(cache_dir, copy_root)
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=_write_many, args=(entry, loaded, 4)) for _ in range(3)]
    for writer in writers:
        writer.start()
    while any(writer.is_alive() for writer in writers):
        back = read_entry(entry)
        if back is not None:
            assert back.digest == loaded.digest
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    final = read_entry(entry)
    assert final is not None and final.digest == loaded.digest
    assert sorted(p.name for p in os.scandir(cache_dir)) == [entry.name]
