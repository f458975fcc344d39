"""Normalize and scan: one Set pass says what may match; most texts stop here.

One ``re2.Set`` holds, for a language, every anchor (identity-group terms),
every pattern's dispatch parts and, for English, every coded term. A single
linear-time scan tells which of them can match; only those are then run as
full expressions (engine.pipeline.match). Most texts stop after the scan, which
keeps classification near the cost of that one pass whatever the size of the
taxonomy. (The few dispatch parts with a counted window are a second, small Set,
scanned only for texts that name a group: see ``Scanner``.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from engine.pipeline.doc import Doc
from engine.text import re2x, work
from engine.text.normalize import (
    ASCII_FOLD_SHAPE,
    NO_DOUBLED,
    Doubled,
    Normalized,
    lower_ascii,
    normalize,
)
from engine.text.subject import Subject

if TYPE_CHECKING:
    from engine.pipeline.language import LanguagePipeline


class ScanHits(NamedTuple):
    """What one scan found: anchor, pattern and coded-term indices, each ascending.

    A named tuple rather than a frozen dataclass: every text that names a group
    builds one, and a frozen dataclass pays ``object.__setattr__`` per field.
    """

    anchors: Sequence[int]
    patterns: Sequence[int]
    coded: Sequence[int]

    @property
    def empty(self) -> bool:
        return not (self.anchors or self.patterns or self.coded)


NO_HITS = ScanHits((), (), ())
UNFOLDED = ScanHits((), (), ())  # see Scanner.scan


class Scanner:
    """The Set of one language: anchors, then pattern parts, then coded terms, then
    the shape that sends an ASCII text to full normalization.

    The pattern parts with a counted repetition (a window such as "up to 80
    characters since the last full stop") are a second Set. In one automaton with
    the rest, such a counter makes the state at every byte new (it remembers how far
    the window has run, times everything else in flight): the DFA then builds a
    state per byte of every new text, and its cache filled and thrashed on a few
    thousand Arabic texts (14 ms a text, every time). Apart, the main Set's states
    recur across texts, the window's own are few, and the second pass runs only on
    texts that name a group.
    """

    def __init__(
        self,
        entries: Sequence[str],
        *,
        anchor_count: int,
        coded_entries: Sequence[str],
        by_key: dict[int, list[tuple[int, tuple[int, ...]]]],
    ) -> None:
        # Every entry of the Set, in order (diagnostics and tests/perf's bare scan).
        self.set_entries: tuple[str, ...] = (*entries, *coded_entries, ASCII_FOLD_SHAPE)
        self.entries: tuple[str, ...] = tuple(entries)  # kept for diagnostics
        count = len(entries) + len(coded_entries)
        # The pattern parts with a counted repetition go to a Set of their own, scanned
        # only when the main Set leaves the text in play: see ``windowed``.
        windowed = [i for i in range(anchor_count, len(entries)) if re2x.counted(entries[i])]
        moved = set(windowed)
        order = [i for i in range(count + 1) if i not in moved] + windowed
        new_id = {old: new for new, old in enumerate(order)}
        self._window_start = count + 1 - len(windowed)
        # key entry -> (the patterns it proposes alone, [(pattern, the other entries
        # it needs)]): most patterns need their key only.
        self._by_key: dict[int, tuple[tuple[int, ...], tuple[tuple[int, frozenset[int]], ...]]] = {
            new_id.get(key, key): (
                tuple(pattern for pattern, others in proposed if not others),
                tuple(
                    (pattern, frozenset(new_id[other] for other in others))
                    for pattern, others in proposed
                    if others
                ),
            )
            for key, proposed in by_key.items()
        }
        self._keys = frozenset(self._by_key)
        self._coded_start = new_id[len(entries)] if coded_entries else count
        # The entries that name a group: a text with none of them has no target.
        self._anchor_ids = frozenset(range(anchor_count))
        coded_start = self._coded_start
        self._coded_ids = frozenset(range(coded_start, coded_start + len(coded_entries)))
        self._targets = self._anchor_ids | self._coded_ids
        self._fold_id = new_id[count]
        # Split in two when one Set is over RE2's budget (``re2x.search_sets``): the
        # Arabizi spelling of the Arabic scan is the one that needs it.
        self._set_match = re2x.search_sets(
            [self.set_entries[i] for i in order[: self._window_start]]
        )
        self._window_match = re2x.search_set(entries[i] for i in windowed) if windowed else None

    def scan(self, data: bytes, *, need_target: bool = True, lowered: bool = False) -> ScanHits:
        """One pass over the text's UTF-8 bytes: which anchors, patterns and coded terms
        may match (``NO_HITS`` when nothing may).

        With ``need_target`` and no group named anywhere, pattern candidates are
        not worked out at all: no pattern could find a target. With ``lowered``
        the bytes are ``lower_ascii``'s, and ``UNFOLDED`` says the text needs the
        full ``normalize`` (and a new scan) after all: the same pass answers
        normalization's question, which saves a second pass on nearly every text.
        """
        hits = self._set_match(data)
        if work.COUNTER is not None:
            work.COUNTER.regex(len(data))
        if lowered and self._fold_id in hits:
            return UNFOLDED
        if need_target and self._targets.isdisjoint(hits):
            return NO_HITS
        if self._window_match is not None:
            more = self._window_match(data)
            if work.COUNTER is not None:
                work.COUNTER.regex(len(data))
            if more:
                start = self._window_start
                hits = [*hits, *(start + index for index in more)]
        if not hits:
            return NO_HITS
        coded_start = self._coded_start
        seen = set(hits)
        patterns: list[int] = []
        by_key = self._by_key
        # Most hits are second parts, anchors or keys of no candidate here: only
        # the keys among them are walked.
        for key in self._keys.intersection(seen):
            alone, needing = by_key[key]
            patterns.extend(alone)
            for pattern_index, others in needing:
                if others <= seen:
                    patterns.append(pattern_index)
        patterns.sort()
        anchors = sorted(self._anchor_ids.intersection(hits))
        coded_ids = self._coded_ids.intersection(hits)
        coded = sorted([h - coded_start for h in coded_ids]) if coded_ids else ()
        return ScanHits(anchors, patterns, coded)


class _Gate:
    """Whether an ASCII text may name a group at all, from a Set a fifth the size.

    Its entries are the group words (anchor terms, modifiers and coded terms) with
    no boundary before them, the coded entries, and the fold shape. A group word
    that the full Set finds, bounded or run into a lead ("killallX"), matches here
    too, so "no hit" here is the full Set's NO_HITS. A one-off command-line call on
    a text that names no group (most texts) then never compiles the full Set: the
    lead entry alone (every lead followed by every group word) took 60 of its 160 ms.
    """

    def __init__(self, parts: Sequence[str], coded_entries: Sequence[str]) -> None:
        self._fold_id = len(parts) + len(coded_entries)
        self._match = re2x.search_set((*parts, *coded_entries, ASCII_FOLD_SHAPE))

    def scan(self, data: bytes, *, lowered: bool) -> ScanHits | None:
        """``NO_HITS`` or ``UNFOLDED`` as the full scan would answer, or None when the
        text may name a group and only the full Set can tell."""
        hits = self._match(data)
        if work.COUNTER is not None:
            work.COUNTER.regex(len(data))
        if not hits:
            return NO_HITS
        if self._fold_id in hits:
            if lowered:
                return UNFOLDED
            if len(hits) == 1:
                return NO_HITS
        return None


_Built = TypeVar("_Built")


class ScriptScanner:
    """The scan of one language, its Set compiled at the first text that needs it:
    in ``ascii_only`` spelling for an all-ASCII text, in full for any other.

    The word boundaries around anchors and coded terms are Unicode classes whose
    automata made up most of the Set's compile time; on ASCII bytes their ASCII
    spelling is the same expression, so an English command-line call never pays
    for them. Once the full spelling is built (``warm``, or a first non-ASCII
    text) it serves every text.

    Until the ASCII Set is built, an ASCII text that needs a target first goes
    through the small ``_Gate`` (``gate_parts``: the ASCII spelling of the group
    words); the first one that may name a group builds the ASCII Set, which then
    serves every ASCII text, so a process pays the gate's pass only before that.
    """

    def __init__(
        self,
        entries: Sequence[str],
        *,
        anchor_count: int,
        coded_entries: Sequence[str],
        by_key: dict[int, list[tuple[int, tuple[int, ...]]]],
        ascii_spelling: tuple[Sequence[str], Sequence[str]],
        gate_parts: Sequence[str] = (),
        overflow: Callable[[re2x.SetTooLargeError], Exception] | None = None,
    ) -> None:
        self.entries: tuple[str, ...] = tuple(entries)  # kept for diagnostics
        # Turns a Set over RE2's budget into an error naming the pack's file and rows,
        # kept: the taxonomy does not change under a running process, and building the
        # Set again for every text of the language would cost seconds each.
        self._overflow = overflow
        self._failed: Exception | None = None
        self._coded_entries = tuple(coded_entries)
        # ``ascii_only`` of the entries and of the coded entries (the language's
        # compile memo keeps them).
        self._ascii_spelling = ascii_spelling
        self._anchor_count = anchor_count
        self._by_key = by_key
        self._ascii: Scanner | None = None
        self._unicode: Scanner | None = None
        self._gate_parts = tuple(gate_parts)
        self._gate: _Gate | None = None
        self._lock = threading.Lock()

    def _build(self, ascii: bool) -> Scanner:
        with self._lock:
            built = self._ascii if ascii else self._unicode
            if built is None:
                entries, coded = (
                    self._ascii_spelling if ascii else (self.entries, self._coded_entries)
                )
                built = self._made(
                    lambda: Scanner(
                        entries,
                        anchor_count=self._anchor_count,
                        coded_entries=coded,
                        by_key=self._by_key,
                    )
                )
                if ascii:
                    self._ascii = built
                else:
                    self._unicode = built
        return built

    def _made(self, build: Callable[[], _Built]) -> _Built:
        """``build()`` (under the lock), or the error of a Set over RE2's budget, kept and
        raised again for every later text: the taxonomy cannot change under a running
        process, so building the Set again would only cost seconds."""
        if self._failed is not None:
            raise self._failed
        try:
            return build()
        except re2x.SetTooLargeError as exc:
            self._failed = exc if self._overflow is None else self._overflow(exc)
            raise self._failed from None

    def warm(self) -> None:
        """Build the full spelling now (a server, before its first text): it serves
        every text, so a warmed scanner never compiles the ASCII one."""
        if self._unicode is None:
            self._build(False)

    @property
    def set_entries(self) -> tuple[str, ...]:
        """Every entry of the full Set, in order (diagnostics and tests/perf's bare scan)."""
        return (self._unicode or self._build(False)).set_entries

    def scan(self, data: bytes, *, need_target: bool = True, lowered: bool = False) -> ScanHits:
        """``Scanner.scan`` with the Set the bytes need."""
        # The full spelling answers every text: once built (by ``warm`` or a first
        # non-ASCII text) it serves ASCII texts too.
        scanner = self._unicode
        if scanner is None:
            if not data.isascii():
                scanner = self._build(False)
            elif (scanner := self._ascii) is None:
                if need_target and self._gate_parts:
                    found = self._gated().scan(data, lowered=lowered)
                    if found is not None:
                        return found
                scanner = self._build(True)
        return scanner.scan(data, need_target=need_target, lowered=lowered)

    def _gated(self) -> _Gate:
        with self._lock:
            if self._gate is None:
                self._gate = self._made(lambda: _Gate(self._gate_parts, self._ascii_spelling[1]))
            return self._gate


def normalize_and_scan(
    scanner: Scanner | ScriptScanner,
    text: str,
    *,
    need_target: bool,
    doubled: Doubled = NO_DOUBLED,
) -> tuple[Normalized, bytes, ScanHits]:
    """The normalized text, its bytes and its scan, in one Set pass for nearly every text.

    An ASCII text is lowercased and scanned at once; the scan also says whether it
    holds what only the full ``normalize`` folds (a spaced-out word, a control
    character), and only then is it normalized and scanned again.
    """
    if text.isascii():
        norm = lower_ascii(text)
        data = norm.data
        assert data is not None
        hits = scanner.scan(data, need_target=need_target, lowered=True)
        if hits is not UNFOLDED:
            return norm, data, hits
    norm = normalize(text, doubled)
    data = norm.data if norm.data is not None else norm.text.encode("utf-8", "surrogatepass")
    return norm, data, scanner.scan(data, need_target=need_target)


def scan(
    lang: LanguagePipeline, text: str, context: str | None, fallback_note: str | None
) -> Doc | None:
    """The text's state for the next stages, or None when the scan found nothing.

    With no group named anywhere (and no context to name one) no pattern could
    find a target, so the scan stops there. Most texts end here.
    """
    need_target = lang.require_target and not context
    norm, data, hits = normalize_and_scan(
        lang.scanner, text, need_target=need_target, doubled=lang.doubled
    )
    if lang.arabizi is not None:  # Latin-script Arabic: spelt in Arabic, scanned again
        spelt = lang.arabizi.apply(norm, lang.known_spelling)
        if spelt is not norm:
            lang = lang.spelt()
            norm, data = spelt, spelt.text.encode("utf-8", "surrogatepass")
            hits = lang.scanner.scan(data, need_target=need_target)
    if hits is NO_HITS or hits.empty:
        return None
    return Doc(norm, Subject(norm.text, data), lang, hits, context, fallback_note)
