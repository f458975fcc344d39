"""Shared fixtures: one compiled classifier per session, on the shipped taxonomy.

Compiling a language takes a fraction of a second; the engine is thread-safe and
stateless per text, so tests share one instance. The clock is fixed so results
are reproducible field for field.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from hypothesis import settings as hypothesis_settings

import engine
from engine import Classifier, LoadedTaxonomy, Settings, load_taxonomy

FIXED_NOW = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)

# Property tests draw the same examples on every run and machine: a suite that passes
# must pass again on CI. Counterexamples found while developing become @example rows.
# HYPOTHESIS_PROFILE=explore draws fresh examples (and remembers failures) instead.
hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


# The modules that classify thousands of texts in every language. Between them they
# compile nearly every pattern of every pack (and the Arabizi patterns), which takes a
# process to about 10 GB and two minutes; the compiled programs are shared by every
# Classifier in a process. Run on two workers, both paid that, and two such processes
# with the rest of the suite outgrew the machine's 24 GB (a worker was killed for memory).
# They are one xdist group (``make test`` runs ``--dist loadgroup``), collected first so
# one worker takes them at the start while the other runs the rest; every other module
# is a group of its own, as under ``--dist loadfile``.
ALL_LANGUAGE_MODULES = (
    "tests/engine/test_language_cases.py",
    "tests/engine/test_golden.py",
    "tests/engine/test_golden_batches.py",
    "tests/engine/test_golden_shared.py",
    "tests/engine/test_golden_batches_shared.py",
    "tests/engine/test_linearity.py",
    # classifies every case-table text twice (classify_many against classify): on the
    # other worker it compiled every pack a second time, about three minutes of the run
    "tests/engine/pipeline/test_classify_many.py",
)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    heavy: list[pytest.Item] = []
    rest: list[pytest.Item] = []
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        if module in ALL_LANGUAGE_MODULES:
            item.add_marker(pytest.mark.xdist_group("all-languages"))
            heavy.append(item)
        else:
            item.add_marker(pytest.mark.xdist_group(module))
            rest.append(item)
    items[:] = heavy + rest


@pytest.fixture(scope="session")
def taxonomy() -> LoadedTaxonomy:
    return load_taxonomy()


@pytest.fixture(scope="session")
def classifier(taxonomy: LoadedTaxonomy) -> Classifier:
    return Classifier(taxonomy, clock=lambda: FIXED_NOW)


@pytest.fixture(scope="session")
def cli_classifier() -> Classifier:
    """The classifier the CLI builds from default settings (default text limit), with
    English and Spanish compiled once; CLI tests hand it to the command they run."""
    settings = Settings(_env_file=None, taxonomy_path=None, max_text_chars=20_000)
    classifier = engine.build_classifier(settings)
    classifier.warm(["en", "es"])
    return classifier
