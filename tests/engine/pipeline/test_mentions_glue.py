"""Group words run into a neighbour by a missing space, in Arabic script (issue 12,
class 4): a group word with the article run into the next word, a demonstrative
run into the group word; and the common words that only look like either."""

from __future__ import annotations

import pytest

from engine import Classifier
from engine.text.normalize import normalize
from engine.text.subject import Subject


def _mentioned(classifier: Classifier, text: str, *, glued: bool, code: str = "ar") -> list[str]:
    norm = normalize(text).text
    found = classifier.pipeline(code).mentions.find(Subject(norm), glued=glued)
    return [norm[m.start : m.end] for m in found]


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("المسيحيينقرود", "المسيحيين"),  # run into the predicate
        ("والصهاينهكلاب", "والصهاينه"),  # with a proclitic
        ("اليهودالحشرات", "اليهود"),  # into a predicate with its own article
    ],
)
def test_arabic_group_word_run_into_the_next_word_marks_the_skeleton(
    classifier: Classifier, text: str, word: str
) -> None:
    assert _mentioned(classifier, text, glued=True) == [word]
    assert _mentioned(classifier, text, glued=False) == []  # never a target alone


@pytest.mark.parametrize(
    "text",
    [
        "العربات",  # carts: the Arabs + a plural suffix
        "الاكرادستان",  # a group word and a place-name suffix
        "البيضاوي",  # oval: "the whites" + an adjective suffix
        "الغجريات",  # a group word and a plural suffix
        "الهندسه",  # engineering: two letters left
        "يهودحشرات",  # no article: too short and too common a start
    ],
)
def test_arabic_words_that_only_start_with_a_group_word_are_not_glued(
    classifier: Classifier, text: str
) -> None:
    assert _mentioned(classifier, text, glued=True) == []


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("دولالغجر", "الغجر"),
        ("هدولالمسيحيين", "المسيحيين"),
        ("كلاليهود", "اليهود"),
    ],
)
def test_demonstrative_run_into_the_group_word(
    classifier: Classifier, text: str, word: str
) -> None:
    assert _mentioned(classifier, text, glued=False) == [word]


@pytest.mark.parametrize("text", ["دولار", "ديانات", "كلامهم", "دولارات اليهود"])
def test_words_starting_like_a_demonstrative_are_not_split(
    classifier: Classifier, text: str
) -> None:
    found = _mentioned(classifier, text, glued=False)
    assert found == (["اليهود"] if "اليهود" in text else [])


def test_a_rejected_run_together_piece_does_not_hide_a_later_group_word(
    classifier: Classifier,
) -> None:
    """A longer piece that starts earlier but is not a mention (a vocative and a group
    word run into another letter) must not swallow the group word inside it."""
    assert _mentioned(classifier, "يا بهائيين", glued=True) == ["بهاين"]


@pytest.mark.parametrize(
    ("code", "text", "word"),
    [
        ("fr", "les musulmanssont des rats", "musulmans"),
        ("fr", "les kurdessont des rats", "kurdes"),
        ("en", "muslimssuck", "muslims"),
    ],
)
def test_a_doubled_spelling_does_not_swallow_the_next_words_first_letter(
    classifier: Classifier, code: str, text: str, word: str
) -> None:
    """The doubled spelling of a name ("musulmanss") is longer than the name, so
    longest-first matching would take the first letter of the word run into it;
    the name is cut back to its plain spelling, and the next word keeps its letter."""
    assert _mentioned(classifier, text, glued=True, code=code) == [word]


def test_a_doubled_spelling_before_a_space_is_kept_whole(classifier: Classifier) -> None:
    """Only a name run into the next word is cut back: before a space the doubled
    spelling is the whole mention ("Kurdess sont")."""
    assert _mentioned(classifier, "les kurdess sont des rats", glued=True, code="fr") == ["kurdess"]


@pytest.mark.parametrize(
    ("code", "text", "word"),
    [
        ("en", "kill the oromos now", "oromos"),
        ("en", "the amharas must go", "amharas"),
        ("en", "the kikuyus again", "kikuyus"),
    ],
)
def test_a_bounded_group_word_beats_a_collective_run_into_its_plural(
    classifier: Classifier, code: str, text: str, word: str
) -> None:
    """A collective ("the oromo") is leftmost in "the oromos", but only run into the
    plural's last letter; the plural that overlaps it ends at a boundary, so the
    plural is the mention, in the glued search as in the plain one, and the pattern
    after it is not left to read a stray "s"."""
    assert _mentioned(classifier, text, glued=True, code=code) == [word]
    assert _mentioned(classifier, text, glued=False, code=code) == [word]
