"""The one-pass scan of an ASCII text (engine.pipeline.scan.normalize_and_scan).

An ASCII text is lowercased and scanned at once; the same Set pass says whether
the text holds something only the full normalization folds (a spaced-out word,
a control character). Whatever the text, the result must be exactly what
normalizing first and scanning after gives.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Classifier
from engine.pipeline.scan import UNFOLDED, normalize_and_scan
from engine.text.normalize import normalize

_PIECES = [
    "Muslims",
    "are",
    "vermin",
    "k i l l",
    "s.c.u.m",
    "r a t s",
    "a b",
    "U.S.A",
    "they",
    "`",
    "\x00",
    "\x07",
    "\t",
    "\n",
    "1 2 3",
    "refugees",
    "ALL",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code=st.sampled_from(["en", "es", "fr"]),
    pieces=st.lists(
        st.tuples(st.sampled_from(_PIECES), st.sampled_from(["", " ", "  ", "."])), max_size=10
    ),
)
def test_the_one_pass_scan_is_normalize_then_scan(
    classifier: Classifier, code: str, pieces: list[tuple[str, str]]
) -> None:
    text = "".join(piece + gap for piece, gap in pieces)
    scanner = classifier.pipeline(code).scanner
    norm, data, hits = normalize_and_scan(scanner, text, need_target=True)
    expected = normalize(text)
    assert norm == expected
    assert data == expected.text.encode("utf-8", "surrogatepass")
    assert hits == scanner.scan(data)
    assert hits is not UNFOLDED


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Kill all r a t s", "kill all rats"),
        ("they are v e r m i n\x07", "they are vermin"),
        ("Muslims are vermin", "muslims are vermin"),
    ],
)
def test_a_text_that_needs_full_folding_gets_it(
    classifier: Classifier, text: str, folded: str
) -> None:
    scanner = classifier.pipeline("en").scanner
    unfolded = scanner.scan(text.lower().encode(), lowered=True) is UNFOLDED
    assert unfolded == (folded != text.lower())
    norm, _, _ = normalize_and_scan(scanner, text, need_target=True)
    assert norm.text == folded
