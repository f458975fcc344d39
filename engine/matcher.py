"""Compiled matching machinery for one language.

One ``re2.Set`` holds, for a language, every anchor (identity-group terms),
every pattern's dispatch form and, for English, every coded term. A single
linear-time scan tells which of them can match; only those are then run as
full expressions to find spans and the target slot. Most texts stop after the
scan, which keeps classification near the cost of that one pass whatever the
size of the taxonomy.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import re2

from engine.patterns import NEVER, NOT_WORD, PatternCompiler, PatternError, SlotSource
from engine.taxonomy import LoadedTaxonomy, TaxonomyError
from engine.taxonomy_models import Dogwhistle, Row

_SET_MAX_MEM = 256 << 20
_REGEX_MAX_MEM = 64 << 20


def _options(max_mem: int) -> re2.Options:
    options = re2.Options()
    options.max_mem = max_mem
    options.log_errors = False
    return options


@dataclass(frozen=True, slots=True)
class AnchorInfo:
    """The identity group a mention names."""

    id: str
    identity_axis: str
    target_type: str
    coded: Dogwhistle | None = None


@dataclass(frozen=True, slots=True)
class Mention:
    """A place in the normalized text that names an identity group."""

    start: int
    end: int
    anchor: AnchorInfo
    kind: str  # "term", "modifier" or "coded"


@dataclass(slots=True)
class PatternInfo:
    """A row pattern with its lazily compiled full expression."""

    pattern_id: str
    row: Row
    severity: int
    source: str
    full: str
    filler_groups: tuple[str, ...]
    _regex: object | None = field(default=None, repr=False)

    def regex(self) -> re2._Regexp:
        if self._regex is None:
            self._regex = re2.compile(self.full, _options(_REGEX_MAX_MEM))
        return self._regex


@dataclass(frozen=True, slots=True)
class CodedInfo:
    """A coded (dogwhistle) entry compiled for scanning."""

    entry: Dogwhistle
    regex: re2._Regexp
    severity: int
    mechanism: str


@dataclass(frozen=True, slots=True)
class ScanHits:
    anchors: tuple[int, ...]
    patterns: tuple[int, ...]
    coded: tuple[int, ...]

    @property
    def empty(self) -> bool:
        return not (self.anchors or self.patterns or self.coded)


def _bounded(body: str) -> str:
    return f"(?:^|{NOT_WORD})(?P<m>{body})(?:{NOT_WORD}|$)"


class CueFinder:
    """Finds whole-word cue phrases; used for negation, reporting, condemnation."""

    def __init__(self, compiler: PatternCompiler, cues: Sequence[str], where: str) -> None:
        self.empty = not cues
        body = compiler.terms(cues, typo=False, where=where) if cues else NEVER
        self._regex = re2.compile(_bounded(body), _options(_REGEX_MAX_MEM))
        self._group = self._regex.groupindex["m"]

    def find_all(
        self, text: str, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int]]:
        """Yield cue spans inside text[start:end] (positions in ``text``)."""
        if self.empty:
            return
        window = text[start:end] if (start or end is not None) else text
        pos = 0
        while True:
            match = self._regex.search(window, pos)
            if match is None:
                return
            s, e = match.span(self._group)
            yield start + s, start + e
            pos = e if e > pos else pos + 1

    def first(self, text: str, start: int = 0, end: int | None = None) -> tuple[int, int] | None:
        return next(self.find_all(text, start, end), None)


class LanguageMatcher:
    """Everything needed to match one language, compiled once and shared by threads."""

    def __init__(self, taxonomy: LoadedTaxonomy, code: str) -> None:
        root = taxonomy.root
        pack = taxonomy.packs[code]
        self.code = code
        where = str(taxonomy.path.parent / root.languages[code].file)
        compiler = PatternCompiler(
            lexicon=pack.lexicon,
            obfuscation=root.obfuscation,
            filler_max_words=root.windows.filler_max_words,
            context=where,
            typo_exclude=pack.typo_exclude,
        )
        try:
            self._build(taxonomy, code, compiler, where)
        except PatternError as exc:
            raise TaxonomyError(str(exc)) from None
        except re2.error as exc:
            raise TaxonomyError(f"{where}: regex does not compile: {exc}") from None

    def _build(
        self, taxonomy: LoadedTaxonomy, code: str, compiler: PatternCompiler, where: str
    ) -> None:
        root = taxonomy.root
        pack = taxonomy.packs[code]
        axes = root.identity_axes
        # Anchors: one finder with a group per (anchor, kind), in declaration order.
        self.anchors: list[AnchorInfo] = []
        finder_parts: list[str] = []
        self._finder_groups: list[tuple[AnchorInfo, str]] = []
        term_pairs: list[tuple[str, bool]] = []
        modifier_pairs: list[tuple[str, bool]] = []
        coded_bodies: list[str] = []
        set_entries: list[str] = []
        for anchor in pack.anchors:
            info = AnchorInfo(
                id=anchor.id,
                identity_axis=anchor.identity_axis,
                target_type=anchor.target_type or axes[anchor.identity_axis],
            )
            self.anchors.append(info)
            terms = compiler.terms(anchor.terms, typo=anchor.typo, where=f"{where} {anchor.id}")
            term_pairs.extend((term, anchor.typo) for term in anchor.terms)
            finder_parts.append(f"({terms})")
            self._finder_groups.append((info, "term"))
            set_entries.append(_bounded(terms))
            if anchor.modifiers:
                mods = compiler.terms(
                    anchor.modifiers, typo=anchor.typo, where=f"{where} {anchor.id}"
                )
                modifier_pairs.extend((term, anchor.typo) for term in anchor.modifiers)
                finder_parts.append(f"({mods})")
                self._finder_groups.append((info, "modifier"))
        # Coded terms (English lexicon only): those that name a group anchor too.
        self.coded: list[CodedInfo] = []
        coded_entries: list[str] = []
        if code == "en":
            for entry in taxonomy.dogwhistles.entries:
                body = compiler.terms(entry.surface, typo=False, where=f"dogwhistle {entry.id}")
                row = taxonomy.row(entry.row)
                severity = root.mechanisms[row.mechanism].severity
                self.coded.append(
                    CodedInfo(
                        entry=entry,
                        regex=re2.compile(_bounded(body), _options(_REGEX_MAX_MEM)),
                        severity=severity,
                        mechanism=row.mechanism,
                    )
                )
                coded_entries.append(_bounded(body))
                if entry.names_group and entry.identity_axis is not None:
                    info = AnchorInfo(
                        id=f"coded.{entry.id}",
                        identity_axis=entry.identity_axis,
                        target_type=axes[entry.identity_axis],
                        coded=entry,
                    )
                    coded_bodies.append(body)
                    finder_parts.append(f"({body})")
                    self._finder_groups.append((info, "coded"))
        self._finder = re2.compile(
            f"(?:^|{NOT_WORD})(?:{'|'.join(finder_parts) or NEVER})(?:{NOT_WORD}|$)",
            _options(_REGEX_MAX_MEM),
        )
        determiners = compiler.macro("DET", where) if "DET" in pack.lexicon else None
        tail = compiler.macro("TAIL", where) if "TAIL" in pack.lexicon else None
        references = compiler.terms(pack.references, typo=False, where=f"{where} references")
        all_terms = compiler.term_groups(term_pairs, where=where) if term_pairs else NEVER
        all_modifiers = (
            compiler.term_groups([*modifier_pairs, *term_pairs], where=where)
            if term_pairs or modifier_pairs
            else NEVER
        )
        compiler.bind_slots(
            SlotSource(
                groups="|".join([all_terms, *coded_bodies]),
                references=references,
                modifiers="|".join([all_modifiers, *coded_bodies]),
                determiners=determiners,
                tail=tail,
            )
        )
        # Patterns, in row order then declaration order.
        self.patterns: list[PatternInfo] = []
        dispatch: list[str] = []
        for row in root.rows:
            for index, spec in enumerate(pack.patterns.get(row.id, ())):
                compiled = compiler.compile(spec.regex, f"{where}: row {row.id}: pattern {index}")
                self.patterns.append(
                    PatternInfo(
                        pattern_id=f"{row.id}:{code}:{index}",
                        row=row,
                        severity=root.mechanisms[row.mechanism].severity,
                        source=spec.regex,
                        full=compiled.full,
                        filler_groups=compiled.filler_groups,
                    )
                )
                dispatch.append(compiled.dispatch)
        self._anchor_count = len(set_entries)
        self._pattern_count = len(dispatch)
        self._set = re2.Set.SearchSet(_options(_SET_MAX_MEM))
        for entry_src in [*set_entries, *dispatch, *coded_entries]:
            self._set.Add(entry_src)
        self._set.Compile()
        # Cues.
        cues = pack.cues
        self.negation = CueFinder(compiler, cues.negation, f"{where} cues.negation")
        self.negation_exceptions = CueFinder(
            compiler, cues.negation_exceptions, f"{where} cues.negation_exceptions"
        )
        self.reporting = CueFinder(compiler, cues.reporting, f"{where} cues.reporting")
        self.condemnation = CueFinder(compiler, cues.condemnation, f"{where} cues.condemnation")
        self.clause_breaks = CueFinder(compiler, cues.clause_breaks, f"{where} cues.clause_breaks")
        self.benign: list[tuple[str, frozenset[str], CueFinder]] = [
            (b.id, frozenset(b.rows), CueFinder(compiler, b.cues, f"{where} benign {b.id}"))
            for b in pack.benign
        ]
        self.reference_regex = re2.compile(
            f"(?:^|{NOT_WORD})(?:{references})(?:{NOT_WORD}|$)", _options(_REGEX_MAX_MEM)
        )

    # -- scanning --------------------------------------------------------------
    def scan(self, text: str) -> ScanHits:
        """One pass over the text: which anchors, patterns and coded terms may match."""
        hits = self._set.Match(text)
        if not hits:
            return ScanHits((), (), ())
        a_end = self._anchor_count
        p_end = a_end + self._pattern_count
        anchors = tuple(sorted(h for h in hits if h < a_end))
        patterns = tuple(sorted(h - a_end for h in hits if a_end <= h < p_end))
        coded = tuple(sorted(h - p_end for h in hits if h >= p_end))
        return ScanHits(anchors, patterns, coded)

    def mentions(self, text: str, offset: int = 0) -> list[Mention]:
        """Every group mention in the text, in order, without overlaps.

        ``offset`` is added to the spans, for searching a slice of a longer text.
        """
        out: list[Mention] = []
        pos = 0
        while True:
            match = self._finder.search(text, pos)
            if match is None:
                return out
            index = match.lastindex
            if index is None:  # pragma: no cover - the finder always has a group
                return out
            start, end = match.span(index)
            info, kind = self._finder_groups[index - 1]
            out.append(Mention(start + offset, end + offset, info, kind))
            pos = end if end > pos else pos + 1

    def pattern_matches(self, index: int, text: str) -> Iterator[re2._Match]:
        info = self.patterns[index]
        regex = info.regex()
        group = regex.groupindex["m"]
        pos = 0
        while True:
            match = regex.search(text, pos)
            if match is None:
                return
            yield match
            end = match.end(group)
            pos = end if end > pos else pos + 1

    def is_reference(self, text: str) -> bool:
        return self.reference_regex.search(text) is not None
