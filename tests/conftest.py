"""Shared fixtures: one compiled classifier per session, on the shipped taxonomy.

Compiling a language takes a fraction of a second; the engine is thread-safe and
stateless per text, so tests share one instance. The clock is fixed so results
are reproducible field for field.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import Classifier, LoadedTaxonomy, load_taxonomy

FIXED_NOW = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


@pytest.fixture(scope="session")
def taxonomy() -> LoadedTaxonomy:
    return load_taxonomy()


@pytest.fixture(scope="session")
def classifier(taxonomy: LoadedTaxonomy) -> Classifier:
    return Classifier(taxonomy, clock=lambda: FIXED_NOW)
