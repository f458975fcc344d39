"""Field names fixed by ../shared/SPEC.md, written once for every test that checks them.

Tests compare what the engine, CLI and API produce against these sets, never
against the implementation's own models, so a renamed field cannot slip through.
"""

from __future__ import annotations

# SPEC section 3: the classification result.
RESULT_FIELDS = frozenset(
    {
        "is_harmful",
        "harm_category",
        "confidence",
        "target_type",
        "identity_axis",
        "harm_mechanism",
        "signals_matched",
        "signals_suppressed",
        "decision_rationale",
        "taxonomy_version",
        "language",
        "language_confidence",
        "language_detected",
        "dogwhistle_matched",
        "counter_narrative_guidance",
        "content_hash",
        "matched_pattern",
        "amplification",
        "timestamp",
    }
)
# SPEC section 6: /benchmark/run and /validate/dehumanization.
BENCHMARK_REPORT_FIELDS = frozenset(
    {
        "suite_version",
        "taxonomy_version",
        "total",
        "passed",
        "failed",
        "pass_rate",
        "duration_ms",
        "capabilities",
    }
)
CAPABILITY_FIELDS = frozenset({"name", "total", "passed", "pass_rate", "failures"})
GATE_FIELDS = frozenset(
    {
        "gate",
        "samples",
        "correct",
        "accuracy",
        "precision",
        "recall",
        "f1",
        "required_accuracy",
        "passed",
        "results",
    }
)
