"""The morphology layer for Russian, Hausa, Igbo and Yoruba: generators and slots.

Russian forms come from pymorphy3 (a ``dev`` dependency, skipped where absent);
the Hausa, Igbo and Yoruba generators are hand-written rules and always run.
The shipped forms files are checked against their generators, so a rule change
that is not followed by ``make taxonomy-forms`` fails here before it fails at load.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.errors import PatternError
from engine.rules.formgen import generate, ha, ig, yo
from engine.rules.load import LoadedTaxonomy, load_taxonomy

TAXONOMY = Path(__file__).resolve().parents[3] / "taxonomy"


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    return load_taxonomy()


# -- Russian -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lemma", "slot", "expected"),
    [
        ("убить", "fut1", {"убью", "убьём"}),
        ("убить", "imp", {"убей", "убейте"}),
        ("убивать", "pres3", {"убивает", "убивают"}),
        ("перестрелять", "pps", {"перестрелян", "перестреляна", "перестреляно", "перестреляны"}),
        ("сдохнуть", "past", {"сдох", "сдохла", "сдохло", "сдохли"}),
        ("сдохнуть", "fut2", {"сдохнешь", "сдохнете"}),
    ],
)
def test_russian_verbs(lemma: str, slot: str, expected: set[str]) -> None:
    ru = pytest.importorskip("engine.rules.formgen.ru")
    pytest.importorskip("pymorphy3")
    assert expected <= set(ru.verb(lemma)[slot])


def test_russian_aspect_pairs_split_present_and_future() -> None:
    """The non-past of an imperfective is a present, of a perfective a future."""
    ru = pytest.importorskip("engine.rules.formgen.ru")
    pytest.importorskip("pymorphy3")
    assert "pres1" not in ru.verb("убить") and "fut1" not in ru.verb("убивать")
    # a lemma read in both aspects gets both ("перережу" and "перерезаю")
    both = ru.verb("перерезать")
    assert "перережу" in both["fut1"] and "перерезаю" in both["pres1"]
    # the present short passive ("перерезаем") is a 1st plural verb, not a participle
    assert "перерезаем" not in both.get("pps", [])


def test_russian_nouns_and_adjectives() -> None:
    ru = pytest.importorskip("engine.rules.formgen.ru")
    pytest.importorskip("pymorphy3")
    rat = ru.noun("крыса")
    assert rat["gen_p"] == ["крыс"] and rat["ins_p"] == ["крысами"] and rat["nom_s"] == ["крыса"]
    dirty = ru.adjective("грязный")
    assert {"грязные", "грязная"} <= set(dirty["nom"])
    assert dirty["short"] == ["грязен", "грязна", "грязно", "грязны"]
    assert "грязнее" in dirty["comp"]
    with pytest.raises(ValueError, match="does not know"):
        ru.noun("нелюдь")  # not in the dictionary: written by hand in the pack


def test_russian_slots_are_russian(shipped: LoadedTaxonomy) -> None:
    book = shipped.words("ru")
    assert "перестреляем" in book.forms("KILL_PF_V:fut1", "t")
    assert "убивать" in book.forms("KILL_IPF_V:inf", "t")
    assert "крысами" in book.forms("VERMIN_N:ins_p", "t")
    with pytest.raises(PatternError, match="paradigm slot 'subj' does not exist for verb"):
        book.forms("KILL_PF_V:subj", "t")  # a Romance slot
    with pytest.raises(PatternError, match="paradigm slot 'p' does not exist for noun"):
        book.forms("VERMIN_N:p", "t")


# -- Hausa, Igbo, Yoruba -------------------------------------------------------


def test_hausa_pronoun_aspect_complexes() -> None:
    kill = ha.verb("kashe")
    assert "za mu kashe" in kill["fut1"] and "za su kashe" not in kill["fut1"]
    assert {"sun kashe", "suka kashe", "an kashe"} <= set(kill["perf"])
    assert {"a kashe", "mu kashe", "ku kashe"} <= set(kill["subj"])
    assert {"suna kashe", "suna kisa"} <= set(kill["cont"])
    rat = ha.noun("maciji")
    assert rat == {"s": ["maciji"], "p": ["macizai"], "link": ["macijin", "macizain"]}
    with pytest.raises(ValueError, match="no Hausa plural"):
        ha.noun("gida")


def test_igbo_vowel_harmony() -> None:
    assert ig.verb("gbu") == {
        "base": ["gbu"],
        "inf": ["igbu"],
        "imp": ["gbuo"],
        "part": ["egbu"],
        "perf": ["gbuola"],
    }
    # the second vowel set: ị- and a- prefixes, ọ after ụ
    drive_out = ig.verb("chụpụ")
    assert drive_out["inf"] == ["ịchụpụ"] and drive_out["part"] == ["achụpụ"]
    assert drive_out["imp"] == ["chụpụọ"]
    assert ig.noun("onye ohi") == {"s": ["onye ohi"], "p": ["ndị ohi"]}


def test_yoruba_spellings() -> None:
    assert sorted(yo.spellings("eṣinṣin")) == ["eshinshin", "eshinṣin", "eṣinshin", "eṣinṣin"]
    assert yo.noun("èṣù")["p"] == ["àwọn èṣù", "àwọn èshù"]
    assert yo.verb("pa") == {"base": ["pa"]}


@pytest.mark.parametrize("code", ["ha", "ig", "yo"])
def test_shipped_forms_are_what_the_generator_writes(code: str) -> None:
    """A rule changed without `make taxonomy-forms` would leave a stale file."""
    pack = yaml.safe_load((TAXONOMY / "lang" / f"{code}.yaml").read_text(encoding="utf-8"))
    shipped = yaml.safe_load((TAXONOMY / "forms" / f"{code}.yaml").read_text(encoding="utf-8"))
    assert generate(code, pack["words"]) == shipped
