"""Yoruba forms, hand-written: Yoruba does not inflect, but it is spelt many ways.

Tone marks and underdots are folded at normalization (ẹ -> e, ọ -> o, ṣ -> s),
so "ọ̀bọ" and "obo" already match alike. What normalization cannot undo is the
spelling of ṣ as "sh" that most online Yoruba uses ("ṣẹ́gun" -> "shegun"); the
generator writes both spellings of every ṣ. Nouns take the plural word "àwọn"
before them (àwọn ọ̀bọ, monkeys).
"""

from __future__ import annotations

from itertools import product

Paradigm = dict[str, list[str]]


def spellings(word: str) -> list[str]:
    """Every spelling of ``word`` with each ṣ written "ṣ" or "sh" (at most 8)."""
    parts = word.split("ṣ")
    if len(parts) > 4:
        raise ValueError(f"too many ṣ in {word!r} to spell out")
    out = []
    for joins in product(("ṣ", "sh"), repeat=len(parts) - 1):
        text = parts[0]
        for join, part in zip(joins, parts[1:], strict=True):
            text += join + part
        out.append(text)
    return out


def verb(lemma: str) -> Paradigm:
    return {"base": spellings(lemma)}


def adjective(lemma: str) -> Paradigm:
    return {"base": spellings(lemma)}


def noun(lemma: str) -> Paradigm:
    forms = spellings(lemma)
    return {"s": forms, "p": [f"àwọn {form}" for form in forms]}
