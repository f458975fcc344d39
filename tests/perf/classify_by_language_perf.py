"""`make perf` section "classify_by_language" (issue 12's speed target): classify() per language.

Each language's corpus is 400 texts of 280 characters that each name a group,
half with a harm predicate and half benign (tests/perf/group_corpus.py). The
figure is the median over the texts of the classifying thread's CPU time (best
of ``ROUNDS`` passes per text): wall time on a shared machine also measures the
neighbours. Target: at most 20 µs median on one core, in every language.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

ROUNDS = 5
MEDIAN_MAX_US = 20.0


def _cpu_us(classify: Any, texts: list[str], code: str) -> list[float]:
    best = [float("inf")] * len(texts)
    for _ in range(ROUNDS):
        for index, text in enumerate(texts):
            start = time.thread_time_ns()
            classify(text, language=code)
            best[index] = min(best[index], (time.thread_time_ns() - start) / 1000)
    return best


def classify_by_language_section() -> dict[str, Any]:
    from engine import Classifier, load_taxonomy
    from tests.perf.group_corpus import CORPORA, build_group_corpus

    classifier = Classifier(load_taxonomy())
    out: dict[str, Any] = {}
    for code in CORPORA:
        texts = build_group_corpus(code)
        results = [classifier.classify(text, language=code) for text in texts]  # warm
        times = _cpu_us(classifier.classify, texts, code)
        median = statistics.median(times)
        out[code] = {
            "median_us": round(median, 2),
            "harmful_half_median_us": round(statistics.median(times[0::2]), 2),
            "benign_half_median_us": round(statistics.median(times[1::2]), 2),
            "harm_found_share": sum(r.is_harmful for r in results[0::2]) / len(results[0::2]),
            "benign_flagged_share": sum(r.is_harmful for r in results[1::2]) / len(results[1::2]),
            "met": median <= MEDIAN_MAX_US,
        }
    return {
        "corpus": {"texts_per_language": 400, "length": 280, "clock": "thread CPU time"},
        "languages": out,
        "targets": {
            "median_us_max": MEDIAN_MAX_US,
            "met": all(row["met"] for row in out.values()),
        },
    }
