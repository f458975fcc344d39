"""Arabic paradigms (engine/rules/formgen/ar.py): dialect affix templates, the
circumfix negation, the colloquial passive, letter mergers and hand-listed plurals;
and the prefix-tree alternation the compiler builds from a class's forms."""

from __future__ import annotations

import pytest
import re2

from engine.rules import regex_syntax
from engine.rules.compiler import form_trie
from engine.rules.formgen import ar
from engine.rules.load import LoadedTaxonomy, load_taxonomy


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    return load_taxonomy()


@pytest.mark.parametrize(
    ("lemma", "slot", "expected"),
    [
        # dialect future markers, first person: Egyptian ه/ح, Levantine رح (with and
        # without the alif), Standard س / سوف, Maghrebi غادي
        ("قتل", "fut1", ["هقتل", "هاقتل", "حنقتل", "رح اقتل", "رح قتل", "سنقتل", "غادي نقتل"]),
        # ب-present of every person; the Standard indicative is the bare imperfect
        ("حرق", "pres3", ["بيحرق", "بيحرقوا", "بتحرق"]),
        ("حرق", "pres1", ["بحرق", "بنحرق"]),
        ("حرق", "subj3", ["يحرقون", "يحرقوا", "يحرقو"]),
        ("حرق", "subj2", ["تحرقوا", "تحرقي"]),
        # the perfect by person, plural with and without the final alif
        ("شنق", "past1", ["شنقت", "شنقنا"]),
        ("شنق", "past3", ["شنقوا", "شنقو"]),
        # colloquial passive: ات / ان before the perfect, يت / ين before the
        # imperfect, with ب, ه and ح
        ("حرق", "pass", ["اتحرق", "انحرقوا", "يتحرقوا", "هيتحرقوا", "بينحرقوا"]),
        # the م…ش circumfix, also before a phrasal verb's preposition
        ("حرق", "neg", ["ما نحرقش", "منحرقش", "مبيحرقوش", "محرقوش"]),
        ("ولع في", "neg", ["منولعش في"]),
        # imperatives: with alif for a sound root, without for form II
        ("قتل", "imp", ["اقتل", "اقتلوا", "اقتلو"]),
        ("دمر", "imp", ["دمروا", "دمر"]),
        # hollow, defective and derived stems from the table
        ("مات", "subj3", ["يموت", "يموتوا"]),
        ("مات", "past3", ["ماتوا"]),
        ("صفي", "subj3", ["يصفوا", "يصفي"]),
        ("اباد", "fut1", ["هنبيد", "سنبيد"]),
        # a hollow root's passive imperfect keeps the perfect's alif
        ("داس", "pass", ["اتداس", "ينداسوا", "هيتداسوا", "يتداس"]),
        ("اباد", "pass", ["يتباد", "هيتبادوا"]),
        ("داس", "subj1", ["ندوس", "ندوسوا"]),
        ("اغتصب", "inf", ["اغتصاب"]),
        # phrasal verbs keep their preposition after every form
        ("قضي علي", "inf", ["قضاء علي", "القضاء علي"]),
    ],
)
def test_verb_templates(lemma: str, slot: str, expected: list[str]) -> None:
    forms = ar.verb(lemma)[slot]
    for form in expected:
        assert form in forms, (form, forms[:20])


def test_persons_stay_apart() -> None:
    """A threat is first person: 'they will kill' is not among the first-person forms."""
    forms = ar.verb("قتل")
    assert "هيقتلوا" in forms["fut3"] and "هيقتلوا" not in forms["fut1"]
    assert "هنقتل" in forms["fut1"] and "هنقتل" not in forms["fut3"]
    assert "بموت" not in ar.verb("مات")["pres3"]  # "بموت في" is "I adore"


def test_letter_mergers_and_their_exclusions() -> None:
    assert {"ذبح", "دبح", "زبح"} <= set(ar.verb("ذبح")["past3"])
    assert "تعزيب" in ar.verb("عذب")["inf"]
    plural = ar.noun("ذبابه")["p"]
    assert "ذباب" in plural and "دباب" not in plural
    assert "دبابه" not in ar.noun("ذبابه")["s"]  # a tank, not a fly
    assert "قدر" not in ar.adjective("قذر")["ms"]  # "fate", not "filthy"
    assert "قدرين" in ar.adjective("قذر")["mp"]


def test_hand_listed_plurals() -> None:
    assert ar.noun("فار")["p"] == ["فئران", "فيران"]
    assert ar.noun("صرصور")["p"][0] == "صراصير"
    assert ar.noun("حشره")["p"] == ["حشرات"]  # feminine sound plural by rule
    assert "طفيليين" in ar.noun("طفيلي")["p"]
    assert "انجاس" in ar.adjective("نجس")["mp"]


@pytest.mark.parametrize("lemma", ["محا", "صفي", "قضي علي", "اباد"])
def test_no_form_ends_in_a_doubled_waw(lemma: str) -> None:
    """A stem in و takes the plural suffix as a stem in ي does (يمحوا, not يمحووا): a
    generated word ending in وو would teach normalization to keep two of an elongated
    ending ("يتدبحوووو" read "يتدبحوو", which no form matches)."""
    for slot, forms in ar.verb(lemma).items():
        for form in forms:
            assert not form.split(" ")[0].endswith("وو"), (slot, form)
    assert "نمحوا" in ar.verb("محا")["subj1"]


def test_unknown_stems_need_a_table() -> None:
    with pytest.raises(ValueError, match="STEMS"):
        ar.verb("قال")
    with pytest.raises(ValueError, match="PLURALS"):
        ar.noun("اسد")


def test_shipped_arabic_slots(shipped: LoadedTaxonomy) -> None:
    book = shipped.words("ar")
    threat = book.forms("KILL_V:fut1", "test")
    assert "هندبح" in threat and "هيدبحوا" not in threat
    with pytest.raises(Exception, match="slot"):
        book.forms("KILL_V:ms", "test")


@pytest.mark.parametrize(
    "forms",
    [
        ["tuer", "tuerons", "tue", "tues", "abc"],
        ["هقتل", "هقتلو", "هقتلوا", "هيقتلوا", "رح اقتل", "ا"],
        ["a"],
    ],
)
def test_form_trie_matches_exactly_the_forms(forms: list[str]) -> None:
    regex = re2.compile("(?:" + form_trie(forms) + ")")
    for form in forms:
        assert regex.fullmatch(form), form
    for other in ("tu", "tuero", "هقتلوه", "abcd", "", "ب"):
        assert bool(regex.fullmatch(other)) is (other in forms), other


def test_a_known_class_length_gives_the_same_minimum() -> None:
    """min_length reads a registered word-class tree as one group of its known length."""
    forms = [
        f"{a}{b}{c}{d}" for a in "abcdefgh" for b in "ijklmnop" for c in "qrst" for d in ("uv", "w")
    ]
    tree = "(?:" + form_trie(forms) + ")"
    assert len(tree) >= 2000
    texts = [f"x{tree}yz", f"(?:a|{tree}?)b", f"{tree}{{2,3}}", f"(?:{tree}|pq)r"]
    expected = [regex_syntax._min_alternation(text, 0)[0] for text in texts]
    regex_syntax.know_min_length(tree, min(len(form) for form in forms))
    assert [regex_syntax.min_length(text) for text in texts] == expected


def test_no_merge_lemmas_keep_their_letters() -> None:
    """اذي (hurt) merged would be ودي (take) and ازي (how): it keeps its ذ."""
    forms = ar.verb("اذي")
    assert "هاوذي" in forms["fut1"]
    assert not any("ود" in form or "از" in form for slot in forms.values() for form in slot)
