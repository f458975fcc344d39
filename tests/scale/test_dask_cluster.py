"""engine.batch on a real Dask cluster: two worker processes, a partitioned parquet file.

A ``distributed.LocalCluster`` of two worker *processes* (one thread each) reads a
parquet dataset of six files (several languages, harmful and benign, some with a
context, some with no language), runs ``FrameClassifier`` through
``map_partitions`` exactly as a user would, and every row that comes back must
equal ``engine.classify`` of the same text in this process, field by field
(the timestamp aside). Both workers must have classified partitions, each with
one classifier built once (the function travels as settings, not a taxonomy).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask.dataframe as dd
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from engine import Settings, classify
from engine.batch import RESULT_COLUMNS, FrameClassifier
from tests.scale.texts import rows

pytestmark = pytest.mark.slow

ROWS = 600
FILES = 6


def _worker_classifiers() -> int:
    """Run on a worker: how many classifiers this process has built for the batch function."""
    from engine import batch

    return len(batch._classifiers)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with (
        LocalCluster(
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            dashboard_address=None,
            host="127.0.0.1",
        ) as cluster,  # type: ignore[no-untyped-call]
        Client(cluster) as client,  # type: ignore[no-untyped-call]
    ):
        yield client


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("texts")
    frame = pd.DataFrame(rows(ROWS), columns=["id", "lang", "body", "context"])
    per_file = ROWS // FILES
    for part in range(FILES):
        chunk = frame.iloc[part * per_file : (part + 1) * per_file]
        chunk.to_parquet(directory / f"part.{part}.parquet", index=False)
    return directory


def expected_row(result: dict[str, Any]) -> dict[str, Any]:
    """The flat columns, written out here from the contract's dict (not from engine.batch)."""
    dogwhistle = result["dogwhistle_matched"]
    detected = result.get("language_detected")
    return {
        "is_harmful": result["is_harmful"],
        "harm_mechanism": result["harm_mechanism"],
        "harm_category": result["harm_category"],
        "severity": {
            None: 0,
            "false_attribution": 1,
            "demonization": 2,
            "objectification": 2,
            "animalization": 3,
            "criminalization": 3,
            "direct_call_to_violence": 4,
        }[result["harm_mechanism"]],
        "confidence": result["confidence"],
        "target_type": result["target_type"],
        "identity_axis": result["identity_axis"],
        "language": result["language"],
        "language_confidence": result["language_confidence"],
        "language_detected": detected["code"] if detected else None,
        "language_detected_confidence": detected["confidence"] if detected else None,
        "matched_pattern": result["matched_pattern"],
        "dogwhistle_term": dogwhistle["canonical"] if dogwhistle else None,
        "signals_matched": len(result["signals_matched"]),
        "signals_suppressed": len(result["signals_suppressed"]),
        "amplification_factor": result["amplification"]["factor"],
        "decision_rationale": result["decision_rationale"],
        "taxonomy_version": result["taxonomy_version"],
        "content_hash": result["content_hash"],
        "error": None,
    }


def plain(value: Any) -> Any:
    """A cell as a plain Python value (<NA> as None, numpy scalars unwrapped)."""
    if value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def test_map_partitions_on_two_worker_processes_equals_classify(
    client: Client, dataset: Path
) -> None:
    texts = dd.read_parquet(str(dataset))
    assert texts.npartitions == FILES
    classifier = FrameClassifier(
        text_column="body",
        language_column="lang",
        context_column="context",
        keep_columns=("id",),
        settings=Settings(_env_file=None),
    )
    meta = classifier.meta(texts.dtypes)
    results = texts.map_partitions(classifier, meta=meta).compute()

    assert list(results.columns) == ["id", *(column.name for column in RESULT_COLUMNS)]
    assert results.dtypes.to_dict() == meta.dtypes.to_dict()
    assert sorted(results["id"].tolist()) == list(range(ROWS))
    by_id = results.set_index("id")
    source = {row[0]: row for row in rows(ROWS)}
    for row_id, (_, language, text, context) in source.items():
        want = expected_row(classify(text, context=context, language=language).to_dict())
        got = {name: plain(value) for name, value in by_id.loc[row_id].items()}
        assert got.pop("timestamp").endswith("Z")
        assert got == want, f"row {row_id}: {text!r}"

    # Not a vacuous table: both outcomes, every language, a context and a fallback.
    assert 0 < int(results["is_harmful"].sum()) < ROWS
    assert set(results["language"]) == {"en", "es", "ar", "yo", "ha"}
    assert not any(math.isnan(x) for x in results["confidence"])
    # Both processes classified partitions, each with the one classifier it built.
    assert sorted(client.run(_worker_classifiers).values()) == [1, 1]
