"""The classification result contract (SPEC sections 2 and 3) and bad input."""

from __future__ import annotations

import hashlib
import re
import shutil
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Classification, Classifier, LoadedTaxonomy, load_taxonomy
from engine.result import fast_timestamp, format_timestamp
from engine.text.sentences import SENTENCE_END as _SENTENCE_END
from tests.contract import RESULT_FIELDS

HARM = re.compile(
    r"^HARM DETECTED: (\w+) targeting (\w+)\. Confidence (\d\.\d{3}) >= threshold (\d\.\d{3})\. "
    r"Matched row (D2\.4a-\d{3})\.$"
)

# What a result records when no text-analytics provider is configured.
NOT_CONFIGURED = {
    "factor": 1.0,
    "provider": None,
    "model_version": None,
    "skipped_reason": "not_configured",
}


def test_harmful_result_has_every_field(classifier: Classifier) -> None:
    result = classifier.classify("Muslims are vermin.")
    data = result.to_dict()
    assert set(data) == RESULT_FIELDS
    assert data["is_harmful"] is True
    assert data["harm_category"] == "dehumanization"
    assert data["harm_mechanism"] == "animalization"
    assert data["identity_axis"] == "religion"
    assert data["target_type"] == "religious_group"
    assert data["confidence"] == 0.85
    assert data["matched_pattern"].startswith("D2.4a-001:en:")
    assert data["counter_narrative_guidance"]
    assert data["taxonomy_version"] == "1.0.0"
    assert data["language"] == "en" and data["language_confidence"] == "verified"
    assert data["timestamp"] == "2026-01-02T03:04:05.678901Z"
    assert data["amplification"] == NOT_CONFIGURED
    match = HARM.match(data["decision_rationale"])
    assert match is not None, data["decision_rationale"]
    assert match.groups() == ("animalization", "religion", "0.850", "0.650", "D2.4a-001")


@pytest.mark.parametrize(
    ("language", "note"), [(None, ""), ("xx", " Language 'xx' not recognized; fell back to en.")]
)
def test_a_text_naming_no_group_has_every_field_of_the_empty_result(
    classifier: Classifier, language: str | None, note: str
) -> None:
    text = "The train was late again, third time this week."
    result = classifier.classify(text, language=language)
    assert result.severity == 0
    assert result.to_dict() == {
        "is_harmful": False,
        "harm_category": "none",
        "confidence": 0.0,
        "target_type": None,
        "identity_axis": None,
        "harm_mechanism": None,
        "signals_matched": [],
        "signals_suppressed": [],
        "decision_rationale": "NO HARM: no identity-group target found." + note,
        "taxonomy_version": "1.0.0",
        "language": "en",
        "language_confidence": "verified",
        "language_detected": None,
        "dogwhistle_matched": None,
        "counter_narrative_guidance": None,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        "matched_pattern": None,
        "amplification": NOT_CONFIGURED,
        "timestamp": "2026-01-02T03:04:05.678901Z",
    }


def test_a_harmful_text_has_every_field_of_its_result(classifier: Classifier) -> None:
    """Each field in its place: the result is built positionally on the hot path."""
    text = "Honestly, Muslims are vermin."
    result = classifier.classify(text)
    mechanism = classifier.root.mechanisms["animalization"]
    assert result.severity == mechanism.severity
    assert result.to_dict() == {
        "is_harmful": True,
        "harm_category": "dehumanization",
        "confidence": 0.85,
        "target_type": "religious_group",
        "identity_axis": "religion",
        "harm_mechanism": "animalization",
        "signals_matched": [
            {
                "row_id": "D2.4a-001",
                "harm_mechanism": "animalization",
                "weight": 0.85,
                "score": 0.85,
                "matched_text": "Muslims are vermin",
                "span": [10, 28],
                "source": "pattern",
                "pattern_id": "D2.4a-001:en:0",
            }
        ],
        "signals_suppressed": [],
        "decision_rationale": (
            "HARM DETECTED: animalization targeting religion. "
            "Confidence 0.850 >= threshold 0.650. Matched row D2.4a-001."
        ),
        "taxonomy_version": "1.0.0",
        "language": "en",
        "language_confidence": "verified",
        "language_detected": None,
        "dogwhistle_matched": None,
        "counter_narrative_guidance": mechanism.guidance,
        "content_hash": hashlib.sha256(text.encode()).hexdigest(),
        "matched_pattern": "D2.4a-001:en:0",
        "amplification": NOT_CONFIGURED,
        "timestamp": "2026-01-02T03:04:05.678901Z",
    }


def test_a_text_naming_a_group_harmlessly_keeps_the_target_fields(
    classifier: Classifier,
) -> None:
    result = classifier.classify("Trois musulmans ont été élus au conseil.", language="fr")
    assert result.severity == 0
    expected = {
        "is_harmful": False,
        "harm_category": "none",
        "confidence": 0.0,
        "target_type": "religious_group",
        "identity_axis": "religion",
        "harm_mechanism": None,
        "signals_matched": [],
        "signals_suppressed": [],
        "decision_rationale": "NO HARM: no harm pattern matched for the religion target.",
        "language": "fr",
        "dogwhistle_matched": None,
        "counter_narrative_guidance": None,
        "matched_pattern": None,
    }
    assert {key: result.to_dict()[key] for key in expected} == expected


def test_signal_elements(classifier: Classifier) -> None:
    text = "Honestly, Muslims are vermin."
    signal = classifier.classify(text).to_dict()["signals_matched"][0]
    assert set(signal) == {
        "row_id",
        "harm_mechanism",
        "weight",
        "score",
        "matched_text",
        "span",
        "source",
        "pattern_id",
    }
    start, end = signal["span"]
    assert text[start:end] == signal["matched_text"] == "Muslims are vermin"
    assert signal["source"] == "pattern"
    assert signal["weight"] == signal["score"] == 0.85


def test_suppressed_signal_names_reason_cue_and_span(classifier: Classifier) -> None:
    text = "Muslims are not vermin."
    result = classifier.classify(text)
    assert not result.is_harmful
    suppressed = result.to_dict()["signals_suppressed"][0]
    cue = suppressed["suppressed_by"]
    assert cue["reason"] == "negation" and cue["cue"] == "not"
    assert text[cue["cue_span"][0] : cue["cue_span"][1]] == "not"
    assert result.decision_rationale == "NO HARM: all 1 match suppressed by negation ('not')."
    assert result.confidence == 0.0
    assert result.harm_category == "none"
    assert result.identity_axis == "religion"


@pytest.mark.parametrize(
    ("text", "rationale"),
    [
        ("What a lovely morning.", "NO HARM: no identity-group target found."),
        ("You are a rat.", "NO HARM: no identity-group target found."),
        ("I love Muslims.", "NO HARM: no harm pattern matched for the religion target."),
    ],
)
def test_no_harm_rationales(classifier: Classifier, text: str, rationale: str) -> None:
    result = classifier.classify(text)
    assert not result.is_harmful
    assert result.decision_rationale == rationale
    assert result.harm_mechanism is None and result.matched_pattern is None
    assert result.counter_narrative_guidance is None


def test_below_threshold_rationale(classifier: Classifier) -> None:
    result = classifier.classify("Never trust a Muslim.")
    assert not result.is_harmful
    assert result.decision_rationale == "NO HARM: Confidence 0.600 < threshold 0.650."
    assert result.confidence == 0.6
    assert result.signals_matched


def test_spans_point_into_the_original_text(classifier: Classifier) -> None:
    text = "Ｍｕｓｌ\u200bｉｍｓ  are   v3rmin!!"
    result = classifier.classify(text)
    assert result.is_harmful
    signal = result.signals_matched[0]
    assert text[signal.span[0] : signal.span[1]] == signal.matched_text
    assert signal.matched_text.startswith("Ｍ") and signal.matched_text.endswith("v3rmin")


def test_content_hash_is_sha256_of_the_submitted_text(classifier: Classifier) -> None:
    text = "  Müslims are vermin \n"
    expected = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert classifier.classify(text).content_hash == expected


def test_same_text_same_decision(classifier: Classifier) -> None:
    first = classifier.classify("Immigrants should all be killed.").to_dict()
    second = classifier.classify("Immigrants should all be killed.").to_dict()
    assert first == second


@pytest.mark.parametrize("code", ["xx", "klingon", "zz-ZZ"])
def test_unknown_language_falls_back_to_english(classifier: Classifier, code: str) -> None:
    result = classifier.classify("Muslims are vermin.", language=code)
    assert result.language == "en"
    assert result.is_harmful
    assert result.decision_rationale.endswith(
        f" Language '{code}' not recognized; fell back to en."
    )


def test_language_subtags_and_case(classifier: Classifier) -> None:
    assert classifier.classify("hola", language="ES-mx").language == "es"


@pytest.mark.parametrize(
    ("code", "confidence"),
    [("en", "verified"), ("es", "verified"), ("fr", "verified"), ("ar", "verified")]
    + [(c, "experimental") for c in ("ru", "ig", "yo", "ha")],
)
def test_language_confidence(classifier: Classifier, code: str, confidence: str) -> None:
    assert classifier.classify("hello", language=code).language_confidence == confidence


def test_coded_group_name_anchors_and_is_reported(classifier: Classifier) -> None:
    result = classifier.classify("The globalists are parasites.")
    assert result.is_harmful
    assert result.identity_axis == "religion"
    assert result.dogwhistle_matched is not None
    assert result.dogwhistle_matched.canonical == "globalist"


def test_coded_stance_term_needs_an_ordinary_anchor(classifier: Classifier) -> None:
    alone = classifier.classify("The day of the rope is coming.")
    assert not alone.is_harmful
    assert alone.dogwhistle_matched is not None
    # The group named beside the term, not as the object of a threat pattern ("… is
    # coming for the X" is one now): the stance term's own signal decides.
    anchored = classifier.classify("The day of the rope is coming, and the immigrants know it.")
    assert anchored.is_harmful
    assert anchored.harm_mechanism == "direct_call_to_violence"
    assert anchored.signals_matched[0].source == "dogwhistle"


def test_pronoun_refers_back_to_the_group(classifier: Classifier) -> None:
    result = classifier.classify("I can't stand refugees. They are parasites.")
    assert result.is_harmful and result.identity_axis == "migration_status"
    unanchored = classifier.classify("I can't stand my boss. They are parasites.")
    assert not unanchored.is_harmful


def test_context_supplies_the_group_for_a_pronoun(classifier: Classifier) -> None:
    result = classifier.classify(
        "They are parasites.", context="Thread: refugees arriving this week"
    )
    assert result.is_harmful and result.identity_axis == "migration_status"


def test_ambiguity_highest_score_wins(classifier: Classifier) -> None:
    result = classifier.classify("Muslims are vermin and should all be killed.")
    assert result.harm_mechanism == "direct_call_to_violence"
    rows = {s.row_id for s in result.signals_matched}
    assert {"D2.4a-001", "D2.4a-013"} <= rows


def test_tie_goes_to_lower_severity_then_lower_row(taxonomy: LoadedTaxonomy) -> None:
    # D2.4a-001 (animalization, sev 3) and D2.4a-006 (objectification, sev 2) both
    # weigh 0.85 in the shipped taxonomy: the lower severity must win the tie.
    weights = {row.id: row.weight for row in taxonomy.root.rows}
    assert weights["D2.4a-001"] == weights["D2.4a-006"]
    result = Classifier(taxonomy).classify("Immigrants are subhuman vermin.")
    assert {s.row_id for s in result.signals_matched} >= {"D2.4a-001", "D2.4a-006"}
    assert result.harm_mechanism == "objectification"


# -- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize("value", [None, 42, b"bytes", ["list"]])
def test_non_string_text_is_a_type_error(classifier: Classifier, value: object) -> None:
    with pytest.raises(TypeError, match="text must be a string"):
        classifier.classify(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_empty_text_is_a_value_error(classifier: Classifier, value: str) -> None:
    with pytest.raises(ValueError, match=r"text must not be empty \(1 to 20000 characters\)"):
        classifier.classify(value)


def test_text_over_the_limit_names_field_and_limit(classifier: Classifier) -> None:
    with pytest.raises(ValueError, match=r"text is 20001 characters; the limit is 20000"):
        classifier.classify("a" * 20_001)


def test_context_over_the_limit(classifier: Classifier) -> None:
    with pytest.raises(ValueError, match=r"context is 20001 characters; the limit is 20000"):
        classifier.classify("hello", context="a" * 20_001)


def test_text_at_the_limit_classifies(classifier: Classifier) -> None:
    text = ("Refugees are parasites. " * 1000)[:20_000]
    result = classifier.classify(text)
    assert result.is_harmful


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.text(min_size=1, max_size=400).filter(lambda t: t.strip()))
def test_any_unicode_classifies(classifier: Classifier, text: str) -> None:
    result = classifier.classify(text)
    assert isinstance(result, Classification)
    for signal in (*result.signals_matched, *result.signals_suppressed):
        assert 0 <= signal.span[0] <= signal.span[1] <= len(text)
        assert text[signal.span[0] : signal.span[1]] == signal.matched_text


@pytest.mark.parametrize(
    "text",
    [
        "Muslims\x00 are vermin",
        "مسلمون 🙂 are vermin ‮",
        "e\u0301\u0301\u0301 " * 50,
        "\ud800 lone surrogate",
        "\x01\x02 forged marks are vermin",
    ],
)
def test_awkward_unicode(classifier: Classifier, text: str) -> None:
    result = classifier.classify(text)
    assert len(result.content_hash) == 64


def test_warm_compiles_languages_and_optionally_patterns(taxonomy: LoadedTaxonomy) -> None:
    fresh = Classifier(taxonomy)
    fresh.warm(["fr"], patterns=True)
    matcher = fresh.pipeline("fr")
    assert all(info._regex is not None for info in matcher.patterns)


_PLAIN_SENTENCE_END = re.compile(r"[.!?\u061f\u3002]+[\"')\]]*(?:\s+|$)|\n+")


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\u061f\u3002\"')]\n\t")), max_size=40))
def test_sentence_ends_are_those_of_the_plain_expression(text: str) -> None:
    """The engine's sentence splitter is a faster spelling of the plain expression."""
    assert [m.span() for m in _SENTENCE_END.finditer(text)] == [
        m.span() for m in _PLAIN_SENTENCE_END.finditer(text)
    ]


@pytest.mark.parametrize(
    "nanos",
    [
        1_763_818_888_012_345_678,
        1_763_818_888_999_999_999,  # same second, last microsecond
        1_763_818_889_000_000_000,  # the next second: the cached date part moves on
        1_763_818_889_000_999_000,
        1_000_000_000_100_000,
    ],
)
def test_fast_timestamp_is_format_timestamp(monkeypatch: pytest.MonkeyPatch, nanos: int) -> None:
    monkeypatch.setattr(time, "time_ns", lambda: nanos)
    seconds, rest = divmod(nanos, 1_000_000_000)
    moment = datetime.fromtimestamp(seconds, UTC) + timedelta(microseconds=rest // 1000)
    assert fast_timestamp() == format_timestamp(moment)


def test_classifiers_on_one_taxonomy_share_its_compiled_languages(
    taxonomy: LoadedTaxonomy, tmp_path: Path
) -> None:
    """A second Classifier on an equal taxonomy (the API's amplified one, a reload of an
    unchanged file) reuses the compiled languages instead of compiling them again; a
    taxonomy whose content differs gets its own."""
    first = Classifier(taxonomy)
    second = Classifier(taxonomy, max_text_chars=100, clock=lambda: datetime.now(UTC))
    assert second.pipeline("yo") is first.pipeline("yo")
    reloaded = load_taxonomy(taxonomy.path)
    assert Classifier(reloaded).pipeline("yo") is first.pipeline("yo")
    copy = tmp_path / "taxonomy"
    shutil.copytree(taxonomy.path.parent, copy)
    root = copy / taxonomy.path.name
    root.write_text(root.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    changed = load_taxonomy(root)
    assert changed.digest != taxonomy.digest
    assert Classifier(changed).pipeline("yo") is not first.pipeline("yo")
