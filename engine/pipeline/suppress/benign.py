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
        self.lists: list[tuple[frozenset[str], CueFinder, CueFinder | None]] = [
            (
                frozenset(b.rows),
                cues.benign(b.id, b.cues),
                cues.benign(f"{b.id}.unless_in_match", b.unless_in_match)
                if b.unless_in_match
                else None,
            )
            for b in pack.benign
        ]
        self.finders: tuple[CueFinder, ...] = tuple(finder for _, finder, _ in self.lists)
        self.reach = windows.benign_words

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        row_id = hit.row.id
        finders = [
            (finder, unless)
            for rows, finder, unless in self.lists
            if row_id in rows and doc.may_find(finder)
        ]
        if not finders:
            return None
        bounds = doc.bounds()
        lo = bounds.last_words_start(0, hit.start, self.reach)
        hi = bounds.next_words_end(hit.end, self.reach)
        for finder, unless in finders:
            if unless is not None and unless.first(doc.subject, hit.start, hit.end) is not None:
                continue  # the match itself rules the literal reading out
            found = finder.first(doc.subject, lo, hi)
            if found is not None:
                span, cue = doc.original(*found)
                return Suppression("benign_context", cue, span)
        return None
