"""Term expanders: the spellings a term stands for besides its own.

Today one expander, typo spellings (one edit in one word); morphology and
transliteration (Arabizi) are meant to join it here as expanders of the same
shape: a folded term in, literal spellings out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.rules.models import Obfuscation
from engine.text.normalize import fold_literal

# A "simple" term: plain words with at most an optional one-letter suffix or an
# optional (?:a|b) suffix group, which is what typo spellings can be made from.
_SIMPLE_TERM = re.compile(r"^([^\W\d_](?:[\w' -]*\w)?)(?:\(\?:([\w'|]+)\)(\?)?|(\w)\?)?$")


def typo_variants(
    word: str, obfuscation: Obfuscation, shortest: int | None = None, *, doublings: bool = False
) -> set[str]:
    """One-edit spellings of ``word`` that people type by accident or on purpose.

    Only adjacent swaps, dropped vowels, a doubled consonant typed once and a letter
    typed twice (any letter with ``doublings``, else a vowel or the last letter),
    never touching the first letter: the edits seen in obfuscated hate ("klil",
    "Muslms", "deaht", "imigrants", "Jeews", "ratss") without drifting into
    unrelated short words.
    A letter already doubled is not typed a third time here: a run of three is
    folded before matching. Group names ask for doublings (``TypoVariants.variants``).
    """
    out: set[str] = set()
    minimum = obfuscation.typo_min_length if shortest is None else shortest
    if len(word) < minimum or not word.isalpha():
        return out
    if obfuscation.typo_transpositions:
        for i in range(1, len(word) - 1):
            if word[i] != word[i + 1]:
                out.add(word[:i] + word[i + 1] + word[i] + word[i + 2 :])
    if obfuscation.typo_deletions:
        for i in range(1, len(word)):
            if word[i] in obfuscation.typo_deletable:
                out.add(word[:i] + word[i + 1 :])
    if obfuscation.typo_degemination:
        for i in range(2, len(word)):
            if word[i] == word[i - 1] and word[i] not in obfuscation.typo_deletable:
                out.add(word[:i] + word[i + 1 :])
    if obfuscation.typo_doublings:
        for i in range(1, len(word)):
            single = word[i] != word[i - 1] and (i + 1 == len(word) or word[i] != word[i + 1])
            # Every letter of a group name; of any other word, a vowel held (an emphatic
            # long vowel, "جراثييم", "raats") or the last letter ("ratss").
            held = doublings or word[i] in obfuscation.typo_deletable or i + 1 == len(word)
            if single and held:
                out.add(word[: i + 1] + word[i:])
    out.discard(word)
    return out


def swaps_only(obfuscation: Obfuscation) -> Obfuscation:
    """The typo settings for generated forms: two neighbouring letters swapped, nothing else.

    A dropped letter turned Arabic plurals into ordinary words ('بعوض' mosquitoes ->
    'بعض' some, 'قاذورات' -> 'قادرات' capable), and generated forms are too many to
    vet one by one; the swaps that are words of their own go to the pack's
    ``typo_exclude`` (a test checks them against simplemma's tables).
    """
    return obfuscation.model_copy(
        update={"typo_deletions": False, "typo_degemination": False, "typo_doublings": False}
    )


def concrete_forms(term: str) -> list[str] | None:
    """Spell out a simple term's forms ("rats?" -> rat, rats); None if not simple."""
    match = _SIMPLE_TERM.match(term)
    if match is None:
        return None
    stem, group, group_optional, letter = match.groups()
    if group is not None:
        forms = [stem + part for part in group.split("|")]
        return [stem, *forms] if group_optional else forms
    if letter is not None:
        return [stem, stem + letter]
    return [stem]


_WORD_SEPARATOR = re.compile(r"([ -])")


class TypoVariants:
    """Typo spellings of the simple terms of one language pack."""

    def __init__(self, obfuscation: Obfuscation, exclude: Iterable[str] = ()) -> None:
        self._obfuscation = obfuscation
        self._typo_exclude = frozenset(fold_literal(word) for word in exclude)

    def variants(self, term: str, *, multiword: bool, doublings: bool = False) -> list[str]:
        """Typo spellings of a simple term (plain words, optional simple suffix).

        ``doublings``: any letter typed twice. Only group names take it: they are
        few, and the group slot is where an evasion has to land; over every predicate
        the doubled spellings made compiling all languages a third slower. Other
        words get a held vowel or a doubled last letter only ("جراثييم", "ratss":
        about 2.5% more compile time, issue 12 class 5).
        """
        forms = concrete_forms(fold_literal(term))
        out: set[str] = set()
        for form in forms or ():
            out |= self._phrase_variants(form, multiword=multiword, doublings=doublings)
        return sorted(out)

    def _phrase_variants(self, phrase: str, *, multiword: bool, doublings: bool) -> set[str]:
        """Typo spellings of a phrase, one edit in one word.

        In a phrase of several words the context keeps a short word safe, so
        three-letter words get variants there ("gy people") but not alone. A hyphen
        joins words as a space does ("sous-homes").
        """
        parts = _WORD_SEPARATOR.split(phrase)  # words at even indexes, separators between
        words = parts[::2]
        shortest = 3 if multiword or len(words) > 1 else self._obfuscation.typo_min_length
        out: set[str] = set()
        for index in range(0, len(parts), 2):
            for variant in typo_variants(
                parts[index], self._obfuscation, shortest, doublings=doublings
            ):
                if variant in self._typo_exclude:
                    continue
                out.add("".join([*parts[:index], variant, *parts[index + 1 :]]))
        return out
