"""Russian paradigms from pymorphy3 and the OpenCorpora dictionary (``dev`` extra).

Russian inflects for case, number and gender, and its verbs come in aspect
pairs (убивать / убить) whose non-past is a present in one and a future in the
other. Writing those paradigms by hand would repeat a dictionary badly, so the
generator asks pymorphy3 for the whole lexeme of each of the pack's lemmas and
sorts its forms into the slots of ``engine.rules.morphology.LANGUAGE_SLOTS["ru"]``.
Only the forms of the pack's own lemmas are written out (see taxonomy/SOURCES.md);
an aspect partner is its own lemma, listed beside the other in the class.

A lemma that pymorphy3 reads with several lexemes of the same part of speech
(перерезать: imperfective "перерезаю" and perfective "перережу") gets the forms
of all of them. A lemma the dictionary does not know is an error, never a guess.
"""

from __future__ import annotations

from functools import cache
from typing import Any

Paradigm = dict[str, list[str]]

_CASE = {
    "nomn": "nom",
    "gent": "gen",
    "gen1": "gen",
    "gen2": "gen",
    "datv": "dat",
    "accs": "acc",
    "acc2": "acc",
    "ablt": "ins",
    "loct": "loc",
    "loc1": "loc",
    "loc2": "loc",
}
_PERSON = {"1per": "1", "2per": "2", "3per": "3"}
# The part of speech pymorphy3 gives the dictionary form of each of ours.
_LEMMA_POS = {"verb": "INFN", "adj": "ADJF", "noun": "NOUN"}


@cache
def _analyzer() -> Any:
    import pymorphy3  # type: ignore[import-untyped]  # dev dependency (make taxonomy-forms)

    return pymorphy3.MorphAnalyzer(lang="ru")


def _lexemes(lemma: str, pos: str) -> list[Any]:
    """Every lexeme whose dictionary form is ``lemma`` with our part of speech."""
    wanted = _LEMMA_POS[pos]
    seen: set[tuple[str, ...]] = set()
    out: list[Any] = []
    for parse in _analyzer().parse(lemma):
        if wanted != parse.tag.POS or parse.normal_form != lemma:
            continue
        lexeme = parse.lexeme
        key = tuple(form.word for form in lexeme)
        if key not in seen:
            seen.add(key)
            out.append(lexeme)
    if not out:
        raise ValueError(f"pymorphy3 does not know the Russian {pos} {lemma!r}")
    return out


def _add(out: Paradigm, slot: str | None, word: str) -> None:
    if slot is None or len(word) < 2:  # "е", an archaic 3rd person of быть
        return
    forms = out.setdefault(slot, [])
    if word not in forms:
        forms.append(word)


def _verb_slot(tag: Any) -> str | None:
    pos = tag.POS
    if pos == "INFN":
        return "inf"
    if pos == "PRTS":
        # The short past passive is the predicate of "должны быть убиты"; the present
        # short forms (перерезаем) are 1st plural verbs. Long participles (убитый,
        # убивший) and adverbial ones (убив) take part in none of the pack's
        # constructions and would only swell the forms file that loading parses.
        return "pps" if "pssv" in tag and tag.tense == "past" else None
    if pos != "VERB":
        return None
    if "impr" in tag:
        return "imp"
    if tag.tense == "past":
        return "past"
    person = _PERSON.get(tag.person or "")
    if person is None:
        return None
    return ("pres" if tag.tense == "pres" else "fut") + person


def verb(lemma: str) -> Paradigm:
    """Every form of a Russian verb (one aspect: its partner is its own lemma)."""
    out: Paradigm = {}
    for lexeme in _lexemes(lemma, "verb"):
        for form in lexeme:
            _add(out, _verb_slot(form.tag), form.word)
    return out


def adjective(lemma: str) -> Paradigm:
    """Long forms by case (every gender and number), short forms, comparatives."""
    out: Paradigm = {}
    for lexeme in _lexemes(lemma, "adj"):
        for form in lexeme:
            tag = form.tag
            if tag.POS == "ADJF":
                _add(out, _CASE.get(tag.case or ""), form.word)
            elif tag.POS == "ADJS":
                _add(out, "short", form.word)
            elif tag.POS == "COMP" and not form.word.startswith("по"):
                _add(out, "comp", form.word)
    return out


def noun(lemma: str) -> Paradigm:
    """Six cases in the singular and the plural (a pluralia tantum has no singular)."""
    out: Paradigm = {}
    for lexeme in _lexemes(lemma, "noun"):
        for form in lexeme:
            case = _CASE.get(form.tag.case or "")
            if case is None:
                continue  # vocative and other rare cases
            number = "p" if form.tag.number == "plur" else "s"
            _add(out, f"{case}_{number}", form.word)
    return out
