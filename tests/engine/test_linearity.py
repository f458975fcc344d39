"""Issue 13: classification is linear in the text's length, for every shape of text.

The engine counts its own work (engine.text.work: regex passes and the bytes they
scan, characters walked, and the mentions, hits, signals, cue windows and cues its
loops visit); each adversarial shape of tests/engine/adversarial.py is classified
at 2,500 and 20,000 characters and the larger may cost at most 8x the smaller
(with a little slack for the fixed parts of a text, never a power of the length).
Counts, not times: deterministic on a busy machine. ``make perf`` times the same
shapes (tests/perf/adversarial_perf.py).

Every group word of every language, every coded term and every pattern's dispatch
parts are covered deterministically; Hypothesis adds separators and mixes. The
counters are themselves tested: a stage made quadratic on purpose (a pass over
every mention or signal for each hit) must fail the same check.

The last part checks that each linear replacement answers exactly what the code
it replaced answered.
"""

from __future__ import annotations

import bisect
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.classifier
from engine import Classifier
from engine.pipeline import decide, targets
from engine.pipeline.decide import _Covers
from engine.pipeline.doc import CueSpans, Doc, Hit
from engine.pipeline.mentions import Mention
from engine.pipeline.scan import scan
from engine.result import Signal
from engine.text import work
from engine.text.normalize import _fold_each, normalize
from engine.text.sentences import Bounds, last_words_start, next_words_end
from engine.text.subject import Subject
from tests.engine.adversarial import (
    LARGE,
    SMALL,
    Components,
    components,
    pattern_shapes,
    repeat,
    shapes,
)

LANGUAGES = ("en", "fr", "es", "ar", "ru", "ig", "yo", "ha")
RATIO = LARGE / SMALL
SLACK = 1.15  # the fixed parts of a text (its last partial piece, one-off scans)
FLOOR = 2_000  # units of work any text may cost besides


def work_of(classifier: Classifier, text: str, code: str) -> work.Work:
    with work.counting() as counted:
        classifier.classify(text, language=code)
    return counted


def assert_linear(classifier: Classifier, code: str, name: str, small: str, large: str) -> None:
    assert len(small) <= SMALL and len(large) <= LARGE, name
    cost_small = work_of(classifier, small, code)
    cost_large = work_of(classifier, large, code)
    limit = RATIO * SLACK * cost_small.total() + FLOOR
    assert cost_large.total() <= limit, (
        f"{code} {name}: work {cost_small.as_dict()} at {len(small)} chars, "
        f"{cost_large.as_dict()} at {len(large)} ({cost_large.total() / cost_small.total():.1f}x)"
    )


@pytest.fixture(scope="module")
def pieces(classifier: Classifier) -> dict[str, Components]:
    return {code: components(classifier, code) for code in LANGUAGES}


def test_every_language_has_pieces(classifier: Classifier, pieces: dict[str, Components]) -> None:
    """The shapes are built from what the engine compiled, and cover all of it: a group
    word for every anchor, a piece for every coded entry, and for every pattern a
    text that makes it a candidate (so its full expression runs on the shapes)."""
    for code, parts in pieces.items():
        lang = classifier.pipeline(code)
        assert sorted(parts.anchors) == sorted(a.id for a in lang.anchors), code
        assert parts.matches, code
        assert len(parts.patterns) == len(lang.patterns), code
        for index, pattern in enumerate(parts.patterns):
            doc = scan(lang, pattern.unit, None, None)
            assert doc is not None and index in doc.hits.patterns, (code, pattern)
    english = classifier.pipeline("en")
    assert len(pieces["en"].coded_ids) == len(english.coded)
    # Multi-word coded terms come spaced and run together ("x y xy").
    assert any(" " in term for term in pieces["en"].coded_terms)


_STRUCTURAL = (
    "matches_no_break",
    "matches_commas",
    "nested_brackets",
    "nested_mixed_brackets",
    "nested_group_words",
    "nested_match_words",
    "brackets_only",
    "combining_marks",
    "marks_only",
    "mixed_scripts",
    "homoglyphs",
    "pronouns",
    "dots",
    "digits",
    "spaced_letters",
    "repeated_letter",
    "quotes",
)


@pytest.mark.parametrize("code", LANGUAGES)
def test_structural_shapes_cost_linear_work(
    classifier: Classifier, pieces: dict[str, Components], code: str
) -> None:
    """Nested brackets (plain, mixed, around words), combining marks, mixed
    scripts and homoglyphs, every matched predicate in one unbroken sentence,
    runs of dots, digits, spaced and repeated letters, quotation marks."""
    parts = pieces[code]
    small = dict(shapes(parts, SMALL))
    large = dict(shapes(parts, LARGE))
    for name in _STRUCTURAL:
        assert_linear(classifier, code, name, small[name], large[name])
    every_group = " ".join(parts.group_words)
    assert_linear(
        classifier, code, "all group words", repeat(every_group, SMALL), repeat(every_group, LARGE)
    )


_PIECES = ("group:", "coded:", "match:", "suppressed:")


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_group_word_coded_term_and_match_costs_linear_work(
    classifier: Classifier, pieces: dict[str, Components], code: str
) -> None:
    """Every group word (one per anchor), every coded term (spaced and run together),
    every matched predicate and suppressed sentence, each repeated to the length."""
    small = dict(shapes(pieces[code], SMALL))
    large = dict(shapes(pieces[code], LARGE))
    names = [name for name in small if name.startswith(_PIECES)]
    assert names
    for name in names:
        assert_linear(classifier, code, name, small[name], large[name])


@pytest.mark.slow
@pytest.mark.parametrize("code", LANGUAGES)
def test_every_pattern_component_costs_linear_work(
    classifier: Classifier, pieces: dict[str, Components], code: str
) -> None:
    """Every pattern of the language: a group word and its dispatch parts once, then
    each part repeated in a run of its own, so that the pattern's full expression
    (compiled here if nothing compiled it before) runs over every repetition."""
    small = dict(pattern_shapes(pieces[code], SMALL))
    large = dict(pattern_shapes(pieces[code], LARGE))
    assert len(small) == len(classifier.pipeline(code).patterns)
    for name, text in small.items():
        assert_linear(classifier, code, name, text, large[name])


def test_all_coded_terms_together_cost_linear_work(
    classifier: Classifier, pieces: dict[str, Components]
) -> None:
    terms = " ".join(pieces["en"].coded_terms)
    assert_linear(classifier, "en", "all coded terms", repeat(terms, SMALL), repeat(terms, LARGE))


@st.composite
def _piece(draw: st.DrawFn, pieces: dict[str, Components]) -> tuple[str, str, str, str]:
    """A language, one of its pieces (a group word, coded term, matched predicate or
    suppressed sentence) and a separator to repeat it with."""
    code = draw(st.sampled_from(LANGUAGES))
    parts = pieces[code]
    kinds = {
        "group": parts.group_words,
        "coded": parts.coded_terms,
        "match": parts.matches,
        "pattern": tuple(pattern.unit for pattern in parts.patterns),
        "suppressed": parts.suppressed,
    }
    kind = draw(st.sampled_from(sorted(k for k, found in kinds.items() if found)))
    piece = draw(st.sampled_from(kinds[kind]))
    separator = draw(st.sampled_from([" ", ", ", " (", "\n", " \u0301"]))
    return code, kind, piece, separator


@pytest.mark.slow
def test_each_piece_repeated_costs_linear_work(
    classifier: Classifier, pieces: dict[str, Components]
) -> None:
    """Hypothesis picks group words, coded terms, matched predicates, any pattern's
    group word and parts in order, and suppressed sentences of every language, and
    repeats each to the length limit with one of several separators."""

    @settings(
        max_examples=40,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(_piece(pieces))
    def check(found: tuple[str, str, str, str]) -> None:
        code, kind, piece, separator = found
        assert_linear(
            classifier,
            code,
            f"{kind} {piece!r} sep {separator!r}",
            repeat(piece, SMALL, separator),
            repeat(piece, LARGE, separator),
        )

    check()


def test_counting_is_off_unless_asked(classifier: Classifier) -> None:
    assert work.COUNTER is None
    with work.counting() as counted:
        classifier.classify("Muslims are vermin.")
        with pytest.raises(RuntimeError), work.counting():
            pass
    assert work.COUNTER is None
    assert counted.regex_calls > 0 and counted.hits >= 1 and counted.mentions >= 1
    assert counted.signals >= 1
    with work.counting() as counted:
        result = classifier.classify("Muslims are not vermin.")
    assert result.signals_suppressed and counted.windows >= 1 and counted.cues >= 1


# -- the counters catch a quadratic stage -----------------------------------------
# Each mutation makes one stage visit every mention or signal once per hit, the
# way the coded-term target search did before issue 13; the linearity check must
# then fail on a text that was linear before. Without the counters in the stages'
# loops these mutations were invisible to it.


def _index_per_hit(doc: Doc, hit: Hit) -> Mention | None:
    """``target``, with the coded-term index and the pronoun candidates rebuilt for
    every hit (a pass over every mention per hit)."""
    doc._coded_index = None
    doc._references.clear()
    return _TARGET(doc, hit)


def _scan_per_coded_hit(doc: Doc, start: int, end: int, names_group: bool) -> Mention | None:
    """``coded_target`` preceded by a loop over every mention, counted as the rule
    for new loops says (engine/text/work.py)."""
    for _ in doc.targets():
        if work.COUNTER is not None:
            work.COUNTER.mentions += 1
    return _CODED_TARGET(doc, start, end, names_group)


def _covers_per_signal(signals: list[Signal]) -> list[Signal]:
    """The benign-cue restoration with its span index rebuilt for every signal."""
    for _ in signals:
        _Covers([found.span for found in signals])
    return _RESTORE(signals)


_TARGET = engine.classifier.target
_CODED_TARGET = targets.coded_target
_RESTORE = decide._restore_benign_inside_matches
_MUTATIONS = {
    "index per hit": (engine.classifier, "target", _index_per_hit),
    "mention scan per coded hit": (targets, "coded_target", _scan_per_coded_hit),
    "span index per signal": (decide, "_restore_benign_inside_matches", _covers_per_signal),
}


@pytest.mark.parametrize(
    ("mutation", "piece"),
    [
        ("index per hit", "zog"),
        ("index per hit", "they are rats. Jews"),
        ("mention scan per coded hit", "zog"),
        ("span index per signal", "Muslims are vermin."),
    ],
)
def test_a_quadratic_stage_fails_the_check(
    classifier: Classifier, monkeypatch: pytest.MonkeyPatch, mutation: str, piece: str
) -> None:
    small, large = repeat(piece, SMALL), repeat(piece, LARGE)
    assert_linear(classifier, "en", piece, small, large)  # as the engine is
    module, name, replacement = _MUTATIONS[mutation]
    monkeypatch.setattr(module, name, replacement)
    with pytest.raises(AssertionError, match=r"at 20000 \(\d+\.\dx\)"):
        assert_linear(classifier, "en", piece, small, large)


# -- the linear replacements answer what they replace ---------------------------

_TEXT = st.text(alphabet=st.sampled_from(list('ab .,;:"\n\t\u00a0é')), max_size=40)


@given(_TEXT, st.integers(0, 45), st.integers(0, 45), st.integers(0, 5))
def test_bounds_answer_as_the_word_scans(text: str, lower: int, upper: int, count: int) -> None:
    lower, upper = min(lower, len(text)), min(upper, len(text))
    bounds = Bounds(text)
    if lower <= upper:
        assert bounds.last_words_start(lower, upper, count) == last_words_start(
            text, lower, upper, count
        )
    assert bounds.next_words_end(lower, count) == next_words_end(text, lower, count)


@given(_TEXT, st.integers(0, 45), st.integers(0, 45))
def test_clause_and_quote_bounds_answer_as_the_scans(text: str, first: int, start: int) -> None:
    first, start = sorted((min(first, len(text)), min(start, len(text))))
    bounds = Bounds(text)
    clause = first
    for punct in re.finditer(r"[;:\u061b]", text[:start]):
        if punct.start() >= first:
            clause = punct.end()
    assert bounds.clause_start(first, start) == clause
    inside = text.count('"', first, start) % 2 == 1
    assert bounds.opening_quote(first, start) == (text.rfind('"', first, start) if inside else -1)


@given(st.text(max_size=30))
def test_one_to_one_folding_is_the_per_character_fold(text: str) -> None:
    folded, reference = normalize(text), _fold_each(text)
    assert folded.text == reference.text
    assert (folded.offsets or tuple(range(len(text)))) == (
        reference.offsets or tuple(range(len(text)))
    )


@given(st.text(max_size=30), st.lists(st.integers(0, 130), max_size=12))
def test_cursor_offsets_are_the_full_maps(text: str, asked: list[int]) -> None:
    """Offsets converted from a cursor, in any order, equal the full maps."""
    cursor, full = Subject(text), Subject(text)
    full._build_maps() if not full.ascii else None
    for value in asked:
        char = min(value, len(text))
        assert cursor.byte(char) == full.byte(char)
        byte = min(value, len(cursor.data))
        assert cursor.char(byte) == full.char(byte)


_SPANS = st.lists(st.tuples(st.integers(0, 30), st.integers(1, 6)), max_size=10)


@given(_SPANS, st.integers(0, 35), st.integers(0, 35))
def test_cue_spans_answer_as_the_scans(raw: list[tuple[int, int]], start: int, end: int) -> None:
    spans: list[tuple[int, int]] = []  # non-overlapping, in order, as a finder yields them
    for s, width in sorted(raw):
        if not spans or s >= spans[-1][1]:
            spans.append((s, s + width))
    cues = CueSpans(spans)
    assert cues.overlaps(start, end) == any(s < end and start < e for s, e in spans)
    outside = [(s, e) for s, e in spans if not (s < end and start < e)]
    assert cues.first_outside(start, end) == (outside[0] if outside else None)
    # a cue masks another unless it lies strictly inside it (the longer reading wins)
    assert cues.masks(start, end) == any(
        s < end and start < e and not (start <= s and e <= end and (s, e) != (start, end))
        for s, e in spans
    )


@given(_SPANS, st.tuples(st.integers(0, 35), st.integers(0, 35)))
def test_covers_answers_as_the_scan(raw: list[tuple[int, int]], cue: tuple[int, int]) -> None:
    spans = [(s, s + w) for s, w in raw]
    covers = _Covers(spans)
    for excluded in [*spans, (99, 100)]:
        expected = any(a <= cue[0] and cue[1] <= b for a, b in spans if (a, b) != excluded)
        assert covers.covered(cue, excluded) == expected
    assert bisect.bisect_left([], 0) == 0


def _join_spaced_by_searching(folded: str, original: str, offsets: list[int]) -> str:
    """The spaced-letter join as it was: a new search from each case-change cut."""
    from engine.text.normalize import _SPACED, _case_consistent_end

    out, cursor, pos = [], 0, 0
    while (match := _SPACED.search(folded, pos)) is not None:
        start, end = match.span(1)
        end = _case_consistent_end(original, offsets, start, end)
        if end - start < 5:
            pos = match.end(1)
            continue
        out.append(folded[cursor:start] + folded[start:end:2])
        cursor = pos = end
    return "".join(out) + folded[cursor:]


_RUN = st.lists(st.sampled_from(list("aAbBxX1@é")), min_size=1, max_size=10)


@given(st.lists(st.tuples(_RUN, st.sampled_from(list(" .-_*"))), min_size=1, max_size=5))
def test_spaced_runs_are_cut_in_one_pass(runs: list[tuple[list[str], str]]) -> None:
    """Spaced-out letters with case changes ("T h e m i g r a n t s"): cutting each
    run in one pass joins exactly what searching again from every cut joined."""
    from engine.text.normalize import _join_spaced

    text = " ".join(separator.join(letters) for letters, separator in runs)
    folded = text.lower()
    offsets = list(range(len(text)))
    assert _join_spaced(folded, text, offsets).text == _join_spaced_by_searching(
        folded, text, offsets
    )
