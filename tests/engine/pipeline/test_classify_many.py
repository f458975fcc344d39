"""Classifier.classify_many: step by step over many texts, each result exactly classify's.

The batch route classifies through it, so any difference would be a difference
between POST /classify/ and POST /classify/batch for the same text.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Classifier
from tests.perf.corpus import build_corpus

DATA = Path(__file__).resolve().parents[2] / "data"
CONTEXTS = [None, None, None, "Refugees arrived in town today.", "Las mujeres votaron ayer."]
LANGUAGES = [None, "en", "es", "fr", "ru", "ar", "ig", "yo", "ha", "xx", "EN-gb"]


def _case_items() -> list[tuple[str, str | None, str | None]]:
    """Every case table text in its own language, the way the case tests send it."""
    items: list[tuple[str, str | None, str | None]] = []
    for path in sorted(DATA.glob("cases_*.yaml")):
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        items.extend((case["text"], None, table["language"]) for case in table["cases"])
    return items


def _as_dicts(
    classifier: Classifier, items: list[tuple[str, str | None, str | None]]
) -> list[dict[str, Any]]:
    return [
        classifier.classify(text, context=context, language=language).to_dict()
        for text, context, language in items
    ]


def test_every_case_table_text_gets_classifys_result(classifier: Classifier) -> None:
    items = _case_items()
    assert len(items) > 500
    many = [result.to_dict() for result in classifier.classify_many(items)]
    assert many == _as_dicts(classifier, items)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_mixed_batch_gets_classifys_results(classifier: Classifier, seed: int) -> None:
    """Texts, contexts and languages (unknown ones too) mixed at random within one batch."""
    chooser = random.Random(seed)
    texts = build_corpus()[:150] + [text for text, _, _ in _case_items()][::7]
    items = [
        (text, chooser.choice(CONTEXTS), chooser.choice(LANGUAGES))
        for text in chooser.sample(texts, 120)
    ]
    many = [result.to_dict() for result in classifier.classify_many(items)]
    assert many == _as_dicts(classifier, items)


def test_no_items_no_results(classifier: Classifier) -> None:
    assert classifier.classify_many([]) == []


@pytest.mark.parametrize(
    ("item", "error"),
    [
        (("", None, None), ValueError),
        ((None, None, None), TypeError),
        (("text", 3, None), TypeError),
        (("text", None, 5), TypeError),
    ],
)
def test_an_invalid_item_raises_as_classify_does(
    classifier: Classifier, item: tuple[Any, Any, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        classifier.classify_many([("Muslims are vermin.", None, None), item])
