"""Sentence, clause and word bounds: the windows suppression and targets look in.

Fixed, simple expressions run once over a text (``Bounds``); each window is then
found by bisection, so a text with many matches pays for its bounds once, not
once per match (issue 13: a per-match scan from the start of the sentence or of
the text made long single-sentence texts quadratic).
"""

from __future__ import annotations

import bisect
import re

from engine.text import work

# Sentence ends: terminal punctuation (with closing quotes/brackets) then space,
# or a line break. Written to begin with one character class, which the stdlib
# engine then looks for before trying a match ("[.!?]+...|\n+" tries both
# branches at every character: three times slower on a tweet).
# tests/engine/test_classifier.py checks it against that plain form.
# Linear: a run of terminal punctuation is tried from its first character only
# (the look-behind; a later start cannot succeed where the first failed) and the
# possessive runs give nothing back, so "....x" is not retried at every dot.
SENTENCE_END = re.compile(
    r"[.!?\u061f\u3002\n](?:(?<=\n)\n*|(?<![.!?\u061f\u3002].)[.!?\u061f\u3002]*+[\"')\]]*+(?:\s+|$))"
)
CLAUSE_PUNCT = re.compile(r"[;:\u061b]")
# How far back ``Bounds.last_words_start`` looks per word before finding every word.
_CHARS_PER_WORD = 24
# A window of n words reaches at most (n + 1) times this many characters back. A
# "word" here is any run without whitespace, of brackets or of run-together letters
# too, so without a bound every match inside a long run would search the whole run
# again (quadratic in the run). 24 characters a word is the longest average any real
# clause reaches (a six-word window may still hold words of 40 or more letters: the
# bound is on the window, not on each word); a run of brackets or dots before a match
# is thus read for at most a window's worth (a negation before 400 closing brackets
# is not in the clause of what follows them).
_WINDOW_CHARS_PER_WORD = 24
WORD = re.compile(r"\S+")


def _clause_marks(text: str) -> list[int]:
    """Where ``CLAUSE_PUNCT`` matches, ascending: found with ``str.find`` (memchr),
    since most texts hold none of the three marks and a stdlib scan costs a few
    microseconds on a tweet even then."""
    marks: list[int] = []
    for mark in ";:\u061b":
        found = text.find(mark)
        while found >= 0:
            marks.append(found)
            found = text.find(mark, found + 1)
    marks.sort()
    return marks


def sentence_starts(text: str) -> list[int]:
    """Where each sentence of the text begins (0 first)."""
    if work.COUNTER is not None:
        work.COUNTER.scanned(len(text))
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


class Bounds:
    """The word runs, clause marks and quotation marks of one text, found once.

    ``last_words_start`` and ``next_words_end`` answer exactly what the functions
    of the same name answer, by bisection over the runs found in one pass.
    """

    __slots__ = ("_clauses", "_ends", "_quotes", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._ends: list[int] = []
        self._clauses: list[int] | None = None
        self._quotes: list[int] | None = None

    def _words(self) -> list[int]:
        if self._starts is None:
            if work.COUNTER is not None:
                work.COUNTER.scanned(len(self.text))
            starts: list[int] = []
            ends: list[int] = []
            for match in WORD.finditer(self.text):
                starts.append(match.start())
                ends.append(match.end())
            self._starts, self._ends = starts, ends
        return self._starts

    def last_words_start(self, lower: int, upper: int, count: int) -> int:
        """Where the last ``count`` words of text[lower:upper] begin (``lower`` if fewer);
        a word cut by ``lower`` counts from ``lower``. Never more than
        ``(count + 1) * _WINDOW_CHARS_PER_WORD`` characters before ``upper``: a window
        cut there starts after the letters and digits it would cut."""
        found = self._last_words_start(lower, upper, count)
        floor = upper - _WINDOW_CHARS_PER_WORD * (count + 1)
        if found >= floor:
            return found
        text = self.text
        while floor < upper and text[floor].isalnum():
            floor += 1
        return floor

    def _last_words_start(self, lower: int, upper: int, count: int) -> int:
        if count <= 0:
            return upper
        if self._starts is None:
            # Most windows are a few words in a short text: look only that far back,
            # and find every word of the text (once) only when the words there are
            # too long to settle it.
            reach = max(lower, upper - _CHARS_PER_WORD * (count + 1))
            if work.COUNTER is not None:
                work.COUNTER.scanned(upper - reach)
            near = [m.start() for m in WORD.finditer(self.text, reach, upper)]
            if reach == lower:
                return lower if len(near) <= count else near[-count]
            if len(near) > count:  # the first may be cut by ``reach``, not the count-th last
                return near[-count]
        starts = self._words()
        first = bisect.bisect_left(starts, lower)
        last = bisect.bisect_left(starts, upper)
        inside = last - first  # words that begin in [lower, upper)
        cut = (
            lower < upper
            and (first == len(starts) or starts[first] != lower)
            and first > 0
            and self._ends[first - 1] > lower
        )
        if inside + cut <= count:
            return lower
        return starts[last - count]

    def next_words_end(self, end: int, count: int) -> int:
        """Where the ``count`` words after ``end`` end (``end`` if there are none);
        a word cut by ``end`` counts from ``end``."""
        if count <= 0:
            return end
        starts = self._words()
        index = bisect.bisect_right(starts, end) - 1
        if index < 0 or self._ends[index] <= end:
            index += 1  # ``end`` is not inside a word: the next word is the first
        if index >= len(starts):
            return end
        return self._ends[min(index + count - 1, len(starts) - 1)]

    def clause_start(self, sentence_start: int, start: int) -> int:
        """Where the clause holding ``start`` begins: after the last clause mark in
        [sentence_start, start), else the sentence start."""
        if self._clauses is None:
            if work.COUNTER is not None:
                work.COUNTER.scanned(len(self.text))
            self._clauses = _clause_marks(self.text)
        marks = self._clauses
        index = bisect.bisect_left(marks, start) - 1
        if index >= 0 and marks[index] >= sentence_start:
            return marks[index] + 1
        return sentence_start

    def _quote_marks(self) -> list[int]:
        if self._quotes is None:
            if work.COUNTER is not None:
                work.COUNTER.scanned(len(self.text))
            text = self.text
            quotes: list[int] = []
            found = text.find('"')
            while found >= 0:
                quotes.append(found)
                found = text.find('"', found + 1)
            self._quotes = quotes
        return self._quotes

    def opening_quote(self, scope_start: int, start: int) -> int:
        """The last '"' in [scope_start, start) when that range holds an odd number of
        them (the position is inside a quotation), else -1."""
        quotes = self._quote_marks()
        high = bisect.bisect_left(quotes, start)
        low = bisect.bisect_left(quotes, scope_start)
        if (high - low) % 2 == 0:
            return -1
        return quotes[high - 1]
