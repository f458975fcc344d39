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
from typing import NamedTuple

import re2

from engine.normalize import ASCII_FOLD_SHAPE
from engine.normalize import UNANCHORED as _UNANCHORED
from engine.patterns import (
    NEVER,
    NOT_WORD,
    PatternCompiler,
    PatternError,
    SlotSource,
    has_assertion,
    min_length,
)
from engine.subject import Span, Subject
from engine.taxonomy import LoadedTaxonomy, TaxonomyError
from engine.taxonomy_models import Dogwhistle, Row

_SET_MAX_MEM = 256 << 20
_REGEX_MAX_MEM = 64 << 20


def _options(max_mem: int, *, longest: bool = False) -> re2.Options:
    options = re2.Options()
    options.max_mem = max_mem
    options.log_errors = False
    options.longest_match = longest
    return options


@dataclass(frozen=True, slots=True)
class AnchorInfo:
    """The identity group a mention names."""

    id: str
    identity_axis: str
    target_type: str
    coded: Dogwhistle | None = None


class Mention(NamedTuple):
    """A place in the normalized text that names an identity group.

    A named tuple: a text naming groups builds one per mention, and a frozen
    dataclass costs twice as much to build.
    """

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
    _regex: re2._Regexp | None = field(default=None, repr=False)
    groups: tuple[int, int, tuple[int, ...]] = (0, 0, ())  # m, t, fillers

    def first_match(self, data: bytes) -> list[Span] | None:
        """The byte spans of every group of the first match in these UTF-8 bytes, or None.

        RE2 answers a miss from its DFA alone (about 2 µs on a tweet) before any
        submatch work; asking this way first skips the span machinery for the many
        candidates a scan proposes that do not match in full, and a hit is the
        first match that ``pattern_matches`` would otherwise search for again.
        """
        regex = self._regex if self._regex is not None else self.regex()
        spans: list[Span] = regex._regexp.Match(_UNANCHORED, data, 0, len(data))
        return spans if spans[0][0] >= 0 else None

    def regex(self) -> re2._Regexp:
        """The full expression, compiled on first use (most patterns never fire)."""
        if self._regex is None:
            regex = re2.compile(self.full, _options(_REGEX_MAX_MEM))
            index = regex.groupindex
            self.groups = (
                index["m"],
                index["t"],
                tuple(index[name] for name in self.filler_groups),
            )
            self._regex = regex
        return self._regex


@dataclass(frozen=True, slots=True)
class CodedInfo:
    """A coded (dogwhistle) entry compiled for scanning."""

    entry: Dogwhistle
    regex: re2._Regexp
    group: int
    severity: int
    mechanism: str


class ScanHits(NamedTuple):
    """What one scan found: anchor, pattern and coded-term indices, each ascending.

    A named tuple rather than a frozen dataclass: every text that names a group
    builds one, and a frozen dataclass pays ``object.__setattr__`` per field.
    """

    anchors: Sequence[int]
    patterns: Sequence[int]
    coded: Sequence[int]

    @property
    def empty(self) -> bool:
        return not (self.anchors or self.patterns or self.coded)


NO_HITS = ScanHits((), (), ())
UNFOLDED = ScanHits((), (), ())  # see LanguageMatcher.scan
_IDENTIFIED_MAX = 4096
_GLUED_MIN_CHARS = 5
SECOND_PART_MIN_CHARS = 3


def _gluable(subject: Subject, b_start: int, b_end: int) -> bool:
    """Whether a name run into the next word may still count as a mention.

    Only Latin-script names of five letters or more: deleting a space to dodge a
    filter ("muslimvermin") is a Latin-script trick, while in Cyrillic or Arabic
    script, and for short names anywhere, a group word at the start of a longer
    word is nearly always an unrelated word ("السودان", "matasa").
    """
    piece = subject.data[b_start:b_end]
    return piece.isascii() and len(piece) >= _GLUED_MIN_CHARS


def _boundary_at(padded: bytes, end: int) -> bool:
    """Whether the byte after a match is certainly a boundary (ASCII, not a letter or digit).

    A non-ASCII byte may or may not begin a letter; it counts as unknown.
    """
    return end < len(padded) and padded[end] < 0x80 and not padded[end : end + 1].isalnum()


def _word_follows(padded: bytes, end: int) -> bool:
    """Whether the byte after a match (in padded coordinates) starts a word."""
    return end < len(padded) and (padded[end : end + 1].isalnum() or padded[end] >= 0x80)


def _bounded(body: str) -> str:
    return f"(?:^|{NOT_WORD})(?P<m>{body})(?:{NOT_WORD}|$)"


class CueFinder:
    """Finds whole-word cue phrases; used for negation, reporting, condemnation."""

    def __init__(self, compiler: PatternCompiler, cues: Sequence[str], where: str) -> None:
        self.empty = not cues
        self.body = compiler.terms(cues, typo=False, where=where) if cues else NEVER
        self._regex = re2.compile(_bounded(self.body), _options(_REGEX_MAX_MEM))
        self._group: int = self._regex.groupindex["m"]
        self.key = -1  # its place in the language's CuePresence

    def find_all(
        self, subject: Subject, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int]]:
        """Yield cue spans inside [start, end), matched as a window of its own."""
        if self.empty:
            return
        for spans in subject.finditer(self._regex, self._group, start, end, window=True):
            yield spans[self._group]

    def first(
        self, subject: Subject, start: int = 0, end: int | None = None
    ) -> tuple[int, int] | None:
        return next(self.find_all(subject, start, end), None)


class CuePresence:
    """Which cue finders of a language can match anywhere in a text, from one DFA pass.

    Suppression searches cues in windows around each match (the clause before
    it, the sentences around it, a few words either side), a dozen windowed
    searches per signal. A finder can only match a window where its body
    matches part of the text, so one Set scan of the whole text for every body
    rules out most of those searches: most texts hold no negation, condemnation
    or benign cue at all. A body with an assertion can match a window's edge
    without matching the text, so it always counts as present.
    """

    def __init__(self, finders: Sequence[CueFinder]) -> None:
        self._set = re2.Set.SearchSet(_options(_SET_MAX_MEM))
        self._keys: list[int] = []
        always: set[int] = set()
        for key, finder in enumerate(finders):
            finder.key = key
            if finder.empty:
                continue
            if has_assertion(finder.body):
                always.add(key)
            else:
                self._set.Add(finder.body)
                self._keys.append(key)
        self._always = frozenset(always)
        self._set.Add(NEVER)  # a Set needs one entry to compile
        self._set.Compile()
        self._match = self._set._set.Match

    def present(self, subject: Subject) -> frozenset[int]:
        """The keys of the finders that may match some window of the text."""
        keys = self._keys
        return self._always.union(keys[hit] for hit in self._match(subject.data))


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
        set_entries: list[str] = []
        for anchor in pack.anchors:
            info = AnchorInfo(
                id=anchor.id,
                identity_axis=anchor.identity_axis,
                target_type=anchor.target_type or axes[anchor.identity_axis],
            )
            self.anchors.append(info)
            terms = compiler.terms(anchor.terms, typo=anchor.typo, where=f"{where} {anchor.id}")
            finder_parts.append(terms)
            self._finder_groups.append((info, "term"))
            # Presence only (the finder gives spans): no trailing boundary, so a
            # word run into the next one ("muslimvermin") counts as present too.
            set_entries.append(f"(?:^|{NOT_WORD}){terms}")
            if anchor.modifiers:
                mods = compiler.terms(
                    anchor.modifiers, typo=anchor.typo, where=f"{where} {anchor.id}"
                )
                finder_parts.append(mods)
                self._finder_groups.append((info, "modifier"))
                set_entries.append(f"(?:^|{NOT_WORD}){mods}")
        # Coded terms (English lexicon only): those that name a group anchor too.
        self.coded: list[CodedInfo] = []
        coded_entries: list[str] = []
        if code == "en":
            for entry in taxonomy.dogwhistles.entries:
                body = compiler.terms(entry.surface, typo=False, where=f"dogwhistle {entry.id}")
                row = taxonomy.row(entry.row)
                severity = root.mechanisms[row.mechanism].severity
                coded_regex = re2.compile(_bounded(body), _options(_REGEX_MAX_MEM))
                self.coded.append(
                    CodedInfo(
                        entry=entry,
                        regex=coded_regex,
                        group=coded_regex.groupindex["m"],
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
                    finder_parts.append(body)
                    self._finder_groups.append((info, "coded"))
        # Mentions are found in two steps, both on RE2's DFA alone: a capture-free
        # finder (longest match, so "muslim people" is one mention) over the text
        # padded with a space at each end, so that every match starts and ends
        # with one boundary character; then a full-match Set over the short
        # mention says which anchor and kind it is. A finder with a capture
        # group per anchor would force the much slower NFA on a huge program.
        alternatives = "|".join(finder_parts) or NEVER
        longest = _options(_REGEX_MAX_MEM, longest=True)
        longest.never_capture = True
        self._finder = re2.compile(f"{NOT_WORD}(?:{alternatives}){NOT_WORD}", longest)
        # Without the trailing boundary: also finds a group word run into the
        # next word ("muslimvermin"), to mark the skeleton for full patterns.
        self._glued = re2.compile(f"{NOT_WORD}(?:{alternatives})", longest)
        identify = re2.Set.FullMatchSet(_options(_SET_MAX_MEM))
        for part in finder_parts or [NEVER]:
            identify.Add(part)
        identify.Compile()
        self._identify_match = identify._set.Match  # bytes in, list out
        self._identified: dict[bytes, int] = {}
        determiners = compiler.macro("DET", where) if "DET" in pack.lexicon else None
        tail = compiler.macro("TAIL", where) if "TAIL" in pack.lexicon else None
        references = compiler.terms(pack.references, typo=False, where=f"{where} references")
        compiler.bind_slots(SlotSource(references=references, determiners=determiners, tail=tail))
        # Patterns, in row order then declaration order. Each is dispatched by a
        # required component (deduplicated Set entries shared by patterns); a
        # pattern is a candidate when its component was seen, so benign texts,
        # which contain almost no such components, run no full pattern at all.
        self.patterns: list[PatternInfo] = []
        entries: list[str] = list(set_entries)
        entry_index: dict[str, int] = {}
        self._anchor_count = len(set_entries)
        # key entry -> [(pattern, the other entry it needs, or -1)], in pattern order.
        self._by_key: dict[int, list[tuple[int, int]]] = {}
        for row in root.rows:
            for index, spec in enumerate(pack.patterns.get(row.id, ())):
                compiled = compiler.compile(spec.regex, f"{where}: row {row.id}: pattern {index}")
                pattern_index = len(self.patterns)
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
                # The most specific part (the longest minimum match) is the key: its
                # presence is a necessary condition. The next most specific one, when
                # it needs at least SECOND_PART_MIN_CHARS, must be present too: that
                # halves the candidates of a text naming a group (patterns sharing a
                # key such as "should" or a lexicon word), each a DFA pass over the
                # text. Shorter parts (a copula, "be") would make the scan report
                # dozens of hits per text for little filtering.
                ranked = sorted(compiled.components, key=min_length, reverse=True)
                parts = ranked[:1] + [
                    part for part in ranked[1:2] if min_length(part) >= SECOND_PART_MIN_CHARS
                ] or [compiled.dispatch]
                ids: list[int] = []
                for part in parts:
                    if part not in entry_index:
                        entry_index[part] = len(entries)
                        entries.append(part)
                    ids.append(entry_index[part])
                key = max(ids, key=lambda i: min_length(entries[i]))
                others = [i for i in ids if i != key]
                self._by_key.setdefault(key, []).append(
                    (pattern_index, others[0] if others else -1)
                )
        self._keys = frozenset(self._by_key)
        self.entries: tuple[str, ...] = tuple(entries)  # kept for diagnostics
        self._coded_start = len(entries)
        entries.extend(coded_entries)
        # The entries that name a group: a text with none of them has no target.
        self._anchor_ids = frozenset(range(self._anchor_count))
        self._coded_ids = frozenset(range(self._coded_start, len(entries)))
        self._targets = self._anchor_ids | self._coded_ids
        # Last, the shape that sends an ASCII text to full normalization (see scan).
        self._fold_id = len(entries)
        self._set = re2.Set.SearchSet(_options(_SET_MAX_MEM))
        for entry_src in [*entries, ASCII_FOLD_SHAPE]:
            self._set.Add(entry_src)
        self._set.Compile()
        self._set_match = self._set._set.Match  # bytes in, list out: skips the str wrapper
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
        self.cue_presence = CuePresence(
            [
                self.negation,
                self.negation_exceptions,
                self.reporting,
                self.condemnation,
                self.clause_breaks,
                *(finder for _, _, finder in self.benign),
            ]
        )

    # -- scanning --------------------------------------------------------------
    def scan(self, data: bytes, *, need_target: bool = True, lowered: bool = False) -> ScanHits:
        """One pass over the text's UTF-8 bytes: which anchors, patterns and coded terms
        may match (``NO_HITS`` when nothing may).

        With ``need_target`` and no group named anywhere, pattern candidates are
        not worked out at all: no pattern could find a target. With ``lowered``
        the bytes are ``lower_ascii``'s, and ``UNFOLDED`` says the text needs the
        full ``normalize`` (and a new scan) after all: the same pass answers
        normalization's question, which saves a second pass on nearly every text.
        """
        hits = self._set_match(data)
        if not hits:
            return NO_HITS
        if lowered and self._fold_id in hits:
            return UNFOLDED
        if need_target and self._targets.isdisjoint(hits):
            return NO_HITS
        coded_start = self._coded_start
        seen = set(hits)
        patterns: list[int] = []
        by_key = self._by_key
        # Most hits are second parts, anchors or keys of no candidate here: only
        # the keys among them are walked.
        for key in seen & self._keys:
            for pattern_index, other in by_key[key]:
                if other < 0 or other in seen:
                    patterns.append(pattern_index)
        patterns.sort()
        anchors = sorted(self._anchor_ids.intersection(hits))
        coded_ids = self._coded_ids.intersection(hits)
        coded = sorted([h - coded_start for h in coded_ids]) if coded_ids else ()
        return ScanHits(anchors, patterns, coded)

    def mentions(self, subject: Subject, *, glued: bool = False) -> list[Mention]:
        """Every group mention in the text, in order, without overlaps.

        ``glued`` also finds group words run into the following word; those are
        used to mark the skeleton, never to report a target on their own.
        """
        return self._find_mentions(subject, glued)[0]

    def mentions_glued_and_plain(
        self, subject: Subject
    ) -> tuple[list[Mention], list[Mention] | None]:
        """The glued mentions, and the plain ones when they are the same list (else None).

        When every match of the glued finder ends before a boundary, the plain
        finder (the same alternatives plus a trailing boundary, leftmost-longest)
        would make exactly the same matches: its matches are glued matches too, so
        it cannot start earlier, and the longest glued match already ends at a
        boundary, so it cannot be longer. One pass over the text then serves both.
        """
        return self._find_mentions(subject, True)

    def _find_mentions(
        self, subject: Subject, glued: bool
    ) -> tuple[list[Mention], list[Mention] | None]:
        finder = self._finder._regexp if not glued else self._glued._regexp
        trail = 0 if glued else 1
        data = b" " + subject.data + b" "
        groups = self._finder_groups
        identify = self._identify
        out: list[Mention] = []
        bounded = True
        position = 0
        limit = len(data)
        while position < limit:
            start, end = finder.Match(_UNANCHORED, data, position, limit)[0]
            if start < 0:
                break
            # Padded coordinates: the first byte of the match is the boundary
            # (the pad counts as one), so the mention is [start + 1, end - trail)
            # in padded bytes, which is [start, end - trail - 1) in the text.
            b_start, b_end = start, end - trail - 1
            group = identify(subject.data[b_start:b_end])
            if glued and not _boundary_at(data, end):
                bounded = False
                # A short name run into a longer word is far more often the start of
                # an unrelated word (Hausa "mata" in "matasa") than a run-together name.
                if (
                    group >= 0
                    and _word_follows(data, end)
                    and not _gluable(subject, b_start, b_end)
                ):
                    group = -1
            if group >= 0:
                info, kind = groups[group]
                out.append(Mention(subject.char(b_start), subject.char(b_end), info, kind))
            position = end - trail if end - trail > position else position + 1
        return out, (out if glued and bounded else None)

    def _identify(self, piece: bytes) -> int:
        """Which anchor and kind a found mention is: the first finder group it fully
        matches, or -1.

        Remembered per spelling: the same few group names recur in text after text,
        and a dictionary lookup costs a tenth of a Set match. The memory is bounded
        (it starts over when full) and shared by threads; a race at worst asks the
        Set twice.
        """
        known = self._identified.get(piece)
        if known is not None:
            return known
        kinds = self._identify_match(piece)
        group = min(kinds) if kinds else -1
        if len(self._identified) >= _IDENTIFIED_MAX:
            self._identified = {}
        self._identified[piece] = group
        return group

    def pattern_matches(
        self, index: int, subject: Subject, first: list[Span] | None = None
    ) -> Iterator[list[Span]]:
        """Every match of one full pattern, as group spans (see PatternInfo.groups).

        ``first`` is the pattern's ``first_match`` on ``subject.data``, when known.
        """
        info = self.patterns[index]
        regex = info.regex()
        yield from subject.finditer(regex, info.groups[0], first=first)
