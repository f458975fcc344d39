"""English paradigms from LemmInflect (``dev`` extra).

English inflects little, but its irregular verbs are exactly the violent ones
(shoot / shot, hang / hung / hanged, slay / slew / slain, burn / burnt) and its
spelling rules double or drop letters (stab / stabbed, nuke / nuking); hand-written
alternations in the pack missed forms such as "slaying" or "torched". LemmInflect
(MIT) knows the irregular forms from its dictionary and spells regular ones by
rule; only the forms of the pack's own lemmas are written out (see
taxonomy/SOURCES.md). A lemma of several words ("wipe out") inflects its first
word and keeps the rest.
"""

from __future__ import annotations

from functools import cache
from typing import Any

Paradigm = dict[str, list[str]]

# Penn tags for each of our slots (engine.rules.morphology.LANGUAGE_SLOTS["en"]).
_VERB_TAGS: dict[str, tuple[str, ...]] = {
    "inf": ("VB",),
    "pres3": ("VBZ",),
    "past": ("VBD",),
    "pp": ("VBN",),
    "ger": ("VBG",),
}
_NOUN_TAGS: dict[str, tuple[str, ...]] = {"s": ("NN",), "p": ("NNS",)}
_UPOS = {"verb": "VERB", "noun": "NOUN"}


@cache
def _library() -> Any:
    import lemminflect  # type: ignore[import-untyped]  # dev dependency (make taxonomy-forms)

    return lemminflect


def _inflect(word: str, tag: str, pos: str) -> list[str]:
    """Every spelling LemmInflect gives for ``word`` under ``tag``: its dictionary
    forms, or its rules for a word it does not list ("euthanise")."""
    library = _library()
    found = library.getInflection(word, tag=tag, inflect_oov=True)
    if not found:
        found = library.getAllInflectionsOOV(word, upos=_UPOS[pos]).get(tag, ())
    if not found:
        raise ValueError(f"LemmInflect has no {tag} form of {word!r}")
    return list(found)


def _paradigm(lemma: str, pos: str, tags: dict[str, tuple[str, ...]]) -> Paradigm:
    head, _, rest = lemma.partition(" ")
    tail = f" {rest}" if rest else ""
    out: Paradigm = {}
    for slot, slot_tags in tags.items():
        forms: list[str] = []
        for tag in slot_tags:
            forms.extend(form.lower() + tail for form in _inflect(head, tag, pos))
        out[slot] = list(dict.fromkeys(forms))
    return out


def verb(lemma: str) -> Paradigm:
    """Base, third person singular, simple past, past participle and -ing form.

    The simple past and the participle are separate slots because they differ for
    the irregular verbs; a pattern that means "was done to them" asks for both
    ({W:KILL_V:past,pp}), since "hanged" is the participle of an execution even
    where the dictionary lists "hung".
    """
    return _paradigm(lemma, "verb", _VERB_TAGS)


def noun(lemma: str) -> Paradigm:
    """Singular and plural (irregular plurals from the dictionary: louse / lice)."""
    return _paradigm(lemma, "noun", _NOUN_TAGS)
