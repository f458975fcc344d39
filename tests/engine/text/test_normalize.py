"""Normalization and the map back to original offsets (engine.normalize).

Matching runs on a folded copy of the text, but every span an analyst sees must
point into what was actually written; a wrong offset map silently misreports
evidence, and a crash on odd input turns into a 500. So the folds are pinned by
tables and the offset map by properties over arbitrary Unicode.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.rules.compiler import GROUP_MARK, MODIFIER_MARK
from engine.text.normalize import (
    _PLAIN_BLOCKS,
    _REPEAT,
    _SYMBOL_RANGES,
    Doubled,
    Normalized,
    _has_spaced,
    _needs_runs,
    _runs_filter_program,
    fold_char,
    fold_literal,
    normalize,
)

# text, expected normalized text, expected offsets (None = identity map)
FOLDS: list[tuple[str, str, str, tuple[int, ...] | None]] = [
    ("ascii fast path", "All Muslims ARE", "all muslims are", None),
    ("ascii keeps digits and symbols", "r@ts 88 $cum", "r@ts 88 $cum", None),
    ("ascii tab and newline kept", "a\tb\nc\rd", "a\tb\nc\rd", None),
    ("casefold sharp s grows", "Straße", "strasse", (0, 1, 2, 3, 4, 4, 5)),
    ("casefold greek", "ΣΑΣ", "σασ", None),
    ("dotted capital I", "İstanbul", "istanbul", None),
    ("nfkc fullwidth", "Ｍｕｓｌｉｍｓ", "muslims", None),
    ("nfkc ligature", "ﬁlthy", "filthy", (0, 0, 1, 2, 3, 4)),
    ("precomposed acute", "judíos", "judios", None),
    ("decomposed acute", "judi\u0301os", "judios", (0, 1, 2, 3, 5, 6)),
    ("yoruba dot below and grave", "ẹ̀yà", "eya", (0, 2, 3)),
    ("cyrillic yo", "ёж", "еж", None),
    ("arabic hamza on alef", "أحمد", "احمد", None),
    ("arabic alef variants", "\u0671ب\u0622ب\u0625", "ابابا", None),
    # runs of 3+ of one letter are emphasis: one letter kept, two for letters often doubled
    ("latin vowel run to one", "kiiiill", "kill", (0, 1, 5, 6)),
    ("latin consonant run to one", "killlll", "kil", (0, 1, 2)),
    ("latin run of a singly spelt letter", "verrrrmin", "vermin", (0, 1, 2, 6, 7, 8)),
    ("cyrillic run to one", "крыссссы", "крысы", (0, 1, 2, 3, 7)),
    ("arabic run to one", "لاااازم", "لازم", (0, 1, 5, 6)),
    ("arabic lam run to one", "الللاجئين", "الاجيين", (0, 1, 4, 5, 6, 7, 8)),
    ("arabic lam run in a verb", "نقتللللل", "نقتل", (0, 1, 2, 3)),
    ("double letters untouched", "كلل kill", "كلل kill", None),
    ("arabic doubled alif to one", "حشراات", "حشرات", (0, 1, 2, 3, 5)),
    ("spaced then repeated", "k i i i l l", "kill", (0, 2, 8, 10)),
    ("arabic taa marbuta", "مدرسة", "مدرسه", None),
    ("arabic tatweel", "ســلام", "سلام", (0, 3, 4, 5)),
    # a mark beside a tatweel splits a word past filters: dropped with it (issue 12 class 5)
    ("dot between tatweels", "حـ.ـرق", "حرق", (0, 4, 5)),
    ("star after a tatweel", "حـ*رق", "حرق", (0, 3, 4)),
    ("dash before a tatweel", "ح-ـرق", "حرق", (0, 3, 4)),
    ("a full stop after an elongated word stays", "حلوــ. ثم", "حلو. ثم", (0, 1, 2, 5, 6, 7, 8)),
    ("arabic harakat", "مُسْلِم", "مسلم", (0, 2, 4, 6)),
    ("arabic lam-alef ligature", "ﻻ", "لا", (0, 0)),
    ("iraqi and gulf gaf and cheh", "نحرگ چلاب", "نحرق كلاب", None),
    ("persian ve and pe in loanwords", "ڤيديو پيتزا", "فيديو بيتزا", None),
    ("hausa hooked letters", "ɓarayi ɗan ƙasa ƴan", "barayi dan kasa yan", None),
    ("zero width space", "mus\u200blim", "muslim", (0, 1, 2, 4, 5, 6)),
    ("zero width joiners and bom", "\ufeffk\u200ci\u200dl\u2060l", "kill", (1, 3, 5, 7)),
    ("bidi override and isolate", "\u202ejews\u2066", "jews", (1, 2, 3, 4)),
    ("bidi marks", "a\u200eb\u200fc", "abc", (0, 2, 4)),
    ("curly quotes and dashes", "it’s “x” a—b", 'it\'s "x" a-b', None),
    ("other spaces become a space", "a\u00a0\u00a0b", "a  b", None),
    ("spaced letters", "k i l l them", "kill them", (0, 2, 4, 6, 7, 8, 9, 10, 11)),
    ("dotted letters", "s.c.u.m", "scum", (0, 2, 4, 6)),
    ("dashed letters", "k-i-l-l", "kill", (0, 2, 4, 6)),
    ("underscored letters", "k_i_l_l", "kill", (0, 2, 4, 6)),
    ("starred letters", "k*i*l*l", "kill", (0, 2, 4, 6)),
    ("spaced capitals", "K I L L", "kill", (0, 2, 4, 6)),
    ("two single letters stay apart", "a b", "a b", None),
    (
        "spaced run after a word",
        "kill them all k i l l",
        "kill them all kill",
        (*range(15), 16, 18, 20),
    ),
    (
        "case change stops the run",
        "the next i m m i g r a n t I see",
        "the next immigrant i see",
        (*range(10), 11, 13, 15, 17, 19, 21, 23, 25, *range(26, 32)),
    ),
    ("controls dropped", "a\x00b\x01c\x7f", "abc", (0, 2, 4)),
    ("marks cannot be forged", "é\x01\x02x", "ex", (0, 3)),
    ("private use dropped", "a\ue000b", "ab", (0, 2)),
    ("empty", "", "", None),
]


@pytest.mark.parametrize(
    ("original", "text", "offsets"),
    [case[1:] for case in FOLDS],
    ids=[case[0] for case in FOLDS],
)
def test_fold(original: str, text: str, offsets: tuple[int, ...] | None) -> None:
    """Each fold the taxonomy authors rely on (docs/taxonomy-format.md) is applied."""
    result = normalize(original)
    assert result.text == text
    assert result.original == original
    assert result.offsets == offsets


def test_spaced_run_offsets_point_at_letters() -> None:
    """A joined word maps back over its separators, so the evidence shows 'k i l l'."""
    result = normalize("kill them all k i l l")
    start = result.text.rindex("kill")
    assert result.to_original(start, start + 4) == (14, 21)
    assert result.original[14:21] == "k i l l"


def test_case_change_span_excludes_pronoun() -> None:
    """'immigrant' maps to the spaced word only; the capital 'I' stays a pronoun."""
    original = "the next i m m i g r a n t I see"
    result = normalize(original)
    start = result.text.index("immigrant")
    o_start, o_end = result.to_original(start, start + len("immigrant"))
    assert original[o_start:o_end] == "i m m i g r a n t"


def test_ascii_fast_path_is_identity() -> None:
    """Plain ASCII needs no offset list: spans are the same in both texts."""
    result = normalize("These People Are Vermin")
    assert result.offsets is None
    assert result.to_original(6, 12) == (6, 12)


def test_to_original_maps_through_removed_characters() -> None:
    """A span over a word split by a zero-width space covers the invisible character."""
    result = normalize("Mus\u200bLim vermin")
    assert result.text == "muslim vermin"
    assert result.to_original(0, 6) == (0, 7)
    assert result.to_original(7, 13) == (8, 14)


def test_to_original_of_expanded_character() -> None:
    """Half of an expanded character ('ß' -> 'ss') still maps to the whole character."""
    result = normalize("Straße")
    assert result.to_original(4, 5) == (4, 5)
    assert result.to_original(5, 7) == (4, 6)


def test_to_original_at_end() -> None:
    """An empty span at the end maps to the end of the original, not past it."""
    result = normalize("ẹ̀yà")
    assert result.to_original(3, 3) == (4, 4)
    assert result.to_original(1, 1) == (2, 2)


@pytest.mark.parametrize(
    ("literal", "folded"),
    [("Judíos", "judios"), ("مدرسة", "مدرسه"), ("ɓarayi", "barayi"), ("ＫＩＬＬ", "kill")],
)
def test_fold_literal_matches_text_fold(literal: str, folded: str) -> None:
    """Pattern literals are folded like texts, so authors may write either spelling."""
    assert fold_literal(literal) == folded
    assert normalize(literal).text == folded


def test_backtick_apostrophe_folds_in_text_like_in_literals() -> None:
    """A backtick used as an apostrophe must fold the same in texts and in patterns.

    ``fold_char`` maps '`' to "'" (so a pattern literal "don`t" becomes "don't"),
    but the ASCII paths of ``normalize`` bypass that table, so the text keeps '`'
    and a pattern written with either character never matches it.
    """
    assert fold_literal("don`t") == "don't"
    assert normalize("don`t").text == "don't"
    assert normalize("é don`t").text == "e don't"


# -- properties ----------------------------------------------------------------

# Characters that exercise every branch: separators of spaced letters, controls
# (NUL and the two skeleton marks), invisible and bidi characters, combining
# marks, RTL letters, expanding characters, emoji and a lone surrogate.
_TRICKY = list(
    "aAbBkKiIlLmMsS .-_*\t\n\r\x00\x01\x02\x1f\x7f\u00a0\u200b\u200d\u202e\u2066\ufeff"
    "\u0301\u0323\u064e\u0640éẹ̀مُأةɓƙＭﬁßİΣς😀👍🏽\ue000\ud800"
)
# The backtick is left out here: its fold is pinned (and currently failing) in
# test_backtick_apostrophe_folds_in_text_like_in_literals above.
_CHARS = st.one_of(st.characters(exclude_characters="`"), st.sampled_from(_TRICKY))
_TEXTS = st.text(_CHARS, max_size=40)
_WITH_SURROGATES = st.text(
    st.one_of(st.characters(exclude_categories=()), st.sampled_from(_TRICKY)), max_size=40
)
_PROPERTY = settings(
    derandomize=True,
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _offset_map(result: Normalized) -> list[int]:
    return list(range(len(result.text))) if result.offsets is None else list(result.offsets)


@_PROPERTY
@given(_TEXTS)
def test_offsets_are_a_monotone_map_into_the_original(text: str) -> None:
    """Any text normalizes, and every normalized character has an original position."""
    result = normalize(text)
    assert result.original == text
    if result.offsets is None:
        assert len(result.text) == len(text)
    else:
        assert len(result.offsets) == len(result.text)
        assert all(a <= b for a, b in zip(result.offsets, result.offsets[1:], strict=False))
        assert all(0 <= offset < len(text) for offset in result.offsets)


@_PROPERTY
@given(_TEXTS)
def test_every_span_maps_inside_the_original(text: str) -> None:
    """``to_original`` of any normalized span is an ordered span of the original."""
    result = normalize(text)
    size = len(result.text)
    for start in range(size + 1):
        for end in range(start, size + 1):
            o_start, o_end = result.to_original(start, end)
            assert 0 <= o_start <= o_end <= len(text)


@_PROPERTY
@given(_TEXTS)
def test_each_character_comes_from_its_original(text: str) -> None:
    """The offset map points at the character that produced each normalized one."""
    result = normalize(text)
    for index, offset in enumerate(_offset_map(result)):
        assert result.text[index] in fold_char(text[offset])


@_PROPERTY
@given(_WITH_SURROGATES)
def test_no_input_forges_a_group_mark(text: str) -> None:
    """Lone surrogates (JSON allows them) don't raise, and no mark survives folding.

    The skeleton replaces group mentions by two control characters; if input
    could carry them through, a text could fake a target for a pattern.
    """
    result = normalize(text)
    assert GROUP_MARK not in result.text
    assert MODIFIER_MARK not in result.text


def _runs_exact(folded: str) -> bool:
    return _has_spaced(folded) or _REPEAT.search(folded) is not None


def test_runs_filter_finds_every_tripled_letter_of_the_listed_blocks() -> None:
    """The one-pass filter lists the letters ``_REPEAT`` counts: where the exact test
    says a run is there, the filter must match too (else a run goes uncollapsed)."""
    for low, high in ((0x00, 0x7F), *_PLAIN_BLOCKS, *_SYMBOL_RANGES, (0x3040, 0x30FF)):
        for code in range(low, high + 1):
            for text in (chr(code) * 3, f"ab {chr(code) * 4} cd", f"{chr(code) * 2} x"):
                folded = text.lower()
                if _runs_exact(folded):
                    assert _needs_runs(folded, folded.encode("utf-8", "surrogatepass")), text


@given(st.text(alphabet=st.sampled_from("aé ы.лحة-ẹ\u00e0\u4e00*_ 2"), max_size=40))
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_runs_filter_agrees_with_the_exact_test(text: str) -> None:
    assert _needs_runs(text, text.encode("utf-8", "surrogatepass")) == _runs_exact(text)


def test_emoji_and_symbols_keep_the_fast_answer() -> None:
    text = "les musulmans \U0001f600\U0001f44d\u2764 ont organis\u00e9 une f\u00eate \u2192 ok"
    assert not _runs_filter_program().found(text.encode("utf-8"))
    assert normalize(text).text == text.replace("\u00e9", "e").replace("\u00ea", "e")


def test_collapsed_run_span_covers_the_whole_run() -> None:
    """A span ending in a collapsed run ends where the run ends in the original."""
    result = normalize("they are ratsss!")
    assert result.text == "they are rats!"
    start = result.text.index("rats")
    assert result.to_original(start, start + 4) == (9, 15)
    assert result.original[9:15] == "ratsss"


@pytest.mark.parametrize(
    ("original", "text"),
    [
        ("killlll them", "kill them"),  # "il " is a doubled l of the language
        ("kiiiiilll them", "kill them"),
        ("juuuuu", "juu"),
        ("verrrrmin", "vermin"),  # no word doubles r between e and m
        ("ratsss", "rats"),
        ("الللاجئين", "اللاجيين"),
        ("نقتللللل", "نقتل"),
        ("kil them", "kil them"),  # no run: never touched
    ],
)
def test_runs_keep_two_letters_only_where_the_language_doubles_them(
    original: str, text: str
) -> None:
    doubled = Doubled(["kill", "juu", "اللاجيين"])
    assert normalize(original, doubled).text == text


def test_doubled_contexts_skip_unknown_neighbours() -> None:
    """A doubled letter next to a "*" (a word cut by regex syntax) says nothing."""
    assert Doubled(["agarr*"]).contexts == frozenset()
    assert Doubled(["*ll"]).contexts == frozenset()
    assert Doubled(["ill"]).contexts == frozenset({"il "})
