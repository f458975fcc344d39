"""The skeleton of a text: group mentions replaced by one marker character each.

Full patterns run on the skeleton, where ``{T}`` only has to match a marker
(plus determiners, a pronoun or a tail) instead of hundreds of group terms.
That keeps every compiled pattern small and fast to build, and it makes the
link between a pattern and the group it targets explicit: the marker inside the
slot *is* the mention.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from engine.matcher import Mention
from engine.patterns import GROUP_MARK, MODIFIER_MARK


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A marked copy of a normalized text and the way back to its offsets."""

    text: str
    _starts: tuple[int, ...]  # skeleton index where each segment begins
    _origins: tuple[int, ...]  # normalized index where that segment begins
    _mentions: tuple[Mention | None, ...]  # the mention a marker segment stands for

    @classmethod
    def build(cls, text: str, mentions: Sequence[Mention]) -> Skeleton:
        pieces: list[str] = []
        starts: list[int] = []
        origins: list[int] = []
        marks: list[Mention | None] = []
        cursor = 0
        length = 0
        for mention in mentions:
            if mention.start > cursor:
                pieces.append(text[cursor : mention.start])
                starts.append(length)
                origins.append(cursor)
                marks.append(None)
                length += mention.start - cursor
            pieces.append(MODIFIER_MARK if mention.kind == "modifier" else GROUP_MARK)
            starts.append(length)
            origins.append(mention.start)
            marks.append(mention)
            length += 1
            cursor = mention.end
        if cursor < len(text) or not starts:
            pieces.append(text[cursor:])
            starts.append(length)
            origins.append(cursor)
            marks.append(None)
        return cls("".join(pieces), tuple(starts), tuple(origins), tuple(marks))

    def to_normalized(self, start: int, end: int) -> tuple[int, int]:
        """Map a skeleton [start, end) span to the normalized text."""
        return self._position(start, at_end=False), self._position(end, at_end=True)

    def _position(self, pos: int, *, at_end: bool) -> int:
        index = bisect.bisect_right(self._starts, pos - 1 if at_end and pos > 0 else pos) - 1
        index = max(index, 0)
        mention = self._mentions[index]
        offset = pos - self._starts[index]
        if mention is not None:
            # A position past the mark (an empty span right after it) is its end.
            return mention.end if offset >= 1 else mention.start
        return self._origins[index] + offset

    def mention_in(self, start: int, end: int) -> Mention | None:
        """The first group mention whose marker lies in the skeleton span."""
        index = max(bisect.bisect_right(self._starts, start) - 1, 0)
        while index < len(self._starts) and self._starts[index] < end:
            mention = self._mentions[index]
            if mention is not None and self._starts[index] >= start:
                return mention
            index += 1
        return None
