"""Fixtures of the golden-result tests, shared by their modules.

The golden checks are split over several modules (tests/engine/test_golden*.py), one
per kind of set. Under ``make test`` they run on one worker with the case tables
(tests/conftest.py, ALL_LANGUAGE_MODULES): every worker that classifies in all eight
languages compiles nearly the whole taxonomy, about 10 GB, and two such workers outgrew
the machine. These fixtures are loaded once per worker.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from engine import Classifier, LoadedTaxonomy
from tests.engine import golden


@pytest.fixture(scope="session")
def stored(taxonomy: LoadedTaxonomy) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden.GOLDEN_PATH.read_text(encoding="utf-8"))
    assert data["taxonomy_digest"] == taxonomy.digest, (
        "the taxonomy changed since tests/data/golden_results.json was written: check the "
        "differences are intended, then run python -m tests.engine.golden --write"
    )
    return data


@pytest.fixture(scope="session")
def amplified(taxonomy: LoadedTaxonomy) -> Classifier:
    return golden.amplified_classifier(taxonomy)


@pytest.fixture(scope="session")
def shared() -> dict[str, list[golden.Item]]:
    found = golden.shared_items()
    if found is None:
        message = f"{golden.SHARED_EVAL} is missing: the shared evaluation sets are not checked"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found
