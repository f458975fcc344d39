"""Per-text state, computed lazily because most texts never need it."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from engine.pipeline.cues import CueFinder
from engine.pipeline.mentions import Mention, Skeleton
from engine.rules.models import Row
from engine.text.normalize import Normalized, normalize
from engine.text.sentences import sentence_starts
from engine.text.subject import Subject

if TYPE_CHECKING:
    from engine.pipeline.language import LanguagePipeline
    from engine.pipeline.scan import ScanHits
    from engine.pipeline.targets import CodedIndex
    from engine.result import SignalSource


class Hit(NamedTuple):
    """One match of a pattern or coded term, in normalized offsets, before its target
    and suppression are known. A named tuple: a harmful text builds a few."""

    start: int
    end: int
    row: Row
    weight: float
    source: SignalSource
    pattern_id: str
    severity: int
    slot: Mention | None  # the mention marked inside a pattern's target slot
    t_span: tuple[int, int] | None  # a pattern's target slot
    inner: list[tuple[int, int]]  # the slot and fillers, where negation may sit too
    names_group: bool  # a coded term that itself names a group


class Doc:
    """One text on its way through a language's pipeline."""

    __slots__ = (
        "_coded_index",
        "_context",
        "_context_targets",
        "_cues",
        "_mentions",
        "_sentences",
        "_skeleton",
        "_targets",
        "code",
        "fallback_note",
        "hits",
        "lang",
        "norm",
        "subject",
        "text",
    )

    def __init__(
        self,
        norm: Normalized,
        subject: Subject,
        lang: LanguagePipeline,
        hits: ScanHits,
        context: str | None,
        fallback_note: str | None,
    ) -> None:
        self.code = lang.code
        self.fallback_note = fallback_note
        self.norm = norm
        self.text = norm.text
        self.subject = subject
        self.lang = lang
        self.hits = hits
        self._context = context
        self._sentences: list[int] | None = None
        self._mentions: list[Mention] | None = None
        self._targets: list[Mention] | None = None
        self._context_targets: list[Mention] | None = None
        self._skeleton: tuple[Skeleton, Subject] | None = None
        self._cues: frozenset[int] | None = None
        self._coded_index: CodedIndex | None = None

    # -- cues ------------------------------------------------------------------
    def may_find(self, finder: CueFinder) -> bool:
        """Whether the cue finder can match anywhere in the text (one scan per text)."""
        if self._cues is None:
            self._cues = self.lang.cue_presence.present(self.subject)
        return finder.key in self._cues

    def cues(self, finder: CueFinder, start: int, end: int) -> Iterable[tuple[int, int]]:
        """The finder's cues in [start, end); no search at all when it cannot match."""
        if not self.may_find(finder):
            return ()
        return finder.find_all(self.subject, start, end)

    # -- mentions --------------------------------------------------------------
    def skeleton(self) -> tuple[Skeleton, Subject]:
        if self._skeleton is None:
            glued, plain = self.lang.mentions.find_glued_and_plain(self.subject)
            if plain is not None and self._mentions is None:
                self._mentions = plain
            skeleton = Skeleton.build(self.text, glued)
            self._skeleton = (skeleton, Subject(skeleton.text))
        return self._skeleton

    def mentions(self) -> list[Mention]:
        if self._mentions is None:
            self._mentions = self.lang.mentions.find(self.subject)
        return self._mentions

    def targets(self) -> list[Mention]:
        """The mentions that can be a target: all but modifiers ("muslim" in "muslim men")."""
        if self._targets is None:
            self._targets = [m for m in self.mentions() if m.kind != "modifier"]
        return self._targets

    def coded_index(self) -> CodedIndex:
        """The target mentions indexed for coded terms (built once per text)."""
        if self._coded_index is None:
            from engine.pipeline.targets import CodedIndex

            modifiers = [m for m in self.mentions() if m.kind == "modifier"]
            self._coded_index = CodedIndex(self.targets(), modifiers)
        return self._coded_index

    def context_targets(self) -> list[Mention]:
        """The target mentions of the context given with the text."""
        if self._context_targets is None:
            if not self._context:
                self._context_targets = []
            else:
                found = self.lang.mentions.find(Subject(normalize(self._context).text))
                self._context_targets = [m for m in found if m.kind != "modifier"]
        return self._context_targets

    # -- sentences -------------------------------------------------------------
    def sentence_starts(self) -> list[int]:
        if self._sentences is None:
            self._sentences = sentence_starts(self.text)
        return self._sentences

    def sentence_of(self, pos: int) -> int:
        return bisect.bisect_right(self.sentence_starts(), pos) - 1

    def sentence_range(self, first: int, last: int) -> tuple[int, int]:
        starts = self.sentence_starts()
        first = max(first, 0)
        last = min(last, len(starts) - 1)
        end = starts[last + 1] if last + 1 < len(starts) else len(self.text)
        return starts[first], end

    def original(self, start: int, end: int) -> tuple[tuple[int, int], str]:
        """A normalized span as the span and the text of the original, as submitted."""
        o_start, o_end = self.norm.to_original(start, end)
        return (o_start, o_end), self.norm.original[o_start:o_end]
