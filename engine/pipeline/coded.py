"""Coded-language (dogwhistle) hits, and the coded term a result reports."""

from __future__ import annotations

from dataclasses import dataclass

from engine.pipeline.doc import Doc, Hit
from engine.result import DogwhistleMatch
from engine.rules.models import Dogwhistle, Row
from engine.text import re2x


@dataclass(frozen=True, slots=True)
class CodedInfo:
    """A coded (dogwhistle) entry compiled for scanning."""

    entry: Dogwhistle
    regex: re2x.Regex
    group: int
    severity: int
    mechanism: str
    row: Row


def coded_hits(doc: Doc) -> tuple[list[Hit], DogwhistleMatch | None]:
    """Every match of the coded terms the scan saw, and the first of them as a match."""
    out: list[Hit] = []
    first: DogwhistleMatch | None = None
    for index in doc.hits.coded:
        coded = doc.lang.coded[index]
        entry = coded.entry
        row = coded.row
        seen: DogwhistleMatch | None = None
        for spans in doc.subject.finditer(coded.regex, coded.group):
            start, end = spans[coded.group]
            if seen is None:
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
                    entry.names_group,
                )
            )
        if first is None:
            first = seen
    return out, first


def coded_anchor(doc: Doc) -> DogwhistleMatch | None:
    """A coded group name used as a pattern's target counts as a dogwhistle match."""
    if not doc.lang.coded:
        return None
    for mention in doc.mentions():
        if mention.anchor.coded is not None:
            return dogwhistle_match(doc, mention.anchor.coded, mention.start, mention.end)
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
