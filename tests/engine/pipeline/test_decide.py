"""Deciding between signals that two patterns of one row found on the same words."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Classifier
from engine.pipeline.scan import scan
from engine.result import Signal, Suppression

TEXT = "Immigrants never understand anything but the stick."


def _signal(pattern_id: str, suppressed_by: Suppression | None) -> Signal:
    return Signal(
        row_id="D2.4a-015",
        harm_mechanism="direct_call_to_violence",
        weight=0.9,
        score=0.9,
        matched_text=TEXT[:-1],
        span=(0, len(TEXT) - 1),
        source="pattern",
        pattern_id=pattern_id,
        severity=4,
        identity_axis="migration_status",
        target_type="migrant_group",
        suppressed_by=suppressed_by,
    )


NEGATED = _signal("D2.4a-015:en:0", Suppression("negation", "never", (11, 16)))
ASSERTED = _signal("D2.4a-015:en:1", None)


@pytest.mark.parametrize(
    "signals", [[NEGATED, ASSERTED], [ASSERTED, NEGATED]], ids=["negated-first", "asserted-first"]
)
def test_the_unsuppressed_reading_of_the_same_words_stands(
    classifier: Classifier, signals: list[Signal]
) -> None:
    """A pattern that writes the negation into the harm is not undone by a broader
    pattern of the same row whose filler took that negation as a cue, whatever the
    order the patterns come in."""
    doc = scan(classifier.pipeline("en"), TEXT, None, None)
    assert doc is not None
    result = classifier._decider.decide(doc, [replace(s) for s in signals], None)
    assert result.is_harmful
    assert result.matched_pattern == "D2.4a-015:en:1"
    assert result.signals_suppressed == ()
    assert [s.pattern_id for s in result.signals_matched] == ["D2.4a-015:en:1"]


def test_two_suppressed_readings_of_the_same_words_stay_one_suppressed_signal(
    classifier: Classifier,
) -> None:
    doc = scan(classifier.pipeline("en"), TEXT, None, None)
    assert doc is not None
    other = replace(NEGATED, pattern_id="D2.4a-015:en:2")
    result = classifier._decider.decide(doc, [replace(NEGATED), other], None)
    assert not result.is_harmful
    assert [s.pattern_id for s in result.signals_suppressed] == ["D2.4a-015:en:0"]
