"""Clause marks are found with ``str.find`` instead of the stdlib expression: the
same positions, in the same order, for any text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.text.sentences import CLAUSE_PUNCT, Bounds, _clause_marks


@given(st.text(alphabet=st.sampled_from("ab ;:\u061b.,\u060c\n"), max_size=60))
def test_clause_marks_are_the_expression_s_matches(text: str) -> None:
    assert _clause_marks(text) == [m.start() for m in CLAUSE_PUNCT.finditer(text)]


def test_clause_start_after_the_last_mark_of_the_sentence() -> None:
    bounds = Bounds("one: two; three \u061b four")
    assert bounds.clause_start(0, 20) == 17
    assert bounds.clause_start(0, 8) == 4
    assert bounds.clause_start(10, 12) == 10


@pytest.mark.parametrize("run", ["(" * 5000, "x" * 5000, "(x" * 2500])
def test_a_words_window_reaches_back_a_bounded_number_of_characters(run: str) -> None:
    """A run without whitespace is one "word" of any length: a window of a few words
    over it stops (n + 1) * 64 characters back, after any letters it would cut, so
    every match inside a long run does not search the whole run again."""
    text = "not " + run + " vermin"
    upper = text.index(" vermin")
    start = Bounds(text).last_words_start(0, upper, 3)
    assert upper - start <= 4 * 64
    assert not text[start].isalnum() or not text[start - 1].isalnum()


def test_a_words_window_of_ordinary_words_is_unchanged() -> None:
    text = "they say that those people are not vermin at all"
    upper = text.index(" vermin")
    assert Bounds(text).last_words_start(0, upper, 3) == text.index("people")
