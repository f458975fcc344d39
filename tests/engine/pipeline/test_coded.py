"""Coded terms: ambiguous forms behind their gate, and the coded-term target search.

The gate (taxonomy/dogwhistles_en.yaml, docs/taxonomy-format.md "Coded terms"): an
ambiguous form ("Skittles", "bankers") names its group only as the target of a harm
pattern, minus the rows a gate excludes as literal for the ordinary referent, and
for people-words (bankers, thugs) only with corroboration. Sentences written for
these tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.classifier import Classifier
from engine.pipeline import targets as targets_module
from engine.pipeline.doc import Doc
from engine.pipeline.mentions import Mention
from engine.pipeline.scan import scan


def _dogwhistle(classifier: Classifier, text: str) -> str | None:
    found = classifier.classify(text).dogwhistle_matched
    return found.term if found is not None else None


@pytest.mark.parametrize(
    "text",
    [
        "We bought a big bag of Skittles for the road trip.",
        "Grandpa still checks his Yahoo mail every morning.",
        "The bankers in the film wear grey suits.",
        "A clownfish darted out of the coral.",
    ],
)
def test_an_ambiguous_form_alone_names_no_group_and_is_not_reported(
    classifier: Classifier, text: str
) -> None:
    result = classifier.classify(text)
    assert not result.is_harmful
    assert result.dogwhistle_matched is None
    assert result.identity_axis is None


@pytest.mark.parametrize(
    ("text", "term", "axis"),
    [
        ("Honestly, skittles are parasites and nothing else.", "skittles", "religion"),
        ("Somebody should shoot every last jogger in this town.", "jogger", "race"),
        ("Those clownfish deserve to die.", "clownfish", "gender_identity"),
        ("I can't stand octopuses. They must all be exterminated.", "octopuses", "religion"),
    ],
)
def test_a_harm_pattern_opens_the_gate_and_the_term_is_reported(
    classifier: Classifier, text: str, term: str, axis: str
) -> None:
    result = classifier.classify(text)
    assert result.is_harmful, result.decision_rationale
    assert result.identity_axis == axis
    assert _dogwhistle(classifier, text) is not None
    assert _dogwhistle(classifier, text).lower() == term  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "text",
    [
        "Octopuses are animals with three hearts.",  # animal rows are literal for animals
        "Clownfish are vermin in a crowded reef tank.",
        "Google is garbage these days.",  # trash is an ordinary complaint about a product
        "We should get rid of Skype and use something else.",  # so is "get rid of"
        "Skittles are a plague on my teeth.",
    ],
)
def test_a_row_literal_for_the_ordinary_referent_keeps_the_gate_shut(
    classifier: Classifier, text: str
) -> None:
    result = classifier.classify(text)
    assert not result.is_harmful, result.decision_rationale
    assert result.dogwhistle_matched is None


@pytest.mark.parametrize(
    ("text", "harmful"),
    [
        ("Bankers are rats.", False),
        ("The thugs who robbed the bakery should be shot.", False),
        ('"Bankers" are rats, if you know what I mean.', True),  # scare quotes
        ("ZOG and the bankers are rats.", True),  # another, unambiguous coded term
        ("Black thugs should be shot.", True),  # the group named
    ],
)
def test_a_people_word_needs_corroboration(
    classifier: Classifier, text: str, harmful: bool
) -> None:
    assert classifier.classify(text).is_harmful is harmful


@pytest.mark.parametrize(
    ("text", "harmful", "mechanism"),
    [
        # after a copula the people-word is said of the group: the criminal predicate
        ("Those Somali lads are thugs, every one of them.", True, "criminalization"),
        ("Every Romanian man I meet is a thug.", True, "criminalization"),
        ("Pakistanis are nothing but violent gangbangers.", True, "criminalization"),
        # as a subject it is the gated coded name again, which nothing corroborates here
        ("Thugs are animals.", False, None),
        # said of one person, no group
        ("My cousin was a thug in high school.", False, None),
    ],
)
def test_a_people_word_after_a_copula_is_the_predicate(
    classifier: Classifier, text: str, harmful: bool, mechanism: str | None
) -> None:
    result = classifier.classify(text)
    assert result.is_harmful is harmful
    assert result.harm_mechanism == mechanism


def test_a_people_word_after_a_copula_is_not_a_mention(classifier: Classifier) -> None:
    """The mention finder leaves it as text (CODED_PREDICATE_LEAD), so no second group
    mark stands where the predicate is."""
    doc = scan(classifier.pipeline("en"), "Those Somali lads are thugs.", None, None)
    assert doc is not None
    named = [doc.text[m.start : m.end] for m in doc.mentions()]
    assert named and "thugs" not in named


def test_an_unambiguous_coinage_names_its_group_alone(classifier: Classifier) -> None:
    result = classifier.classify("Pajeets are vermin.")
    assert result.is_harmful
    assert result.identity_axis == "national_origin"
    assert _dogwhistle(classifier, "Pajeets are vermin.") == "Pajeets"


def test_a_singular_given_name_is_a_person_not_a_group(classifier: Classifier) -> None:
    assert not classifier.classify("Aiden should be shot for that own goal.").is_harmful
    assert classifier.classify("Aidens should be shot.").is_harmful


class _CountingList(list[Mention]):
    """A list that counts every element it hands out (iteration and indexing)."""

    visits = 0

    def __iter__(self) -> Iterator[Mention]:
        for item in super().__iter__():
            _CountingList.visits += 1
            yield item

    def __getitem__(self, index: Any) -> Any:
        _CountingList.visits += 1
        return super().__getitem__(index)


_TARGETS = Doc.targets


def _visits(classifier: Classifier, text: str, monkeypatch: pytest.MonkeyPatch) -> int:
    original = _TARGETS

    def counted(self: Doc) -> list[Mention]:
        return _CountingList(original(self))

    monkeypatch.setattr(Doc, "targets", counted)
    _CountingList.visits = 0
    classifier.classify(text)
    return _CountingList.visits


def test_a_repeated_coded_term_costs_linear_work(
    classifier: Classifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 13: every coded hit looked for its target by rescanning every mention,
    so "ZOG ZOG ..." did n * n work. The index is built once per text (a few passes
    over the mentions) and each hit bisects it."""
    small = _visits(classifier, "zog " * 200, monkeypatch)
    large = _visits(classifier, "zog " * 400, monkeypatch)
    assert small <= 5 * 200
    assert large <= 2 * small + 10


def test_the_index_finds_what_a_scan_would(classifier: Classifier) -> None:
    """Bisection gives the same target as the full scan it replaced, ties included."""
    text = "muslims zog zog jews zog   zog immigrants zog"
    lang = classifier.pipeline("en")
    doc = scan(lang, text, None, None)
    assert doc is not None
    mentions = doc.targets()
    index = targets_module.CodedIndex(mentions)
    ordinary = [m for m in mentions if m.anchor.coded is None]
    for position in range(len(text) + 1):
        expected = min(ordinary, key=lambda m: abs(m.start - position))
        assert index.nearest_ordinary(position) == expected
        inside = [m for m in mentions if m.start <= position and m.end >= position + 1]
        assert index.containing(position, position + 1) == (inside[0] if inside else None)
