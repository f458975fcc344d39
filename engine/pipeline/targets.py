"""Which group a hit targets: the mention in its slot, the group a pronoun refers to
(in the text or its context), or for a coded term the group it names or sits by."""

from __future__ import annotations

from engine.pipeline.doc import Doc, Hit
from engine.pipeline.mentions import Mention


def target(doc: Doc, hit: Hit) -> Mention | None:
    if hit.t_span is not None:
        return hit.slot or reference(doc, hit.t_span)
    return coded_target(doc, hit.start, hit.end, hit.names_group)


def reference(doc: Doc, t_span: tuple[int, int]) -> Mention | None:
    """The group a pronoun in a target slot refers to."""
    t_start, t_end = t_span
    candidates = doc.targets()
    windows = doc.lang.windows
    sentence = doc.sentence_of(t_start)
    # Back: nearest mention before the slot, within the window of sentences.
    back_start, _ = doc.sentence_range(sentence - windows.reference_sentences_back, sentence)
    before = [m for m in candidates if back_start <= m.start and m.end <= t_start]
    if before:
        return before[-1]
    context = doc.context_targets()
    if context:
        return context[-1]
    # Forward: "We should shoot them. They're just X after all."
    _, fwd_end = doc.sentence_range(sentence, sentence + windows.reference_sentences_forward)
    after = [m for m in candidates if t_end <= m.start and m.end <= fwd_end]
    return after[0] if after else None


def coded_target(doc: Doc, start: int, end: int, names_group: bool) -> Mention | None:
    mentions = doc.targets()
    if names_group:
        inside = [m for m in mentions if m.start <= start and m.end >= end]
        if inside:
            return inside[0]
    ordinary = [m for m in mentions if m.anchor.coded is None]
    if not ordinary:
        return None
    return min(ordinary, key=lambda m: abs(m.start - start))
