"""Clause marks are found with ``str.find`` instead of the stdlib expression: the
same positions, in the same order, for any text."""

from __future__ import annotations

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
