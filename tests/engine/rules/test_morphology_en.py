"""The morphology layer for English: LemmInflect's forms, the slots, and the pack's use.

The generator needs LemmInflect (a ``dev`` dependency, skipped where absent); the
shipped forms file is checked against it, so a lemma added without
``make taxonomy-forms`` fails here before it fails at load.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine import Classifier
from engine.errors import PatternError
from engine.rules.formgen import generate
from engine.rules.load import LoadedTaxonomy, load_taxonomy

TAXONOMY = Path(__file__).resolve().parents[3] / "taxonomy"


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    return load_taxonomy()


@pytest.mark.parametrize(
    ("lemma", "slot", "expected"),
    [
        ("shoot", "past", {"shot"}),
        ("hang", "past", {"hung", "hanged"}),
        ("stab", "ger", {"stabbing"}),
        ("nuke", "ger", {"nuking"}),
        ("lynch", "pres3", {"lynches"}),
        ("wipe out", "pp", {"wiped out"}),
        ("euthanise", "pp", {"euthanised"}),
    ],
)
def test_english_verbs(lemma: str, slot: str, expected: set[str]) -> None:
    pytest.importorskip("lemminflect")
    from engine.rules.formgen import en

    assert expected <= set(en.verb(lemma)[slot])


def test_english_irregular_plurals() -> None:
    pytest.importorskip("lemminflect")
    from engine.rules.formgen import en

    assert "lice" in en.noun("louse")["p"]


def test_shipped_english_forms_are_what_the_generator_writes() -> None:
    pytest.importorskip("lemminflect")
    pack = yaml.safe_load((TAXONOMY / "lang" / "en.yaml").read_text(encoding="utf-8"))
    shipped = yaml.safe_load((TAXONOMY / "forms" / "en.yaml").read_text(encoding="utf-8"))
    assert generate("en", pack["words"]) == shipped


def test_english_slots_are_english(shipped: LoadedTaxonomy) -> None:
    """A Romance slot in an English pattern is refused like any unknown slot."""
    book = shipped.words("en")
    assert {"shot", "hanged", "stabbed"} <= set(book.forms("KILL_V:past,pp", "t"))
    assert "torching" in book.forms("KILL_V:ger", "t")
    with pytest.raises(PatternError, match="paradigm slot 'subj' does not exist for verb"):
        book.forms("KILL_V:subj", "t")


@pytest.mark.parametrize(
    ("text", "harmful"),
    [
        ("Every last Kurd ought to be torched.", True),  # ger/pp forms no list had
        ("Those Roma need to get poisoned.", True),  # and the get-passive
        ("Torching leaves is what the Kurds next door do each autumn.", False),
    ],
)
def test_the_classes_reach_the_patterns(shipped: LoadedTaxonomy, text: str, harmful: bool) -> None:
    assert Classifier(shipped).classify(text, language="en").is_harmful is harmful
