"""Typo spellings of generated nouns and adjectives that are words of their own.

A typo-spelled lexicon entry that names a noun or adjective class takes its forms
with two neighbouring letters swapped (engine.rules.compiler, ``word_class``). A
swap that is an ordinary word ("جدران" walls, from "جردان" rats) would read that
word as the insult, so every swap that simplemma's table of the language lists
must be in the pack's ``typo_exclude``. simplemma is the dev extra's dependency,
as for ``make taxonomy-forms``.
"""

from __future__ import annotations

import re

import pytest

from engine.rules.formgen import ATTESTED, attestation
from engine.rules.load import LoadedTaxonomy, load_taxonomy
from engine.rules.variants import TypoVariants, swaps_only

_WORD_CLASS = re.compile(r"\{W:([A-Z0-9_]+(?::[a-z0-9,]+)?)\}")


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    return load_taxonomy()


def collisions(
    taxonomy: LoadedTaxonomy, code: str, exclude: list[str] | None = None
) -> set[tuple[str, str]]:
    """(swap, form) pairs whose swap is a word of the language and is not excluded
    (``exclude``: the pack's ``typo_exclude`` unless given)."""
    pack = taxonomy.packs[code]
    book = taxonomy.words(code)
    excluded = pack.typo_exclude if exclude is None else exclude
    swaps = TypoVariants(swaps_only(taxonomy.root.obfuscation), excluded)
    known = attestation(code)
    specs = {
        match.group(1)
        for entry in pack.lexicon.values()
        if entry.typo
        for term in entry.terms
        for match in _WORD_CLASS.finditer(term)
        if book.pos(match.group(1)) in ("noun", "adj")
    }
    found: set[tuple[str, str]] = set()
    for spec in specs:
        forms = book.forms(spec, "test")
        for form in forms:
            for swap in swaps.variants(form, multiword=False):
                if swap not in forms and known(swap, ""):
                    found.add((swap, form))
    return found


@pytest.mark.parametrize("code", sorted(ATTESTED))
def test_no_generated_swap_is_a_word(shipped: LoadedTaxonomy, code: str) -> None:
    if code not in shipped.packs:
        pytest.skip(f"no {code} pack")
    assert collisions(shipped, code) == set()


def test_the_check_finds_a_word(shipped: LoadedTaxonomy) -> None:
    """The check itself: without the exclusions the Arabic pack's swaps hit real words."""
    assert ("جدران", "جردان") in collisions(shipped, "ar", exclude=[])
