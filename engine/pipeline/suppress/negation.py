"""Negation: a cue in the clause before a match, or inside its slot or fillers."""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.result import Suppression, SuppressionReason
from engine.rules.models import LanguagePack, Windows

# How far a negation cue that starts before a match may run into it.
CUE_OVERHANG = 40
# How many words before the negation window a clause-break phrase may begin.
BREAK_REACH_WORDS = 12


class Negation:
    reason: ClassVar[SuppressionReason] = "negation"

    def __init__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> None:
        self.negation = cues.list("negation")
        self.exceptions = cues.list("negation_exceptions")
        self.clause_breaks = cues.list("clause_breaks")
        self.finders: tuple[CueFinder, ...] = (self.negation, self.exceptions, self.clause_breaks)
        self.words_before = windows.negation_words_before

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        if not doc.may_find(self.negation):
            return None
        # The answer depends on the hit's start and inner spans only.
        key = (hit.start, *hit.inner)
        try:
            return doc.negations[key]
        except KeyError:
            found = doc.negations[key] = self._check(doc, hit)
            return found

    def _check(self, doc: Doc, hit: Hit) -> Suppression | None:
        start = hit.start
        bounds = doc.bounds()
        sentence = doc.sentence_of(start)
        sentence_start, sentence_end = doc.sentence_range(sentence, sentence)
        clause_start = bounds.clause_start(sentence_start, start)
        # A clause break moves the window only if it ends inside the last words
        # before the match; looking for breaks over the whole clause would cost a
        # pass over the clause per match (quadratic in a long unbroken clause).
        # ``BREAK_REACH`` words more than the window lets a break phrase begin
        # before the window and still be read whole.
        break_from = bounds.last_words_start(
            clause_start, start, self.words_before + BREAK_REACH_WORDS
        )
        for _, brk_end in doc.cues(self.clause_breaks, break_from, start):
            clause_start = max(clause_start, brk_end)
        window_start = bounds.last_words_start(clause_start, start, self.words_before)
        # Before the match: cues that *begin* there, even if they run into the
        # match ("stop | calling them rats", "it is a lie | that they ...").
        before = (window_start, min(sentence_end, start + CUE_OVERHANG), start)
        regions = [before, *[(s, e, e) for s, e in hit.inner if e > s]]
        exceptions = doc.shared_cues(self.exceptions, sentence_start, sentence_end)
        negation, subject = self.negation, doc.subject
        for r_start, r_end, latest_start in regions:
            # Nearly every region holds no cue: one search says so without the
            # generators; only a region with a cue is walked cue by cue.
            first = negation.first(subject, r_start, r_end)
            if first is None or first[0] >= latest_start:
                continue
            for cue_start, cue_end in negation.find_all(subject, r_start, r_end):
                if cue_start >= latest_start:
                    break
                if exceptions.overlaps(cue_start, cue_end):
                    continue
                span, cue = doc.original(cue_start, cue_end)
                return Suppression("negation", cue, span)
        return None
