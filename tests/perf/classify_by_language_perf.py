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
STAGES = ("scan", "skeleton", "first_matches", "pattern_hits", "coded", "target_suppress", "decide")


def _cpu_us(classify: Any, texts: list[str], code: str) -> list[float]:
    best = [float("inf")] * len(texts)
    for _ in range(ROUNDS):
        for index, text in enumerate(texts):
            start = time.thread_time_ns()
            classify(text, language=code)
            best[index] = min(best[index], (time.thread_time_ns() - start) / 1000)
    return best


def _stage_us(classifier: Any, texts: list[str], code: str) -> dict[str, float]:
    """Median thread CPU time of each stage of ``Classifier.classify`` (best of ``ROUNDS``
    per text), run one by one as ``classify`` runs them: where the time goes.

    Each stage is timed on its own clock reading, so the stages add up to a little
    more than ``median_us`` (a clock reading costs about a tenth of a microsecond).
    """
    from engine.pipeline.coded import coded_anchor, coded_hits
    from engine.pipeline.decide import signal
    from engine.pipeline.match import first_matches, pattern_hits
    from engine.pipeline.scan import scan
    from engine.pipeline.suppress import suppress
    from engine.pipeline.targets import target

    clock = time.thread_time_ns
    lang = classifier.pipeline(code)
    decider = classifier._decider
    best = [[float("inf")] * len(STAGES) for _ in texts]
    for _ in range(ROUNDS):
        for index, text in enumerate(texts):
            t0 = clock()
            doc = scan(lang, text, None, None)
            t1 = clock()
            if doc is None:
                continue
            doc.skeleton()
            t2 = clock()
            firsts = first_matches(doc)
            t3 = clock()
            hits = pattern_hits(doc, firsts)
            t4 = clock()
            coded, dogwhistle = coded_hits(doc)
            hits.extend(coded)
            t5 = clock()
            signals = [
                signal(doc, hit, found, suppress(doc, hit, lang.suppressors))
                for hit in hits
                if (found := target(doc, hit)) is not None or not lang.require_target
            ]
            t6 = clock()
            decider.decide(doc, signals, dogwhistle or coded_anchor(doc))
            t7 = clock()
            times = (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6)
            row = best[index]
            for stage, elapsed in enumerate(times):
                row[stage] = min(row[stage], elapsed / 1000)
    out: dict[str, float] = {}
    for stage, name in enumerate(STAGES):
        timed = [row[stage] for row in best if row[stage] != float("inf")]
        out[name] = round(statistics.median(timed), 2) if timed else 0.0
    return out


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
            "stage_median_us": _stage_us(classifier, texts, code),
        }
    return {
        "corpus": {"texts_per_language": 400, "length": 280, "clock": "thread CPU time"},
        "languages": out,
        "targets": {
            "median_us_max": MEDIAN_MAX_US,
            "met": all(row["met"] for row in out.values()),
        },
    }
