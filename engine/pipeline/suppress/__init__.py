"""The suppressors, in the order they are asked: the first that answers wins.

This tuple is the registry: the language pipeline builds one of each per
language (and its cue presence from their declared finders), the reason names
below are what results carry, and ``engine.result.SuppressionReason`` spells
them out for the type checker and the API schema (a test keeps them equal). A
new kind of suppression is one module here and one entry in each.
"""

from __future__ import annotations

from engine.pipeline.doc import Doc, Hit
from engine.pipeline.suppress.base import Suppressor, SuppressorKind
from engine.pipeline.suppress.benign import BenignContext
from engine.pipeline.suppress.counter_speech import CounterSpeech
from engine.pipeline.suppress.negation import Negation
from engine.result import Suppression

__all__ = ["REASONS", "SUPPRESSORS", "Suppressor", "SuppressorKind", "suppress"]

SUPPRESSORS: tuple[SuppressorKind, ...] = (Negation, CounterSpeech, BenignContext)
REASONS: tuple[str, ...] = tuple(kind.reason for kind in SUPPRESSORS)


def suppress(doc: Doc, hit: Hit, suppressors: tuple[Suppressor, ...]) -> Suppression | None:
    """The first suppressor's answer for the hit, or None when it stands."""
    for suppressor in suppressors:
        found = suppressor.check(doc, hit)
        if found is not None:
            return found
    return None
