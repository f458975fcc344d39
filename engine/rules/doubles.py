"""The words of a pack that double a letter, for normalizing runs of a letter.

A run of three or more of one letter ("killll", "ratsss") keeps two letters where
the language's own words double that letter between the same neighbours, one
elsewhere (engine.text.normalize.Doubled). The words come from everything the pack
spells out: group words, references, lexicon entries, frames, cues, benign
contexts, patterns and the generated forms of its word classes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from engine.rules.models import LanguagePack
from engine.rules.morphology import WordBook
from engine.rules.variants import concrete_forms
from engine.text.normalize import Doubled, fold_literal

# Two of one letter in a row.
_PAIR = re.compile(r"([^\W\d_])\1")


def _sources(pack: LanguagePack, words: WordBook | None) -> Iterator[tuple[str, bool]]:
    """Every spelt-out source of the pack, and whether its words end where its letter
    runs end: not so in lexicon entries, which hold stems that patterns glue
    endings to (Spanish "achicharr" + "arlos")."""
    for source in pack.references:
        yield source, True
    for anchor in pack.anchors:
        for source in (*anchor.terms, *anchor.modifiers):
            yield source, True
    for entry in pack.lexicon.values():
        for source in entry.terms:
            yield source, False
    for frame in pack.frames.values():
        for source in frame.terms:
            yield source, True
    cues = pack.cues
    for listed in (
        cues.negation,
        cues.negation_exceptions,
        cues.reporting,
        cues.condemnation,
        cues.clause_breaks,
        cues.rebuttal,
        cues.corrections,
        cues.consequences,
        *(benign.cues for benign in pack.benign),
        [spec.regex for specs in pack.patterns.values() for spec in specs],
    ):
        for source in listed:
            yield source, True
    if words is not None:
        for name in words.names():
            for form in words.forms(name, "doubled letters"):
                yield form, True


def doubled_words(sources: Iterable[tuple[str, bool]]) -> list[str]:
    """Each doubled letter of the folded sources with its neighbours ("ill", "ll" at
    a word's end), each once: what engine.text.normalize.Doubled reads.

    A simple term is spelt out first ("kill(?:ed|s)?" -> kill, killed, kills).
    Elsewhere regex syntax may cut a word ("agarr(?:ar|ando)"): a run's end is a
    word's end only at whitespace or the end of the source (and never in a
    lexicon entry, see _sources); a neighbour cut off by syntax is written "*",
    which no context holds.

    The sources (tens of thousands of generated forms in Arabic) are joined into
    one text per kind and folded and searched at once, in C.
    """
    texts: dict[bool, list[str]] = {True: [], False: []}
    for source, ends in sources:
        forms = concrete_forms(source) if not source.isalpha() else None
        texts[ends].extend(forms or [source])
    found: dict[str, None] = {}
    for ends, listed in texts.items():
        blob = "\n".join(listed)
        blob = blob.translate({ord(ch): fold_literal(ch) for ch in set(blob)})
        size = len(blob)
        for match in _PAIR.finditer(blob):
            start, end = match.span()
            before = blob[start - 1] if start > 0 else " "
            after = blob[end] if end < size else " "
            head = before if before.isalpha() else " " if before.isspace() else "*"
            tail = after if after.isalpha() else " " if ends and after.isspace() else "*"
            found[(head + match.group() + tail).strip(" ")] = None
    return list(found)


def pack_doubled(pack: LanguagePack, words: WordBook | None) -> Doubled:
    """Where the pack's words double a letter (see the module docstring)."""
    return Doubled(doubled_words(_sources(pack, words)))
