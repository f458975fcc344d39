"""Negation: a cue in the clause before a match, or inside its slot or fillers.

A cue followed, before the predicate, by a corrective conjunction ("not neighbours
but rats", "no vecinos sino ratas", "не гости, а паразиты") or a consequence
connector ("X are not like us, and that's why they deserve ...") negates what lies
between them only: the predicate after the conjunction is asserted.
"""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.pipeline.suppress.clause import opens_inside, window_start
from engine.result import Suppression, SuppressionReason
from engine.rules.models import LanguagePack, Windows

# How far a negation cue that starts before a match may run into it.
CUE_OVERHANG = 40


class Negation:
    reason: ClassVar[SuppressionReason] = "negation"

    def __init__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> None:
        self.negation = cues.list("negation")
        self.exceptions = cues.list("negation_exceptions")
        self.clause_breaks = cues.list("clause_breaks")
        self.lifts = (cues.list("corrections"), cues.list("consequences"))
        self.finders: tuple[CueFinder, ...] = (
            self.negation,
            self.exceptions,
            self.clause_breaks,
            *self.lifts,
        )
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
        sentence = doc.sentence_of(start)
        sentence_start, sentence_end = doc.sentence_range(sentence, sentence)
        window = window_start(doc, start, self.clause_breaks, self.words_before)
        if opens_inside(doc, hit, self.clause_breaks):
            # "je n'ai rien contre les X, ils sont ...": the predicate's clause opens
            # inside the match, after the group it takes up again.
            window = start
        # Before the match: cues that *begin* there, even if they run into the
        # match ("stop | calling them rats", "it is a lie | that they ...").
        before = (window, min(sentence_end, start + CUE_OVERHANG), start)
        regions = [before, *[(s, e, e) for s, e in hit.inner if e > s]]
        exceptions = doc.shared_cues(self.exceptions, sentence_start, sentence_end)
        negation, subject = self.negation, doc.subject
        # Where the predicate starts: after the last filler or slot (the match's start
        # when it has none). A correction or consequence between a cue and there lifts
        # the cue. Only worked out for a region that holds a cue (most hold none).
        predicate = max((end for _, end in hit.inner), default=start)
        lifts: list[CueFinder] | None = None
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
                if cue_end < predicate:
                    if lifts is None:
                        lifts = [lift for lift in self.lifts if doc.may_find(lift)]
                    if any(lift.first(subject, cue_end, predicate) is not None for lift in lifts):
                        continue
                span, cue = doc.original(cue_start, cue_end)
                return Suppression("negation", cue, span)
        return None
