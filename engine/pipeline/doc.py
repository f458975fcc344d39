"""Per-text state, computed lazily because most texts never need it."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

from engine.pipeline.cues import CueFinder
from engine.pipeline.mentions import Mention, Skeleton
from engine.rules.models import Row
from engine.text import work
from engine.text.normalize import Normalized, normalize
from engine.text.sentences import Bounds, sentence_starts
from engine.text.subject import Subject

if TYPE_CHECKING:
    from engine.pipeline.language import LanguagePipeline
    from engine.pipeline.scan import ScanHits
    from engine.pipeline.targets import CodedIndex
    from engine.result import SignalSource, Suppression


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


class CueSpans:
    """The cues of one window, in text order; they never overlap, so starts and
    ends ascend together and an overlap test is one bisection."""

    __slots__ = ("spans", "starts")

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = spans
        self.starts = [s for s, _ in spans]

    def first_outside(self, start: int, end: int) -> tuple[int, int] | None:
        """The first cue that does not start inside [start, end): the first cue, or,
        when that one starts inside, the first that starts at or after ``end``.

        A cue that starts before the interval counts even where its last word is the
        interval's first ("I can't believe people still call | X rats": the verb of
        saying ends the judgement and opens the match)."""
        spans = self.spans
        if not spans:
            return None
        first_start = spans[0][0]
        if first_start < start or first_start >= end:
            return spans[0]
        index = bisect.bisect_left(self.starts, end)
        return spans[index] if index < len(spans) else None

    def overlaps(self, start: int, end: int) -> bool:
        """Whether any cue overlaps [start, end)."""
        index = bisect.bisect_left(self.starts, end) - 1  # the last cue starting before end
        return index >= 0 and self.spans[index][1] > start

    def masks(self, start: int, end: int) -> bool:
        """Whether a cue overlaps [start, end) without lying strictly inside it.

        A longer cue that holds a whole exception is the more specific reading of
        the same words: "je ne supporte pas qu'on dise" condemns what is said, even
        though "je ne supporte pas" alone is a dislike that negates nothing.
        """
        index = bisect.bisect_left(self.starts, end) - 1
        spans = self.spans
        while index >= 0 and spans[index][1] > start:
            mask_start, mask_end = spans[index]
            if mask_start < start or mask_end > end or (mask_start, mask_end) == (start, end):
                return True
            index -= 1
        return False


NO_CUES = CueSpans([])


class References:
    """Candidate mentions in text order, with their starts and ends for bisection
    (mentions never overlap, so both are ascending)."""

    __slots__ = ("ends", "mentions", "starts")

    def __init__(self, mentions: list[Mention]) -> None:
        self.mentions = mentions
        self.starts = [m.start for m in mentions]
        self.ends = [m.end for m in mentions]


class Doc:
    """One text on its way through a language's pipeline."""

    __slots__ = (
        "_bounds",
        "_coded_index",
        "_context",
        "_context_targets",
        "_cues",
        "_found_cues",
        "_mentions",
        "_references",
        "_sentences",
        "_skeleton",
        "_targets",
        "code",
        "fallback_note",
        "hits",
        "lang",
        "negations",
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
        self._bounds: Bounds | None = None
        # (finder key, start, end) -> every cue of that window, for windows that
        # several hits share (the sentence, the counter-speech scope).
        self._found_cues: dict[tuple[int, ...], CueSpans] = {}
        self._references: dict[tuple[str, str], References] = {}
        # (start, *inner spans) of a hit -> its negation answer: hits of several
        # patterns often share them (engine.pipeline.suppress.negation).
        self.negations: dict[tuple[object, ...], Suppression | None] = {}

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

    def shared_cues(self, finder: CueFinder, start: int, end: int) -> CueSpans:
        """``cues`` for a window that many hits ask about (a sentence, a scope), found once."""
        if not self.may_find(finder):
            return NO_CUES
        key = (finder.key, start, end)
        found = self._found_cues.get(key)
        if found is None:
            spans = list(finder.find_all(self.subject, start, end))
            found = self._found_cues[key] = CueSpans(spans)
        return found

    def unmasked_cues(self, finder: CueFinder, mask: CueFinder, start: int, end: int) -> CueSpans:
        """The window's cues of ``finder`` that no cue of ``mask`` masks (found once)."""
        key = (finder.key, start, end, mask.key)
        found = self._found_cues.get(key)
        if found is None:
            masks = self.shared_cues(mask, start, end)
            spans = self.shared_cues(finder, start, end).spans
            if work.COUNTER is not None:
                work.COUNTER.cues += len(spans)
            found = self._found_cues[key] = CueSpans(
                [(s, e) for s, e in spans if not masks.masks(s, e)]
            )
        return found

    def bounds(self) -> Bounds:
        """Word runs, clause marks and quotation marks of the text (found once)."""
        if self._bounds is None:
            self._bounds = Bounds(self.text)
        return self._bounds

    # -- mentions --------------------------------------------------------------
    def skeleton(self) -> tuple[Skeleton, Subject]:
        if self._skeleton is None:
            glued, plain = self.lang.mentions.find_glued_and_plain(self.subject, self.hits)
            if plain is not None and self._mentions is None:
                self._mentions = plain
            skeleton = Skeleton.build(
                self.text, glued, self.subject.data, outside=self.lang.mark_outside
            )
            self._skeleton = (skeleton, Subject(skeleton.text))
        return self._skeleton

    def mentions(self) -> list[Mention]:
        if self._mentions is None:
            self._mentions = self.lang.mentions.find(self.subject, hits=self.hits)
        return self._mentions

    def targets(self) -> list[Mention]:
        """The mentions that can be a target: all but modifiers ("muslim" in "muslim men")."""
        if self._targets is None:
            self._targets = [m for m in self.mentions() if m.kind != "modifier"]
            if work.COUNTER is not None:
                work.COUNTER.mentions += len(self.mentions())
        return self._targets

    def references(self, key: tuple[str, str], allowed: Callable[[Mention], bool]) -> References:
        """The target mentions a pronoun of hits with this (row, pattern) may refer to,
        filtered by ``allowed`` once per key rather than once per hit."""
        found = self._references.get(key)
        if found is None:
            targets = self.targets()
            kept = [m for m in targets if allowed(m)]
            if work.COUNTER is not None:
                work.COUNTER.mentions += len(targets)
            found = self._references[key] = References(kept)
        return found

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
                context = normalize(self._context, self.lang.doubled).text
                found = self.lang.mentions.find(Subject(context))
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
