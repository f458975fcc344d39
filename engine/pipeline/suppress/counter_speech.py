"""Counter-speech: a match reported (a reporting cue, or quotation marks) and
condemned in the sentences around it."""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.result import Suppression, SuppressionReason
from engine.rules.models import LanguagePack, Windows


class CounterSpeech:
    reason: ClassVar[SuppressionReason] = "counter_speech"

    def __init__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> None:
        self.condemnation = cues.list("condemnation")
        self.exceptions = cues.list("negation_exceptions")
        self.reporting = cues.list("reporting")
        self.finders: tuple[CueFinder, ...] = (self.condemnation, self.exceptions, self.reporting)
        self.reach = windows.counter_speech_sentences

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        if not doc.may_find(self.condemnation):
            return None
        start, end = hit.start, hit.end
        sentence = doc.sentence_of(start)
        scope_start, scope_end = doc.sentence_range(
            sentence - self.reach, doc.sentence_of(end) + self.reach
        )
        # Rhetorical constructions ("is it really so wrong to say ...") neither
        # negate nor condemn: the negation exceptions mask condemnation cues too.
        # A cue inside the match is the harmful predicate itself ("X are
        # disgusting"), not a judgement of what was said: it does not count.
        condemnation = doc.unmasked_cues(
            self.condemnation, self.exceptions, scope_start, scope_end
        ).first_outside(start, end)
        if condemnation is None:
            return None
        opening = doc.bounds().opening_quote(scope_start, start)
        reporting = (opening, opening + 1) if opening >= 0 else None
        if reporting is None:
            said = doc.shared_cues(self.reporting, scope_start, scope_end).spans
            reporting = said[0] if said else None
        if reporting is None:
            return None
        cue_start = min(reporting[0], condemnation[0])
        cue_end = max(reporting[1], condemnation[1])
        _, reported = doc.original(*reporting)
        _, condemned = doc.original(*condemnation)
        span = doc.norm.to_original(cue_start, cue_end)
        return Suppression("counter_speech", f"{reported} … {condemned}", span)
