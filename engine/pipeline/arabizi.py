"""Arabizi in a language pipeline: the pack's transliterator, the letter classes
its spellings need in the patterns, and the pack's vocabulary that picks a
spelling (engine.text.arabizi explains the procedure)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from engine.rules.models import Arabizi, LanguagePack, Obfuscation
from engine.text import re2x
from engine.text.arabizi import ArabiziRules, Transliterator
from engine.text.normalize import fold_literal

# A run of Arabic letters in a pattern's source: a literal word of the pack.
_ARABIC_WORD = re.compile(r"[\u0621-\u064a]{2,}")


def transliterator(spec: Arabizi | None) -> Transliterator | None:
    """The pack's transliterator, or None for a pack without an ``arabizi`` section."""
    if spec is None:
        return None
    return Transliterator(
        ArabiziRules(
            chat_digits=spec.chat_digits,
            digit_weight=spec.digit_weight,
            min_evidence=spec.min_evidence,
            min_share=spec.min_share,
            max_candidates=spec.max_candidates,
            known_word_letters=spec.known_word_letters,
            function_words=frozenset(spec.function_words),
            not_words=frozenset(spec.not_words),
            words=dict(spec.words),
            glue=dict(spec.glue),
            prefixes=dict(spec.prefixes),
            letters=dict(spec.letters),
            vowels=dict(spec.vowels),
            initial_vowel=spec.initial_vowel,
            endings=dict(spec.endings),
            suffixes=tuple(spec.suffixes),
            stem_prefixes=tuple(spec.stem_prefixes),
            omitted_vowels=spec.omitted_vowels,
        )
    )


def widened(obfuscation: Obfuscation, spelt: Transliterator | None) -> Obfuscation:
    """The obfuscation settings with every letter of a class also matching the
    class's character, so a spelling that leaves a letter open still matches."""
    if spelt is None or not spelt.classes:
        return obfuscation
    classes = dict(obfuscation.letter_classes)
    for char, members in spelt.classes.items():
        for letter in members:
            classes[letter] = classes.get(letter, "") + char
    return obfuscation.model_copy(update={"letter_classes": classes})


class PackVocabulary:
    """Whether a spelling is a whole word the pack knows: a group term, a lexicon
    entry or a part of a pattern, matched in full.

    Compiled on the first Arabizi text, not at load: most deployments never see
    one, and loading must stay as fast as before.
    """

    def __init__(self, entries: Iterable[str]) -> None:
        self._entries = tuple(dict.fromkeys(entries))
        self._matches: tuple[re2x.SetMatch, ...] | None = None
        self._lock = threading.Lock()

    def __call__(self, word: str) -> bool:
        matches = self._matches
        if matches is None:
            with self._lock:
                if self._matches is None:
                    self._matches = _split_sets(self._entries)
                matches = self._matches
        data = word.encode("utf-8")
        return any(match(data) for match in matches)


# Characters of expression per vocabulary Set: a third of what one 256 MB Set held.
_VOCABULARY_CHUNK = 1_000_000


def _split_sets(entries: tuple[str, ...]) -> tuple[re2x.SetMatch, ...]:
    """Full-match Sets over the entries, a million characters each, halved again if one
    is still over RE2's budget.

    The vocabulary holds every widened pattern part of the pack (about three million
    characters for Arabic); one Set of them sat at the edge of the budget, and a
    pattern added anywhere in the pack pushed it over (RE2 also logs to stderr while
    it gives up). Only whether some entry matches is asked, so several Sets answer
    the same; a word is checked against three or four of them.
    """
    chunks: list[tuple[str, ...]] = []
    chunk: list[str] = []
    size = 0
    for entry in entries:
        if chunk and size + len(entry) > _VOCABULARY_CHUNK:
            chunks.append(tuple(chunk))
            chunk, size = [], 0
        chunk.append(entry)
        size += len(entry)
    chunks.append(tuple(chunk))
    return tuple(match for part in chunks for match in _fitting(part))


def _fitting(entries: tuple[str, ...]) -> tuple[re2x.SetMatch, ...]:
    try:
        return (re2x.full_match_set(entries),)
    except re2x.SetTooLargeError:
        if len(entries) < 2:
            raise
    half = len(entries) // 2
    return _fitting(entries[:half]) + _fitting(entries[half:])


def literal_words(pack: LanguagePack) -> list[str]:
    """Every run of Arabic letters written in the pack (patterns, lexicon, anchors,
    references, cues), folded: the words a pattern spells out inside a longer
    phrase ("ياخد" in a prayer for the group's death), which no entry matches
    whole."""
    sources: list[str] = list(pack.references)
    for anchor in pack.anchors:
        sources.extend(anchor.terms)
        sources.extend(anchor.modifiers)
    for entry in pack.lexicon.values():
        sources.extend(entry.terms)
    for _, cues in pack.cues:
        sources.extend(cues)
    for specs in pack.patterns.values():
        sources.extend(spec.regex for spec in specs)
    words: dict[str, None] = {}
    for source in sources:
        for word in _ARABIC_WORD.findall(fold_literal(source)):
            words[word] = None
    return list(words)
