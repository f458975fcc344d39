"""``language: "auto"``: identification, the result's ``language_detected`` and the
fallback to the default language with a note (SPEC sections 3 and 7).

The texts are this project's own everyday sentences, one per language that CLD2
knows; nothing here is harmful except the one English case that checks a decision
survives identification.
"""

from __future__ import annotations

import pytest

from engine import Classifier
from engine.text import langid
from tests.language_samples import SENTENCES


@pytest.mark.parametrize("code", sorted(SENTENCES))
def test_auto_identifies_each_language_and_uses_it(classifier: Classifier, code: str) -> None:
    result = classifier.classify(SENTENCES[code], language="auto")
    assert result.language == code
    assert result.language_detected is not None
    assert result.language_detected.code == code
    assert (
        result.language_detected.confidence
        >= classifier.root.language_identification.min_confidence
    )
    assert result.decision_rationale == "NO HARM: no identity-group target found."
    assert result.to_dict()["language_detected"] == {
        "code": code,
        "confidence": result.language_detected.confidence,
    }


def test_auto_is_case_and_blank_insensitive(classifier: Classifier) -> None:
    result = classifier.classify(SENTENCES["es"], language=" AUTO ")
    assert result.language == "es"


def test_an_unsure_identification_falls_back_with_a_note(classifier: Classifier) -> None:
    # Half English, half Russian: CLD2 gives Russian a bare majority of the text.
    text = "Good morning everyone, how are you? Доброе утро всем, как дела?"
    result = classifier.classify(text, language="auto")
    detected = result.language_detected
    assert detected is not None and detected.code == "ru"
    cut = classifier.root.language_identification.min_confidence
    assert detected.confidence < cut
    assert result.language == "en"
    assert result.decision_rationale.startswith("NO HARM: ")
    assert result.decision_rationale.endswith(
        f" Language identification unsure (ru, confidence {detected.confidence:.3f} "
        f"< {cut:.3f}); fell back to en."
    )


def test_a_text_too_short_to_identify_falls_back_and_is_still_classified(
    classifier: Classifier,
) -> None:
    result = classifier.classify("Muslims are vermin.", language="auto")
    assert result.language_detected is not None
    assert result.language_detected.code == langid.UNDETERMINED
    assert result.language_detected.confidence == 0.0
    assert result.language == "en" and result.is_harmful
    assert result.decision_rationale.startswith("HARM DETECTED: ")
    assert result.decision_rationale.endswith(
        " Language identification found no language; fell back to en."
    )


def test_a_language_without_a_pack_falls_back_naming_it(classifier: Classifier) -> None:
    text = "Der Bus hatte heute Morgen wieder Verspätung, also sind wir zur Arbeit gelaufen."
    result = classifier.classify(text, language="auto")
    assert result.language_detected is not None and result.language_detected.code == "de"
    assert result.language == "en"
    assert "Language identified as de (confidence " in result.decision_rationale
    assert result.decision_rationale.endswith(
        "which harmwatch has no language pack for; fell back to en."
    )


def test_control_characters_do_not_break_identification(classifier: Classifier) -> None:
    # CLD2 refuses these bytes as invalid UTF-8; they are blanked and identification retried.
    text = SENTENCES["fr"].replace(" ", "\x01", 1) + "\x85\ufdd0"
    result = classifier.classify(text, language="auto")
    assert result.language == "fr"


@pytest.mark.parametrize("language", [None, "en", "ru", "zz", "en-GB"])
def test_language_detected_is_null_unless_auto_was_asked(
    classifier: Classifier, language: str | None
) -> None:
    result = classifier.classify(SENTENCES["ru"], language=language)
    assert result.language_detected is None
    assert result.to_dict()["language_detected"] is None


def test_classify_many_identifies_like_classify(classifier: Classifier) -> None:
    items: list[tuple[str, str | None, str | None]] = [
        (text, None, "auto") for text in SENTENCES.values()
    ]
    items.append(("Muslims are vermin.", None, "auto"))
    items.append((SENTENCES["ru"], None, None))
    many = classifier.classify_many(items)
    for (text, _, language), found in zip(items, many, strict=True):
        single = classifier.classify(text, language=language)
        assert found.to_dict() == single.to_dict()


# -- the script check, when no language is given ----------------------------------------------


@pytest.mark.parametrize(("code", "script"), [("ru", "Cyrillic"), ("ar", "Arabic")])
def test_a_text_in_another_script_without_a_language_gets_a_note(
    classifier: Classifier, code: str, script: str
) -> None:
    result = classifier.classify(SENTENCES[code])
    assert result.language == "en" and result.language_detected is None
    assert result.decision_rationale == (
        f"NO HARM: no identity-group target found. The text is mostly in {script} script "
        "and no language was given, so it was read as en; give language 'auto' or its code."
    )
    assert classifier.foreign_script(SENTENCES[code]) == script


@pytest.mark.parametrize("code", ["en", "es", "fr", "ig", "yo", "ha"])
def test_a_latin_text_without_a_language_gets_no_note(classifier: Classifier, code: str) -> None:
    result = classifier.classify(SENTENCES[code])
    assert result.decision_rationale == "NO HARM: no identity-group target found."


def test_a_text_in_another_script_with_its_language_gets_no_note(classifier: Classifier) -> None:
    result = classifier.classify(SENTENCES["ru"], language="ru")
    assert result.decision_rationale == "NO HARM: no identity-group target found."


def test_the_library_version_is_reported() -> None:
    assert langid.LIBRARY == "pycld2"
    assert langid.library_version() == "0.42"
