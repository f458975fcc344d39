"""Counter-speech: a match reported (a reporting cue, or quotation marks) and
condemned in the sentences around it."""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.pipeline.suppress.base import overlaps_any
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
        exceptions = [*doc.cues(self.exceptions, scope_start, scope_end), (start, end)]
        condemnation = next(
            (
                (c_start, c_end)
                for c_start, c_end in self.condemnation.find_all(
                    doc.subject, scope_start, scope_end
                )
                if not overlaps_any(c_start, c_end, exceptions)
            ),
            None,
        )
        if condemnation is None:
            return None
        reporting = quoted(doc.text, start, scope_start)
        if reporting is None:
            reporting = next(iter(doc.cues(self.reporting, scope_start, scope_end)), None)
        if reporting is None:
            return None
        cue_start = min(reporting[0], condemnation[0])
        cue_end = max(reporting[1], condemnation[1])
        _, reported = doc.original(*reporting)
        _, condemned = doc.original(*condemnation)
        span = doc.norm.to_original(cue_start, cue_end)
        return Suppression("counter_speech", f"{reported} … {condemned}", span)


def quoted(text: str, start: int, scope_start: int) -> tuple[int, int] | None:
    """The opening quotation mark if the match sits inside a quotation."""
    if text.count('"', scope_start, start) % 2 == 0:
        return None
    opening = text.rfind('"', scope_start, start)
    return opening, opening + 1
