"""``classify_many`` gives exactly ``classify``'s golden results on the shared
evaluation sets (tests/engine/golden.py)."""

from __future__ import annotations

from typing import Any

from engine import Classifier
from tests.engine import golden


def test_classify_many_matches_the_golden_results_on_the_shared_sets(
    classifier: Classifier,
    stored: dict[str, Any],
    shared: dict[str, list[golden.Item]],
) -> None:
    golden.check_batches([(classifier, name, items) for name, items in shared.items()], stored)
