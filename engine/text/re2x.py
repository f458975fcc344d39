"""The only module that touches google-re2's internals.

google-re2's Python wrapper re-encodes a ``str`` and converts every byte offset
back to a character offset on each call; the engine matches the same UTF-8 bytes
many times, so it calls the compiled program directly (``Regex.match``) and
converts offsets itself (``engine.text.subject``). Sets are matched through the
same bytes-in, indices-out entry point. Everything that knows those private
names (``_regexp``, ``_set``, ``_Anchor``) lives here, so a new google-re2
release is checked in one place.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import re2

from engine.text import work

Span = tuple[int, int]
NO_SPAN: Span = (-1, -1)
UNANCHORED = re2._Anchor.UNANCHORED
ANCHOR_START = re2._Anchor.ANCHOR_START
SET_MAX_MEM = 256 << 20
# A budget, not an allocation: RE2 caches the DFA states it builds up to about a
# third of it per direction and, when the cache keeps filling, gives up the DFA and
# walks the whole text with its NFA. The French copula patterns (about 140,000
# instructions, with two adverb fillers) filled a 64 MB budget on one 280-character
# text and cost 72 µs a hit that way; with 256 MB the DFA holds and a hit costs 17 µs.
# Eleven thousand shared-set texts leave the process's peak memory as it was.
#
# HARMWATCH_REGEX_MAX_MEM_MB lowers (or raises) that budget for a process that must
# hold every language's programs in less memory: results are the same (RE2 only walks
# more texts with its NFA), and a program too large for the budget fails at load, not
# later. The test suite runs with 32 MB: a worker that classifies in all eight
# languages then peaks near 8 GB instead of 10-12 GB, so two fit on a 24 GB machine.
_BUDGET_VARIABLE = "HARMWATCH_REGEX_MAX_MEM_MB"


def _budget_mb(raw: str | None) -> int:
    if raw is None or not raw.strip():
        return 256
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{_BUDGET_VARIABLE}: not a whole number of megabytes: {raw!r}") from None
    if not 8 <= value <= 4096:
        raise ValueError(f"{_BUDGET_VARIABLE}: must be between 8 and 4096 (MB), got {value}")
    return value


REGEX_MAX_MEM = _budget_mb(os.environ.get(_BUDGET_VARIABLE)) << 20
RegexError = re2.error
SetMatch = Callable[[bytes], list[int]]


def options(
    max_mem: int = REGEX_MAX_MEM, *, longest: bool = False, never_capture: bool = False
) -> re2.Options:
    out = re2.Options()
    out.max_mem = max_mem
    out.log_errors = False
    out.longest_match = longest
    out.never_capture = never_capture
    return out


class Regex:
    """A compiled RE2 expression matched on UTF-8 bytes.

    ``match(UNANCHORED, data, start, end)`` is the compiled program's own entry
    point: it returns the byte spans of every group, ``(-1, -1)`` for a group
    that did not take part (and for group 0 when nothing matched).
    """

    __slots__ = ("groupindex", "match", "pattern")

    def __init__(self, source: str, opts: re2.Options | None = None) -> None:
        compiled = re2.compile(source, opts if opts is not None else options())
        self.pattern = source
        self.groupindex: dict[str, int] = dict(compiled.groupindex)
        self.match: Callable[[Any, bytes | memoryview, int, int], list[Span]] = (
            compiled._regexp.Match
        )

    def first_match(self, data: bytes) -> list[Span] | None:
        """Byte spans of every group of the first match in ``data``, or None.

        RE2 answers a miss from its DFA alone before any submatch work.
        """
        spans = self.match(UNANCHORED, data, 0, len(data))
        if work.COUNTER is not None:
            work.COUNTER.regex(spans[0][1] if spans[0][0] >= 0 else len(data))
        return spans if spans[0][0] >= 0 else None

    def found(self, data: bytes) -> bool:
        return self.match(UNANCHORED, data, 0, len(data))[0][0] >= 0


class LazyRegex(Regex):
    """A ``Regex`` compiled at its first match.

    A language holds dozens of expressions that most processes never run (a coded
    term's own finder runs only when the scan saw the term); a command-line call
    would spend most of its start compiling them. ``groupindex`` must be given: it
    is read before anything is compiled, and checked when the expression is.
    """

    __slots__ = ("_opts",)

    def __init__(
        self, source: str, groupindex: dict[str, int], opts: re2.Options | None = None
    ) -> None:
        self.pattern = source
        self.groupindex = groupindex
        self._opts = opts

    def __getattr__(self, name: str) -> Any:
        # Only reached while the ``match`` slot is empty: compile, then it is set.
        if name != "match":
            raise AttributeError(name)
        compiled = re2.compile(self.pattern, self._opts if self._opts is not None else options())
        if dict(compiled.groupindex) != self.groupindex:
            raise RegexError(f"groups {dict(compiled.groupindex)} != {self.groupindex}")
        self.match = compiled._regexp.Match
        return self.match


def program(source: str) -> Regex:
    """A capture-free expression with the library's default memory budget, for filters."""
    opts = re2.Options()
    opts.never_capture = True
    return Regex(source, opts)


class SetTooLargeError(Exception):
    """A Set whose expressions each compile but not together within the budget.

    RE2 says only "failed to compile Set"; the caller knows which file and rows the
    entries came from (``engine.pipeline.scan.ScriptScanner``), so it says the rest.
    """

    def __init__(self, count: int, chars: int, budget: int) -> None:
        super().__init__(
            f"{count:,} expressions ({chars:,} characters) do not fit RE2's memory budget "
            f"of {budget / (1 << 20):g} MB for one Set"
        )
        self.count = count
        self.chars = chars
        self.budget = budget


class _Set:
    __slots__ = ("match", "set")

    def __init__(self, kind: Callable[[re2.Options], Any], entries: Iterable[str]) -> None:
        budget = SET_MAX_MEM
        self.set = kind(options(budget))
        count = chars = 0
        for entry in entries:
            self.set.Add(entry)
            count += 1
            chars += len(entry)
        try:
            self.set.Compile()
        except RegexError:
            # Every entry was added (each parsed): only the whole is over the budget.
            raise SetTooLargeError(count, chars, budget) from None
        self.match: SetMatch = self.set._set.Match  # bytes in, indices out


_COUNTED = re2.compile(r"(?:^|[^\\])\{\d*,?(\d+)\}")


def counted(source: str) -> bool:
    """Whether an expression repeats something a counted number of times (two or more).

    In a DFA a counter is remembered per position: combined with other expressions
    in one Set it multiplies their states (``engine.pipeline.scan.Scanner``).
    """
    return any(int(found.group(1)) >= 2 for found in _COUNTED.finditer(source))


def search_set(entries: Iterable[str]) -> SetMatch:
    """Which entries match somewhere in the bytes, one DFA pass (indices in Add order)."""
    return _Set(re2.Set.SearchSet, entries).match


def search_sets(entries: Sequence[str], *, split: bool = True) -> SetMatch:
    """``search_set``, built as two Sets (halves) when one is over the budget.

    RE2 bounds a Set's compiled program by its memory budget, and the Arabizi spelling
    of the Arabic scan (every letter a class of its Latin and digit spellings) sits at
    that bound: two halves take two DFA passes, on Arabizi texts only, where one more
    pattern would otherwise make the language fail to build. The hits are the whole
    Set's (indices in ``entries`` order). When a half is over the budget too, the whole
    Set's ``SetTooLargeError`` is raised, so the message counts every entry.
    """
    try:
        return search_set(entries)
    except SetTooLargeError as whole:
        if not split or len(entries) < 2:
            raise
        half = len(entries) // 2
        try:
            first, second = search_set(entries[:half]), search_set(entries[half:])
        except SetTooLargeError:
            raise whole from None

    def match(data: bytes) -> list[int]:
        return [*first(data), *(half + index for index in second(data))]

    return match


def full_match_set(entries: Iterable[str]) -> SetMatch:
    """Which entries match the whole of the bytes."""
    return _Set(re2.Set.FullMatchSet, entries).match


def error_reason(exc: Exception) -> str:
    """RE2's message, readable: it arrives as bytes of the translated expression."""
    message = exc.args[0] if exc.args else exc
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    text = str(message)
    return text if len(text) <= 160 else text[:157] + "..."
