"""Counter-speech: a match reported (a reporting cue, or quotation marks) and
condemned in the sentences around it, rebutted right after it, or framed as a lie
before it ("it is a lie that ...", "who told you that ...")."""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.pipeline.suppress.clause import window_start
from engine.result import Suppression, SuppressionReason
from engine.rules.models import LanguagePack, Windows

# How much punctuation and space may stand between a match and its rebuttal, and how
# far a rebuttal cue may run: the search after a match is bounded, so it stays linear.
REBUTTAL_GAP = 8
REBUTTAL_CUE_CHARS = 120
# How far a rebuttal frame that starts before a match may run into it.
FRAME_OVERHANG = 40


class CounterSpeech:
    reason: ClassVar[SuppressionReason] = "counter_speech"

    def __init__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> None:
        self.condemnation = cues.list("condemnation")
        self.exceptions = cues.list("negation_exceptions")
        self.reporting = cues.list("reporting")
        self.rebuttal = cues.list("rebuttal")
        self.frames = cues.list("rebuttal_frames")
        self.clause_breaks = cues.list("clause_breaks")
        self.finders: tuple[CueFinder, ...] = (
            self.condemnation,
            self.exceptions,
            self.reporting,
            self.rebuttal,
            self.frames,
            self.clause_breaks,
        )
        self.reach = windows.counter_speech_sentences
        self.words_before = windows.negation_words_before

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        rebutted = self._rebutted(doc, hit) if doc.may_find(self.rebuttal) else None
        if rebutted is not None:
            return rebutted
        framed = self._framed(doc, hit) if doc.may_find(self.frames) else None
        if framed is not None:
            return framed
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

    def _rebutted(self, doc: Doc, hit: Hit) -> Suppression | None:
        """A rebuttal cue that follows the match with nothing but punctuation and spaces
        between ("X control the banks? That's a myth.", "que X ... es mentira").

        Only right after the match: "X are vermin and the moon landing? a hoax" rebuts
        the moon landing, not the match, and a word between the two says so.
        """
        end = hit.end
        limit = min(len(doc.text), end + REBUTTAL_GAP + REBUTTAL_CUE_CHARS)
        for cue_start, cue_end in doc.cues(self.rebuttal, end, limit):
            gap = doc.text[end:cue_start]
            if len(gap) > REBUTTAL_GAP or any(ch.isalnum() for ch in gap):
                return None
            _, rebuttal = doc.original(cue_start, cue_end)
            return Suppression("counter_speech", rebuttal, doc.norm.to_original(cue_start, cue_end))
        return None

    def _framed(self, doc: Doc, hit: Hit) -> Suppression | None:
        """A rebuttal frame that begins in the clause before the match, as far back as
        a negation cue may (the same window), and may run into it: "it is a lie | that
        they ...". A negation exception over it is a rhetorical question ("is it wrong
        to say ..."), not a rebuttal.
        """
        start = hit.start
        sentence = doc.sentence_of(start)
        sentence_start, sentence_end = doc.sentence_range(sentence, sentence)
        window = window_start(doc, start, self.clause_breaks, self.words_before)
        end = min(sentence_end, start + FRAME_OVERHANG)
        exceptions = doc.shared_cues(self.exceptions, sentence_start, sentence_end)
        for cue_start, cue_end in doc.cues(self.frames, window, end):
            if cue_start >= start:
                break
            if exceptions.overlaps(cue_start, cue_end):
                continue
            span, cue = doc.original(cue_start, cue_end)
            return Suppression("counter_speech", cue, span)
        return None
