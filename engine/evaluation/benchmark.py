"""The functional benchmark suite and the legacy phase-1 gate (SPEC section 6).

The suite is data in the taxonomy folder (templates × fillers, see
docs/benchmark.md) because what the classifier must do is part of a taxonomy
release: ``baseline_tag`` names the suite result a taxonomy shipped with, and
each capability's stored baseline is the pass rate a later change must not
fall below. Obfuscation is written as a transform of the fillers, so the suite
says "leetspeak" once instead of spelling out every disguised variant.

Loading validates like the taxonomy loader does (file, template, problem);
running returns plain dicts with the contract's field names, for the CLI and
the API alike.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.classifier import Classifier
from engine.errors import TaxonomyError
from engine.evaluation.models import SLOT, GateFile, SuiteFile, SuiteTemplate
from engine.result import Classification
from engine.rules.load import LoadedTaxonomy, read_yaml

ModelT = TypeVar("ModelT", bound=BaseModel)
Progress = Callable[[int], None]

# -- transforms ------------------------------------------------------------------------------
# Each works word by word on a filler value, as evasive posts disguise single words.

_LEET = str.maketrans("aeiosAEIOS", "4310543105")
# Cyrillic look-alikes of Latin letters (а с е і о р х у; upper case likewise).
_HOMOGLYPH = str.maketrans(
    "aceiopxyACEHIKMOPTXB",
    "\u0430\u0441\u0435\u0456\u043e\u0440\u0445\u0443"
    "\u0410\u0421\u0415\u041d\u0406\u041a\u041c\u041e\u0420\u0422\u0425\u0412",
)
ZERO_WIDTH_SPACE = "\u200b"


def _per_word(fn: Callable[[str], str]) -> Callable[[str], str]:
    return lambda value: " ".join(fn(word) for word in value.split(" "))


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "leet": _per_word(lambda word: word.translate(_LEET)),
    "spaced": _per_word(" ".join),
    "dotted": _per_word(".".join),
    "zero_width": _per_word(ZERO_WIDTH_SPACE.join),
    "homoglyph": _per_word(lambda word: word.translate(_HOMOGLYPH)),
}


# -- the suite ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    """One expanded sentence with the decision (and mechanism) it must get."""

    id: str
    capability: str
    template: str
    text: str
    language: str
    expected_harmful: bool
    expected_mechanism: str | None


@dataclass(frozen=True)
class Suite:
    """A loaded, expanded suite: the cases in file order and each capability's baseline."""

    path: Path
    version: str
    capabilities: tuple[str, ...]
    cases: tuple[Case, ...]
    baselines: Mapping[str, float]

    @property
    def languages(self) -> list[str]:
        return sorted({case.language for case in self.cases})


@dataclass(frozen=True, slots=True)
class Regression:
    """A capability whose pass rate fell below the one stored for it."""

    capability: str
    pass_rate: float
    baseline: float


def _describe(path: Path, data: Mapping[str, Any], exc: ValidationError) -> TaxonomyError:
    """Pydantic's errors as 'file: capability C: template T: field: problem' lines."""
    lines = []
    for error in exc.errors():
        loc = list(error["loc"])
        parts: list[str] = []
        if len(loc) >= 2 and loc[0] == "capabilities" and isinstance(loc[1], int):
            capability = _item(data.get("capabilities"), loc[1])
            parts.append(f"capability {_name(capability, 'name', loc[1])}")
            loc = loc[2:]
            if len(loc) >= 2 and loc[0] == "templates" and isinstance(loc[1], int):
                templates = capability.get("templates") if isinstance(capability, dict) else None
                parts.append(f"template {_name(_item(templates, loc[1]), 'id', loc[1])}")
                loc = loc[2:]
        elif len(loc) >= 2 and loc[0] == "samples" and isinstance(loc[1], int):
            parts.append(f"sample {_name(_item(data.get('samples'), loc[1]), 'id', loc[1])}")
            loc = loc[2:]
        if loc:
            parts.append(".".join(str(part) for part in loc))
        message = str(error["msg"]).removeprefix("Value error, ")
        lines.append(": ".join([str(path), *parts, message]))
    return TaxonomyError("\n".join(lines))


def _item(items: object, index: int) -> object:
    return items[index] if isinstance(items, list) and index < len(items) else None


def _name(item: object, key: str, index: int) -> str:
    value = item.get(key) if isinstance(item, dict) else None
    return str(value) if value else f"#{index + 1}"


def _load(model: type[ModelT], path: Path) -> ModelT:
    data, _raw = read_yaml(path)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _describe(path, data, exc) from None


def _named_file(taxonomy: LoadedTaxonomy, name: str | None, key: str) -> Path:
    if name is None:
        raise TaxonomyError(f"{taxonomy.path}: no {key} file named (add '{key}: <file>')")
    return taxonomy.path.parent / name


def expand(template: SuiteTemplate) -> list[str]:
    """Every text of a template: the product of its slots' fillers, transforms applied."""
    slots = list(dict.fromkeys(SLOT.findall(template.text)))
    transform = TRANSFORMS[template.transform] if template.transform else None
    targets = set(template.transform_slots or slots)
    columns = [
        [transform(v) if transform and slot in targets else v for v in template.fillers[slot]]
        for slot in slots
    ]
    return [
        _fill(template.text, dict(zip(slots, combination, strict=True)))
        for combination in itertools.product(*columns)
    ]


def _fill(text: str, values: Mapping[str, str]) -> str:
    return SLOT.sub(lambda match: values[match.group(1)], text)


def load_suite(taxonomy: LoadedTaxonomy | None = None, *, path: Path | str | None = None) -> Suite:
    """Load and expand a suite: the file given, else the one the taxonomy names."""
    if path is None:
        if taxonomy is None:
            raise TypeError("load_suite needs a taxonomy or a path")
        path = _named_file(taxonomy, taxonomy.root.benchmark, "benchmark")
    path = Path(path)
    file = _load(SuiteFile, path)
    cases: list[Case] = []
    seen: dict[tuple[str, str], str] = {}
    for capability in file.capabilities:
        for template in capability.templates:
            language = template.language or file.language
            for number, text in enumerate(expand(template), start=1):
                key = (text, language)
                if key in seen:
                    raise TaxonomyError(
                        f"{path}: capability {capability.name}: template {template.id}: "
                        f"case {text!r} ({language}) repeats template {seen[key]}"
                    )
                seen[key] = template.id
                cases.append(
                    Case(
                        id=f"{template.id}/{number}",
                        capability=capability.name,
                        template=template.id,
                        text=text,
                        language=language,
                        expected_harmful=template.expect == "harmful",
                        expected_mechanism=template.mechanism,
                    )
                )
    return Suite(
        path=path,
        version=file.suite_version,
        capabilities=tuple(capability.name for capability in file.capabilities),
        cases=tuple(cases),
        baselines=dict(file.baselines),
    )


def select_cases(
    suite: Suite,
    *,
    capabilities: Collection[str] | None = None,
    languages: Collection[str] | None = None,
) -> list[Case]:
    """The cases of the named capabilities and languages (all when not given).

    A name that matches nothing is an error rather than an empty run, because a
    typo would otherwise "pass" with zero cases.
    """
    wanted_caps = set(capabilities or ())
    unknown = sorted(wanted_caps - set(suite.capabilities))
    if unknown:
        raise ValueError(
            f"unknown capability {', '.join(map(repr, unknown))}; "
            f"the suite has: {', '.join(suite.capabilities)}"
        )
    wanted_langs = {code.strip().lower() for code in languages or ()}
    missing = sorted(wanted_langs - set(suite.languages))
    if missing:
        raise ValueError(
            f"no case in language {', '.join(map(repr, missing))}; "
            f"the suite's languages: {', '.join(suite.languages)}"
        )
    cases = [
        case
        for case in suite.cases
        if (not wanted_caps or case.capability in wanted_caps)
        and (not wanted_langs or case.language in wanted_langs)
    ]
    if not cases:
        raise ValueError("no case matches both the capability and the language filters")
    return cases


def _verdict(harmful: bool, mechanism: str | None) -> dict[str, Any]:
    return {"is_harmful": harmful, "harm_mechanism": mechanism}


def _passes(case: Case, result: Classification) -> bool:
    if result.is_harmful != case.expected_harmful:
        return False
    return not case.expected_harmful or result.harm_mechanism == case.expected_mechanism


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def run_suite(
    classifier: Classifier,
    suite: Suite,
    *,
    capabilities: Collection[str] | None = None,
    languages: Collection[str] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run the (filtered) suite and return the /benchmark/run report of SPEC section 6.

    The languages the cases need are compiled first, so ``duration_ms`` is the
    time spent classifying, comparable from run to run.
    """
    cases = select_cases(suite, capabilities=capabilities, languages=languages)
    classifier.warm({classifier.resolve_language(case.language)[0] for case in cases})
    tallies: dict[str, list[int]] = {}
    failures: dict[str, list[dict[str, Any]]] = {}
    started = time.perf_counter()
    for done, case in enumerate(cases, start=1):
        result = classifier.classify(case.text, language=case.language)
        tally = tallies.setdefault(case.capability, [0, 0])
        tally[0] += 1
        if _passes(case, result):
            tally[1] += 1
        else:
            failures.setdefault(case.capability, []).append(
                {
                    "case": case.id,
                    "text": case.text,
                    "language": case.language,
                    "expected": _verdict(case.expected_harmful, case.expected_mechanism),
                    "got": _verdict(result.is_harmful, result.harm_mechanism),
                    "rationale": result.decision_rationale,
                }
            )
        if progress is not None:
            progress(done)
    duration_ms = round((time.perf_counter() - started) * 1000, 1)
    passed = sum(tally[1] for tally in tallies.values())
    return {
        "suite_version": suite.version,
        "taxonomy_version": classifier.taxonomy.version,
        "total": len(cases),
        "passed": passed,
        "failed": len(cases) - passed,
        "pass_rate": _ratio(passed, len(cases)),
        "duration_ms": duration_ms,
        "capabilities": [
            {
                "name": name,
                "total": tallies[name][0],
                "passed": tallies[name][1],
                "pass_rate": _ratio(tallies[name][1], tallies[name][0]),
                "failures": failures.get(name, []),
            }
            for name in suite.capabilities
            if name in tallies
        ],
    }


def regressions(report: Mapping[str, Any], suite: Suite) -> list[Regression]:
    """Capabilities of a report whose pass rate is below the suite's stored baseline."""
    found = []
    for capability in report["capabilities"]:
        baseline = suite.baselines[capability["name"]]
        # Rates are rounded to 4 places in the report; compare at that precision.
        if capability["pass_rate"] < round(baseline, 4):
            found.append(Regression(capability["name"], capability["pass_rate"], baseline))
    return found


def result_tag(report: Mapping[str, Any]) -> str:
    """The name of a run's result, as a taxonomy's ``baseline_tag`` records it."""
    return f"suite-{report['suite_version']}@{report['passed']}/{report['total']}"


# -- the legacy gate -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    """The fixed phase-1 sample set and its required accuracy."""

    path: Path
    file: GateFile


def load_gate(taxonomy: LoadedTaxonomy | None = None, *, path: Path | str | None = None) -> Gate:
    """Load the gate file given, else the one the taxonomy names."""
    if path is None:
        if taxonomy is None:
            raise TypeError("load_gate needs a taxonomy or a path")
        path = _named_file(taxonomy, taxonomy.root.legacy_gate, "legacy_gate")
    path = Path(path)
    return Gate(path=path, file=_load(GateFile, path))


def gate_metrics(pairs: Iterable[tuple[bool, bool]]) -> dict[str, float | None]:
    """Accuracy, precision, recall and F1 of (expected, got) decisions, 4 decimals."""
    tp = fp = tn = fn = 0
    for expected, got in pairs:
        tp += expected and got
        fn += expected and not got
        fp += got and not expected
        tn += not expected and not got
    precision = _ratio(tp, tp + fp)
    recall = _ratio(tp, tp + fn)
    f1 = None
    if tp:
        f1 = round(2 * tp / (2 * tp + fp + fn), 4)
    elif tp + fp + fn:
        f1 = 0.0
    return {
        "accuracy": _ratio(tp + tn, tp + fp + tn + fn),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }


def run_gate(classifier: Classifier, gate: Gate) -> dict[str, Any]:
    """Run the gate and return the /validate/dehumanization report of SPEC section 6.

    A sample counts as correct when the decision matches; the mechanism is
    reported for the analyst but the phase-1 gate only ever scored decisions.
    """
    results: list[dict[str, Any]] = []
    for sample in gate.file.samples:
        result = classifier.classify(sample.text, language=sample.language)
        results.append(
            {
                "id": sample.id,
                "text": sample.text,
                "language": result.language,
                "expected_harmful": sample.expected_harmful,
                "expected_mechanism": sample.expected_mechanism,
                "got_harmful": result.is_harmful,
                "got_mechanism": result.harm_mechanism,
                "correct": result.is_harmful == sample.expected_harmful,
            }
        )
    metrics = gate_metrics((r["expected_harmful"], r["got_harmful"]) for r in results)
    accuracy = metrics["accuracy"] or 0.0
    required = gate.file.required_accuracy
    return {
        "gate": gate.file.gate,
        "samples": len(results),
        "correct": sum(r["correct"] for r in results),
        **metrics,
        "required_accuracy": required,
        "passed": accuracy >= required,
        "results": results,
    }
