"""Arabizi: the evidence that a Latin text is Arabic, its spelling in Arabic letters,
and the map back to the Latin characters (engine.text.arabizi).

The spelling is matched by the Arabic pack's own patterns, so a wrong offset
would report the wrong words as evidence, and a spelling of a text that is not
Arabizi (an English quote, a link) would put Arabic words into it. The offset
map is pinned by properties over arbitrary Latin text; detection by tables.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Classifier
from engine.pipeline.language import LanguagePipeline
from engine.text.arabizi import CLASS_BASE, Transliterator
from engine.text.normalize import normalize


@pytest.fixture(scope="module")
def pipeline(classifier: Classifier) -> LanguagePipeline:
    return classifier.pipeline("ar")


@pytest.fixture(scope="module")
def spelt(pipeline: LanguagePipeline) -> Transliterator:
    assert pipeline.arabizi is not None
    return pipeline.arabizi


def _plain(text: str, spelt: Transliterator) -> str:
    """The spelling with each class character shown as its letters in brackets."""
    return "".join(f"[{spelt.classes[ch]}]" if ch in spelt.classes else ch for ch in text)


@pytest.mark.parametrize(
    ("text", "arabizi"),
    [
        ("ana 3ayez a2tol", True),  # chat digits and a function word
        ("el ghagar zbala", True),  # article, then words the pack knows
        ("ento ya akrad", True),  # pronoun and vocative, no digit
        ("wallah 7aram", True),
        ("I met Ana at the cafe", False),  # a name is not evidence enough
        ("the refugees are welcome here", False),
        ("my mp3 player and a co2 sensor", False),  # codes are not chat digits
        ("covid19 cases rose in 2021", False),
        ("zbala", False),  # a known word alone is no evidence
    ],
)
def test_evidence(
    text: str, arabizi: bool, spelt: Transliterator, pipeline: LanguagePipeline
) -> None:
    norm = normalize(text)
    assert (spelt.apply(norm, pipeline.known_spelling) is not norm) is arabizi


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("3ayez", "عايز"),  # a whole word of the pack's list
        ("7asharat", "حشرا[تطث]"),  # 7 = ح; the long vowel the vocabulary knows; t is ت, ط or ث
        ("5ara", "خرا"),  # 5 = خ; final -a read as alif
        ("shee3a", "شيعه"),  # digraph sh, long ee, final -a as ة (folded ه)
        ("ghagar", "غ[جقغ]ر"),  # g is a class: Egyptian ج, Gulf ق, or غ
        ("a2tol", "ا[ءاقيو][تطث]ل"),  # initial vowel alif; 2 is a class; short o dropped
        ("sh3a", "شيعه"),  # the long vowel left out between sh and 3 is supplied
        ("klb", "[كق]لب"),  # known as written (كلب): no vowel supplied (not كلاب)
    ],
)
def test_spelling(
    word: str, expected: str, spelt: Transliterator, pipeline: LanguagePipeline
) -> None:
    text, pieces = spelt.spell(word, pipeline.known_spelling)
    assert _plain(text, spelt) == expected
    assert len(pieces) == len(text)
    assert pieces[-1][1] == len(word)  # the last letter reaches the end of the word


def test_article_is_glued_and_spans_point_into_the_latin(
    spelt: Transliterator, pipeline: LanguagePipeline
) -> None:
    original = "Ya rab, EL akrad kilab!"
    norm = spelt.apply(normalize(original), pipeline.known_spelling)
    assert _plain(norm.text, spelt) == "يا رب, الا[كق]را[دضذ] [كق]لب!"  # كلب: a word of the pack
    start = norm.text.index("ال")
    end = norm.text.index(" ", start + 3)  # the article and the noun: one word
    assert norm.to_original(start, end) == (8, 16)
    assert original[8:16] == "EL akrad"


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("الناس دي kلاب", "الناس دي [كق]لاب"),  # k is ك or ق
        ("هم حشrات", "هم حشرات"),  # r is ر
        ("المهاجرين دول كlب", "المهاجرين دول كلب"),
        ("شفت الfacebook امبارح", "شفت الfacebook امبارح"),  # a glued English word stays
    ],
)
def test_a_latin_letter_inside_an_arabic_word_is_read_as_arabic(
    original: str, expected: str, spelt: Transliterator, pipeline: LanguagePipeline
) -> None:
    """One character for one: the offsets are the text's own, with or without other
    evidence of Arabizi."""
    before = normalize(original)
    norm = spelt.apply(before, pipeline.known_spelling)
    assert _plain(norm.text, spelt) == expected
    assert len(norm.text) == len(before.text)
    assert norm.offsets == before.offsets


def test_classes_widen_only_the_arabic_pack(classifier: Classifier) -> None:
    """A class character is private-use: it is widened into ar patterns only, and
    no other language is spelt."""
    for code in ("en", "es", "fr"):
        assert classifier.pipeline(code).arabizi is None
    ar = classifier.pipeline("ar").arabizi
    assert ar is not None
    assert all(CLASS_BASE <= ord(ch) < CLASS_BASE + 64 for ch in ar.classes)


def test_arabizi_is_matched_by_the_arabic_patterns(classifier: Classifier) -> None:
    result = classifier.classify("ana ra7 a2tol kol el akrad", language="ar")
    assert result.is_harmful
    span = result.signals_matched[0].span
    assert "akrad" in "ana ra7 a2tol kol el akrad"[span[0] : span[1]]
    # the same words in another language stay Latin: "3" stays "e" there
    assert not classifier.classify("ana ra7 a2tol kol el akrad", language="en").is_harmful


_LATINISH = st.lists(
    st.sampled_from([*"abcdeghiklmnorstuwyz2356789' -.,?!AEKSY", "sh", "el ", "ya ", "é"]),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=_LATINISH)
def test_every_spelt_span_maps_inside_the_original(
    body: str, spelt: Transliterator, pipeline: LanguagePipeline
) -> None:
    original = "ana 3ayez a2tol " + body  # evidence, unless the body dilutes it
    before = normalize(original)
    norm = spelt.apply(before, pipeline.known_spelling)
    if norm is before:
        return
    assert norm.offsets is not None
    size = len(norm.text)
    previous = 0
    for i in range(size):
        start, end = norm.to_original(i, i + 1)
        assert 0 <= start < end <= len(original)
        assert start >= previous  # offsets never run backwards
        previous = start
    for start in range(0, size, 3):
        for end in range(start + 1, size + 1, 4):
            o_start, o_end = norm.to_original(start, end)
            assert 0 <= o_start <= o_end <= len(original)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=80))
def test_other_languages_are_never_spelt(text: str, classifier: Classifier) -> None:
    """Only the Arabic pipeline has a transliterator, and a text without Latin
    letters is returned as it is even there."""
    for code in ("en", "es", "fr", "ru"):
        assert classifier.pipeline(code).arabizi is None
    ar = classifier.pipeline("ar")
    assert ar.arabizi is not None
    norm = normalize(text)
    if not any("a" <= ch <= "z" for ch in norm.text):
        assert ar.arabizi.apply(norm, ar.known_spelling) is norm


@pytest.mark.parametrize("chunk", [10, 40, 1_000_000])
def test_the_vocabulary_answers_the_same_over_several_sets(
    chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pack vocabulary is cut into Sets of bounded size (the Arabic one outgrew one
    Set's budget); any of them matching is a known word, whatever the cut."""
    from engine.pipeline import arabizi

    monkeypatch.setattr(arabizi, "_VOCABULARY_CHUNK", chunk)
    words = arabizi.PackVocabulary(["كلاب", "(?:ال)?يهود", "حشر(?:ات|ه)", "قتل(?:وا|و)?", "زباله"])
    for word in ["كلاب", "اليهود", "يهود", "حشرات", "قتلوا", "زباله"]:
        assert words(word), word
    for word in ["كلب", "يهودي", "حشر", "زبال", "ناس"]:
        assert not words(word), word
