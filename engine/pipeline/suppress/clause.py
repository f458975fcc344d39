"""The clause before a match: where a cue that scopes over the match may begin.

Negation and rebuttal frames ("it is a lie that …") both reach forward over the
words before a match, but only inside its clause. A clause ends at a clause mark
(. ! ? ; :), at a clause-break phrase of the pack ("but", "porque"), and at a comma
that opens a new clause with its own subject and verb: "X are not rats, they are
…" keeps its second clause, while "X are not rats, not vermin" has no new subject
and stays one negated clause. The pack writes those openers as clause breaks that
begin with the comma ("[,،] ?they (?:are|'re)"); they are read anchored at each
comma before the match and may run into it, since the match often begins with
the new subject itself.
"""

from __future__ import annotations

from engine.pipeline.cues import CueFinder
from engine.pipeline.doc import Doc, Hit

# How many words before the negation window a clause-break phrase may begin.
BREAK_REACH_WORDS = 12
# How far a clause break that opens at a comma may run past the match start.
OPENER_OVERHANG = 40
# The commas a new clause may open after (Latin and Arabic).
COMMAS = (",", "\u060c")


def window_start(doc: Doc, start: int, breaks: CueFinder, words_before: int) -> int:
    """Where the cues before a match at ``start`` may begin: the last
    ``words_before`` words of its clause."""
    bounds = doc.bounds()
    sentence = doc.sentence_of(start)
    sentence_start, _ = doc.sentence_range(sentence, sentence)
    clause_start = bounds.clause_start(sentence_start, start)
    if not doc.may_find(breaks):
        return bounds.last_words_start(clause_start, start, words_before)
    # A clause break moves the window only if it ends inside the last words
    # before the match; looking for breaks over the whole clause would cost a
    # pass over the clause per match (quadratic in a long unbroken clause).
    # ``BREAK_REACH_WORDS`` more than the window lets a break phrase begin
    # before the window and still be read whole.
    break_from = bounds.last_words_start(clause_start, start, words_before + BREAK_REACH_WORDS)
    for _, brk_end in doc.cues(breaks, break_from, start):
        clause_start = max(clause_start, brk_end)
    window = bounds.last_words_start(clause_start, start, words_before)
    return max(window, _opened_at_comma(doc, window, start, breaks))


def opens_inside(doc: Doc, hit: Hit, breaks: CueFinder) -> bool:
    """Whether a new clause opens at a comma inside the match, after its target slot
    ("les X, ils sont ..."): the predicate then belongs to that clause, and the clause
    before the match does not reach it."""
    if hit.t_span is None or not doc.may_find(breaks):
        return False
    lower = hit.t_span[1]
    return lower < hit.end and _opened_at_comma(doc, lower, hit.end, breaks) > lower


def _opened_at_comma(doc: Doc, lower: int, start: int, breaks: CueFinder) -> int:
    """After the last comma in [lower, start) where a clause break begins (a new
    subject and verb), the position where that clause begins; else ``lower``.

    Each comma costs one anchored search over a bounded stretch, and the window
    holds a few words, so this stays linear in the window.
    """
    text, subject = doc.text, doc.subject
    limit = min(len(text), start + OPENER_OVERHANG)
    pos = max(text.rfind(comma, lower, start) for comma in COMMAS)
    while pos >= lower:
        found = breaks.first(subject, pos, limit)
        if found is not None and not any(ch.isalnum() for ch in text[pos : found[0]]):
            return min(found[1], start)
        pos = max(text.rfind(comma, lower, pos) for comma in COMMAS)
    return lower
