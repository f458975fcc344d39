"""The cue presence scan (engine.pipeline.cues.CuePresence) never hides a cue.

Suppression skips a windowed cue search when one scan of the whole text says
the finder's body occurs nowhere in it. That is only sound if no window can
match where the text does not: a window cut through a word ("not|hing") gives
the cue an edge of its own, but its body still has to occur in the text. These
tests check exactly that on every shipped language, with windows cut anywhere.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Classifier
from engine.languages import LANGUAGES
from engine.pipeline.cues import CueFinder
from engine.pipeline.language import LanguagePipeline
from engine.rules.load import LoadedTaxonomy
from engine.text.normalize import normalize
from engine.text.subject import Subject


def _finders(lang: LanguagePipeline) -> list[CueFinder]:
    """Every cue finder the suppressors declare, once each."""
    found: dict[int, CueFinder] = {}
    for suppressor in lang.suppressors:
        for finder in suppressor.finders:
            found.setdefault(id(finder), finder)
    return list(found.values())


def _cue_words(taxonomy: LoadedTaxonomy, code: str) -> list[str]:
    """A few cues of every kind in the pack, and the same words run into others."""
    pack = taxonomy.packs[code]
    lists = [
        pack.cues.negation,
        pack.cues.negation_exceptions,
        pack.cues.reporting,
        pack.cues.condemnation,
        pack.cues.clause_breaks,
        *(benign.cues for benign in pack.benign),
    ]
    words = [cue for cues in lists for cue in cues[:4] if "(" not in cue and "[" not in cue]
    return words + [word + "hing" for word in words[:6]] + ["k" + word for word in words[:6]]


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_finder_has_a_key_and_cue_words_are_present(
    classifier: Classifier, taxonomy: LoadedTaxonomy, code: str
) -> None:
    matcher = classifier.pipeline(code)
    finders = _finders(matcher)
    assert sorted(finder.key for finder in finders) == list(range(len(finders)))
    for finder in finders:
        if finder.empty:
            continue
        hits = [
            word
            for word in _cue_words(taxonomy, code)
            if finder.first(Subject(normalize(word).text)) is not None
        ]
        for word in hits:
            assert finder.key in matcher.cue_presence.present(Subject(normalize(word).text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), code=st.sampled_from(LANGUAGES))
def test_a_finder_absent_from_the_text_matches_no_window_of_it(
    classifier: Classifier, taxonomy: LoadedTaxonomy, data: st.DataObject, code: str
) -> None:
    words = [*_cue_words(taxonomy, code), "the", "they", "rats", "🐀", "é", ",", "."]
    pieces = data.draw(
        st.lists(st.tuples(st.sampled_from(words), st.sampled_from(["", " ", "\n"])), max_size=10)
    )
    subject = Subject(normalize("".join(word + gap for word, gap in pieces)).text)
    start = data.draw(st.integers(0, len(subject.text)))
    end = data.draw(st.integers(start, len(subject.text)))
    matcher = classifier.pipeline(code)
    present = matcher.cue_presence.present(subject)
    for finder in _finders(matcher):
        if finder.key not in present:
            assert list(finder.find_all(subject, start, end)) == [], (finder.key, subject.text)
