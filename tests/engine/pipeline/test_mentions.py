"""Group mentions next to multi-byte punctuation (engine.pipeline.mentions).

The mention finder works on UTF-8 bytes with a one-character boundary on each
side. A boundary character may take several bytes (Arabic "؟" "،" "؛", « »,
"…", CJK punctuation); the group must be found whatever punctuation follows or
precedes it, in every language, and quotes or an ellipsis between the group
and its predicate must not break a pattern.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.classifier import Classifier
from engine.pipeline.scan import scan
from engine.text.normalize import fold_char

# One group word per language, as written in the shipped packs.
GROUPS = {
    "en": "muslims",
    "es": "judíos",
    "fr": "musulmans",
    "ar": "اللاجئين",
    "ru": "мигранты",
}


def _boundary(ch: str) -> bool:
    """A character that folds to something with no letter or digit in it."""
    folded = fold_char(ch)
    return bool(folded) and not any(c.isalnum() for c in folded) and not folded.isspace()


# Unassigned code points (Cn) are left out: Python and RE2 ship different Unicode
# versions, so one may call a newly assigned letter what the other calls unassigned.
_PUNCT = st.characters(
    min_codepoint=0x80,
    max_codepoint=0x2FFFF,
    blacklist_categories=("L", "N", "M", "Cn", "Cs", "Co", "Cc", "Cf", "Zs", "Zl", "Zp"),
).filter(_boundary)


def _mentions(classifier: Classifier, language: str, text: str) -> list[str]:
    doc = scan(classifier.pipeline(language), text, None, None)
    if doc is None:
        return []
    return [doc.text[m.start : m.end] for m in doc.mentions()]


@pytest.mark.parametrize("language", sorted(GROUPS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ch=_PUNCT)
def test_non_ascii_punctuation_after_a_group_keeps_it(
    classifier: Classifier, language: str, ch: str
) -> None:
    """Any non-word non-ASCII character after (or before) a group word keeps the group."""
    word = GROUPS[language]
    folded = "".join(fold_char(c) for c in word)
    assert folded in _mentions(classifier, language, f"{word}{ch} x")
    assert folded in _mentions(classifier, language, f"x {ch}{word}{ch}")


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("ar", "اللاجئين؟"),
        ("ar", "اللاجئين، والغجر؛"),
        ("ar", "«اللاجئين»"),
        ("en", "muslims¿"),
        ("en", "“muslims”"),
        ("fr", "«musulmans»"),
    ],
)
def test_arabic_and_typographic_punctuation(
    classifier: Classifier, language: str, text: str
) -> None:
    assert _mentions(classifier, language, text)


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "Muslims… are vermin"),
        ("en", "“Muslims” are vermin"),
        ("en", '"Muslims" are vermin'),
        ("fr", "Les musulmans « sont » des rats"),
        ("ar", "اللاجئين… حشرات"),
        ("ar", "«اللاجئين» حشرات"),
        ("ar", "اللاجئين، حشرات"),
    ],
)
def test_quotes_and_ellipsis_between_group_and_predicate(
    classifier: Classifier, language: str, text: str
) -> None:
    result = classifier.classify(text, language=language)
    assert result.is_harmful, result.decision_rationale
    start, end = result.signals_matched[0].span
    assert result.signals_matched[0].matched_text == text[start:end]


@pytest.mark.parametrize(
    ("text", "skeleton", "mention"),
    [
        # the negative quantifier that makes a singular noun the group stays readable
        ("ولا كردي يستاهل يعيش", "ولا \x01 يستاهل يعيش", "ولا كردي"),
        ("ولا حتي كردي يستاهل", "ولا حتي \x01 يستاهل", "ولا حتي كردي"),
        # other openings stay inside the mark
        ("كل كردي يستاهل", "\x01 يستاهل", "كل كردي"),
    ],
)
def test_mark_outside_keeps_the_quantifier_before_the_mark(
    classifier: Classifier, text: str, skeleton: str, mention: str
) -> None:
    """Pack ``mark_outside``: the opening is written before the mark in the skeleton,
    and a span over it maps back to the whole mention."""
    doc = scan(classifier.pipeline("ar"), text, None, None)
    assert doc is not None
    built, _ = doc.skeleton()
    assert built.text == skeleton
    (found,) = doc.mentions()
    assert doc.text[found.start : found.end] == mention
    assert built.to_normalized(0, len(built.text)) == (0, len(doc.text))
    assert built.to_normalized(skeleton.index("\x01"), skeleton.index("\x01") + 1) == (
        found.start,
        found.end,
    )


@pytest.mark.parametrize(
    ("text", "skeleton"),
    [
        # the glued group word "raton" opens the ordinary word: no mark
        ("une ratonnade", "une ratonnade"),
        ("une arabesque", "une arabesque"),
        # a group word run into another word is still marked
        ("des ratonsvermine", "des \x01vermine"),
    ],
)
def test_glue_exclude_keeps_ordinary_words_whole(
    classifier: Classifier, text: str, skeleton: str
) -> None:
    """Pack ``glue_exclude``: an ordinary word that begins with a group word of five
    letters or more is read whole, not as a glued mention and the rest of a word."""
    doc = scan(classifier.pipeline("fr"), text, None, None)
    assert doc is not None
    built, _ = doc.skeleton()
    assert built.text == skeleton
