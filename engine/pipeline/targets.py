"""Which group a hit targets: the mention in its slot, the group a pronoun refers to
(in the text or its context), or for a coded term the group it names or sits by.

An ambiguous coded form ("Skittles", "bankers") is a target only where its gate
opens (``gate_open``): the predicate of a harm pattern selects the coded reading,
unless the gate excludes that pattern's row or asks for corroboration.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from engine.pipeline.doc import Doc, Hit
from engine.pipeline.mentions import Mention
from engine.rules.models import CodedGate
from engine.text import work


class CodedIndex:
    """A text's target mentions, indexed once so every coded hit finds its target in
    O(log n) (issue 13: a rescan of every mention per hit made "ZOG ZOG ..." quadratic).

    Also records the ambiguous coded mentions whose gate opened (``opened``), which
    are the only ones a result reports as dogwhistle matches.
    """

    __slots__ = ("axes", "mentions", "opened", "ordinary", "ordinary_starts", "starts")

    def __init__(self, mentions: list[Mention], modifiers: Iterable[Mention] = ()) -> None:
        self.mentions = mentions
        self.starts = [m.start for m in mentions]
        self.ordinary = [m for m in mentions if m.anchor.coded is None]
        self.ordinary_starts = [m.start for m in self.ordinary]
        # The axes the text names with an ordinary word, modifiers ("black thugs") included.
        self.axes = frozenset(m.anchor.identity_axis for m in (*self.ordinary, *modifiers))
        self.opened: set[tuple[int, int]] = set()
        if work.COUNTER is not None:
            work.COUNTER.mentions += len(mentions) + len(self.ordinary)

    def containing(self, start: int, end: int) -> Mention | None:
        """The mention spanning [start, end): mentions never overlap, so only the last
        one starting at or before ``start`` can."""
        index = bisect.bisect_right(self.starts, start) - 1
        if index >= 0 and self.mentions[index].end >= end:
            return self.mentions[index]
        return None

    def nearest_ordinary(self, start: int) -> Mention | None:
        """The ordinary (uncoded) mention whose start is nearest; the earlier on a tie."""
        ordinary, starts = self.ordinary, self.ordinary_starts
        index = bisect.bisect_left(starts, start)
        if index == 0:
            return ordinary[0] if ordinary else None
        before = ordinary[index - 1]
        if index == len(ordinary):
            return before
        after = ordinary[index]
        return after if after.start - start < start - before.start else before


def target(doc: Doc, hit: Hit) -> Mention | None:
    if hit.t_span is None:
        return coded_target(doc, hit.start, hit.end, hit.names_group)
    slot = hit.slot
    if slot is None:
        found = reference(doc, hit)
    elif gate_open(doc, slot, hit):
        found = slot
    else:
        return None
    if found is not None and found.kind == "coded" and found.anchor.id in doc.lang.coded_gates:
        doc.coded_index().opened.add((found.start, found.end))
    return found


def gate_open(doc: Doc, mention: Mention, hit: Hit) -> bool:
    """Whether a mention may be the target of a pattern hit: always, unless it is an
    ambiguous coded form whose gate stays shut (see CodedGate)."""
    gates = doc.lang.coded_gates
    if not gates:
        return True
    gate = gates.get(mention.anchor.id)
    if gate is None:
        return True
    if gate.only and hit.row.id not in gate.only:
        return False
    excluded = gate.exclude
    if excluded and (hit.row.id in excluded or hit.pattern_id in excluded):
        return False
    return not gate.corroborate or corroborated(doc, mention, gate)


def corroborated(doc: Doc, mention: Mention, gate: CodedGate) -> bool:
    """Evidence besides the predicate that the coded reading is meant: the text names
    the same group with an ordinary word, uses another (unambiguous) coded term, or
    sets the term off in a mark (scare quotes)."""
    if mention.anchor.identity_axis in doc.coded_index().axes:
        return True
    lang = doc.lang
    if work.COUNTER is not None:
        work.COUNTER.hits += len(doc.hits.coded)
    if any(lang.coded[i].gate is None for i in doc.hits.coded):
        return True
    text = doc.text
    return any(
        text.endswith(mark, 0, mention.start) and text.startswith(mark, mention.end)
        for mark in gate.marks
    )


def reference(doc: Doc, hit: Hit) -> Mention | None:
    """The group a pronoun in a hit's target slot refers to.

    By bisection over the candidates (mentions never overlap, so their starts and
    ends ascend together): a text with many pronoun hits and many mentions costs
    a logarithm per hit, not a pass over every mention (issue 13).
    """
    assert hit.t_span is not None
    t_start, t_end = hit.t_span
    if doc.lang.coded_gates:
        found = doc.references((hit.row.id, hit.pattern_id), lambda m: gate_open(doc, m, hit))
    else:
        found = doc.references(("", ""), _any_mention)
    candidates, starts, ends = found.mentions, found.starts, found.ends
    windows = doc.lang.windows
    sentence = doc.sentence_of(t_start)
    # Back: nearest mention before the slot, within the window of sentences.
    back_start, _ = doc.sentence_range(sentence - windows.reference_sentences_back, sentence)
    before = bisect.bisect_right(ends, t_start) - 1  # the last one ending by the slot
    if before >= 0 and candidates[before].start >= back_start:
        return candidates[before]
    context = doc.context_targets()
    if context:
        return context[-1]
    # Forward: "We should shoot them. They're just X after all."
    _, fwd_end = doc.sentence_range(sentence, sentence + windows.reference_sentences_forward)
    after = bisect.bisect_left(starts, t_end)  # the first one starting after the slot
    if after < len(candidates) and candidates[after].end <= fwd_end:
        return candidates[after]
    return None


def _any_mention(mention: Mention) -> bool:
    return True


def coded_target(doc: Doc, start: int, end: int, names_group: bool) -> Mention | None:
    """A coded term's own target: the group it names, else the nearest ordinary mention."""
    index = doc.coded_index()
    if names_group:
        inside = index.containing(start, end)
        if inside is not None:
            return inside
    return index.nearest_ordinary(start)
