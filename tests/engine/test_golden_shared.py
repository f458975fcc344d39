"""Results stay identical on the shared evaluation sets (../shared/eval; only their
hashes are in the repository): see tests/engine/test_golden.py."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Classifier
from tests.engine import golden


@pytest.mark.parametrize("name", [name for name, _, _ in golden.SHARED_SETS])
def test_shared_sets(
    name: str,
    classifier: Classifier,
    stored: dict[str, Any],
    shared: dict[str, list[golden.Item]],
) -> None:
    actual = golden.compute_set(classifier, shared[name], fields=None)
    golden.compare(name, stored["sets"][name], actual)
