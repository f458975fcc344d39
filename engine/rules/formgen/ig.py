"""Igbo forms, hand-written: no maintained library inflects Igbo.

Igbo verbs are roots that take a few affixes, chosen by vowel harmony: the
vowels fall into two sets, (i e u o) and (ị a ụ ọ), and an affix takes its vowel
from the set of the root. The generator writes, for a root such as "gbu" (kill):

- ``inf``: the infinitive prefix i-/ị- (igbu);
- ``imp``: imperative and subjunctive, the root plus a vowel that repeats the
  root's last vowel in its open form (gbuo, bibie, gbuchaa), as after "ka anyị";
- ``part``: the participle after "ga-" (future) and "na-" (progressive), prefix
  e-/a- by the set of the root's first vowel (egbu, achụpụ);
- ``perf``: the perfect, the open-vowel form plus -la (gbuola).

Dotted letters fold at normalization (ị ọ ụ -> i o u), so the forms match text
written with or without them; tone marks are never written. Nouns take the
plural word "ndị" before them. The harmony rule is the textbook one; forms
where speakers vary (a root whose first and last vowels are of different sets,
such as "wakpo") are listed in ``UNSURE`` and noted in the pack.
"""

from __future__ import annotations

Paradigm = dict[str, list[str]]

_VOWELS = "ieuoịaụọ"
_HEAVY = frozenset("ịaụọ")  # the second harmony set
# The vowel the open-vowel suffix takes after a root's last vowel.
_OPEN = {"u": "o", "ụ": "ọ", "i": "e", "ị": "a", "o": "o", "ọ": "ọ", "e": "e", "a": "a"}

# Roots whose vowels mix the two sets: the prefix vowel is uncertain.
UNSURE: frozenset[str] = frozenset({"wakpo", "gbagbu"})


def _vowels(root: str) -> list[str]:
    return [ch for ch in root if ch in _VOWELS]


def verb(lemma: str) -> Paradigm:
    vowels = _vowels(lemma)
    if not vowels:
        raise ValueError(f"Igbo root without a vowel: {lemma!r}")
    heavy = vowels[0] in _HEAVY
    opened = lemma + _OPEN[vowels[-1]]
    return {
        "base": [lemma],
        "inf": [("ị" if heavy else "i") + lemma],
        "imp": [opened],
        "part": [("a" if heavy else "e") + lemma],
        "perf": [opened + "la"],
    }


def noun(lemma: str) -> Paradigm:
    """The noun and its plural with "ndị"; "onye X" (one who X) has the plural "ndị X"."""
    base = lemma.removeprefix("onye ")
    return {"s": [lemma], "p": [f"ndị {base}"]}


def adjective(lemma: str) -> Paradigm:
    raise ValueError(f"Igbo word classes here are verbs and nouns: {lemma!r}")
