"""Benign context: a cue near a match that makes its literal sense the likely one
("black rats in the attic", "pest control"), for the rows the cue list names."""

from __future__ import annotations

from typing import ClassVar

from engine.pipeline.cues import CueBook, CueFinder
from engine.pipeline.doc import Doc, Hit
from engine.result import Suppression, SuppressionReason
from engine.rules.models import LanguagePack, Windows


class BenignContext:
    reason: ClassVar[SuppressionReason] = "benign_context"

    def __init__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> None:
        self.lists: list[tuple[frozenset[str], CueFinder]] = [
            (frozenset(b.rows), cues.benign(b.id, b.cues)) for b in pack.benign
        ]
        self.finders: tuple[CueFinder, ...] = tuple(finder for _, finder in self.lists)
        self.reach = windows.benign_words

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        row_id = hit.row.id
        finders = [finder for rows, finder in self.lists if row_id in rows and doc.may_find(finder)]
        if not finders:
            return None
        bounds = doc.bounds()
        lo = bounds.last_words_start(0, hit.start, self.reach)
        hi = bounds.next_words_end(hit.end, self.reach)
        for finder in finders:
            found = finder.first(doc.subject, lo, hi)
            if found is not None:
                span, cue = doc.original(*found)
                return Suppression("benign_context", cue, span)
        return None
