"""A modifier used as a bare plural noun (issue 12, class 4): the pack's NOUN_MODIFIERS
read as the group's term before a NOUN_NEXT verb, or after a NOUN_BEFORE determiner
at the end of a clause (NOUN_END); before a noun they stay adjectives."""

from __future__ import annotations

import pytest

from engine import Classifier
from engine.text.normalize import normalize
from engine.text.subject import Subject


def _kinds(classifier: Classifier, text: str) -> list[tuple[str, str]]:
    norm = normalize(text).text
    found = classifier.pipeline("en").mentions.find(Subject(norm))
    return [(norm[m.start : m.end], m.kind) for m in found]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("trans are a menace", "trans"),  # a copula next
        ("gay shouldn't be allowed near kids", "gay"),  # a modal next
        ("the retarded deserve nothing", "retarded"),  # "deserve" next
        ("get rid of all the trans.", "trans"),  # a determiner before, the clause ends
        ("nuke those japanese now", "japanese"),  # ... or a time adverb ends it
        ("all chinese are welcome here", "chinese"),  # the reading is not the verdict
    ],
)
def test_a_modifier_standing_as_a_noun_is_the_groups_term(
    classifier: Classifier, text: str, word: str
) -> None:
    assert _kinds(classifier, text) == [(word, "term")]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("trans athletes are welcome", "trans"),  # a noun follows
        ("eliminate all trans fats", "trans"),  # a determiner before, then a noun
        ("my brother is gay.", "gay"),  # the clause ends, but no determiner before it
        ("white are the walls", "white"),  # a colour word is not a NOUN_MODIFIER
    ],
)
def test_a_modifier_before_a_noun_or_without_its_context_stays_a_modifier(
    classifier: Classifier, text: str, word: str
) -> None:
    assert _kinds(classifier, text) == [(word, "modifier")]
