"""Results stay identical: every field of every result but the timestamp (tests/engine/golden.py).

The golden file was written before the engine was split into stages; a change of
results must be deliberate, regenerated with ``python -m tests.engine.golden --write``
and named in its commit.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from engine import Classifier, LoadedTaxonomy
from tests.engine import golden


@pytest.fixture(scope="module")
def stored(taxonomy: LoadedTaxonomy) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(golden.GOLDEN_PATH.read_text(encoding="utf-8"))
    assert data["taxonomy_digest"] == taxonomy.digest, (
        "the taxonomy changed since tests/data/golden_results.json was written: check the "
        "differences are intended, then run python -m tests.engine.golden --write"
    )
    return data


@pytest.fixture(scope="module")
def amplified(taxonomy: LoadedTaxonomy) -> Classifier:
    return golden.amplified_classifier(taxonomy)


@pytest.fixture(scope="module")
def shared() -> dict[str, list[golden.Item]]:
    found = golden.shared_items()
    if found is None:
        message = f"{golden.SHARED_EVAL} is missing: the shared evaluation sets are not checked"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _compare(name: str, expected: dict[str, Any], actual: dict[str, Any]) -> None:
    assert actual["count"] == expected["count"], f"{name}: the set changed size"
    hashes = actual["hashes"]
    changed = [key for key, value in expected["hashes"].items() if hashes.get(key) != value]
    if not changed:
        return
    lines = [f"{name}: {len(changed)} of {expected['count']} results changed"]
    for key in changed[:5]:
        before = expected.get("fields", {}).get(key)
        after = actual.get("fields", {}).get(key)
        if before is None or after is None:
            lines.append(f"  {key[:12]}")
            continue
        fields = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
        lines.append(f"  {key[:12]}: {', '.join(fields)}")
        for field in fields:
            lines.append(f"    {field}: {before.get(field)!r} -> {after.get(field)!r}")
    pytest.fail("\n".join(lines))


@pytest.mark.parametrize("name", golden.CASE_SETS)
def test_case_tables(
    name: str, classifier: Classifier, amplified: Classifier, stored: dict[str, Any]
) -> None:
    """The project's own case tables: plain, with context, amplified, language fallback."""
    chosen = amplified if name == "cases_amplified" else classifier
    items = golden.case_items()[name]
    actual = golden.compute_set(chosen, items, fields=golden.FIELDS[name])
    _compare(name, stored["sets"][name], actual)


def test_benchmark_suite(
    taxonomy: LoadedTaxonomy, classifier: Classifier, stored: dict[str, Any]
) -> None:
    actual = golden.compute_set(classifier, golden.benchmark_items(taxonomy), fields=None)
    _compare("benchmark", stored["sets"]["benchmark"], actual)


@pytest.mark.parametrize("name", [name for name, _, _ in golden.SHARED_SETS])
def test_shared_sets(
    name: str,
    classifier: Classifier,
    stored: dict[str, Any],
    shared: dict[str, list[golden.Item]],
) -> None:
    """The shared evaluation sets (../shared/eval; only their hashes are in the repository)."""
    actual = golden.compute_set(classifier, shared[name], fields=None)
    _compare(name, stored["sets"][name], actual)


def test_classify_many_matches_the_golden_results(
    taxonomy: LoadedTaxonomy,
    classifier: Classifier,
    amplified: Classifier,
    stored: dict[str, Any],
) -> None:
    """``classify_many`` gives exactly ``classify``'s results over every set: in batches
    of 1, 7 and 100 items, and each set whole in one batch."""
    runs: list[tuple[Classifier, str, list[golden.Item]]] = [
        (amplified if name == "cases_amplified" else classifier, name, items)
        for name, items in golden.case_items().items()
    ]
    runs.append((classifier, "benchmark", golden.benchmark_items(taxonomy)))
    found = golden.shared_items()
    if found is not None:
        runs.extend((classifier, name, items) for name, items in found.items())
    for chosen, name, items in runs:
        expected = stored["sets"][name]["hashes"]
        batches = [items[:3], items[3:24], items[24:324], items]
        sizes = [1, 7, 100, len(items)]
        for batch, size in zip(batches, sizes, strict=True):
            for start in range(0, len(batch), size):
                chunk = batch[start : start + size]
                results = chosen.classify_many(chunk)
                assert len(results) == len(chunk)
                for (text, context, language), result in zip(chunk, results, strict=True):
                    key = golden.key_of(text, context, language)
                    assert golden.digest(golden.canonical(result)) == expected[key], (
                        f"{name}: classify_many differs from classify (language {language})"
                    )
