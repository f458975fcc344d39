"""The benchmark suite and the legacy gate: the shipped files, expansion, transforms,
filters, the report contract, and one clear error per malformed file.

The shipped suite is run once per session (module fixture) on the shared classifier;
the gate metrics are checked on a mini gate whose confusion counts are worked out by
hand below.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
import unicodedata
from pathlib import Path
from typing import Any, get_args

import pytest

from engine import Classifier, LoadedTaxonomy, TaxonomyError
from engine.evaluation.benchmark import (
    TRANSFORMS,
    Suite,
    expand,
    gate_metrics,
    load_gate,
    load_suite,
    regressions,
    result_tag,
    run_gate,
    run_suite,
    select_cases,
)
from engine.evaluation.models import SuiteTemplate, TransformName
from engine.rules.models import LANGUAGES, MechanismName
from tests.contract import BENCHMARK_REPORT_FIELDS, CAPABILITY_FIELDS, GATE_FIELDS

DEHUMANIZATION = {"animalization", "objectification", "demonization"}


@pytest.fixture(scope="module")
def suite(taxonomy: LoadedTaxonomy) -> Suite:
    return load_suite(taxonomy)


@pytest.fixture(scope="module")
def report(classifier: Classifier, suite: Suite) -> dict[str, Any]:
    return run_suite(classifier, suite)


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


MINI_SUITE = """\
    suite_version: "0.1.0"
    baselines: {animals: 1.0, kind: 0.5}
    capabilities:
      - name: animals
        description: two groups, one of them not a protected group
        templates:
          - id: a.copula
            text: "{G} are {N}."
            fillers: {G: [Muslims, Politicians], N: [vermin, rats, parasites]}
            expect: harmful
            mechanism: animalization
      - name: kind
        description: no slots
        templates:
          - id: k.welcome
            text: "Refugees are welcome here."
            expect: not_harmful
          - id: k.spanish
            language: es
            text: "Los refugiados son bienvenidos."
            expect: not_harmful
"""


# -- the shipped suite -------------------------------------------------------------------------


def test_shipped_suite_passes_completely(report: dict[str, Any]) -> None:
    failures = [f for c in report["capabilities"] for f in c["failures"]]
    assert failures == []
    assert report["failed"] == 0
    assert report["passed"] == report["total"]
    assert report["pass_rate"] == 1.0


def test_baseline_tag_names_the_shipped_result(
    report: dict[str, Any], suite: Suite, taxonomy: LoadedTaxonomy
) -> None:
    assert result_tag(report) == taxonomy.root.baseline_tag
    assert regressions(report, suite) == []


def test_report_has_the_contract_fields(report: dict[str, Any], suite: Suite) -> None:
    assert set(report) == BENCHMARK_REPORT_FIELDS
    assert report["suite_version"] == suite.version
    assert report["taxonomy_version"] == "1.0.0"
    assert [c["name"] for c in report["capabilities"]] == list(suite.capabilities)
    for capability in report["capabilities"]:
        assert set(capability) == CAPABILITY_FIELDS
    assert sum(c["total"] for c in report["capabilities"]) == report["total"]


def test_suite_is_about_190_cases(suite: Suite) -> None:
    assert 180 <= len(suite.cases) <= 210


def test_every_capability_has_harmful_and_not_harmful_cases(suite: Suite) -> None:
    for name in suite.capabilities:
        expected = {case.expected_harmful for case in suite.cases if case.capability == name}
        assert expected == {True, False}, name


def test_suite_covers_the_required_capabilities(suite: Suite) -> None:
    names = set(suite.capabilities)
    required = {
        *get_args(MechanismName),
        "coded_language",
        "negation",
        "counter_speech",
        "benign_context",
        "no_identity_target",
        "identity_mention",
        "pronoun_reference",
        "question_opinion",
        "unknown_language_fallback",
        *(f"language_{code}" for code in LANGUAGES if code != "en"),
        *(f"obfuscation_{kind}" for kind in ("leet", "spacing", "zero_width", "homoglyph")),
    }
    assert required <= names
    for mechanism in get_args(MechanismName):
        found = {case.expected_mechanism for case in suite.cases if case.capability == mechanism}
        assert mechanism in found


def test_language_capabilities_are_written_in_their_language(suite: Suite) -> None:
    for code in LANGUAGES:
        if code == "en":
            continue
        cases = [case for case in suite.cases if case.capability == f"language_{code}"]
        assert cases and {case.language for case in cases} == {code}
    fallback = [case for case in suite.cases if case.capability == "unknown_language_fallback"]
    assert all(case.language.split("-")[0] not in LANGUAGES for case in fallback)


def test_obfuscated_cases_really_are_obfuscated(suite: Suite) -> None:
    disguise = re.compile(r"[0-9\u200b]|[^\x00-\x7f]|(?:\b\w[ .]){3,}")
    for case in suite.cases:
        if case.capability.startswith("obfuscation_"):
            assert disguise.search(case.text), case.text


def test_harmful_cases_state_a_mechanism(suite: Suite) -> None:
    for case in suite.cases:
        assert (case.expected_mechanism is not None) == case.expected_harmful, case.id


# -- expansion and transforms ------------------------------------------------------------------


def test_expansion_is_the_product_of_the_fillers(tmp_path: Path) -> None:
    suite = load_suite(path=write(tmp_path, MINI_SUITE))
    texts = [case.text for case in suite.cases if case.template == "a.copula"]
    assert len(texts) == 2 * 3
    assert texts[:3] == ["Muslims are vermin.", "Muslims are rats.", "Muslims are parasites."]
    assert texts[-1] == "Politicians are parasites."
    assert [case.id for case in suite.cases][:2] == ["a.copula/1", "a.copula/2"]
    assert len(suite.cases) == 6 + 1 + 1
    assert suite.cases[-1].language == "es"
    assert suite.cases[-2].language == "en"  # the suite's default
    assert suite.languages == ["en", "es"]


def test_a_slot_used_twice_takes_the_same_value(tmp_path: Path) -> None:
    template = SuiteTemplate(
        id="t", text="{G} here, {G} there.", fillers={"G": ["a", "b"]}, expect="not_harmful"
    )
    assert expand(template) == ["a here, a there.", "b here, b there."]


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("leet", "Muslims are", "Mu5l1m5 4r3"),
        ("spaced", "vermin", "v e r m i n"),
        ("dotted", "scum", "s.c.u.m"),
        ("zero_width", "kill", "k\u200bi\u200bl\u200bl"),
        ("homoglyph", "pace", "\u0440\u0430\u0441\u0435"),
        ("spaced", "gay men", "g a y m e n"),
    ],
)
def test_transforms(kind: str, value: str, expected: str) -> None:
    assert TRANSFORMS[kind](value) == expected


def test_every_transform_is_implemented() -> None:
    assert set(TRANSFORMS) == set(get_args(TransformName))


def test_homoglyphs_look_like_latin_but_are_cyrillic() -> None:
    out = TRANSFORMS["homoglyph"]("Muslims are vermin")
    assert out != "Muslims are vermin"
    changed = [ch for ch in out if not ch.isascii()]
    assert changed and all("CYRILLIC" in unicodedata.name(ch) for ch in changed)


def test_transform_applies_to_the_named_slots_only() -> None:
    template = SuiteTemplate(
        id="t",
        text="{G} are {N}.",
        fillers={"G": ["Muslims"], "N": ["vermin"]},
        transform="leet",
        transform_slots=["N"],
        expect="harmful",
        mechanism="animalization",
    )
    assert expand(template) == ["Muslims are v3rm1n."]


# -- filters -----------------------------------------------------------------------------------


def test_filters_select_capabilities_and_languages(suite: Suite) -> None:
    negation = select_cases(suite, capabilities=["negation"])
    assert negation and {case.capability for case in negation} == {"negation"}
    spanish = select_cases(suite, languages=["ES"])
    assert spanish and {case.language for case in spanish} == {"es"}
    both = select_cases(suite, capabilities=["language_es", "negation"], languages=["es"])
    assert {case.capability for case in both} == {"language_es"}
    assert len(select_cases(suite)) == len(suite.cases)


def test_filtered_run_reports_only_the_selection(classifier: Classifier, suite: Suite) -> None:
    report = run_suite(classifier, suite, capabilities=["negation", "language_fr"])
    assert [c["name"] for c in report["capabilities"]] == ["negation", "language_fr"]
    assert report["total"] == len(select_cases(suite, capabilities=["negation", "language_fr"]))


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"capabilities": ["negatoin"]}, "unknown capability 'negatoin'"),
        ({"languages": ["xx"]}, "no case in language 'xx'"),
        ({"capabilities": ["negation"], "languages": ["es"]}, "no case matches both"),
    ],
)
def test_filters_that_match_nothing_are_errors(
    suite: Suite, filters: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        select_cases(suite, **filters)


def test_progress_is_reported_per_case(classifier: Classifier, tmp_path: Path) -> None:
    suite = load_suite(path=write(tmp_path, MINI_SUITE))
    seen: list[int] = []
    run_suite(classifier, suite, progress=seen.append)
    assert seen == list(range(1, len(suite.cases) + 1))


# -- failures and baselines --------------------------------------------------------------------


def test_failures_show_text_language_expected_and_got(
    classifier: Classifier, tmp_path: Path
) -> None:
    suite = load_suite(path=write(tmp_path, MINI_SUITE))
    report = run_suite(classifier, suite)
    animals, kind = report["capabilities"]
    assert (animals["total"], animals["passed"], animals["pass_rate"]) == (6, 3, 0.5)
    assert (kind["total"], kind["passed"], kind["pass_rate"]) == (2, 2, 1.0)
    assert (report["total"], report["passed"], report["failed"]) == (8, 5, 3)
    assert report["pass_rate"] == 0.625
    failure = animals["failures"][0]
    assert failure == {
        "case": "a.copula/4",
        "text": "Politicians are vermin.",
        "language": "en",
        "expected": {"is_harmful": True, "harm_mechanism": "animalization"},
        "got": {"is_harmful": False, "harm_mechanism": None},
        "rationale": failure["rationale"],
    }
    assert failure["rationale"].startswith("NO HARM")
    below = regressions(report, suite)
    assert [(r.capability, r.pass_rate, r.baseline) for r in below] == [("animals", 0.5, 1.0)]
    assert result_tag(report) == "suite-0.1.0@5/8"


def test_a_wrong_mechanism_is_a_failure(classifier: Classifier, tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """\
        suite_version: "0.1.0"
        baselines: {m: 0.0}
        capabilities:
          - name: m
            description: right decision, wrong mechanism
            templates:
              - id: m.t
                text: "Muslims are vermin."
                expect: harmful
                mechanism: criminalization
        """,
    )
    report = run_suite(classifier, load_suite(path=path))
    [failure] = report["capabilities"][0]["failures"]
    assert failure["got"] == {"is_harmful": True, "harm_mechanism": "animalization"}


# -- malformed suite files ---------------------------------------------------------------------

_HEAD = """\
suite_version: "0.1.0"
baselines: {c: 1.0}
capabilities:
  - name: c
    description: d
    templates:
"""


@pytest.mark.parametrize(
    ("templates", "fragments"),
    [
        (
            '      - {id: t1, text: "{G} are vermin.", expect: harmful, mechanism: animalization}',
            ["capability c: template t1:", "slot(s) G in text have no fillers"],
        ),
        (
            '      - {id: t1, text: "Hi.", fillers: {G: [a]}, expect: not_harmful}',
            ["template t1:", "fillers G do not appear in text"],
        ),
        (
            '      - {id: t1, text: "{G}", fillers: {G: []}, expect: not_harmful}',
            ["template t1:", "fillers G: empty list"],
        ),
        (
            '      - {id: t1, text: "{G}", fillers: {G: [a, a]}, expect: not_harmful}',
            ["template t1:", "fillers G: duplicate value"],
        ),
        (
            '      - {id: t1, text: "Muslims are vermin.", expect: harmful}',
            ["template t1:", "a harmful template needs a mechanism"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: not_harmful, mechanism: animalization}',
            ["template t1:", "a not_harmful template takes no mechanism"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: harmful, mechanism: ratification}',
            ["template t1: mechanism:", "animalization"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: maybe}',
            ["template t1: expect:", "harmful"],
        ),
        (
            '      - {id: t1, text: "{G}", fillers: {G: [a]}, expect: harmful, transform: rot13}',
            ["template t1: transform:", "leet"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: not_harmful, transform: leet}',
            ["template t1:", "a transform needs at least one slot"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: not_harmful, language: "Spanish"}',
            ["template t1: language:", "lowercase code"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: not_harmful, colour: red}',
            ["template t1: colour:", "Extra inputs are not permitted"],
        ),
        (
            '      - {id: t1, text: "Hi.", expect: not_harmful}\n'
            '      - {id: t1, text: "Hello.", expect: not_harmful}',
            ["capability c: template t1: duplicate id"],
        ),
        (
            '      - {id: t1, text: "{G} hi.", fillers: {G: [A]}, expect: not_harmful}\n'
            '      - {id: t2, text: "A hi.", expect: not_harmful}',
            ["capability c: template t2:", "repeats template t1"],
        ),
    ],
)
def test_malformed_templates_name_file_and_template(
    tmp_path: Path, templates: str, fragments: list[str]
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(_HEAD + templates + "\n", encoding="utf-8")
    with pytest.raises(TaxonomyError) as caught:
        load_suite(path=path)
    message = str(caught.value)
    assert message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        (MINI_SUITE.replace("kind: 0.5", "kind: 1.5"), ["baselines.kind", "less than or equal"]),
        (MINI_SUITE.replace(", kind: 0.5", ""), ["baselines: no baseline for kind"]),
        (MINI_SUITE.replace("kind: 0.5", "kind: 0.5, knid: 1.0"), ["unknown capability knid"]),
        (MINI_SUITE.replace('"0.1.0"', '"1.0"'), ["suite_version", "three parts"]),
        (MINI_SUITE.replace("name: kind", "name: animals"), ["duplicate capability name"]),
        (MINI_SUITE.replace("name: kind", "name: Kind"), ["capability Kind: name:"]),
        ("suite_version: [", ["line 2 invalid YAML"]),
        ("- a list", ["expected a mapping"]),
    ],
)
def test_malformed_suite_files_are_clear_errors(
    tmp_path: Path, text: str, fragments: list[str]
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TaxonomyError) as caught:
        load_suite(path=path)
    message = str(caught.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


def test_non_utf8_and_missing_suite_files(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("suite_version: café".encode("latin-1"))
    with pytest.raises(TaxonomyError, match="not UTF-8"):
        load_suite(path=path)
    with pytest.raises(TaxonomyError, match="cannot read"):
        load_suite(path=tmp_path / "absent.yaml")


def test_a_taxonomy_without_a_suite_says_so(taxonomy: LoadedTaxonomy) -> None:
    bare = dataclasses.replace(
        taxonomy, root=taxonomy.root.model_copy(update={"benchmark": None, "legacy_gate": None})
    )
    with pytest.raises(TaxonomyError, match="no benchmark file named"):
        load_suite(bare)
    with pytest.raises(TaxonomyError, match="no legacy_gate file named"):
        load_gate(bare)


# -- the legacy gate ---------------------------------------------------------------------------


def test_shipped_gate_passes(classifier: Classifier, taxonomy: LoadedTaxonomy) -> None:
    gate = load_gate(taxonomy)
    report = run_gate(classifier, gate)
    assert set(report) == GATE_FIELDS
    assert report["samples"] == 18
    assert report["correct"] == 18
    assert report["passed"] is True
    assert report["required_accuracy"] == 0.9
    assert (report["accuracy"], report["precision"], report["recall"], report["f1"]) == (
        1.0,
        1.0,
        1.0,
        1.0,
    )
    harmful = [s for s in gate.file.samples if s.expected_harmful]
    assert len(harmful) == 9
    assert {s.expected_mechanism for s in harmful} <= DEHUMANIZATION
    # Mechanisms too, although the gate scores decisions only.
    for result in report["results"]:
        if result["expected_harmful"]:
            assert result["got_mechanism"] == result["expected_mechanism"], result["id"]


# Expected harmful: G1-G3 flagged (TP 3), G4 not (FN 1).
# Expected not harmful: G5-G6 flagged (FP 2), G7-G8 not (TN 2).
# accuracy 5/8 = 0.625, precision 3/5 = 0.6, recall 3/4 = 0.75, F1 2·3/(2·3+2+1) = 0.6667.
MINI_GATE = """\
    gate: mini
    required_accuracy: {required}
    samples:
      - {{id: G1, text: "Muslims are vermin.", expected_harmful: true}}
      - {{id: G2, text: "Refugees are parasites.", expected_harmful: true}}
      - {{id: G3, text: "Jews are subhuman.", expected_harmful: true,
          expected_mechanism: objectification}}
      - {{id: G4, text: "Politicians are vermin.", expected_harmful: true}}
      - {{id: G5, text: "Immigrants are cockroaches.", expected_harmful: false}}
      - {{id: G6, text: "Roma are rats.", expected_harmful: false}}
      - {{id: G7, text: "Refugees are welcome here.", expected_harmful: false}}
      - {{id: G8, text: "Los refugiados son bienvenidos.", language: es, expected_harmful: false}}
"""


@pytest.mark.parametrize(("required", "passed"), [(0.6, True), (0.625, True), (0.7, False)])
def test_gate_metrics_on_a_hand_computed_mini_gate(
    classifier: Classifier, tmp_path: Path, required: float, passed: bool
) -> None:
    path = write(tmp_path, MINI_GATE.format(required=required), "gate.yaml")
    report = run_gate(classifier, load_gate(path=path))
    assert report["gate"] == "mini"
    assert (report["samples"], report["correct"]) == (8, 5)
    assert report["accuracy"] == 0.625
    assert report["precision"] == 0.6
    assert report["recall"] == 0.75
    assert report["f1"] == 0.6667
    assert report["passed"] is passed
    by_id = {r["id"]: r for r in report["results"]}
    assert by_id["G4"] == {
        "id": "G4",
        "text": "Politicians are vermin.",
        "language": "en",
        "expected_harmful": True,
        "expected_mechanism": None,
        "got_harmful": False,
        "got_mechanism": None,
        "correct": False,
    }
    assert by_id["G8"]["language"] == "es"
    assert by_id["G3"]["got_mechanism"] == "objectification"


def test_gate_metrics_with_empty_denominators() -> None:
    assert gate_metrics([(False, False), (False, False)]) == {
        "accuracy": 1.0,
        "precision": None,
        "recall": None,
        "f1": None,
    }
    assert gate_metrics([(True, False), (False, False)]) == {
        "accuracy": 0.5,
        "precision": None,
        "recall": 0.0,
        "f1": 0.0,
    }


@pytest.mark.parametrize(
    ("samples", "fragment"),
    [
        (
            '  - {id: A, text: "x", expected_harmful: true}\n'
            '  - {id: B, text: "y", expected_harmful: true}\n',
            "2 harmful of 2; the gate must be balanced",
        ),
        (
            '  - {id: A, text: "x", expected_harmful: true}\n'
            '  - {id: A, text: "y", expected_harmful: false}\n',
            "sample A: duplicate id",
        ),
        (
            '  - {id: A, text: "x", expected_harmful: true}\n'
            '  - {id: B, text: "y", expected_harmful: false, expected_mechanism: animalization}\n',
            "sample B: a not-harmful sample takes no expected_mechanism",
        ),
        (
            '  - {id: A, text: "", expected_harmful: true}\n'
            '  - {id: B, text: "y", expected_harmful: false}\n',
            "sample A: text:",
        ),
    ],
)
def test_malformed_gate_files_name_file_and_sample(
    tmp_path: Path, samples: str, fragment: str
) -> None:
    path = tmp_path / "gate.yaml"
    path.write_text("gate: g\nrequired_accuracy: 0.9\nsamples:\n" + samples, encoding="utf-8")
    with pytest.raises(TaxonomyError) as caught:
        load_gate(path=path)
    assert str(caught.value).startswith(str(path))
    assert fragment in str(caught.value)
