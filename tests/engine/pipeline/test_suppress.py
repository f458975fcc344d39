"""The suppressor registry is the one list of suppression kinds and reason names."""

from __future__ import annotations

from typing import get_args

import pytest

from engine import Classifier
from engine.languages import LANGUAGES
from engine.pipeline.suppress import REASONS, SUPPRESSORS
from engine.result import SuppressionReason


def test_reason_names_are_the_registry() -> None:
    """engine.result spells the names out for the type checker; they must be the registry's."""
    assert get_args(SuppressionReason) == REASONS
    assert len(set(REASONS)) == len(SUPPRESSORS)


def test_the_api_schema_lists_the_registry() -> None:
    from api.models import Suppression

    schema = Suppression.model_json_schema()
    assert tuple(schema["properties"]["reason"]["enum"]) == REASONS


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_declared_finder_is_in_the_presence_scan(classifier: Classifier, code: str) -> None:
    """A suppressor's cue finders get a key in the language's cue-presence scan."""
    lang = classifier.pipeline(code)
    assert [type(s).reason for s in lang.suppressors] == list(REASONS)
    for suppressor in lang.suppressors:
        for finder in suppressor.finders:
            assert finder.key >= 0
