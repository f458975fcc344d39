"""Loading and validating a taxonomy from disk.

A taxonomy is data that analysts edit by hand, so a mistake must be reported in
their terms: which file, which row, what is wrong. Loading checks the schema,
the cross-references (patterns of unknown rows, benign cues for unknown rows)
and that every pattern, term, cue list, benign list and coded term compiles,
before anything is classified.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.errors import PatternError, TaxonomyError
from engine.rules.compiler import PatternCompiler
from engine.rules.models import (
    LANGUAGES,
    DogwhistlePack,
    LanguagePack,
    Row,
    Taxonomy,
)
from engine.rules.morphology import FormsFile, WordBook, forms_path
from engine.rules.regex_syntax import balanced
from engine.text import re2x

__all__ = ["DEFAULT_TAXONOMY", "LoadedTaxonomy", "TaxonomyError", "load_taxonomy", "read_yaml"]

ModelT = TypeVar("ModelT", bound=BaseModel)
_MACRO_REF = re.compile(r"\{(?:F:)?([A-Z][A-Z0-9_]*)(?:<=\d+)?\}")


@functools.cache
def _loader() -> Any:
    """libyaml's C parser when the wheel has it (the taxonomy is read at every
    start without a cache), refusing duplicate keys: YAML would silently keep the
    last one, so a row id repeated under ``patterns:`` would drop patterns without
    a word. Built at the first read: a start from the taxonomy cache never
    imports yaml."""
    import yaml

    base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class UniqueKeyLoader(base):  # type: ignore[misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark
                    )
                seen.add(key)
            mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
            return mapping

    return UniqueKeyLoader


DEFAULT_TAXONOMY = Path(__file__).resolve().parents[2] / "taxonomy" / "taxonomy_v1.yaml"


@dataclass(frozen=True)
class LoadedTaxonomy:
    """A validated taxonomy: the root file, its language packs and coded lexicon."""

    path: Path
    root: Taxonomy
    packs: dict[str, LanguagePack]
    dogwhistles: DogwhistlePack
    digest: str
    # Verified generated forms of the packs that have word classes (morphology layer).
    forms: dict[str, FormsFile] = field(default_factory=dict)

    def words(self, code: str) -> WordBook:
        """The word classes of a pack with their forms, for its pattern compiler."""
        where = str(self.path.parent / self.root.languages[code].file)
        return WordBook(self.packs[code].words, self.forms.get(code), where, code)

    @property
    def version(self) -> str:
        return self.root.version

    def row(self, row_id: str) -> Row:
        return self._rows[row_id]

    @property
    def _rows(self) -> dict[str, Row]:
        cached: dict[str, Row] | None = getattr(self, "_rows_cache", None)
        if cached is None:
            cached = {row.id: row for row in self.root.rows}
            object.__setattr__(self, "_rows_cache", cached)
        return cached


def read_yaml(path: Path) -> tuple[Any, bytes]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TaxonomyError(f"{path}: cannot read taxonomy file: {exc.strerror}") from None
    import yaml

    try:
        data = yaml.load(raw.decode("utf-8"), Loader=_loader())  # the C or Python *safe* loader
    except UnicodeDecodeError as exc:
        raise TaxonomyError(f"{path}: not UTF-8 (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise TaxonomyError(f"{path}:{where} invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise TaxonomyError(f"{path}: expected a mapping at the top level")
    return data, raw


def _describe(path: Path, data: dict[str, Any], exc: ValidationError) -> TaxonomyError:
    """Turn pydantic's error list into 'file: row X: field: problem' lines."""
    lines = []
    for error in exc.errors():
        loc = list(error["loc"])
        label = ".".join(str(part) for part in loc)
        if len(loc) >= 2 and loc[0] in ("rows", "anchors", "entries", "benign"):
            items = data.get(str(loc[0]))
            index = loc[1]
            if isinstance(items, list) and isinstance(index, int) and index < len(items):
                item = items[index]
                ident = item.get("id") if isinstance(item, dict) else None
                kind = {"rows": "row", "anchors": "anchor", "entries": "entry"}.get(
                    str(loc[0]), str(loc[0])
                )
                rest = ".".join(str(part) for part in loc[2:]) or "(item)"
                label = f"{kind} {ident or index}: {rest}"
        elif len(loc) >= 2 and loc[0] == "patterns":
            label = f"row {loc[1]}: " + ".".join(str(part) for part in loc[2:])
        lines.append(f"{path}: {label}: {error['msg']}")
    return TaxonomyError("\n".join(lines))


def _validate(model: type[ModelT], path: Path, data: dict[str, Any]) -> ModelT:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _describe(path, data, exc) from None


def load_taxonomy(path: Path | str | None = None) -> LoadedTaxonomy:
    """Load, validate and cross-check a taxonomy (default: the shipped v1)."""
    root_path = Path(path) if path is not None else DEFAULT_TAXONOMY
    data, raw = read_yaml(root_path)
    root = _validate(Taxonomy, root_path, data)
    digest = hashlib.sha256(raw)
    base = root_path.parent
    packs: dict[str, LanguagePack] = {}
    forms: dict[str, FormsFile] = {}
    row_ids = {row.id for row in root.rows}
    for code in LANGUAGES:
        ref = root.languages[code]
        pack_path = base / ref.file
        pack_data, pack_raw = read_yaml(pack_path)
        digest.update(pack_raw)
        pack = _validate(LanguagePack, pack_path, pack_data)
        if pack.language != code:
            raise TaxonomyError(f"{pack_path}: language is {pack.language!r}, expected {code!r}")
        _check_pack(pack_path, pack, row_ids)
        packs[code] = pack
        if pack.words:
            path = forms_path(pack_path, code)
            forms_data, forms_raw = read_yaml(path)
            digest.update(forms_raw)
            forms[code] = FormsFile.load(path, code, pack.words, forms_data)
    dw_path = base / root.dogwhistles
    dw_data, dw_raw = read_yaml(dw_path)
    digest.update(dw_raw)
    dogwhistles = _validate(DogwhistlePack, dw_path, dw_data)
    for entry in dogwhistles.entries:
        if entry.row not in row_ids:
            raise TaxonomyError(f"{dw_path}: entry {entry.id}: unknown row {entry.row}")
    for name, gate in dogwhistles.gates.items():
        for excluded in gate.exclude:
            # A row id, or one English pattern of it ("D2.4a-013:en:1").
            row_id, _, index = excluded.partition(":en:")
            count = len(packs["en"].patterns.get(row_id, [])) if "en" in packs else 0
            known = row_id in row_ids and (not index or (index.isdigit() and int(index) < count))
            if not known:
                raise TaxonomyError(f"{dw_path}: gate {name}: unknown row or pattern {excluded}")
    loaded = LoadedTaxonomy(
        path=root_path,
        root=root,
        packs=packs,
        dogwhistles=dogwhistles,
        digest=digest.hexdigest(),
        forms=forms,
    )
    _check_patterns_compile(loaded)
    return loaded


def _check_pack(path: Path, pack: LanguagePack, row_ids: set[str]) -> None:
    for row_id in pack.patterns:
        if row_id not in row_ids:
            raise TaxonomyError(f"{path}: row {row_id}: patterns for a row that does not exist")
    for benign in pack.benign:
        for row_id in benign.rows:
            if row_id not in row_ids:
                raise TaxonomyError(f"{path}: benign {benign.id}: unknown row {row_id}")
    seen: set[str] = set()
    for anchor in pack.anchors:
        for row_id in anchor.rows:
            if row_id not in row_ids:
                raise TaxonomyError(f"{path}: anchor {anchor.id}: unknown row {row_id}")
        if anchor.id in seen:
            raise TaxonomyError(f"{path}: anchor {anchor.id}: duplicate anchor id")
        seen.add(anchor.id)
    _check_lexicon_cycles(path, pack)


def _check_lexicon_cycles(path: Path, pack: LanguagePack) -> None:
    """Lexicon entries may use each other; a cycle would never finish expanding."""
    uses = {
        name: {ref for term in entry.terms for ref in _MACRO_REF.findall(term)}
        for name, entry in pack.lexicon.items()
    }
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            cycle = " -> ".join([*trail[trail.index(name) :], name])
            raise TaxonomyError(
                f"{path}: lexicon {name}: entries refer to each other in a cycle: {cycle}"
            )
        if name in done or name not in uses:
            return
        for ref in sorted(uses[name]):
            visit(ref, [*trail, name])
        done.add(name)

    for name in sorted(uses):
        visit(name, [])


def _check_patterns_compile(loaded: LoadedTaxonomy) -> None:
    """Compile every lexicon entry, anchor and pattern so a bad regex fails at load.

    Patterns are checked with their macros stubbed out (each macro was checked on
    its own), which keeps this fast enough to run at every start.
    """
    root = loaded.root
    for code, pack in loaded.packs.items():
        path = loaded.path.parent / root.languages[code].file
        compiler = PatternCompiler(
            lexicon=pack.lexicon,
            obfuscation=root.obfuscation,
            filler_max_words=root.windows.filler_max_words,
            context=str(path),
            typo_exclude=pack.typo_exclude,
            words=loaded.words(code),
            frames={str(kind): frame for kind, frame in pack.frames.items()},
        )
        checks: list[tuple[str, str, str]] = []
        for name, entry in pack.lexicon.items():
            checks.extend((f"{path}: lexicon {name}", term, "term") for term in entry.terms)
        for frame_kind, frame in pack.frames.items():
            checks.extend((f"{path}: frame {frame_kind}", term, "term") for term in frame.terms)
        for anchor in pack.anchors:
            for term in [*anchor.terms, *anchor.modifiers]:
                checks.append((f"{path}: anchor {anchor.id}", term, "term"))
        checks.extend((f"{path}: references", term, "term") for term in pack.references)
        for name, cues in pack.cues:
            checks.extend((f"{path}: cues.{name}", cue, "term") for cue in cues)
        for benign in pack.benign:
            checks.extend((f"{path}: benign {benign.id}", cue, "term") for cue in benign.cues)
        if code == "en":
            dw_path = loaded.path.parent / root.dogwhistles
            for coded in loaded.dogwhistles.entries:
                where = f"{dw_path}: entry {coded.id}"
                checks.extend((where, surface, "term") for surface in coded.surface)
                checks.extend((where, form, "term") for form in coded.ambiguous)
            for name, gate in loaded.dogwhistles.gates.items():
                checks.extend((f"{dw_path}: gate {name}", mark, "term") for mark in gate.marks)
        for row_id, specs in pack.patterns.items():
            for index, spec in enumerate(specs):
                checks.append((f"{path}: row {row_id}: pattern {index}", spec.regex, "pattern"))
        translated: list[tuple[str, str, str]] = []
        for where, source, kind in checks:
            try:
                if kind == "pattern" and source.count("{T}") + source.count("{TM}") != 1:
                    raise PatternError(f"{where}: a pattern needs exactly one {{T}} or {{TM}} slot")
                regex = compiler.translate(
                    source, where=where, allow_slots=kind == "pattern", dispatch=True, stub=True
                )
                if kind == "pattern":
                    # Word classes, frames and the lexicon entries that hold them
                    # expand to thousands of forms: the budget is checked at load,
                    # not at the first text of the language.
                    compiler.check_budget(source, where, pack.references)
            except PatternError as exc:
                raise TaxonomyError(str(exc)) from None
            translated.append((where, source, regex))
        for chunk in range(0, len(translated), _BATCH):
            _compile_batch(translated[chunk : chunk + _BATCH])


# Expressions per combined compile: RE2 factors alternations in superlinear time,
# so a few hundred parts at once is faster than one compile each or all at once.
_BATCH = 128


def _compile_batch(items: list[tuple[str, str, str]]) -> None:
    """Compile many expressions as one alternation; only on failure, one by one.

    Every part is checked for balanced parentheses first, so that wrapping each in
    its own group cannot turn two broken parts into one valid expression.
    """
    if all(balanced(regex) for _, _, regex in items):
        try:
            re2x.Regex("|".join(f"(?:{regex})" for _, _, regex in items) or "x")
            return
        except re2x.RegexError:
            pass
    for where, source, regex in items:
        try:
            re2x.Regex(regex)
        except re2x.RegexError as exc:
            raise TaxonomyError(
                f"{where}: bad regex {source!r}: {re2x.error_reason(exc)}"
            ) from None
    # Every part compiles on its own: an error only the combination showed.
    raise TaxonomyError("taxonomy: the expressions compile one by one but not together")
