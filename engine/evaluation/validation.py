"""Scoring the classifier against labelled samples (custom validation runs).

Metrics follow the external-evaluation protocol: positives measure recall,
negatives the true-negative rate, and samples whose label is neither are
"not scored" but their flag rate is reported, because a text that is hateful
yet outside harmwatch's definition of harm is neither a hit nor a miss.
Reading files is the caller's job; this module only consumes samples.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.classifier import Classifier


MAX_FAILURES = 200


@dataclass(frozen=True, slots=True)
class Sample:
    """One labelled text. ``expected_harmful`` None means: report, do not score."""

    text: str
    expected_harmful: bool | None
    id: str | None = None
    language: str | None = None
    expected_mechanism: str | None = None
    group: str | None = None
    label: str | None = None
    context: str | None = None
    """Surrounding text, passed to classify as its ``context``."""


@dataclass(slots=True)
class _Tally:
    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    unscored: int = 0
    unscored_flagged: int = 0

    def add(self, expected: bool | None, got: bool) -> None:
        if expected is None:
            self.unscored += 1
            self.unscored_flagged += got
        elif expected and got:
            self.tp += 1
        elif expected:
            self.fn += 1
        elif got:
            self.fp += 1
        else:
            self.tn += 1

    def metrics(self) -> dict[str, Any]:
        scored = self.tp + self.fp + self.tn + self.fn
        positives = self.tp + self.fn
        negatives = self.tn + self.fp
        precision = _ratio(self.tp, self.tp + self.fp)
        recall = _ratio(self.tp, positives)
        f1 = (
            round(2 * precision * recall / (precision + recall), 4)
            if precision is not None and recall is not None and precision + recall > 0
            else None
        )
        return {
            "total": scored + self.unscored,
            "scored": scored,
            "accuracy": _ratio(self.tp + self.tn, scored),
            "precision": precision,
            "recall": recall,
            "true_negative_rate": _ratio(self.tn, negatives),
            "f1": f1,
            "confusion": {"tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn},
            "positives": positives,
            "negatives": negatives,
            "not_scored": self.unscored,
            "not_scored_flag_rate": _ratio(self.unscored_flagged, self.unscored),
        }


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


@dataclass(slots=True)
class ValidationRun:
    """Accumulates samples one at a time so large files stream in constant memory."""

    classifier: Classifier
    name: str = "custom"
    overall: _Tally = field(default_factory=_Tally)
    groups: dict[str, _Tally] = field(default_factory=dict)
    languages: dict[str, _Tally] = field(default_factory=dict)
    mechanism_total: int = 0
    mechanism_correct: int = 0
    failures: list[dict[str, Any]] = field(default_factory=list)
    failure_count: int = 0
    started: float = field(default_factory=time.perf_counter)

    def add(self, sample: Sample) -> bool:
        """Classify and score one sample; returns whether it was flagged."""
        result = self.classifier.classify(
            sample.text, context=sample.context, language=sample.language
        )
        got = result.is_harmful
        self.overall.add(sample.expected_harmful, got)
        if sample.group is not None:
            self.groups.setdefault(sample.group, _Tally()).add(sample.expected_harmful, got)
        self.languages.setdefault(result.language, _Tally()).add(sample.expected_harmful, got)
        wrong = sample.expected_harmful is not None and got != sample.expected_harmful
        if sample.expected_harmful and got and sample.expected_mechanism:
            self.mechanism_total += 1
            if result.harm_mechanism == sample.expected_mechanism:
                self.mechanism_correct += 1
            else:
                wrong = True
        if wrong:
            self.failure_count += 1
            if len(self.failures) < MAX_FAILURES:
                self.failures.append(
                    {
                        "id": sample.id,
                        "text": sample.text,
                        "language": result.language,
                        "group": sample.group,
                        "expected_harmful": sample.expected_harmful,
                        "expected_mechanism": sample.expected_mechanism,
                        "got_harmful": got,
                        "got_mechanism": result.harm_mechanism,
                        "rationale": result.decision_rationale,
                    }
                )
        return got

    def report(self) -> dict[str, Any]:
        """The report of SPEC section 6 (/validate/custom), plus not-scored rates."""
        overall = self.overall.metrics()
        return {
            "name": self.name,
            "total": overall["total"],
            "accuracy": overall["accuracy"],
            "precision": overall["precision"],
            "recall": overall["recall"],
            "f1": overall["f1"],
            "true_negative_rate": overall["true_negative_rate"],
            "confusion": overall["confusion"],
            "not_scored": overall["not_scored"],
            "not_scored_flag_rate": overall["not_scored_flag_rate"],
            "mechanism_accuracy": _ratio(self.mechanism_correct, self.mechanism_total),
            "by_group": {k: v.metrics() for k, v in sorted(self.groups.items())},
            "by_language": {k: v.metrics() for k, v in sorted(self.languages.items())},
            "failures": self.failures,
            "failure_count": self.failure_count,
            "duration_ms": round((time.perf_counter() - self.started) * 1000, 1),
        }


def validate(
    classifier: Classifier,
    samples: Iterable[Sample],
    *,
    name: str = "custom",
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Run a whole sample stream and return its report."""
    run = ValidationRun(classifier, name=name)
    for count, sample in enumerate(samples, start=1):
        run.add(sample)
        if progress is not None:
            progress(count)
    return run.report()
