"""A language compiled for classification: everything the stages need, built once.

``LanguagePipeline`` holds, for one language pack, the mention finder, the scan
Set, the full patterns (compiled lazily), the coded terms, the suppressors with
their cue finders and the cue-presence scan. It is shared by threads; all
per-text state lives in a ``Doc``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial

from engine.errors import PackCompileError, PatternError, TaxonomyError
from engine.pipeline.arabizi import PackVocabulary, literal_words, transliterator, widened
from engine.pipeline.coded import CodedInfo
from engine.pipeline.cues import CueBook, CueFinder, CuePresence, bounded
from engine.pipeline.match import PatternInfo
from engine.pipeline.mentions import AnchorInfo, MentionFinder, NounUseSource
from engine.pipeline.scan import ScriptScanner
from engine.pipeline.suppress import SUPPRESSORS, Suppressor
from engine.rules.cache import CompileMemo
from engine.rules.compiler import NOT_WORD, PatternCompiler
from engine.rules.doubles import pack_doubled
from engine.rules.load import LoadedTaxonomy
from engine.rules.models import CodedGate
from engine.rules.regex_syntax import ascii_only, min_length
from engine.text import re2x
from engine.text.normalize import Doubled, fold_literal

# A pattern's second dispatch part must need at least this many characters.
SECOND_PART_MIN_CHARS = 3
# ... except in Arabic, written without short vowels: its two-letter parts (four bytes)
# are as selective as three Latin letters, and asking for them too halved the
# candidates of an Arabic text naming a group (about 10 to 5 on make perf's corpus).
SECOND_PART_MIN_CHARS_BY_LANGUAGE = {"ar": 2}
# At most this many parts are asked for: the key and up to three others.
DISPATCH_PARTS_MAX = 4


def final_entry(part: str) -> str:
    """The scan entry of a pattern's final component: followed by a word boundary.

    A full pattern ends with ``(?:NOT_WORD|$)``, so a match's final component is
    followed by a non-word character or the end, in the skeleton the pattern reads.
    The scan reads the normalized text, which differs from the skeleton only inside
    mentions (one mark each) and at quote marks, dot runs and emoji (spaces in the
    skeleton, non-word characters in the text too); the character after the
    component is a letter in the text only when a mention starts there, run into
    the component, which only a pack with GLUE_LEAD allows (the pipeline bounds no
    entry there). So the entry is still a necessary condition, and a pattern whose
    component only occurs inside a longer word is no longer a candidate.
    """
    return f"(?:{part})(?:{NOT_WORD}|$)"


def set_overflow(
    where: str,
    code: str,
    patterns: Sequence[PatternInfo],
    entries: Sequence[str],
    anchor_count: int,
    by_key: dict[int, list[tuple[int, tuple[int, ...]]]],
    exc: re2x.SetTooLargeError,
) -> PackCompileError:
    """The error for a scan Set over RE2's budget, naming the rows that weigh most.

    Each pattern loads and compiles on its own; only the language's Set of every
    dispatch part is over the budget, at the language's first text. The message says
    where the size comes from (the expanded characters of each row's parts; a part
    shared by rows counts for each), so the author knows what to shorten.
    """
    weight: dict[str, int] = {"the group words (anchors)": sum(map(len, entries[:anchor_count]))}
    for key, proposed in by_key.items():
        for pattern, others in proposed:
            label = f"row {patterns[pattern].row.id}"
            size = len(entries[key]) + sum(len(entries[i]) for i in others)
            weight[label] = weight.get(label, 0) + size
    largest = sorted(weight.items(), key=lambda item: item[1], reverse=True)[:3]
    named = ", ".join(f"{label} ({size:,} characters)" for label, size in largest)
    return PackCompileError(
        f"{where}: the scan of language {code!r} cannot be built: {exc}; the largest "
        f"parts come from {named}: shorten those patterns, or restrict the word classes "
        "and lexicon entries they use to what they need",
        code,
    )


class LanguagePipeline:
    """Everything needed to classify one language, compiled once and shared by threads."""

    def __init__(self, taxonomy: LoadedTaxonomy, code: str, *, spelt: bool = False) -> None:
        root = taxonomy.root
        pack = taxonomy.packs[code]
        self.code = code
        self.taxonomy = taxonomy
        self.windows = root.windows
        # Words a filler of any words may not hold (engine.pipeline.match._stopped):
        # literal, lowercase words of the normalized text.
        stop = pack.lexicon.get("FILLER_STOP")
        self.filler_stops = frozenset(t.encode() for t in stop.terms) if stop else frozenset()
        self.require_target = root.require_target_present
        # Mention openings kept outside the mark, longest first (Skeleton.build).
        self.mark_outside: tuple[str, ...] = tuple(
            sorted({f"{fold_literal(word)} " for word in pack.mark_outside}, key=len, reverse=True)
        )
        where = str(taxonomy.path.parent / root.languages[code].file)
        # Arabizi (ar): Latin words spelt in Arabic letters before the scan. The
        # letters a spelling leaves open widen the patterns of a second pipeline
        # (``spelt``), built at the first Arabizi text: widened classes would cost
        # every Arabic-script text about a fifth of its matching time.
        self.arabizi = transliterator(pack.arabizi)
        self._spelt: LanguagePipeline | None = None
        self._spelt_lock = threading.Lock()
        self.widened = spelt
        # The sources this language expands to, from an earlier process when the
        # taxonomy cache holds them: then only RE2 automata are built here.
        memo = CompileMemo(taxonomy, code, spelt=spelt)
        self._memo = memo.values
        # Where the pack's words double a letter: a run of that letter keeps two
        # (engine.rules.doubles), remembered with the compiled sources.
        doubled = memo.values.get(("doubled",))
        if doubled is None:
            doubled = memo.values[("doubled",)] = pack_doubled(pack, taxonomy.words(code))
        self.doubled: Doubled = doubled
        compiler = PatternCompiler(
            lexicon=pack.lexicon,
            obfuscation=widened(root.obfuscation, self.arabizi if spelt else None),
            filler_max_words=root.windows.filler_max_words,
            context=where,
            typo_exclude=pack.typo_exclude,
            words=taxonomy.words(code),
            frames={str(kind): frame for kind, frame in pack.frames.items()},
            memo=memo.values,
        )
        try:
            self._build(taxonomy, code, compiler, where)
        except PatternError as exc:
            raise TaxonomyError(str(exc)) from None
        except re2x.RegexError as exc:
            raise TaxonomyError(f"{where}: regex does not compile: {exc}") from None
        memo.save()

    def _ascii(self, name: str, sources: list[str]) -> list[str]:
        """``ascii_only`` of each source, remembered with the compiled sources: reading
        half a megabyte of expressions in Python costs more than the Set it saves."""
        key = ("ascii", name)
        found: list[str] | None = self._memo.get(key)
        if found is None or len(found) != len(sources):
            found = self._memo[key] = [ascii_only(source) for source in sources]
        return found

    def _min_length(self, part: str) -> int:
        """``min_length`` of a dispatch part, remembered with the compiled sources."""
        key = ("min_length", part)
        found: int | None = self._memo.get(key)
        if found is None:
            found = self._memo[key] = min_length(part)
        return found

    def _build(
        self, taxonomy: LoadedTaxonomy, code: str, compiler: PatternCompiler, where: str
    ) -> None:
        root = taxonomy.root
        pack = taxonomy.packs[code]
        axes = root.identity_axes
        # Anchors: one finder part per (anchor, kind), in declaration order.
        self.anchors: list[AnchorInfo] = []
        # Gated anchors, by anchor id: ambiguous coded forms, and anchors with rows.
        self.coded_gates: dict[str, CodedGate] = {}
        finder_parts: list[str] = []
        finder_groups: list[tuple[AnchorInfo, str]] = []
        set_entries: list[str] = []
        # GLUE_LEAD: words a group word may run into ("cesX", "vermineX"); see mentions.
        leads = compiler.macro("GLUE_LEAD", where) if "GLUE_LEAD" in pack.lexicon else None
        for anchor in pack.anchors:
            info = AnchorInfo(
                id=anchor.id,
                identity_axis=anchor.identity_axis,
                target_type=anchor.target_type or axes[anchor.identity_axis],
            )
            self.anchors.append(info)
            if anchor.rows:  # a gate that opens for these rows only (targets.gate_open)
                self.coded_gates[anchor.id] = CodedGate(only=anchor.rows)
            terms = compiler.terms(
                anchor.terms, typo=anchor.typo, where=f"{where} {anchor.id}", doublings=True
            )
            finder_parts.append(terms)
            finder_groups.append((info, "term"))
            # Presence only (the finder gives spans): no trailing boundary, so a
            # word run into the next one ("muslimvermin") counts as present too.
            set_entries.append(f"(?:^|{NOT_WORD}){terms}")
            if anchor.modifiers:
                mods = compiler.terms(
                    anchor.modifiers, typo=anchor.typo, where=f"{where} {anchor.id}", doublings=True
                )
                finder_parts.append(mods)
                finder_groups.append((info, "modifier"))
                set_entries.append(f"(?:^|{NOT_WORD}){mods}")
        # Scan anchor entry -> finder part (the entries so far pair up with the parts).
        anchor_parts = list(range(len(set_entries)))
        # Coded terms (English lexicon only): those that name a group anchor too.
        # Ambiguous forms are a second finder part and scan entry, behind their gate.
        self.coded: list[CodedInfo] = []
        coded_entries: list[str] = []
        coded_parts: list[int] = []  # scan coded entry -> finder part, or -1
        # Finder parts of coded forms whose ordinary sense is a kind of person.
        predicate_parts: list[int] = []
        if code == "en":
            gates = taxonomy.dogwhistles.gates
            for entry in taxonomy.dogwhistles.entries:
                row = taxonomy.row(entry.row)
                gate = gates[entry.gate] if entry.gate is not None else None
                for forms, form_gate in ((entry.surface, None), (entry.ambiguous, gate)):
                    if not forms:
                        continue
                    body = compiler.terms(forms, typo=False, where=f"dogwhistle {entry.id}")
                    # ``bounded`` makes ``m`` the first group (the body has none).
                    coded_regex = re2x.LazyRegex(bounded(body), {"m": 1})
                    self.coded.append(
                        CodedInfo(
                            entry=entry,
                            regex=coded_regex,
                            group=coded_regex.groupindex["m"],
                            severity=root.mechanisms[row.mechanism].severity,
                            mechanism=row.mechanism,
                            row=row,
                            gate=form_gate,
                        )
                    )
                    coded_entries.append(bounded(body))
                    coded_parts.append(-1)
                    if entry.names_group and entry.identity_axis is not None:
                        anchor_id = f"coded.{entry.id}" + ("" if form_gate is None else ".gated")
                        info = AnchorInfo(
                            id=anchor_id,
                            identity_axis=entry.identity_axis,
                            target_type=axes[entry.identity_axis],
                            coded=entry,
                        )
                        if form_gate is not None:
                            self.coded_gates[anchor_id] = form_gate
                            if form_gate.corroborate:
                                predicate_parts.append(len(finder_parts))
                        coded_parts[-1] = len(finder_parts)
                        finder_parts.append(body)
                        finder_groups.append((info, "coded"))
        if leads:
            # One presence entry for a group word run into a lead: a lead before each
            # anchor's entry would copy the lead thirty times into the Set. Built after
            # the coded terms, which a lead may run into as well ("them)))").
            set_entries.append(f"(?:^|{NOT_WORD})(?:{leads})(?:{'|'.join(finder_parts)})")
            anchor_parts.append(-1)  # any group word may follow the lead
        *ascii_parts, ascii_leads = self._ascii("finder", [*finder_parts, leads or ""])
        noun_use = None
        if "NOUN_MODIFIERS" in pack.lexicon and "NOUN_NEXT" in pack.lexicon:
            noun_use = NounUseSource(
                compiler.macro("NOUN_MODIFIERS", where),
                compiler.macro("NOUN_NEXT", where),
                compiler.macro("NOUN_BEFORE", where) if "NOUN_BEFORE" in pack.lexicon else None,
                compiler.macro("NOUN_END", where) if "NOUN_END" in pack.lexicon else None,
            )
        self.mentions = MentionFinder(
            finder_parts,
            finder_groups,
            leads,
            anchor_parts=anchor_parts,
            coded_parts=coded_parts,
            ascii_spelling=(ascii_parts, ascii_leads or None),
            noun_use=noun_use,
            glue_exclude=[fold_literal(word) for word in pack.glue_exclude],
            predicate=(
                (compiler.macro("CODED_PREDICATE_LEAD", where), predicate_parts)
                if predicate_parts and "CODED_PREDICATE_LEAD" in pack.lexicon
                else None
            ),
        )
        compiler.bind_slots(compiler.slot_source(pack.references, where))
        # Patterns, in row order then declaration order. Each is dispatched by a
        # required component (deduplicated Set entries shared by patterns); a
        # pattern is a candidate when its component was seen, so benign texts,
        # which contain almost no such components, run no full pattern at all.
        self.patterns: list[PatternInfo] = []
        entries: list[str] = list(set_entries)
        entry_index: dict[str, int] = {}
        # The pattern part each pattern entry stands for (``final_entry`` adds a
        # boundary to some): the Arabizi vocabulary reads the parts.
        dispatch_parts: list[str] = []
        # key entry -> [(pattern, the other entries it needs)], in pattern order.
        by_key: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        second_min = SECOND_PART_MIN_CHARS_BY_LANGUAGE.get(code, SECOND_PART_MIN_CHARS)
        chosen: list[tuple[list[str], str | None]] = []  # per pattern: parts, final
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
                # The most specific part (the longest minimum match) is the key: its
                # presence is a necessary condition. The next most specific ones (up
                # to DISPATCH_PARTS_MAX in all), when they need at least
                # SECOND_PART_MIN_CHARS, must be present too: that halves the
                # candidates of a text naming a group (patterns sharing a key such as
                # "should" or a lexicon word), each a DFA pass over the text. Shorter
                # parts (a copula, "be") would make the scan report dozens of hits
                # per text for little filtering.
                ranked = sorted(compiled.components, key=self._min_length, reverse=True)
                parts = ranked[:1] + [
                    part
                    for part in ranked[1:DISPATCH_PARTS_MAX]
                    if self._min_length(part) >= second_min
                ] or [compiled.dispatch]
                chosen.append((parts, compiled.final if compiled.final in parts else None))
        # A pattern's final component is asked for with the word boundary that every
        # match has after it ("vil" then proposes no pattern in "ville"; see
        # ``final_entry``), where that adds no entry to the Set: when no pattern
        # asks for the same part without the boundary, and in packs without
        # GLUE_LEAD, where a group word run into the component would end it before
        # a letter.
        plain = {part for parts, final in chosen for part in parts if part != final}
        for pattern_index, (parts, final) in enumerate(chosen):
            ends = final if leads is None and final is not None and final not in plain else None
            key_part = max(parts, key=self._min_length)
            ids: list[int] = []
            key = -1
            for part in parts:
                scan_entry = final_entry(part) if part == ends else part
                if scan_entry not in entry_index:
                    entry_index[scan_entry] = len(entries)
                    entries.append(scan_entry)
                    dispatch_parts.append(part)
                ids.append(entry_index[scan_entry])
                if part == key_part and key < 0:
                    key = entry_index[scan_entry]
            others = tuple(dict.fromkeys(i for i in ids if i != key))
            by_key.setdefault(key, []).append((pattern_index, others))
        self.scanner = ScriptScanner(
            entries,
            anchor_count=len(set_entries),
            coded_entries=coded_entries,
            by_key=by_key,
            ascii_spelling=(self._ascii("scan", entries), self._ascii("coded", coded_entries)),
            gate_parts=ascii_parts,
            overflow=partial(
                set_overflow, where, code, self.patterns, entries, len(set_entries), by_key
            ),
        )
        self.vocabulary = PackVocabulary(
            [
                *finder_parts,
                *dispatch_parts,
                *(compiler.macro(name, where) for name in pack.lexicon),
                compiler.terms(literal_words(pack), typo=False, where=f"{where} arabizi"),
            ]
            if self.widened
            else ()
        )
        # Suppressors, and one presence scan over every cue finder they declare.
        cues = CueBook(compiler, pack, where)
        self.suppressors: tuple[Suppressor, ...] = tuple(
            kind(cues, pack, root.windows) for kind in SUPPRESSORS
        )
        finders: dict[int, CueFinder] = {}
        for suppressor in self.suppressors:
            for finder in suppressor.finders:
                finders.setdefault(id(finder), finder)
        self.cue_presence = CuePresence(list(finders.values()))

    def warm(self, *, patterns: bool = False) -> None:
        """Compile now what a one-text process compiles lazily: the scan Set and the
        mention finder of every group word in both spellings, and with ``patterns``
        every full pattern and coded-term finder (for a server's first requests)."""
        self.scanner.warm()
        self.mentions.warm()
        if patterns:
            for info in self.patterns:
                info.regex()
            for coded in self.coded:
                coded.regex.found(b"")

    def spelt(self) -> LanguagePipeline:
        """The pipeline for Arabizi texts: the same pack, its patterns widened by the
        transliterator's letter classes (built once, at the first such text)."""
        pipeline = self._spelt
        if pipeline is None:
            with self._spelt_lock:
                if self._spelt is None:
                    self._spelt = LanguagePipeline(self.taxonomy, self.code, spelt=True)
                pipeline = self._spelt
        return pipeline

    def known_spelling(self, word: str) -> bool:
        """Whether an Arabic spelling of a Latin word is a word of the pack."""
        return self.spelt().vocabulary(word)
