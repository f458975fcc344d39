"""`make perf` section "benchmark" (issue 4): the functional suite and a HateCheck run.

Targets: `benchmark run` over the whole suite under 1 s, and custom validation of
the 3,728-case HateCheck file under 2 s, both once the classifier is built and
warmed. Building (loading the taxonomy, compiling every language) and the first,
cold pass (full patterns compile on first use) are reported next to them, since
that is what a fresh process pays once.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HATECHECK = ROOT.parent / "shared" / "eval" / "hatecheck" / "hatecheck_scoped.csv"
SUITE_TARGET_S = 1.0
HATECHECK_TARGET_S = 2.0
ROUNDS = 5


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _hatecheck_pass(classifier: Any) -> dict[str, Any]:
    """Read, classify and score the file the way `validate custom` does."""
    from engine.evaluation.validation import ValidationRun
    from workbench.samples import Columns, Labels, SampleFormat, SampleReader

    reader = SampleReader(
        HATECHECK,
        SampleFormat.CSV,
        Columns(text="test_case", label="eval_label", group="functionality"),
        Labels.of(["positive"], ["negative"]),
        check=lambda text, language: classifier.check_input(text, None, language),
        max_text_chars=classifier.max_text_chars,
    )
    run = ValidationRun(classifier, name="hatecheck")
    for sample in reader:
        run.add(sample)
    report: dict[str, Any] = run.report()
    return report


def benchmark_section() -> dict[str, Any]:
    from engine import Classifier, load_taxonomy
    from engine.evaluation.benchmark import load_suite, run_suite
    from engine.languages import LANGUAGES

    start = time.perf_counter()
    taxonomy = load_taxonomy()
    load_s = time.perf_counter() - start
    classifier = Classifier(taxonomy)
    warm_s, _ = _timed(lambda: classifier.warm(LANGUAGES))
    suite = load_suite(taxonomy)

    first_s, first = _timed(lambda: run_suite(classifier, suite))
    suite_runs = [_timed(lambda: run_suite(classifier, suite))[0] for _ in range(ROUNDS)]
    suite_s = statistics.median(suite_runs)
    out: dict[str, Any] = {
        "build": {
            "load_taxonomy_s": round(load_s, 3),
            "compile_all_languages_s": round(warm_s, 3),
        },
        "suite": {
            "cases": first["total"],
            "passed": first["passed"],
            "first_run_s": round(first_s, 3),
            "median_s": round(suite_s, 4),
            "best_s": round(min(suite_runs), 4),
            "target_s": SUITE_TARGET_S,
            "met": suite_s < SUITE_TARGET_S,
        },
    }
    if not HATECHECK.exists():
        out["hatecheck"] = {"skipped": f"{HATECHECK} not found"}
        return out
    first_s, report = _timed(lambda: _hatecheck_pass(classifier))
    runs = [_timed(lambda: _hatecheck_pass(classifier))[0] for _ in range(3)]
    median_s = statistics.median(runs)
    out["hatecheck"] = {
        "samples": report["total"],
        "first_pass_s": round(first_s, 3),
        "median_s": round(median_s, 3),
        "best_s": round(min(runs), 3),
        "target_s": HATECHECK_TARGET_S,
        "met": median_s < HATECHECK_TARGET_S,
    }
    return out
