"""Candidate patterns -> raw hits, on the skeleton (shared by classify and classify_many)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.pipeline.doc import Doc, Hit
from engine.rules.models import Row
from engine.text import re2x, work
from engine.text.re2x import UNANCHORED, Span


@dataclass(slots=True)
class PatternInfo:
    """A row pattern with its lazily compiled full expression."""

    pattern_id: str
    row: Row
    severity: int
    source: str
    full: str
    filler_groups: tuple[str, ...]
    _regex: re2x.Regex | None = field(default=None, repr=False)
    # m, t, every filler, the fillers of any words (``w<n>``, see FILLER_STOP)
    groups: tuple[int, int, tuple[int, ...], tuple[int, ...]] = (0, 0, (), ())

    def first_match(self, data: bytes) -> list[Span] | None:
        """The byte spans of every group of the first match in these UTF-8 bytes, or None.

        RE2 answers a miss from its DFA alone (about 2 µs on a tweet) before any
        submatch work; asking this way first skips the span machinery for the many
        candidates a scan proposes that do not match in full, and a hit is the
        first match that ``pattern_hits`` would otherwise search for again.
        """
        regex = self._regex if self._regex is not None else self.regex()
        return regex.first_match(data)

    def regex(self) -> re2x.Regex:
        """The full expression, compiled on first use (most patterns never fire)."""
        if self._regex is None:
            regex = re2x.Regex(self.full)
            index = regex.groupindex
            self.groups = (
                index["m"],
                index["t"],
                tuple(index[name] for name in self.filler_groups),
                tuple(index[name] for name in self.filler_groups if name.startswith("w")),
            )
            self._regex = regex
        return self._regex


def first_matches(doc: Doc) -> list[tuple[int, list[Span]]]:
    """The first match of every candidate pattern that matches at all, in pattern order.

    ``PatternInfo.first_match`` inlined: a text proposes up to a dozen candidates,
    most of which miss, and two calls a candidate cost a tenth of its DFA pass.
    """
    found: list[tuple[int, list[Span]]] = []
    if doc.hits.patterns:
        data = doc.skeleton()[1].data
        size = len(data)
        patterns = doc.lang.patterns
        for index in doc.hits.patterns:
            info = patterns[index]
            regex = info._regex if info._regex is not None else info.regex()
            spans = regex.match(UNANCHORED, data, 0, size)
            found_at = spans[0][0] >= 0
            if work.COUNTER is not None:
                work.COUNTER.regex(spans[0][1] if found_at else size)
            if found_at:
                found.append((index, spans))
    return found


def pattern_hits(doc: Doc, firsts: list[tuple[int, list[Span]]]) -> list[Hit]:
    """Every match of each matching pattern, mapped back from the skeleton."""
    out: list[Hit] = []
    if not firsts:
        return out
    skeleton, skeleton_subject = doc.skeleton()
    to_normalized = skeleton.to_normalized
    patterns = doc.lang.patterns
    stops = doc.lang.filler_stops
    for index, first in firsts:
        info = patterns[index]
        row = info.row
        weight, pattern_id, severity = row.weight, info.pattern_id, info.severity
        regex = info.regex()
        m_group, t_group, filler_groups, free_groups = info.groups
        for spans in skeleton_subject.finditer(regex, m_group, first=first):
            if stops and free_groups and _stopped(skeleton_subject.data, spans, free_groups, stops):
                continue
            start, end = to_normalized(*spans[m_group])
            sk_t_start, sk_t_end = spans[t_group]
            t_span = to_normalized(sk_t_start, sk_t_end)
            inner = [t_span]
            for group in filler_groups:
                filler = spans[group]
                if filler[0] >= 0:
                    inner.append(to_normalized(*filler))
            out.append(
                Hit(
                    start,
                    end,
                    row,
                    weight,
                    "pattern",
                    pattern_id,
                    severity,
                    skeleton.mention_in(sk_t_start, sk_t_end),
                    t_span,
                    inner,
                    False,
                )
            )
    if work.COUNTER is not None:
        work.COUNTER.hits += len(out)
    return out


def _stopped(
    data: bytes, spans: list[Span], groups: tuple[int, ...], stops: frozenset[bytes]
) -> bool:
    """Whether a filler of any words holds one of the pack's FILLER_STOP words.

    A filler stands for the words that may come between a group and what is said
    of it ("are truly the worst rats"); a preposition there makes the predicate's
    noun its object instead ("are kind to rats", "are afraid of rats").
    """
    for group in groups:
        start, end = spans[group]
        if start >= 0 and not stops.isdisjoint(data[start:end].split()):
            return True
    return False
