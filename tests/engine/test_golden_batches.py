"""``classify_many`` gives exactly ``classify``'s golden results (tests/engine/golden.py):
the project's case tables and the benchmark suite here, the shared sets in
tests/engine/test_golden_batches_shared.py."""

from __future__ import annotations

from typing import Any

from engine import Classifier, LoadedTaxonomy
from tests.engine import golden


def test_classify_many_matches_the_golden_results(
    taxonomy: LoadedTaxonomy,
    classifier: Classifier,
    amplified: Classifier,
    stored: dict[str, Any],
) -> None:
    runs: list[tuple[Classifier, str, list[golden.Item]]] = [
        (amplified if name == "cases_amplified" else classifier, name, items)
        for name, items in golden.case_items().items()
    ]
    runs.append((classifier, "benchmark", golden.benchmark_items(taxonomy)))
    golden.check_batches(runs, stored)
