"""What a process compiles, and when (issue 15: fast start).

A command-line call classifies one text, so a language compiles only what that
text needs: the scan Set in the spelling its bytes need (ASCII or full Unicode),
the mention finder for the group words the scan saw, a coded term's finder when
the term is present, and no expansion at all when the compile memo of an earlier
process holds it. Each shortcut must give exactly the results of compiling
everything, which these tests check against the full forms.
"""

from __future__ import annotations

import weakref
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import engine.classifier
from engine.classifier import Classifier
from engine.pipeline import mentions as mentions_module
from engine.pipeline.language import LanguagePipeline
from engine.pipeline.scan import Scanner, _Gate, scan
from engine.rules.cache import CompileMemo, load_taxonomy_cached
from engine.rules.load import DEFAULT_TAXONOMY, LoadedTaxonomy
from engine.rules.regex_syntax import ascii_only
from engine.text import re2x

# Pieces that reach every part of the English scan: group words (plain, glued,
# misspelt, with modifiers), predicates, coded terms, negation and punctuation.
_PIECES = [
    "muslims",
    "Muslim",
    "jews",
    "jewelry",
    "immigrants",
    "migrantz",
    "black people",
    "gay men",
    "women",
    "trans",
    "muslimvermin",
    "are",
    "vermin",
    "rats",
    "should be",
    "driven out",
    "killed",
    "not",
    "never",
    "globalist",
    "globalists",
    "zog",
    "(((",
    ")))",
    "(((them)))",
    "dindu",
    "urban youth",
    "they",
    "Those",
    "all",
    "of our town",
    "mu$lims",
    "v3rm1n",
    "r@ts",
    "k1ll",
    "j3ws",
    "imm1grant5",
]
# French pieces for the French Set (the largest of the Latin-script packs).
_PIECES_FR = [
    "les",
    "musulmans",
    "juifs",
    "migrants",
    "sont",
    "des",
    "rats",
    "vermine",
    "cafards",
    "il faut",
    "les chasser",
    "tous",
    "franchement",
    "ne",
    "pas",
    "m3rde",
    "r@ts",
    "ces",
    "cesjuifs",
    "d'",
    "qu'on",
    "les tue",
]
_GAPS = ["", " ", "  ", ".", ",", "!", "-", "'", "_", "#", "@", "3", "é", "X"]


def _texts(pieces: list[str] | None = None) -> st.SearchStrategy[str]:
    return st.lists(
        st.tuples(st.sampled_from(pieces or _PIECES), st.sampled_from(_GAPS)),
        min_size=1,
        max_size=12,
    ).map(lambda parts: "".join(piece + gap for piece, gap in parts))


@pytest.mark.parametrize(
    ("source", "spelt"),
    [
        (r"(?:^|[^\pL\pN])x", r"(?:^|[^a-zA-Z0-9])x"),
        (r"[\pL\pN' -]{1,40}", r"[a-zA-Z0-9' -]{1,40}"),
        (r"a\pLb\pN", r"a[a-zA-Z]b[0-9]"),
        # A literal bracket before the boundary: the slow reading keeps it literal.
        (r"\[^\pL\pN]", r"\[^[a-zA-Z][0-9]]"),
        # An escaped backslash is not an escape of "p".
        (r"\\pL", r"\\pL"),
        (r"[]\pL]", r"[]a-zA-Z]"),
        # Other Unicode classes are kept as they are (right, only not cheaper).
        (r"x\p{Greek}\PL", r"x\p{Greek}\PL"),
        ("plain words", "plain words"),
        # Look-alike members above U+007F can never match an ASCII byte.
        ("[a4@\u0430\u03b1]", "[a4@]"),
        ("[\u0435\u20ac\u03b5]x", r"[^\x00-\x{10FFFF}]x"),  # no member left: never
        ("[^\u0430]", "(?s:.)"),  # nothing excluded: any character
        ("[\u0430^b]", r"[\^b]"),  # a caret that comes first stays a literal
        ("[a-\u0430z]", r"[a-\x7fz]"),  # a range is cut at U+007F
        ("[\\-\u0430]", r"[\-]"),
    ],
)
def test_ascii_only_spells_unicode_classes_as_ascii_ranges(source: str, spelt: str) -> None:
    assert ascii_only(source) == spelt


@pytest.fixture(scope="module")
def english(taxonomy: LoadedTaxonomy) -> LanguagePipeline:
    """A pipeline of its own: a warmed one (as the shared classifier's may be) serves
    every text with its full finder and Set, and no subset would be tested."""
    return LanguagePipeline(taxonomy, "en")


@pytest.fixture(scope="module")
def both_sets(classifier: Classifier) -> dict[str, tuple[re2x.SetMatch, re2x.SetMatch]]:
    sets = {}
    for code in ("en", "fr"):
        entries = classifier.pipeline(code).scanner.set_entries
        sets[code] = (re2x.search_set(entries), re2x.search_set([ascii_only(e) for e in entries]))
    return sets


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code_and_text=st.sampled_from(["en", "fr"]).flatmap(
        lambda code: st.tuples(st.just(code), _texts(_PIECES if code == "en" else _PIECES_FR))
    )
)
def test_the_ascii_set_answers_as_the_unicode_set_on_ascii_bytes(
    both_sets: dict[str, tuple[re2x.SetMatch, re2x.SetMatch]], code_and_text: tuple[str, str]
) -> None:
    code, text = code_and_text
    data = text.lower().encode()
    if not data.isascii():
        data = data.decode().encode("ascii", "replace")
    unicode_set, ascii_set = both_sets[code]
    assert sorted(ascii_set(data)) == sorted(unicode_set(data))


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(text=_texts())
# A coded term run into a GLUE_LEAD word ("them)))"): the lead's scan entry must cover it.
@example(text="muslims(((them)))")
@example(text="x them))) y")
def test_mentions_of_the_scanned_subset_are_those_of_every_group_word(
    english: LanguagePipeline, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every example compiles its own subset (a process stops after a few).
    monkeypatch.setattr(mentions_module, "_SUBSETS_MAX", 10**9)
    doc = scan(english, text, None, None)
    if doc is None:
        return
    finder = english.mentions
    subject = doc.subject
    assert finder.find(subject, hits=doc.hits) == finder.find(subject)
    glued_subset = finder.find_glued_and_plain(subject, doc.hits)
    assert glued_subset == finder.find_glued_and_plain(subject)
    assert finder.find(subject, glued=True, hits=doc.hits) == finder.find(subject, glued=True)


def test_a_process_stops_compiling_subsets_after_a_few(
    taxonomy: LoadedTaxonomy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mentions_module, "_SUBSETS_MAX", 2)
    lang = LanguagePipeline(taxonomy, "en")
    for text in ["muslims are vermin", "jews are rats", "immigrants are rats", "women, gays"]:
        doc = scan(lang, text, None, None)
        assert doc is not None
        doc.mentions()
    made = lang.mentions._made  # (subset or None for every word, ascii) -> finders
    assert sum(subset is not None for subset, _ in made) == 2
    assert (None, True) in made


def test_coded_finders_compile_at_their_first_match(english: LanguagePipeline) -> None:
    lazy = [info.regex for info in english.coded]
    assert lazy and all(isinstance(regex, re2x.LazyRegex) for regex in lazy)
    regex = re2x.LazyRegex(r"(?:^| )(?P<m>zog)(?: |$)", {"m": 1})
    with pytest.raises(AttributeError):
        object.__getattribute__(regex, "match")  # nothing compiled yet
    assert regex.found(b"the zog thing")
    assert regex.first_match(b"zog") == [(0, 3), (0, 3)]


def test_a_lazy_regex_checks_the_groups_it_was_promised() -> None:
    with pytest.raises(re2x.RegexError):
        re2x.LazyRegex(r"(?P<x>a)(?P<m>b)", {"m": 1}).found(b"ab")


def _pipeline_sources(lang: LanguagePipeline) -> tuple[object, ...]:
    return (
        lang.scanner.set_entries,
        [(p.pattern_id, p.full, p.filler_groups) for p in lang.patterns],
        [info.regex.pattern for info in lang.coded],
        lang.mentions._parts,
    )


@pytest.mark.parametrize("code", ["en", "fr", "ar"])
def test_a_language_built_from_the_memo_is_the_language_built_from_scratch(
    tmp_path: Path, taxonomy: LoadedTaxonomy, code: str
) -> None:
    cached = load_taxonomy_cached(DEFAULT_TAXONOMY, tmp_path)
    first = LanguagePipeline(cached, code)  # expands everything, writes the memo
    memo = CompileMemo(cached, code)
    assert memo.values, "the build wrote its memo beside the taxonomy entry"
    again = LanguagePipeline(load_taxonomy_cached(DEFAULT_TAXONOMY, tmp_path), code)
    scratch = LanguagePipeline(taxonomy, code)  # no cache: no memo
    assert _pipeline_sources(again) == _pipeline_sources(first) == _pipeline_sources(scratch)


def test_a_memo_of_another_taxonomy_is_ignored(tmp_path: Path) -> None:
    cached = load_taxonomy_cached(DEFAULT_TAXONOMY, tmp_path)
    LanguagePipeline(cached, "ha")
    assert CompileMemo(cached, "ha").values
    object.__setattr__(cached, "digest", "0" * 64)
    assert CompileMemo(cached, "ha").values == {}
    assert CompileMemo(cached, "yo").values == {}  # never built


def test_a_corrupt_memo_is_ignored(tmp_path: Path) -> None:
    cached = load_taxonomy_cached(DEFAULT_TAXONOMY, tmp_path)
    LanguagePipeline(cached, "ha")
    (memo_file,) = tmp_path.glob("*.ha.memo")
    memo_file.write_bytes(memo_file.read_bytes()[:-10])
    assert CompileMemo(cached, "ha").values == {}


def test_warm_compiles_what_serves_a_servers_every_text(
    taxonomy: LoadedTaxonomy, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A language compiled from nothing: not the one this process's other classifiers
    # share (engine.classifier._COMPILED), which earlier texts may have extended.
    monkeypatch.setattr(engine.classifier, "_COMPILED", weakref.WeakValueDictionary())
    classifier = Classifier(taxonomy)
    classifier.warm(["ha"], patterns=True)
    lang = classifier.pipeline("ha")
    assert lang.scanner._unicode is not None
    assert (None, False) in lang.mentions._made
    assert all(info._regex is not None for info in lang.patterns)
    # The full spelling then serves every text: nothing more is compiled for ASCII.
    assert classifier.classify("Inyamurai beraye ne", language="ha").language == "ha"
    assert lang.scanner._ascii is None
    assert set(lang.mentions._made) == {(None, False)}


@pytest.fixture(scope="module")
def gates(classifier: Classifier) -> dict[str, tuple[_Gate, Scanner]]:
    """Per language, the gate and the ASCII Set it stands in front of."""
    out = {}
    for code in ("en", "fr"):
        scanner = classifier.pipeline(code).scanner
        gate = _Gate(scanner._gate_parts, scanner._ascii_spelling[1])
        out[code] = (gate, scanner._build(True))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code_and_text=st.sampled_from(["en", "fr"]).flatmap(
        lambda code: st.tuples(st.just(code), _texts(_PIECES if code == "en" else _PIECES_FR))
    ),
    lowered=st.booleans(),
)
# Group words run into a lead or into each other, and only a lead.
@example(code_and_text=("en", "killallmuslims"), lowered=True)
@example(code_and_text=("fr", "cesjuifs sont"), lowered=True)
@example(code_and_text=("en", "kill all the"), lowered=False)
def test_the_gate_answers_as_the_ascii_set_or_defers_to_it(
    gates: dict[str, tuple[_Gate, Scanner]], code_and_text: tuple[str, str], lowered: bool
) -> None:
    code, text = code_and_text
    data = text.lower().encode("ascii", "replace")
    gate, full = gates[code]
    answer = gate.scan(data, lowered=lowered)
    if answer is not None:
        assert answer is full.scan(data, need_target=True, lowered=lowered)


def test_a_text_naming_no_group_compiles_only_the_gate(
    taxonomy: LoadedTaxonomy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine.classifier, "_COMPILED", weakref.WeakValueDictionary())
    fresh = Classifier(taxonomy)
    lang = fresh.pipeline("en")
    # The reference compiles its own English (classifiers otherwise share one).
    monkeypatch.setattr(engine.classifier, "_COMPILED", weakref.WeakValueDictionary())
    warmed = Classifier(taxonomy)
    warmed.warm(["en"])
    assert warmed.pipeline("en") is not lang

    def decided(classifier: Classifier, text: str) -> dict[str, object]:
        data = classifier.classify(text, language="en").to_dict()
        del data["timestamp"]
        return data

    groupless = "They are filthy and should be driven out of our town."
    assert decided(fresh, groupless) == decided(warmed, groupless)
    assert lang.scanner._gate is not None and lang.scanner._ascii is None
    named = "The muslims are filthy and should be driven out of our town."
    assert decided(fresh, named) == decided(warmed, named)
    assert decided(fresh, named)["is_harmful"]
    assert lang.scanner._ascii is not None  # it serves every ASCII text from now on
