"""The per-language case tables in tests/data/cases_<lang>.yaml, one test per case.

Each table is written by this project in the language itself (never copied from
../shared/eval); a failing case is fixed in the taxonomy, not in the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Classifier
from engine.pipeline.suppress import REASONS

DATA = Path(__file__).resolve().parents[1] / "data"
SUPPRESSION_REASONS = set(REASONS)


def _cases() -> list[Any]:
    params = []
    for path in sorted(DATA.glob("cases_*.yaml")):
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        language = table["language"]
        for index, case in enumerate(table["cases"]):
            params.append(
                pytest.param(language, case, id=f"{language}-{index:03d}-{case['text'][:40]}")
            )
    return params


def test_every_language_has_a_table() -> None:
    languages = {p.stem.removeprefix("cases_") for p in DATA.glob("cases_*.yaml")}
    assert languages == {"en", "es", "fr", "ru", "ar", "ig", "yo", "ha"}


@pytest.mark.parametrize(("language", "case"), _cases())
def test_case(classifier: Classifier, language: str, case: dict[str, Any]) -> None:
    result = classifier.classify(case["text"], language=language)
    assert result.language == language
    assert result.is_harmful is case["harmful"], result.decision_rationale
    if case["harmful"] and case.get("mechanism"):
        assert result.harm_mechanism == case["mechanism"], result.decision_rationale
    reason = case.get("reason")
    if reason in SUPPRESSION_REASONS:
        reasons = {s.suppressed_by.reason for s in result.signals_suppressed if s.suppressed_by}
        assert reason in reasons, result.decision_rationale
    elif reason == "no_target":
        assert result.identity_axis is None, result.decision_rationale
    elif reason == "no_pattern":
        assert result.identity_axis is not None
        assert not result.signals_matched and not result.signals_suppressed
