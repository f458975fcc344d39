"""Loading the taxonomy: the shipped one loads, and every broken one is refused.

Analysts edit the taxonomy by hand, so a mistake must stop the service at load
time with a message in their terms (file, row, problem) rather than surface as
a wrong decision later (SPEC section 4, STYLE point 4). Each file in
tests/data/broken_taxonomy/ is one such mistake, written as a patch to a copy of
the shipped taxonomy (format: that directory's README.md).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import LoadedTaxonomy, Settings, TaxonomyError, build_classifier, load_taxonomy
from engine.languages import LANGUAGES
from engine.rules.load import DEFAULT_TAXONOMY

TAXONOMY_DIR = DEFAULT_TAXONOMY.parent
CASES_DIR = Path(__file__).resolve().parents[2] / "data" / "broken_taxonomy"
CASE_FILES = sorted(CASES_DIR.glob("*.yaml"))

_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

_DATA_OPS = ("set", "append", "delete")
_TEXT_OPS = ("replace_text", "prepend_text", "append_text", "write_text", "prepend_latin1")
_CASE_KEYS = frozenset({"file", "expect", "remove_file", *_DATA_OPS, *_TEXT_OPS})

YamlPath = list[str | int]


def _read_case(path: Path) -> dict[str, Any]:
    """A case file, checked so that a typo in a case fails instead of testing nothing."""
    case = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    assert isinstance(case, dict), f"{path.name}: expected a mapping"
    unknown = set(case) - _CASE_KEYS
    assert not unknown, f"{path.name}: unknown keys {sorted(unknown)}"
    assert isinstance(case.get("file"), str), f"{path.name}: 'file' is required"
    expect = case.get("expect")
    assert isinstance(expect, list) and expect, f"{path.name}: 'expect' must be a non-empty list"
    assert any(key in case for key in (*_DATA_OPS, *_TEXT_OPS, "remove_file")), (
        f"{path.name}: no patch"
    )
    return case


def _as_list(spec: Any) -> list[dict[str, Any]]:
    return spec if isinstance(spec, list) else [spec]


def _node(data: Any, path: YamlPath) -> Any:
    for key in path:
        data = data[key]
    return data


def _apply_data_ops(data: Any, case: dict[str, Any]) -> None:
    for op in _as_list(case.get("set", [])):
        _node(data, op["path"][:-1])[op["path"][-1]] = op["value"]
    for op in _as_list(case.get("append", [])):
        _node(data, op["path"]).append(op["value"])
    for op in _as_list(case.get("delete", [])):
        del _node(data, op["path"][:-1])[op["path"][-1]]


def _apply_text_ops(text: str, case: dict[str, Any]) -> str:
    if "write_text" in case:
        text = case["write_text"]
    if "replace_text" in case:
        old, new = case["replace_text"]["old"], case["replace_text"]["new"]
        assert text.count(old) == 1, f"replace_text: {old!r} must occur exactly once"
        text = text.replace(old, new)
    prefix: str = case.get("prepend_text", "")
    suffix: str = case.get("append_text", "")
    return prefix + text + suffix


def apply_patch(root: Path, case: dict[str, Any]) -> None:
    """Apply one case's patch to the taxonomy copy in ``root``."""
    target = root / case["file"]
    if case.get("remove_file"):
        target.unlink()
        return
    text = target.read_text(encoding="utf-8")
    if any(op in case for op in _DATA_OPS):
        data = yaml.load(text, Loader=_LOADER)
        _apply_data_ops(data, case)
        text = yaml.dump(data, Dumper=_DUMPER, allow_unicode=True, sort_keys=False)
    text = _apply_text_ops(text, case)
    raw = text.encode("utf-8")
    if "prepend_latin1" in case:
        raw = case["prepend_latin1"].encode("latin-1") + raw
    target.write_bytes(raw)


def copy_taxonomy(destination: Path) -> Path:
    """A private copy of the shipped taxonomy directory; returns its root file."""
    shutil.copytree(
        TAXONOMY_DIR, destination, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    return destination / DEFAULT_TAXONOMY.name


def test_there_are_cases() -> None:
    """Guards the glob below: an empty directory would make the suite pass vacuously."""
    assert len(CASE_FILES) >= 20


@pytest.mark.parametrize("case_file", CASE_FILES, ids=[p.name for p in CASE_FILES])
def test_broken_taxonomy_is_refused(case_file: Path, tmp_path: Path) -> None:
    """Loading fails with a TaxonomyError naming the file, the item and the problem."""
    case = _read_case(case_file)
    root_file = copy_taxonomy(tmp_path)
    apply_patch(tmp_path, case)
    with pytest.raises(TaxonomyError) as info:
        load_taxonomy(root_file)
    message = str(info.value)
    missing = [part for part in case["expect"] if part not in message]
    assert not missing, f"{case_file.name}: {missing} not in the message:\n{message}"
    assert "Traceback" not in message


# -- loading what is valid ----------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    """The shipped taxonomy, loaded once (a full load compiles every pattern)."""
    return load_taxonomy()


def test_shipped_taxonomy_loads(shipped: LoadedTaxonomy) -> None:
    """The taxonomy in the repository is valid, complete and identified by a digest."""
    assert shipped.path == DEFAULT_TAXONOMY
    assert set(shipped.packs) == set(LANGUAGES)
    assert all(shipped.packs[code].language == code for code in LANGUAGES)
    assert len(shipped.version.split(".")) == 3
    assert len(shipped.digest) == 64
    assert shipped.root.rows
    assert shipped.dogwhistles.entries


_STUB_PACK = """\
language: {code}
references: ["they", "them"]
anchors:
  - id: {code}.test.folk
    identity_axis: religion
    terms: ["testfolks?"]
lexicon: {{}}
cues: {{negation: ["not"], reporting: ["said"], condemnation: ["hateful"], clause_breaks: []}}
patterns:
  D2.4a-001: ["{{T}} are rats"]
"""


def _minimal_taxonomy(directory: Path) -> Path:
    """The shipped root file with one-anchor, one-pattern language packs next to it."""
    directory.mkdir()
    root_file = directory / DEFAULT_TAXONOMY.name
    shutil.copyfile(DEFAULT_TAXONOMY, root_file)
    root = yaml.load(root_file.read_text(encoding="utf-8"), Loader=_LOADER)
    for code, ref in root["languages"].items():
        pack = directory / ref["file"]
        pack.parent.mkdir(parents=True, exist_ok=True)
        pack.write_text(_STUB_PACK.format(code=code), encoding="utf-8")
    dogwhistles = {"language": "en", "source": "test", "entries": []}
    (directory / root["dogwhistles"]).write_text(yaml.safe_dump(dogwhistles), encoding="utf-8")
    return root_file


def test_taxonomy_selected_by_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shipped: LoadedTaxonomy
) -> None:
    """HARMWATCH_TAXONOMY points settings, loader and classifier at another taxonomy.

    Language files are resolved next to the selected root file, not next to the
    shipped one: the stub packs here are the only place the test anchor exists.
    """
    root_file = _minimal_taxonomy(tmp_path / "custom")
    monkeypatch.setenv("HARMWATCH_TAXONOMY", str(root_file))
    for name in ("TEXT_ANALYTICS_ENDPOINT", "TEXT_ANALYTICS_KEY"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings(_env_file=None)
    assert settings.taxonomy_path == root_file

    loaded = load_taxonomy(settings.taxonomy_path)
    assert loaded.path == root_file
    assert loaded.version == shipped.version
    assert loaded.digest != shipped.digest
    assert [anchor.id for anchor in loaded.packs["yo"].anchors] == ["yo.test.folk"]
    assert load_taxonomy(str(root_file)).digest == loaded.digest

    result = build_classifier(settings).classify("The testfolks are rats.", language="en")
    assert result.is_harmful
    assert result.matched_pattern == "D2.4a-001:en:0"
