"""Compiling the taxonomy's pattern language into RE2 expressions.

Authors write short, readable patterns ("{T} are {F}{VERMIN}"); this module
expands the slots and lexicon macros, folds literals like the text is folded,
widens letters to their leetspeak/homoglyph classes and adds one-edit typo
spellings, so that obfuscation is handled once, at load time, instead of by
per-text rewriting. It also derives each pattern's *dispatch* form: the same
pattern with the target slot replaced by a wildcard, small enough that all
patterns of a language fit in one ``re2.Set`` scan.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import PatternError
from engine.rules.models import MACRO_NAME, LexiconEntry, Obfuscation
from engine.rules.morphology import WordBook
from engine.rules.regex_syntax import (
    class_end,
    escape_length,
    fold_class,
    group_end,
    know_min_length,
)
from engine.rules.variants import TypoVariants, concrete_forms, swaps_only
from engine.text.normalize import fold_char, fold_literal

__all__ = [
    "GROUP_MARK",
    "MODIFIER_MARK",
    "NEVER",
    "NOT_WORD",
    "WORD",
    "CompiledPattern",
    "PatternCompiler",
    "PatternError",
    "SlotSource",
]

WORD = r"[\pL\pN]"
NOT_WORD = r"[^\pL\pN]"
# Matches nothing: RE2 has no (?!), but an empty range of code points works.
NEVER = r"[^\x00-\x{10FFFF}]"
_CLASS_SPECIAL = frozenset("\\]^-[")
_REGEX_SPECIAL = frozenset(".^$*+?()[]{}|\\")
# Parts of speech whose generated forms take typo spellings in a typo-spelled entry.
_TYPO_POS = frozenset({"noun", "adj"})
_QUANTIFIER = re.compile(r"\d+(?:,\d*)?")
# {F}, {F<=2}, {F:ADV}, {F:ADV<=3}: a filler, optionally restricted to a lexicon
# entry, optionally bounded below the language's filler_max_words.
# A pack's clitics that may run into the word before an unrestricted filler.
_FILLER_CLITIC = "FILLER_CLITIC"
_FILLER = re.compile(r"F(?::([A-Z][A-Z0-9_]*))?(?:<=(\d+))?")
# A placeholder inside a pattern or term: a macro, word class, frame, filler, slot
# or quantifier (see translate).
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# A pattern's expanded source may not exceed this many characters: RE2's program
# grows with it, and a class of a few hundred lemmas inside a filler would blow
# the compile memory budget at the first text instead of at load.
MAX_EXPANDED_CHARS = 400_000


# Group mentions are replaced by these private-use characters in the "skeleton"
# of a text before full patterns run, so that {T} and {TM} compile to a few
# bytes instead of every group term of the language (see engine.pipeline.mentions).
# ASCII control characters, so a marked text stays on the fast ASCII path;
# normalization drops such characters from input, so no text can forge a mark.
GROUP_MARK = "\x01"
MODIFIER_MARK = "\x02"
_MARKS_RE = {GROUP_MARK: "\\x01", MODIFIER_MARK: "\\x02"}


@dataclass(frozen=True, slots=True)
class SlotSource:
    """What the ``{T}`` slot expands to besides a group mark, already compiled."""

    references: str  # alternation of pronouns / demonstratives
    determiners: str | None
    tail: str | None
    # GLUE_DET: determiners that may run into the word before them ("tuerces X")
    # or into the group word after them ("cesX"); None where the pack has none.
    glued: str | None = None
    # MARK_TAIL: what may follow a group word but not a pronoun (a French attributive
    # adjective: "les femmes voilées", where "les voilées" after the pronoun "les "
    # would read a nominalized adjective as the group); None where the pack has none.
    mark_tail: str | None = None


@dataclass(frozen=True, slots=True)
class CompiledPattern:
    """One pattern as a full RE2 source and as its cheap dispatch components.

    ``components`` are the parts every match must contain (lexicon macros,
    literal words, non-optional groups), each a plain alternation that a
    ``re2.Set`` scans cheaply; ``dispatch`` is the whole-pattern fallback used
    only when a pattern cannot be split (a top-level ``|``).
    """

    full: str
    dispatch: str
    components: tuple[str, ...]
    filler_groups: tuple[str, ...]
    # The component that ends the pattern, if one does: every match has a word
    # boundary (or the end) right after it, which its dispatch entry may require.
    final: str | None = None


def form_trie(forms: Iterable[str]) -> str:
    """``_form_trie`` of the forms (remembered: loading checks every word class, and
    each language's pipeline expands the same classes again)."""
    return _form_trie(tuple(dict.fromkeys(forms)))


@functools.lru_cache(maxsize=1024)
def _form_trie(forms: tuple[str, ...]) -> str:
    """One alternation of word forms, factored on their common beginnings.

    A class of a few hundred lemmas has thousands of forms that share stems and
    prefixes (Arabic هيقتلوا, هيقتلو, هنقتل ...): written as a prefix tree
    ("هيقتلو(?:ا)?") the source is several times shorter, so RE2 compiles it faster
    and in less memory, and it matches the same words. An optional ending is a
    greedy ``?``, so the longest form is preferred, as in a longest-first list.
    """

    def alternation(tails: list[str]) -> str:
        groups: dict[str, list[str]] = {}
        for tail in tails:
            if tail:
                groups.setdefault(tail[0], []).append(tail[1:])
        branches = [first + alternation(rest) for first, rest in sorted(groups.items())]
        if not branches:
            return ""
        if "" in tails:
            return "(?:" + "|".join(branches) + ")?"
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return alternation(list(forms))


def _class_for(ch: str, classes: Mapping[str, str]) -> str:
    extra = classes.get(ch)
    if not extra:
        return "\\" + ch if ch in _REGEX_SPECIAL else ch
    members = []
    for member in dict.fromkeys(ch + extra):
        members.append("\\" + member if member in _CLASS_SPECIAL else member)
    return "[" + "".join(members) + "]"


class PatternCompiler:
    """Expands and widens patterns for one language pack."""

    def __init__(
        self,
        *,
        lexicon: Mapping[str, LexiconEntry],
        obfuscation: Obfuscation,
        filler_max_words: int,
        context: str,
        typo_exclude: Iterable[str] = (),
        words: WordBook | None = None,
        frames: Mapping[str, LexiconEntry] | None = None,
        memo: dict[tuple[object, ...], Any] | None = None,
    ) -> None:
        self._typo = TypoVariants(obfuscation, typo_exclude)
        # Generated forms take swapped letters only (variants.swaps_only).
        self._typo_swaps = TypoVariants(swaps_only(obfuscation), typo_exclude)
        # Compiled sources from an earlier process for the same taxonomy and engine
        # (engine.rules.cache.CompileMemo): expanding a language's patterns takes
        # longer than compiling their RE2 automata, and its result never changes.
        self._memo: dict[tuple[object, ...], Any] = memo if memo is not None else {}
        self._lexicon = lexicon
        self._words = words
        self._frames = frames or {}
        self._word_cache: dict[tuple[str, bool], str] = {}
        # Set while a typo-spelled lexicon entry's terms are translated: the noun and
        # adjective classes they name then take typo spellings of their forms too.
        self._typo_words = False
        self._obfuscation = obfuscation
        self._classes = obfuscation.letter_classes
        self._widened: dict[str, str] = {}
        self._filler_max = filler_max_words
        self._context = context
        self._macro_cache: dict[str, str] = {}
        self._bounds: dict[str, int] = {}  # placeholder -> upper bound of its size
        self._costs: dict[str, int] = {}  # source character -> _char_cost
        self._expanding: list[str] = []
        self._slots: SlotSource | None = None

    def _widen(self, ch: str) -> str:
        """A folded literal character as RE2 source, with its look-alikes (memoized)."""
        widened = self._widened.get(ch)
        if widened is None:
            widened = self._widened[ch] = _class_for(ch, self._classes)
        return widened

    def bind_slots(self, slots: SlotSource) -> None:
        self._slots = slots

    # -- terms -----------------------------------------------------------------
    def terms(
        self, terms: Iterable[str], *, typo: bool, where: str, doublings: bool = False
    ) -> str:
        """Compile a list of alternatives (lexicon entry or anchor terms); ``doublings``
        adds a letter typed twice to the typo spellings (group names, TypoVariants)."""
        listed = tuple(terms)
        key = ("terms", listed, typo, doublings)
        found: str | None = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self.term_groups(
                [(t, typo) for t in listed], where=where, doublings=doublings
            )
        return found

    def term_groups(
        self, items: Iterable[tuple[str, bool]], *, where: str, doublings: bool = False
    ) -> str:
        """Compile (term, typo) pairs into one alternation.

        Terms ending in a lexicon macro ("muslim {PEOPLE}") are factored by that
        macro so that its (large, typo-expanded) body appears once, not once per
        term: the target slot would otherwise grow to megabytes.
        """
        parts: list[str] = []
        heads_by_macro: dict[str, list[str]] = {}
        for term, typo in items:
            if not term.strip():
                raise PatternError(f"{where}: empty term")
            head, sep, suffix = term.partition(" {")
            macro = suffix[:-1] if sep and suffix.endswith("}") else ""
            if macro and MACRO_NAME.match(macro) and "{" not in head:
                heads = heads_by_macro.setdefault(macro, [])
                heads.append(self.translate(head, where=where, allow_slots=False))
                if typo:
                    heads.extend(
                        self._plain(v)
                        for v in self._typo.variants(head, multiword=True, doublings=doublings)
                    )
                continue
            # A lexicon macro inside the term sets its own entry's value while it is
            # translated; the outer term's value holds again for the tokens after it.
            outer, self._typo_words = self._typo_words, typo
            try:
                parts.append(self.translate(term, where=where, allow_slots=False))
            finally:
                self._typo_words = outer
            if typo:
                parts.extend(
                    self._plain(v)
                    for v in self._typo.variants(term, multiword=False, doublings=doublings)
                )
        for macro, heads in heads_by_macro.items():
            unique_heads = "|".join(dict.fromkeys(heads))
            parts.append(f"(?:{unique_heads})\\s*{self.macro(macro, where)}")
        unique = list(dict.fromkeys(parts))
        return "(?:" + "|".join(unique) + ")"

    @staticmethod
    def _plain(variant: str) -> str:
        """A typo spelling as a literal: not widened again for leetspeak, which
        would multiply the size of every expression for a doubly-obfuscated word."""
        return "".join(
            "\\s*" if ch == " " else ("\\" + ch if ch in _REGEX_SPECIAL else ch) for ch in variant
        )

    def macro(self, name: str, where: str) -> str:
        cached = self._macro_cache.get(name)
        if cached is not None:
            return cached
        entry = self._lexicon.get(name)
        if entry is None:
            raise PatternError(f"{where}: unknown lexicon entry {{{name}}}")
        if name in self._expanding:
            cycle = " -> ".join([*self._expanding, name])
            raise PatternError(f"{where}: lexicon entries refer to each other in a cycle: {cycle}")
        self._expanding.append(name)
        try:
            compiled = self.terms(
                entry.terms, typo=entry.typo, where=f"{self._context} lexicon {name}"
            )
        finally:
            self._expanding.pop()
        self._macro_cache[name] = compiled
        return compiled

    def word_class(self, spec: str, where: str, *, typo: bool = False) -> str:
        """``{W:CLASS[:slots]}``: every generated form of the class, as one alternation.

        With ``typo`` (the class is named in a typo-spelled lexicon entry) a noun or
        adjective class adds its forms with two neighbouring letters swapped ("قورد"
        for قرود), the commonest evasion: generated forms are the words an evasion
        misspells. Dropped letters stay out (see ``_typo_swaps``), and verb classes
        stay exact: their forms run to hundreds per lemma.
        """
        if self._words is None:
            raise PatternError(f"{where}: word class {{W:{spec}}} but the pack has no words")
        typo = typo and self._words.pos(spec) in _TYPO_POS
        cached = self._word_cache.get((spec, typo))
        if cached is not None:
            return cached
        forms = self._words.forms(spec, where)
        extra: list[str] = []
        if typo:
            exact = set(forms)
            extra = sorted(
                {
                    v
                    for form in forms
                    for v in self._typo_swaps.variants(form, multiword=False)
                    if v not in exact
                }
            )
        if forms:
            body = self.translate(form_trie(forms), where=where, allow_slots=False)
            if extra:
                body += "|" + "|".join(self._plain(v) for v in extra)
            compiled = "(?:" + body + ")"
            # Every letter is one character (widened to a class at most); a space
            # matches whitespace or none: the shortest form without its spaces.
            shortest = min(len(form.replace(" ", "")) for form in (*forms, *extra))
            know_min_length(compiled, shortest)
        else:
            compiled = NEVER
        self._word_cache[(spec, typo)] = compiled
        return compiled

    def frame(self, kind: str, where: str) -> str:
        """``{FRAME:kind}``: the pack's phrases for one frame class (wish, modal ...)."""
        key = "FRAME:" + kind
        cached = self._macro_cache.get(key)
        if cached is not None:
            return cached
        entry = self._frames.get(kind)
        if entry is None:
            raise PatternError(
                f"{where}: frame {{FRAME:{kind}}} does not exist in this pack "
                f"(frames: {', '.join(sorted(self._frames)) or 'none'})"
            )
        compiled = self.terms(entry.terms, typo=entry.typo, where=f"{self._context} frame {kind}")
        self._macro_cache[key] = compiled
        return compiled

    def _check_token(self, inner: str, where: str) -> None:
        """Validate a {W:..} or {FRAME:..} token without expanding it (load-time stubs)."""
        if inner.startswith("W:"):
            if self._words is None:
                raise PatternError(f"{where}: word class {{{inner}}} but the pack has no words")
            self._words.forms(inner[2:], where)
        elif inner[6:] not in self._frames:
            raise PatternError(
                f"{where}: frame {{{inner}}} does not exist in this pack "
                f"(frames: {', '.join(sorted(self._frames)) or 'none'})"
            )

    def check_budget(self, source: str, where: str, references: Iterable[str] = ()) -> None:
        """Refuse a pattern whose full expression would exceed MAX_EXPANDED_CHARS.

        The language's pipeline compiles a pattern at the first text of that
        language and refuses it there (``_compile``): a server would fail a request.
        So the loader asks here, for every pattern, with every lexicon macro, word
        class and frame expanded, however deeply nested. An upper bound of the size
        comes first (``_bound``: no typo spellings or look-alike classes built);
        only a pattern whose bound is over the budget is expanded in full, with the
        pack's target slot (``references``), to its exact size.
        """
        refs = tuple(references)
        if self._bound(source, where) + self._slot_bound(refs, where) <= MAX_EXPANDED_CHARS:
            return
        if self._slots is None:
            self.bind_slots(self.slot_source(refs, where))
        body = self.translate(source, where=where, allow_slots=True)
        size = len(f"(?:^|{NOT_WORD})(?P<m>{body})(?:{NOT_WORD}|$)")
        if size > MAX_EXPANDED_CHARS:
            raise PatternError(
                f"{where}: expands to {size:,} characters, over the budget of "
                f"{MAX_EXPANDED_CHARS:,} (RE2 memory): split the pattern or restrict its "
                "word classes (or the lexicon entries it uses) to what it needs"
            )

    def slot_source(self, references: Iterable[str], where: str) -> SlotSource:
        """The target slot's parts from the pack's DET, TAIL and GLUE_DET entries and
        its references, compiled."""
        lexicon = self._lexicon
        return SlotSource(
            references=self.terms(tuple(references), typo=False, where=f"{where} references"),
            determiners=self.macro("DET", where) if "DET" in lexicon else None,
            tail=self.macro("TAIL", where) if "TAIL" in lexicon else None,
            glued=self.macro("GLUE_DET", where) if "GLUE_DET" in lexicon else None,
            mark_tail=self.macro("MARK_TAIL", where) if "MARK_TAIL" in lexicon else None,
        )

    def _char_cost(self, ch: str) -> int:
        """The most characters one source character compiles to in a literal: its
        fold, widened to look-alike classes (grouped when it folds to several); a
        space is "\\s*" (memoized)."""
        cost = self._costs.get(ch)
        if cost is None:
            folded = fold_char(ch)
            widened = sum(len(self._widen(c)) for c in folded)
            cost = widened if len(folded) <= 1 else widened + 4
            self._costs[ch] = cost = max(cost, 3 if ch == " " else 1)
        return cost

    def _literal_bound(self, text: str) -> int:
        """An upper bound of the compiled size of pattern text without placeholders."""
        costs = self._costs
        missing = set(text).difference(costs)
        for ch in missing:
            self._char_cost(ch)
        return sum(map(costs.__getitem__, text))

    def _slot_bound(self, references: tuple[str, ...], where: str) -> int:
        """An upper bound of the target slot's size in a full expression."""
        key = "slot:" + "\x00".join(references)
        found = self._bounds.get(key)
        if found is None:
            found = sum(self._bound(term, where) + 1 for term in references) + 200
            for name in ("DET", "TAIL", "GLUE_DET", "MARK_TAIL"):
                if name in self._lexicon:
                    found += 2 * self._bound("{" + name + "}", where)
            self._bounds[key] = found
        return found

    def _bound(self, source: str, where: str) -> int:
        """An upper bound of the expansion of ``source`` (a pattern or a term): each
        placeholder by its own bound, memoized, every other character by
        ``_letter_bound``."""
        total = 0
        cursor = 0
        for match in _PLACEHOLDER.finditer(source):
            total += self._literal_bound(source[cursor : match.start()])
            total += self._token_bound(match.group(1), where)
            cursor = match.end()
        return total + self._literal_bound(source[cursor:])

    def _token_bound(self, inner: str, where: str) -> int:
        key = "bound:" + inner
        found = self._bounds.get(key)
        if found is not None:
            return found
        if inner in ("T", "TM", "G") or _QUANTIFIER.fullmatch(inner):
            found = 40
        elif inner.startswith("W:"):
            if self._words is None:
                found = 0  # translate reports a word class without words
            else:
                found = self._literal_bound(form_trie(self._words.forms(inner[2:], where))) + 6
        elif inner.startswith("FRAME:"):
            frame = self._frames.get(inner[6:])
            found = self._entry_bound(frame.terms, frame.typo, where) if frame else 0
        elif (filler := _FILLER.fullmatch(inner)) is not None:
            name = filler.group(1)
            entry = self._lexicon.get(name) if name else None
            words = self._entry_bound(entry.terms, entry.typo, where) if entry else 0
            clitic = _FILLER_CLITIC in self._lexicon and self._token_bound(_FILLER_CLITIC, where)
            found = 2 * words + int(clitic) + 200
        elif inner in self._lexicon:
            if inner in self._expanding:  # a cycle: the loader reports it on its own
                return 0
            self._expanding.append(inner)
            try:
                entry = self._lexicon[inner]
                found = self._entry_bound(entry.terms, entry.typo, where)
            finally:
                self._expanding.pop()
        else:
            found = 0  # an unknown placeholder: translate reports it
        self._bounds[key] = found
        return found

    def _entry_bound(self, terms: Iterable[str], typo: bool, where: str) -> int:
        """An upper bound of a list of terms compiled as one alternation: each term,
        and with ``typo`` its one-edit spellings (at most two per letter of each of
        its concrete forms, each at most three characters a letter)."""
        total = 8
        for term in terms:
            total += self._bound(term, where) + 1
            if typo:
                for form in concrete_forms(fold_literal(term)) or ():
                    # At most one spelling per letter for swaps and one for
                    # deletions, each the form's letters and a "\\s*" per space.
                    total += 2 * len(form) * (len(form) + 2 * form.count(" ") + 1)
        return total

    # -- patterns --------------------------------------------------------------
    def compile(self, source: str, where: str) -> CompiledPattern:
        """Compile one row pattern into its full and dispatch forms."""
        key = ("compile", source)
        found: CompiledPattern | None = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._compile(source, where)
        return found

    def _compile(self, source: str, where: str) -> CompiledPattern:
        slots = [m for m in re.findall(r"\{(T|TM)\}", source)]
        if len(slots) != 1:
            raise PatternError(f"{where}: a pattern needs exactly one {{T}} or {{TM}} slot")
        fillers: list[str] = []
        body = self.translate(source, where=where, allow_slots=True, fillers=fillers)
        components, final = self._components(source, where)
        dispatch = (
            ""
            if components
            else self.translate(source, where=where, allow_slots=True, dispatch=True)
        )
        full = f"(?:^|{NOT_WORD})(?P<m>{body})(?:{NOT_WORD}|$)"
        if len(full) > MAX_EXPANDED_CHARS:
            raise PatternError(
                f"{where}: expands to {len(full):,} characters, over the budget of "
                f"{MAX_EXPANDED_CHARS:,} (RE2 memory): split the pattern or restrict its "
                "word classes to the slots it needs"
            )
        return CompiledPattern(
            full=full,
            dispatch=dispatch,
            components=tuple(components),
            filler_groups=tuple(fillers),
            final=final,
        )

    def components(self, source: str, where: str) -> list[str]:
        """The parts of a pattern that every match must contain, compiled.

        Walks the top level of the source: macros and groups without an optional
        quantifier and runs of literal text are required; slots, fillers, escapes
        and optional parts are not. A top-level ``|`` makes every part optional,
        so such a pattern has no components (the caller falls back to ``dispatch``).
        """
        return self._components(source, where)[0]

    def _components(self, source: str, where: str) -> tuple[list[str], str | None]:
        """``components``, and the one that ends the source (nothing but spaces after
        it), or None."""
        out: list[str] = []
        literal: list[str] = []
        # Where in the source the last component ends.
        ends = [-1]

        def flush(drop_last: bool = False) -> None:
            if drop_last and literal:
                literal.pop()
            text = "".join(literal).strip()
            literal.clear()
            if any(ch.isalpha() for ch in text):
                out.append(self.translate(text, where=where, allow_slots=False))
                ends[0] = -1 if drop_last else i

        def optional_after(pos: int) -> bool:
            if pos < len(source) and source[pos] in "?*":
                return True
            return source.startswith("{0", pos)

        i = 0
        n = len(source)
        while i < n:
            ch = source[i]
            if ch == "{":
                close = source.find("}", i)
                inner = source[i + 1 : close]
                if _QUANTIFIER.fullmatch(inner):
                    flush(drop_last=inner.startswith("0"))
                elif inner in ("T", "TM", "G") or _FILLER.fullmatch(inner):
                    flush()
                else:
                    flush()
                    if not optional_after(close + 1):
                        out.append(self._token(inner, where))
                        ends[0] = close + 1
                i = close + 1
            elif ch == "(":
                close = group_end(source, i)
                flush()
                group = source[i : close + 1]
                if not optional_after(close + 1) and not any(
                    token in group for token in ("{T", "{F", "{G}")
                ):
                    out.append(self.translate(group, where=where, allow_slots=False))
                    ends[0] = close + 1
                i = close + 1
            elif ch == "[":
                flush()
                i = class_end(source, i) + 1
            elif ch == "\\":
                flush()
                i += escape_length(source, i)
            elif ch == "|":
                return [], None
            elif ch in "?*":
                flush(drop_last=True)
                i += 1
            elif ch in ".^$+)":
                flush()
                i += 1
            else:
                literal.append(ch)
                i += 1
        flush()
        final = out[-1] if out and ends[0] >= 0 and not source[ends[0] :].strip() else None
        return out, final

    def translate(
        self,
        source: str,
        *,
        where: str,
        allow_slots: bool,
        dispatch: bool = False,
        fillers: list[str] | None = None,
        stub: bool = False,
    ) -> str:
        """Rewrite pattern source into RE2 syntax (see docs/taxonomy-format.md).

        ``stub`` replaces lexicon macros by a placeholder after checking that they
        exist, to validate a pattern's own syntax cheaply.
        """
        out: list[str] = []
        i = 0
        n = len(source)
        while i < n:
            ch = source[i]
            if ch == "\\":
                if i + 1 >= n:
                    raise PatternError(f"{where}: trailing backslash")
                if source[i + 1] in "pP" and i + 2 < n and source[i + 2] == "{":
                    close = source.find("}", i + 2)
                    if close < 0:
                        raise PatternError(f"{where}: unterminated \\p{{...}}")
                    out.append(source[i : close + 1])
                    i = close + 1
                elif source[i + 1] in "pP" or source[i + 1 : i + 3] == "x{":
                    step = escape_length(source, i)
                    out.append(source[i : i + step])
                    i += step
                elif (
                    source.startswith("\\s+{T}", i)
                    and allow_slots
                    and not dispatch
                    and self._slots is not None
                    and self._slots.glued
                ):
                    out.append(self._slot("T", dispatch, spaced=True))
                    i += len("\\s+{T}")
                elif source[i + 1] == "b" or source[i + 1] == "B":
                    raise PatternError(
                        f"{where}: \\b is ASCII-only in RE2; word boundaries are added for you"
                    )
                else:
                    out.append(source[i : i + 2])
                    i += 2
            elif ch == "[":
                j = class_end(source, i)
                if j >= n:
                    raise PatternError(f"{where}: unterminated character class")
                inner = fold_class(source[i + 1 : j])
                out.append("[" + inner + "]")
                i = j + 1
            elif ch == "(" and source.startswith("(?", i):
                if source.startswith("(?P", i) or source.startswith("(?<", i):
                    raise PatternError(f"{where}: named groups are reserved; use (?:...)")
                j = i + 2
                while j < n and source[j] not in ":)":
                    j += 1
                out.append(source[i : j + 1])
                i = j + 1
            elif ch == "{":
                close = source.find("}", i)
                if close < 0:
                    raise PatternError(f"{where}: unterminated {{")
                inner = source[i + 1 : close]
                if _QUANTIFIER.fullmatch(inner):
                    out.append(source[i : close + 1])
                elif inner in ("T", "TM"):
                    if not allow_slots:
                        raise PatternError(f"{where}: {{{inner}}} is only allowed in row patterns")
                    out.append(self._slot(inner, dispatch))
                elif inner == "G":
                    # Any group mention, without capturing it as the target: for a
                    # group noun inside a pattern's literal text ("our women").
                    out.append(r"(?s:.)" if dispatch else "[\\x01\\x02]")
                elif (filler := _FILLER.fullmatch(inner)) is not None:
                    if not allow_slots:
                        raise PatternError(f"{where}: {{{inner}}} is only allowed in row patterns")
                    words = None
                    name, bound = filler.groups()
                    if name is not None:
                        if name not in self._lexicon:
                            raise PatternError(f"{where}: unknown lexicon entry {{{name}}}")
                        words = "(?:x)" if stub else self.macro(name, where)
                    limit = self._filler_max
                    if bound is not None:
                        limit = int(bound)
                        if not 1 <= limit <= self._filler_max:
                            raise PatternError(
                                f"{where}: {{{inner}}}: a filler bound must be "
                                f"1..{self._filler_max}"
                            )
                    # After a space, an unrestricted filler's first word must start
                    # after whitespace: the space alone is optional (for run-together
                    # words), and "they r escued rats" must not read "rescued" as the
                    # copula "r" and a filler word "escued".
                    spaced = words is None and bool(out) and out[-1] == r"\s*"
                    if spaced:
                        out.pop()
                    out.append(self._filler(dispatch, fillers, words, limit, spaced=spaced))
                elif inner.startswith(("W:", "FRAME:")):
                    if stub:
                        self._check_token(inner, where)
                        out.append("(?:x)")
                    else:
                        out.append(self._token(inner, where))
                elif MACRO_NAME.match(inner):
                    if stub:
                        if inner not in self._lexicon:
                            raise PatternError(f"{where}: unknown lexicon entry {{{inner}}}")
                        out.append("(?:x)")
                    else:
                        out.append(self.macro(inner, where))
                else:
                    raise PatternError(f"{where}: unknown placeholder {{{inner}}}")
                i = close + 1
            elif ch == " ":
                while i < n and source[i] == " ":
                    i += 1
                out.append(r"\s*")
            elif ch in ".^$*+?|()":
                out.append(ch)
                i += 1
            else:
                folded = fold_char(ch)
                if stub:  # validation: syntax only, letters need no look-alike classes
                    widened = "".join("\\" + c if c in _REGEX_SPECIAL else c for c in folded)
                else:
                    widened = "".join(self._widen(c) for c in folded)
                out.append(widened if len(folded) <= 1 else f"(?:{widened})")
                i += 1
        result = "".join(out)
        return result

    def _slot(self, kind: str, dispatch: bool, *, spaced: bool = False) -> str:
        """The target slot's RE2 source.

        With GLUE_DET in the pack, the last determiner may run into the group word
        ("cet" + mark, where the mention finder split "cethomo"), and ``spaced``
        (the pattern wrote ``\\s+{T}``) also accepts a GLUE_DET run into the word
        before the slot ("poignarderces X"), but only before a group mark, never
        before a pronoun, which could be the end of an unrelated word.
        """
        if dispatch:
            return r"(?s:.*?)"
        if self._slots is None:
            raise PatternError(f"{self._context}: slots used before anchors were compiled")
        s = self._slots
        if kind == "TM":
            return f"(?P<t>[{_MARKS_RE[GROUP_MARK]}{_MARKS_RE[MODIFIER_MARK]}])"
        det = f"(?:{s.determiners}\\s+)*" if s.determiners else ""
        tail = f"(?:\\s*{s.tail})?" if s.tail else ""
        mark = _MARKS_RE[GROUP_MARK]
        if s.mark_tail:
            mark = f"{mark}(?:\\s*{s.mark_tail})?"
        if not s.glued:
            return f"(?P<t>{det}(?:{mark}|{s.references}){tail})"
        body = f"{det}(?:(?:{s.glued})?{mark}|{s.references}){tail}"
        if not spaced:
            return f"(?P<t>{body})"
        glued = f"(?:{s.glued})\\s*{det}(?:{s.glued})?{mark}{tail}"
        return f"(?P<t>\\s+{body}|{glued})"

    def _token(self, inner: str, where: str) -> str:
        """A lexicon macro, a word class or a frame, expanded."""
        if inner.startswith("W:"):
            return self.word_class(inner[2:], where, typo=self._typo_words)
        if inner.startswith("FRAME:"):
            return self.frame(inner[6:], where)
        return self.macro(inner, where)

    def _filler(
        self,
        dispatch: bool,
        fillers: list[str] | None,
        words: str | None,
        limit: int,
        *,
        spaced: bool = False,
    ) -> str:
        """A run of 0..limit words; ``words`` restricts them to a lexicon entry's terms.

        ``spaced``: the filler stands for the space before it too, which may be
        empty only when no word fills it.
        """
        # Restricted fillers may run into the next word ("absolutefilth"): their
        # words come from a list, so that cannot split an unrelated word.
        word = rf"{words}\s*" if words else r"[^\s.!?;:,\"\x{060C}\x{061B}\x{061F}]+\s+"
        if not spaced:
            return (
                f"(?:{word}){{0,{limit}}}"
                if dispatch
                else f"(?P<{self._name(fillers, words)}>(?:{word}){{0,{limit}}})"
            )
        # A word, after whitespace; or a clitic the pack lists as running into the
        # word before it (English "n't": "are" + "n't" in "aren't"), so that a
        # negation written that way is still read inside the filler. Each way is
        # a group of its own (RE2 names a group once), holding the words only.
        words_after_space = f"(?:{word}){{1,{limit}}}"
        clitic = None
        if _FILLER_CLITIC in self._lexicon:
            clitic = f"(?:{self.macro(_FILLER_CLITIC, 'filler')})\\s+(?:{word}){{0,{limit - 1}}}"
        if dispatch:
            return f"(?:\\s+{words_after_space}{'|' + clitic if clitic else ''}|\\s*)"
        spaced_words = f"\\s+(?P<{self._name(fillers, words)}>{words_after_space})"
        if clitic is not None:
            spaced_words += f"|(?P<{self._name(fillers, words)}>{clitic})"
        return f"(?:{spaced_words}|\\s*)"

    @staticmethod
    def _name(fillers: list[str] | None, words: str | None) -> str:
        """The next filler group's name, recorded in ``fillers``: ``f<n>`` for a filler
        of a lexicon entry's words, ``w<n>`` for one of any words (whose words the
        pack's FILLER_STOP may rule out, engine.pipeline.match)."""
        name = f"{'f' if words else 'w'}{len(fillers) if fillers is not None else 0}"
        if fillers is not None:
            fillers.append(name)
        return name
