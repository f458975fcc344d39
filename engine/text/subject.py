"""A text prepared for repeated RE2 matching: its UTF-8 bytes and the offset maps.

google-re2's Python wrapper re-encodes a ``str`` and converts every byte offset
back to a character offset on each call, which costs tens of microseconds per
search on a tweet-length text; the engine searches the same text many times
(mentions, patterns, cues). A ``Subject`` encodes once, matches on the UTF-8
bytes through ``Regex.match`` (engine.text.re2x), and converts offsets only for
non-ASCII texts, through maps built once and only when needed.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.text.re2x import NO_SPAN, UNANCHORED, Regex, Span

__all__ = ["NO_SPAN", "Span", "Subject"]


class Subject:
    """A ``str`` with its UTF-8 bytes and the offset maps between them."""

    __slots__ = ("_byte_of", "_char_of", "ascii", "data", "text")

    def __init__(self, text: str, data: bytes | None = None) -> None:
        self.text = text
        self.data = data if data is not None else text.encode("utf-8", "surrogatepass")
        self.ascii = len(self.data) == len(text)
        self._char_of: list[int] | None = None
        self._byte_of: list[int] | None = None

    def char(self, byte_offset: int) -> int:
        """The character offset of a byte offset (on a character boundary)."""
        if self.ascii:
            return byte_offset
        if self._char_of is None:
            self._build_maps()
        assert self._char_of is not None
        return self._char_of[byte_offset]

    def byte(self, char_offset: int) -> int:
        """The byte offset of a character offset."""
        if self.ascii:
            return char_offset
        if self._byte_of is None:
            self._build_maps()
        assert self._byte_of is not None
        return self._byte_of[char_offset]

    def _build_maps(self) -> None:
        char_of = [0] * (len(self.data) + 1)
        byte_of = [0] * (len(self.text) + 1)
        position = 0
        for index, ch in enumerate(self.text):
            byte_of[index] = position
            width = len(ch.encode("utf-8", "surrogatepass"))
            for k in range(width):
                char_of[position + k] = index
            position += width
        byte_of[len(self.text)] = position
        char_of[position] = len(self.text)
        self._char_of = char_of
        self._byte_of = byte_of

    def search(
        self,
        regex: Regex,
        start: int = 0,
        end: int | None = None,
        *,
        window: bool = False,
    ) -> list[Span] | None:
        """Spans (character offsets) of every group of the first match, or None.

        Without ``window`` the search resumes at ``start`` in the whole text (the
        text before it is not visible and ``^`` does not match there). With
        ``window`` the slice [start, end) is matched as if it were the whole text,
        so ``^`` and ``$`` match at its edges, as a word boundary does.
        """
        b_start = self.byte(start)
        b_end = len(self.data) if end is None else self.byte(end)
        if window:
            data = self.data[b_start:b_end]
            spans: list[Span] = regex.match(UNANCHORED, data, 0, len(data))
            if spans[0][0] < 0:
                return None
            spans = [(s + b_start, e + b_start) if s >= 0 else NO_SPAN for s, e in spans]
        else:
            spans = regex.match(UNANCHORED, self.data, b_start, b_end)
            if spans[0][0] < 0:
                return None
        return self.chars(spans)

    def chars(self, spans: list[Span]) -> list[Span]:
        """Byte spans from a match on ``data`` as character spans (unset groups stay unset)."""
        if self.ascii:
            return spans
        return [(self.char(s), self.char(e)) if s >= 0 else NO_SPAN for s, e in spans]

    def finditer(
        self,
        regex: Regex,
        group: int,
        start: int = 0,
        end: int | None = None,
        *,
        window: bool = False,
        first: list[Span] | None = None,
    ) -> Iterator[list[Span]]:
        """Successive matches; each next search starts where ``group`` ended.

        Patterns consume one boundary character on each side of the group of
        interest, so resuming at the group's end lets adjacent matches share it.
        ``first`` is the first match when the caller already has it: the byte
        spans of a match over the whole of ``data`` from its start.
        """
        position = start
        limit = len(self.text) if end is None else end
        if first is not None:
            spans: list[Span] | None = self.chars(first)
        elif position <= limit:
            spans = self.search(regex, position, limit, window=window)
        else:
            return
        while spans is not None:
            yield spans
            group_end = spans[group][1]
            position = group_end if group_end > position else position + 1
            if position > limit:
                return
            spans = self.search(regex, position, limit, window=window)
