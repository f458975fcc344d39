"""Where a pack's words double a letter (engine.rules.doubles), for runs of a letter."""

from __future__ import annotations

import pytest

from engine.rules.doubles import doubled_words, pack_doubled
from engine.rules.load import LoadedTaxonomy
from engine.text.normalize import Doubled, normalize


def test_simple_terms_are_spelt_out() -> None:
    assert set(doubled_words([("kill(?:ed|s)?", True)])) == {"ill", "ille", "ills"}


def test_a_word_cut_by_syntax_has_an_unknown_neighbour() -> None:
    assert doubled_words([("agarr(?:ar|ando) ahora", True)]) == ["arr*"]


def test_lexicon_entries_are_stems_whose_end_is_unknown() -> None:
    """A lexicon entry may be a stem that patterns glue endings to."""
    assert doubled_words([("barr", False)]) == ["arr*"]
    assert doubled_words([("barr", True)]) == ["arr"]


@pytest.mark.parametrize(
    ("code", "original", "text"),
    [
        ("en", "we should killll them", "we should kill them"),
        ("en", "they are verrrrmin", "they are vermin"),
        ("es", "hay que matarrrr", "hay que matar"),
        ("es", "unos perrrros", "unos perros"),
        ("fr", "il faut tuerrrr", "il faut tuer"),
        ("ru", "крыссссы", "крысы"),
        ("ar", "نقتللللل", "نقتل"),
        ("yo", "juuuuu", "juu"),
    ],
)
def test_shipped_packs_choose_the_spelling_of_their_words(
    taxonomy: LoadedTaxonomy, code: str, original: str, text: str
) -> None:
    doubled: Doubled = pack_doubled(taxonomy.packs[code], taxonomy.words(code))
    assert normalize(original, doubled).text == text
