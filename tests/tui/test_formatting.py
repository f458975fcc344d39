"""The Classify screen's pure renderings: which characters get which look, and the legends.

No app runs here: ``formatting`` turns a real engine result into rich ``Text``,
and the tests check the styled offsets against the engine's own spans, for
English, Arabic (right-to-left, kept in logical order) and Yoruba written with
combining tone marks (decomposed), where a code point is not a cell.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text

from engine import Classifier
from workbench.tui.formatting import (
    contrast_colour,
    cue_markers,
    highlight,
    palette_from,
    render_spans,
    score_vs_threshold,
    short_hash,
    signal_lines,
    superscript,
    verdict_details,
    verdict_facts,
    verdict_headline,
)
from workbench.tui.themes import VARIABLE_DEFAULTS

PALETTE = palette_from(VARIABLE_DEFAULTS)
CONSOLE = Console(width=200, color_system="truecolor", force_terminal=True, legacy_windows=False)


def offsets_where(text: Text, test: Callable[[Style], bool]) -> list[int]:
    """Every code-point offset of ``text`` whose combined style passes ``test``."""
    return [i for i in range(len(text.plain)) if test(text.get_style_at_offset(CONSOLE, i))]


def is_matched(style: Style) -> bool:
    return bool(style.bold) and style.bgcolor is not None


def is_struck(style: Style) -> bool:
    return bool(style.strike)


def is_cue(style: Style) -> bool:
    return bool(style.underline)


def is_coded(style: Style) -> bool:
    return bool(style.italic)


def rendered_text_of(text: Text, test: Callable[[Style], bool]) -> str:
    """The characters the terminal draws with a style passing ``test``, in order."""
    return "".join(
        segment.text
        for segment in CONSOLE.render(text)
        if segment.style is not None and test(segment.style)
    )


def test_harmful_english_highlights_exactly_the_signal_span(classifier: Classifier) -> None:
    text = "Honestly, those migrants are vermin."
    result = classifier.classify(text, language="en")
    assert result.is_harmful
    (signal,) = result.signals_matched
    start, end = signal.span
    styled = highlight(result, text, PALETTE)
    assert styled.plain == text
    assert offsets_where(styled, is_matched) == list(range(start, end))
    assert offsets_where(styled, is_struck) == []
    severity_colour = PALETTE[f"sev-{signal.severity}"]
    assert (
        styled.get_style_at_offset(CONSOLE, start).bgcolor
        == Style.parse(f"on {severity_colour}").bgcolor
    )


def test_negated_span_is_struck_with_cue_underlined_and_legend(classifier: Classifier) -> None:
    text = "The refugees are not vermin, and saying so is wrong."
    result = classifier.classify(text, language="en")
    assert not result.is_harmful
    (signal,) = result.signals_suppressed
    assert signal.suppressed_by is not None
    cue_start, cue_end = signal.suppressed_by.cue_span
    styled = highlight(result, text, PALETTE)
    assert offsets_where(styled, is_struck) == list(range(*signal.span))
    assert offsets_where(styled, is_cue) == list(range(cue_start, cue_end))
    assert offsets_where(styled, is_matched) == []

    rendered = render_spans(result, text, PALETTE)
    body, legend = rendered.plain.split("\n")
    assert body == text[:cue_end] + "¹" + text[cue_end:]
    assert legend == '¹ negation: "not"'


def test_one_marker_per_cue_and_readable_reasons(classifier: Classifier) -> None:
    counter = "She was banned for calling migrants vermin."
    result = classifier.classify(counter, language="en")
    assert len(result.signals_suppressed) == 2
    assert len(cue_markers(result)) == 1
    lines = render_spans(result, counter, PALETTE).plain.split("\n")
    assert lines[1].startswith("¹ counter-speech: ")
    assert lines[0].count("¹") == 1

    benign = "We set traps because black rats got into the shed."
    result = classifier.classify(benign, language="en")
    lines = render_spans(result, benign, PALETTE).plain.split("\n")
    assert lines[1] == '¹ benign context: "traps"'


def test_arabic_highlight_covers_the_span_code_points(classifier: Classifier) -> None:
    text = "بصراحة المهاجرون حشرات"
    result = classifier.classify(text, language="ar")
    assert result.is_harmful
    (signal,) = result.signals_matched
    start, end = signal.span
    assert start > 0  # the opening word is outside the match
    styled = highlight(result, text, PALETTE)
    assert styled.plain == text  # logical order, nothing reordered or reshaped
    assert offsets_where(styled, is_matched) == list(range(start, end))
    assert rendered_text_of(styled, is_matched) == text[start:end]
    assert styled.cell_len == cell_len(text)


def test_yoruba_combining_marks_stay_in_the_highlight(classifier: Classifier) -> None:
    text = unicodedata.normalize("NFD", "Wọ́n sọ pé àwọn Fúlàní dà bí eku.")
    assert any(unicodedata.combining(char) for char in text)
    result = classifier.classify(text, language="yo")
    assert result.is_harmful
    (signal,) = result.signals_matched
    start, end = signal.span
    # The match starts after combining marks: code points, not cells, count here.
    assert cell_len(text[:start]) < start
    styled = highlight(result, text, PALETTE)
    assert offsets_where(styled, is_matched) == list(range(start, end))
    assert rendered_text_of(styled, is_matched) == text[start:end]
    # No tone mark is cut from its base letter at either edge of the highlight.
    assert not unicodedata.combining(text[start])
    assert end == len(text) or not unicodedata.combining(text[end])
    assert styled.cell_len == cell_len(text)


def test_coded_term_is_italic_with_its_meaning_line(classifier: Classifier) -> None:
    text = "The globalists run the media."
    result = classifier.classify(text, language="en")
    coded = result.dogwhistle_matched
    assert coded is not None
    styled = highlight(result, text, PALETTE)
    assert offsets_where(styled, is_coded) == list(range(*coded.span))
    lines = render_spans(result, text, PALETTE).plain.split("\n")
    assert lines[0] == text
    assert lines[1].startswith(f'coded term "{coded.term}" ({coded.canonical}): {coded.meaning}')
    assert lines[1].endswith(f"names {coded.identity_axis}")


def test_signal_lines_explain_every_signal(classifier: Classifier) -> None:
    text = "The globalists are not parasites."
    result = classifier.classify(text, language="en")
    lines = [line.plain for line in signal_lines(result, PALETTE)]
    assert len(lines) == len(result.signals_matched) + len(result.signals_suppressed)
    kept = result.signals_matched[0]
    assert kept.pattern_id in lines[0]
    assert f"w {kept.weight:.2f}" in lines[0]
    assert f"s {kept.score:.3f}" in lines[0]
    assert f'"{kept.matched_text}"' in lines[0]
    assert lines[-1].endswith('¹ negation: "not"')
    assert result.signals_suppressed[0].harm_mechanism in lines[-1]


def test_verdict_lines_read_the_decision(classifier: Classifier) -> None:
    result = classifier.classify("Those migrants are vermin.", language="en")
    headline = verdict_headline(result, 0.65, "ANIMALIZATION (3)", PALETTE).plain
    assert headline.strip().startswith("HARMFUL")
    assert "0.850 ≥ 0.650" in headline
    assert "animalization" in headline and "ANIMALIZATION (3)" in headline
    facts = verdict_facts(result).plain
    assert "migrant_group" in facts and "migration_status" in facts and "en (verified)" in facts
    details = verdict_details(result).plain
    assert result.content_hash[:12] + "…" in details
    assert result.content_hash not in details
    assert result.taxonomy_version in details

    benign = classifier.classify("Newcomers opened a bakery on our street.", language="en")
    assert (
        verdict_headline(benign, 0.65, "NONE (0)", PALETTE).plain.strip().startswith("NOT HARMFUL")
    )


@pytest.mark.parametrize(
    ("number", "marker"), [(1, "¹"), (2, "²"), (9, "⁹"), (10, "¹⁰"), (23, "²³")]
)
def test_superscript_markers(number: int, marker: str) -> None:
    assert superscript(number) == marker


def test_small_helpers() -> None:
    assert score_vs_threshold(0.85, 0.65) == "0.850 ≥ 0.650"
    assert score_vs_threshold(0.65, 0.65) == "0.650 ≥ 0.650"
    assert score_vs_threshold(0.45, 0.65) == "0.450 < 0.650"
    assert short_hash("a" * 64) == "a" * 12 + "…"
    assert contrast_colour("#ffffff") == "black"
    assert contrast_colour("#15171c") == "white"
    assert contrast_colour("not a colour") == "white"
    assert palette_from({"cue": "#000000"})["cue"] == "#000000"
    assert palette_from({})["sev-3"] == VARIABLE_DEFAULTS["sev-3"]
