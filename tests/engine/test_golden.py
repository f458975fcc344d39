"""Results stay identical: every field of every result but the timestamp (tests/engine/golden.py).

The golden file was written before the engine was split into stages; a change of
results must be deliberate, regenerated with ``python -m tests.engine.golden --write``
and named in its commit.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import Classifier, LoadedTaxonomy
from tests.engine import golden


@pytest.mark.parametrize("name", golden.CASE_SETS)
def test_case_tables(
    name: str, classifier: Classifier, amplified: Classifier, stored: dict[str, Any]
) -> None:
    """The project's own case tables: plain, with context, amplified, language fallback."""
    chosen = amplified if name == "cases_amplified" else classifier
    items = golden.case_items()[name]
    actual = golden.compute_set(chosen, items, fields=golden.FIELDS[name])
    golden.compare(name, stored["sets"][name], actual)


def test_benchmark_suite(
    taxonomy: LoadedTaxonomy, classifier: Classifier, stored: dict[str, Any]
) -> None:
    actual = golden.compute_set(classifier, golden.benchmark_items(taxonomy), fields=None)
    golden.compare("benchmark", stored["sets"]["benchmark"], actual)
