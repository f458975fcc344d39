"""A text prepared for repeated RE2 matching: its UTF-8 bytes and the offset maps.

google-re2's Python wrapper re-encodes a ``str`` and converts every byte offset
back to a character offset on each call, which costs tens of microseconds per
search on a tweet-length text; the engine searches the same text many times
(mentions, patterns, cues). A ``Subject`` encodes once, matches on the UTF-8
bytes through ``Regex.match`` (engine.text.re2x), and converts offsets only for
non-ASCII texts.

Offsets are converted from a cursor (the last converted pair), by counting the
characters or bytes between it and the new offset in C (``bytes.translate``,
``str.encode``): the engine asks for offsets nearly in text order, so a text
pays for the bytes it actually crosses, not for a map of every byte. When the
crossings add up to a few times the text (offsets asked for far apart, back and
forth), the full maps are built once, also in C, and used from then on: either
way the cost stays linear in the text.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate, compress

from engine.text import work
from engine.text.re2x import NO_SPAN, UNANCHORED, Regex, Span

__all__ = ["NO_SPAN", "Span", "Subject"]

# Every byte that does not continue a UTF-8 sequence: deleting these leaves the
# continuation bytes (0x80-0xBF), whose count turns a byte length into characters.
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b < 0xC0)
# 1 for a byte that begins a character, 0 for a continuation byte.
_LEAD_FLAGS = bytes(0 if 0x80 <= b < 0xC0 else 1 for b in range(256))
# Conversions may cross this many times the text's bytes before the maps are built.
_CROSSINGS_BEFORE_MAPS = 2


def _chars_in(segment: bytes) -> int:
    """How many characters begin in a run of UTF-8 bytes."""
    return len(segment) - len(segment.translate(None, _NOT_CONTINUATION))


class Subject:
    """A ``str`` with its UTF-8 bytes and the offset conversions between them."""

    __slots__ = (
        "_budget",
        "_byte_of",
        "_char_of",
        "_cursor_byte",
        "_cursor_char",
        "_view",
        "ascii",
        "data",
        "text",
    )

    def __init__(self, text: str, data: bytes | None = None) -> None:
        self.text = text
        self.data = data if data is not None else text.encode("utf-8", "surrogatepass")
        self.ascii = len(self.data) == len(text)
        self._char_of: list[int] | None = None  # char_of[b + 1]: see _build_maps
        self._byte_of: list[int] | None = None
        self._cursor_byte = 0
        self._cursor_char = 0
        self._budget = _CROSSINGS_BEFORE_MAPS * len(self.data) + 64
        self._view: memoryview | None = None

    def char(self, byte_offset: int) -> int:
        """The character offset of a byte offset (a continuation byte: its character)."""
        if self.ascii:
            return byte_offset
        if self._char_of is not None:
            return self._char_of[byte_offset + 1]
        data = self.data
        cursor = self._cursor_byte
        if byte_offset >= cursor:
            segment = data[cursor:byte_offset]
            chars = self._cursor_char + _chars_in(segment)
        elif byte_offset <= cursor - byte_offset:
            segment = data[:byte_offset]
            chars = _chars_in(segment)
        else:
            segment = data[byte_offset:cursor]
            chars = self._cursor_char - _chars_in(segment)
        self._spend(len(segment))
        if byte_offset < len(data) and 0x80 <= data[byte_offset] < 0xC0:
            return chars - 1  # inside a character: the one that began before it
        self._cursor_byte, self._cursor_char = byte_offset, chars
        return chars

    def byte(self, char_offset: int) -> int:
        """The byte offset of a character offset."""
        if self.ascii:
            return char_offset
        if self._byte_of is not None:
            return self._byte_of[char_offset]
        text = self.text
        cursor = self._cursor_char
        if char_offset >= cursor:
            crossed = len(text[cursor:char_offset].encode("utf-8", "surrogatepass"))
            found = self._cursor_byte + crossed
        elif char_offset <= cursor - char_offset:
            crossed = len(text[:char_offset].encode("utf-8", "surrogatepass"))
            found = crossed
        else:
            crossed = len(text[char_offset:cursor].encode("utf-8", "surrogatepass"))
            found = self._cursor_byte - crossed
        self._spend(crossed)
        self._cursor_byte, self._cursor_char = found, char_offset
        return found

    def _spend(self, crossed: int) -> None:
        if work.COUNTER is not None:
            work.COUNTER.scanned(crossed)
        self._budget -= crossed
        if self._budget < 0:
            self._build_maps()

    def _build_maps(self) -> None:
        """Both maps at once, in C: a byte's character is the count of lead bytes up
        to and including it, less one; a character's byte is where its lead is."""
        data = self.data
        if work.COUNTER is not None:
            work.COUNTER.scanned(len(data))
        leads = data.translate(_LEAD_FLAGS)
        byte_of = list(compress(range(len(data)), leads))
        byte_of.append(len(data))
        char_of = list(accumulate(leads, initial=-1))  # char_of[b + 1] is char(b)
        char_of.append(len(self.text))
        self._byte_of = byte_of
        self._char_of = char_of

    def _window(self, b_start: int, b_end: int) -> memoryview:
        """The bytes [b_start, b_end) as a buffer of their own, without a copy."""
        view = self._view
        if view is None:
            view = self._view = memoryview(self.data)
        return view[b_start:b_end]

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
            data = self._window(b_start, b_end)
            spans: list[Span] = regex.match(UNANCHORED, data, 0, len(data))
            found = spans[0][0] >= 0
            if found:
                spans = [(s + b_start, e + b_start) if s >= 0 else NO_SPAN for s, e in spans]
        else:
            spans = regex.match(UNANCHORED, self.data, b_start, b_end)
            found = spans[0][0] >= 0
        if work.COUNTER is not None:
            # A miss scans the whole span; a hit scans up to the end of its match.
            work.COUNTER.regex((spans[0][1] if found else b_end) - b_start)
        if not found:
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
