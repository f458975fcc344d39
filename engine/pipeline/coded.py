"""Coded-language (dogwhistle) hits, and the coded term a result reports.

A coded term with a common ordinary sense ("Skittles", "bankers") is an
*ambiguous* form: its own signal needs an ordinary group anchor, and it names its
group only where its gate lets a harm pattern take it as target
(``engine.pipeline.targets.gate_open``); it is reported only then.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.pipeline.doc import Doc, Hit
from engine.result import DogwhistleMatch
from engine.rules.models import CodedGate, Dogwhistle, Row
from engine.text import re2x, work


@dataclass(frozen=True, slots=True)
class CodedInfo:
    """A coded (dogwhistle) entry compiled for scanning."""

    entry: Dogwhistle
    regex: re2x.Regex
    group: int
    severity: int
    mechanism: str
    row: Row
    gate: CodedGate | None = None  # set for the entry's ambiguous forms


def coded_hits(doc: Doc) -> tuple[list[Hit], DogwhistleMatch | None]:
    """Every match of the coded terms the scan saw, and the first of them as a match."""
    out: list[Hit] = []
    first: DogwhistleMatch | None = None
    for index in doc.hits.coded:
        coded = doc.lang.coded[index]
        entry = coded.entry
        row = coded.row
        seen: DogwhistleMatch | None = None
        gated = coded.gate is not None
        names_group = entry.names_group and not gated
        for spans in doc.subject.finditer(coded.regex, coded.group):
            start, end = spans[coded.group]
            if seen is None and not gated:
                seen = dogwhistle_match(doc, entry, start, end)
            out.append(
                Hit(
                    start,
                    end,
                    row,
                    entry.weight,
                    "dogwhistle",
                    f"{row.id}:dw:{entry.id}",
                    coded.severity,
                    None,
                    None,
                    [],
                    names_group,
                )
            )
        if first is None:
            first = seen
    if work.COUNTER is not None:
        work.COUNTER.hits += len(out)
    return out, first


def coded_anchor(doc: Doc) -> DogwhistleMatch | None:
    """A coded group name used as a pattern's target counts as a dogwhistle match.

    An ambiguous form counts only once its gate let a hit take it as target (the
    targets stage records those); on its own it is most likely its ordinary sense.
    """
    if not doc.lang.coded:
        return None
    gates = doc.lang.coded_gates
    opened: set[tuple[int, int]] | None = None  # built only when a coded mention asks
    counter = work.COUNTER
    for mention in doc.mentions():
        if counter is not None:
            counter.mentions += 1
        coded = mention.anchor.coded
        if coded is None:
            continue
        if mention.anchor.id in gates:
            if opened is None:
                opened = doc.coded_index().opened
            if (mention.start, mention.end) not in opened:
                continue
        return dogwhistle_match(doc, coded, mention.start, mention.end)
    return None


def dogwhistle_match(doc: Doc, entry: Dogwhistle, start: int, end: int) -> DogwhistleMatch:
    span, term = doc.original(start, end)
    return DogwhistleMatch(
        term=term,
        canonical=entry.canonical,
        meaning=entry.meaning,
        identity_axis=entry.identity_axis,
        row_id=entry.row,
        span=span,
    )
