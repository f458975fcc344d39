"""Golden results: every field of every result (but the timestamp) over fixed text sets.

Refactoring the engine must not change a single decision, span, rationale or
score. This module classifies fixed sets of texts with a fixed clock and records,
per text, a SHA-256 of its canonical result; ``tests/engine/test_golden.py``
recomputes and compares.

The sets:

- ``cases``: every text of ``tests/data/cases_*.yaml`` in its table's language;
- ``cases_context``: the same texts with the previous text of the table as context
  (pronoun targets resolved from the context);
- ``cases_amplified``: the same texts through a deterministic in-process
  amplifier (rescoring, the mention spans handed to a provider);
- ``fallback``: the English table with a language tag (``en-GB``) and an unknown
  code (``zz``), for the resolver and the fallback note;
- ``benchmark``: every case of ``taxonomy/benchmark_v1.yaml``;
- ``hatecheck``, ``mhc_es``, ``mhc_fr``, ``mhc_ar``: the shared evaluation sets in
  ``../shared/eval`` (not part of the repository: only hashes are stored here, never
  a sentence of them).

Keys are ``sha256(language \\0 context \\0 text)``; values the SHA-256 of the
result's canonical JSON. For the case-table sets each field is kept too, so a
failure names the field that changed: its value for ``cases`` (those texts are the
project's own), a short hash of it for the other case sets (to keep the file small).

Write with ``python -m tests.engine.golden --write`` (only when a change of results
is intended, and say so in the commit).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import json
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine import Classification, Classifier, LoadedTaxonomy, load_taxonomy
from engine.amplify import AmplificationResult

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
GOLDEN_PATH = DATA / "golden_results.json"
SHARED_EVAL = ROOT.parent / "shared" / "eval"
FIXED_NOW = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)

# (set name, path under SHARED_EVAL, language)
SHARED_SETS: tuple[tuple[str, str, str], ...] = (
    ("hatecheck", "hatecheck/hatecheck_scoped.csv", "en"),
    ("mhc_es", "mhc_es/mhc_spanish_scoped.csv", "es"),
    ("mhc_fr", "mhc_fr_dev/mhc_french_dev.csv", "fr"),
    ("mhc_ar", "mhc_ar_dev/mhc_arabic_dev.csv", "ar"),
)
CASE_SETS = ("cases", "cases_context", "cases_amplified", "fallback")
# What the golden file keeps per field: the value, or a short hash of it.
FIELDS = {
    "cases": "values",
    "cases_context": "hashes",
    "cases_amplified": "hashes",
    "fallback": "hashes",
}

Item = tuple[str, str | None, str | None]  # text, context, language


class GoldenAmplifier:
    """A deterministic provider: the factor grows with the mention spans it is given."""

    def amplify(
        self, text: str, language: str, anchor_spans: Sequence[tuple[int, int]]
    ) -> AmplificationResult:
        covered = sum(end - start for start, end in anchor_spans)
        factor = round(1.0 + min(0.05 * len(anchor_spans) + covered / 1000, 0.4), 3)
        return AmplificationResult(factor, "golden", f"spans-{len(anchor_spans)}", None)

    def amplify_many(
        self, items: Sequence[tuple[str, str, Sequence[tuple[int, int]]]]
    ) -> list[AmplificationResult]:
        return [self.amplify(*item) for item in items]

    def status(self) -> str:
        return "ok"

    def close(self) -> None:
        return None


def key_of(text: str, context: str | None, language: str | None) -> str:
    raw = f"{language or ''}\0{context or ''}\0{text}"
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def canonical(result: Classification) -> dict[str, Any]:
    """Every field of the result (``severity`` and each signal's hidden fields too),
    as JSON types, without the timestamp."""
    fields = dataclasses.asdict(result)
    del fields["timestamp"]
    loaded: dict[str, Any] = json.loads(json.dumps(fields, ensure_ascii=False))
    return loaded


def digest(fields: dict[str, Any]) -> str:
    encoded = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8", "surrogatepass")).hexdigest()


def _case_tables() -> Iterator[tuple[str, list[str]]]:
    for path in sorted(DATA.glob("cases_*.yaml")):
        table = yaml.safe_load(path.read_text(encoding="utf-8"))
        yield table["language"], [case["text"] for case in table["cases"]]


def case_items() -> dict[str, list[Item]]:
    """The case-table sets (texts written by this project)."""
    plain: list[Item] = []
    with_context: list[Item] = []
    fallback: list[Item] = []
    for language, texts in _case_tables():
        plain.extend((text, None, language) for text in texts)
        with_context.extend(
            (text, texts[index - 1], language) for index, text in enumerate(texts) if index
        )
        if language == "en":
            fallback.extend((text, None, code) for text in texts for code in ("en-GB", "zz"))
    return {
        "cases": plain,
        "cases_context": with_context,
        "cases_amplified": plain,
        "fallback": fallback,
    }


def benchmark_items(taxonomy: LoadedTaxonomy) -> list[Item]:
    from engine.evaluation.benchmark import load_suite

    return [(case.text, None, case.language) for case in load_suite(taxonomy).cases]


def shared_items() -> dict[str, list[Item]] | None:
    """The shared evaluation sets, or None when ``../shared/eval`` is not there."""
    if not SHARED_EVAL.is_dir():
        return None
    out: dict[str, list[Item]] = {}
    for name, relative, language in SHARED_SETS:
        with (SHARED_EVAL / relative).open(encoding="utf-8", newline="") as handle:
            out[name] = [(row["test_case"], None, language) for row in csv.DictReader(handle)]
    return out


def classifiers(taxonomy: LoadedTaxonomy) -> tuple[Classifier, Classifier]:
    """The plain classifier and the amplified one, both on the fixed clock."""
    plain = Classifier(taxonomy, clock=lambda: FIXED_NOW)
    return plain, amplified_classifier(taxonomy)


def amplified_classifier(taxonomy: LoadedTaxonomy) -> Classifier:
    return Classifier(taxonomy, amplifier=GoldenAmplifier(), clock=lambda: FIXED_NOW)


def field_hashes(fields: dict[str, Any]) -> dict[str, str]:
    """A short hash per field: enough to say which field changed."""
    return {name: digest({name: value})[:16] for name, value in fields.items()}


def compute_set(classifier: Classifier, items: list[Item], *, fields: str | None) -> dict[str, Any]:
    """key -> digest for one set, and key -> its fields when ``fields`` is "values"
    or "hashes"."""
    hashes: dict[str, str] = {}
    detail: dict[str, dict[str, Any]] = {}
    for text, context, language in items:
        result = canonical(classifier.classify(text, context=context, language=language))
        key = key_of(text, context, language)
        hashes[key] = digest(result)
        if fields == "values":
            detail[key] = result
        elif fields == "hashes":
            detail[key] = field_hashes(result)
    out: dict[str, Any] = {"count": len(hashes), "hashes": hashes}
    if fields:
        out["fields"] = detail
    return out


def compute(taxonomy: LoadedTaxonomy, *, shared: bool = True) -> dict[str, Any]:
    plain, amplified = classifiers(taxonomy)
    sets: dict[str, Any] = {}
    for name, items in case_items().items():
        chosen = amplified if name == "cases_amplified" else plain
        sets[name] = compute_set(chosen, items, fields=FIELDS[name])
    sets["benchmark"] = compute_set(plain, benchmark_items(taxonomy), fields=None)
    found = shared_items() if shared else None
    if found is not None:
        for name, items in found.items():
            sets[name] = compute_set(plain, items, fields=None)
    return {"taxonomy_version": taxonomy.version, "taxonomy_digest": taxonomy.digest, "sets": sets}


def compare(name: str, expected: dict[str, Any], actual: dict[str, Any]) -> None:
    """Fail with the first changed results and their changed fields, if any."""
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


def check_batches(runs: list[tuple[Classifier, str, list[Item]]], stored: dict[str, Any]) -> None:
    """``classify_many`` gives exactly ``classify``'s results over each set: in batches
    of 1, 7 and 100 items, and the set whole in one batch."""
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
                    key = key_of(text, context, language)
                    assert digest(canonical(result)) == expected[key], (
                        f"{name}: classify_many differs from classify (language {language})"
                    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.engine.golden")
    parser.add_argument("--write", action="store_true", help=f"write {GOLDEN_PATH.name}")
    args = parser.parse_args(argv)
    if shared_items() is None:
        print(f"{SHARED_EVAL} not found: the golden file needs the shared sets", file=sys.stderr)
        return 2
    golden = compute(load_taxonomy())
    counts = {name: data["count"] for name, data in golden["sets"].items()}
    print(json.dumps(counts))
    if args.write:
        GOLDEN_PATH.write_text(
            json.dumps(golden, indent=0, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        print(f"wrote {GOLDEN_PATH.relative_to(ROOT)} ({GOLDEN_PATH.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
