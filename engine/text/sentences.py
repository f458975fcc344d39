"""Sentence, clause and word bounds: the windows suppression and targets look in.

Fixed, simple and linear expressions, so the stdlib engine is safe here.
"""

from __future__ import annotations

import re

# Sentence ends: terminal punctuation (with closing quotes/brackets) then space,
# or a line break. Written to begin with one character class, which the stdlib
# engine then looks for before trying a match ("[.!?]+...|\n+" tries both
# branches at every character: three times slower on a tweet).
# tests/engine/test_classifier.py checks it against that plain form.
SENTENCE_END = re.compile(r"[.!?\u061f\u3002\n](?:(?<=\n)\n*|[.!?\u061f\u3002]*[\"')\]]*(?:\s+|$))")
CLAUSE_PUNCT = re.compile(r"[;:\u061b]")
WORD = re.compile(r"\S+")


def sentence_starts(text: str) -> list[int]:
    """Where each sentence of the text begins (0 first)."""
    starts = [0]
    for match in SENTENCE_END.finditer(text):
        if match.end() < len(text):
            starts.append(match.end())
    return starts


def last_words_start(text: str, lower: int, upper: int, count: int) -> int:
    """Where the last ``count`` words of text[lower:upper] begin (``lower`` if fewer)."""
    if count <= 0:
        return upper
    starts = [m.start() for m in WORD.finditer(text, lower, upper)]
    if len(starts) <= count:
        return lower
    return starts[-count]


def next_words_end(text: str, end: int, count: int) -> int:
    """Where the ``count`` words after ``end`` end (``end`` if there are none)."""
    out = end
    for index, word in enumerate(WORD.finditer(text, end)):
        if index >= count:
            break
        out = word.end()
    return out
