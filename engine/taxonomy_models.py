"""Validated models of the taxonomy files.

The YAML is the single home of every weight, pattern, cue and threshold; these
models are its schema. They reject unknown keys so that a typo in a taxonomy
file fails loudly at load time instead of silently dropping a rule.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.languages import LANGUAGES as LANGUAGES

ROW_ID = re.compile(r"^D2\.4a-\d{3}$")
MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

IdentityAxis = Literal[
    "national_origin",
    "religion",
    "ethnicity",
    "race",
    "migration_status",
    "gender",
    "gender_identity",
    "sexual_orientation",
    "disability",
]
MechanismName = Literal[
    "false_attribution",
    "demonization",
    "objectification",
    "animalization",
    "criminalization",
    "direct_call_to_violence",
]
SuppressionReason = Literal["negation", "counter_speech", "benign_context"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Mechanism(_Strict):
    """One harm mechanism: its severity, reporting category and guidance text."""

    severity: Annotated[int, Field(ge=1, le=4)]
    category: str
    display: str
    guidance: str


class Row(_Strict):
    """A taxonomy row: the unit a decision cites (``Matched row D2.4a-NNN``)."""

    id: str
    mechanism: MechanismName
    weight: Annotated[float, Field(gt=0.0, le=1.0)]
    title: str

    @field_validator("id")
    @classmethod
    def _row_id(cls, value: str) -> str:
        if not ROW_ID.match(value):
            raise ValueError(f"row id {value!r} must look like D2.4a-NNN")
        return value


class Windows(_Strict):
    """Distances, in words and sentences, over which context is looked for."""

    negation_words_before: Annotated[int, Field(ge=0, le=30)]
    reference_sentences_back: Annotated[int, Field(ge=0, le=10)]
    reference_sentences_forward: Annotated[int, Field(ge=0, le=3)]
    counter_speech_sentences: Annotated[int, Field(ge=0, le=5)]
    benign_words: Annotated[int, Field(ge=0, le=50)]
    filler_max_words: Annotated[int, Field(ge=1, le=8)]


class Obfuscation(_Strict):
    """How pattern literals are widened to catch leetspeak, homoglyphs and typos.

    ``letter_classes`` maps a letter to the other characters that stand for it
    (digits, symbols, Cyrillic/Greek look-alikes). ``typo_*`` govern the
    edit-distance-1 spellings generated for lexicon entries marked ``typo``.
    """

    letter_classes: dict[str, str]
    typo_min_length: Annotated[int, Field(ge=3, le=12)]
    typo_deletable: str
    typo_transpositions: bool
    typo_deletions: bool


class Amplification(_Strict):
    """Score amplification from the optional text-analytics provider."""

    provider: Literal["azure_language"]
    api_version: str
    negative_sentiment_min: Annotated[float, Field(ge=0.0, le=1.0)]
    factor_negative_sentiment: Annotated[float, Field(ge=1.0, le=2.0)]
    factor_entity_overlap: Annotated[float, Field(ge=1.0, le=2.0)]
    max_factor: Annotated[float, Field(ge=1.0, le=2.0)]
    no_sentiment_languages: list[str]
    no_entity_languages: list[str]
    default_timeout_s: Annotated[float, Field(gt=0.0, le=30.0)]
    retry_after_cap_s: Annotated[float, Field(ge=0.0, le=10.0)]
    max_attempts: Annotated[int, Field(ge=1, le=5)]
    breaker_failures: Annotated[int, Field(ge=1, le=100)]
    breaker_cooldown_s: Annotated[float, Field(ge=0.0, le=3600.0)]


class Tracking(_Strict):
    """Defaults for source tracking (overridable by settings)."""

    window: Annotated[int, Field(ge=1, le=10_000)]
    trend_delta: Annotated[float, Field(gt=0.0, le=4.0)]
    trend_min_observations: Annotated[int, Field(ge=2, le=100)]
    risk_levels: list[str]
    risk_by_severity: dict[int, str]
    escalation_raise: Annotated[int, Field(ge=0, le=3)]

    @model_validator(mode="after")
    def _risk_known(self) -> Tracking:
        for sev, level in self.risk_by_severity.items():
            if level not in self.risk_levels:
                raise ValueError(f"risk_by_severity[{sev}] = {level!r} is not in risk_levels")
        return self


class LanguageRef(_Strict):
    file: str
    confidence: Literal["verified", "experimental"]


class Taxonomy(_Strict):
    """The top-level taxonomy file (``taxonomy_v1.yaml``)."""

    schema_version: Literal[1] = Field(alias="schema")
    version: str
    baseline_tag: str
    decision_threshold: Annotated[float, Field(gt=0.0, le=1.0)]
    require_target_present: bool
    ambiguity_resolution: Literal["highest_score_then_lower_severity_then_lower_row_id"]
    default_language: Literal["en"]
    max_text_chars: Annotated[int, Field(ge=1, le=1_000_000)]
    windows: Windows
    obfuscation: Obfuscation
    mechanisms: dict[MechanismName, Mechanism]
    identity_axes: dict[IdentityAxis, str]
    rows: list[Row]
    languages: dict[str, LanguageRef]
    dogwhistles: str
    amplification: Amplification
    tracking: Tracking
    # Optional so that a taxonomy without a benchmark suite or gate still loads;
    # the commands that need them say which file is missing.
    benchmark: str | None = Field(
        default=None, description="Benchmark suite file (SuiteFile), relative to this file."
    )
    legacy_gate: str | None = Field(
        default=None, description="Legacy phase-1 gate file (GateFile), relative to this file."
    )

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    @field_validator("version")
    @classmethod
    def _semver(cls, value: str) -> str:
        if not re.fullmatch(r"\d+\.\d+\.\d+", value):
            raise ValueError(f"version {value!r} must have three parts, e.g. 1.0.0")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Taxonomy:
        seen: set[str] = set()
        for row in self.rows:
            if row.id in seen:
                raise ValueError(f"row {row.id}: duplicate row id")
            seen.add(row.id)
        missing = sorted(set(LANGUAGES) - set(self.languages))
        if missing:
            raise ValueError(f"languages: missing {', '.join(missing)}")
        unknown = sorted(set(self.languages) - set(LANGUAGES))
        if unknown:
            raise ValueError(f"languages: unsupported {', '.join(unknown)}")
        return self


class Anchor(_Strict):
    """An identity group and the words that name it in one language.

    ``terms`` are noun phrases that refer to the group ("muslims", "black
    people"); ``modifiers`` are forms that only name the group when they stand
    before a noun inside a pattern ("muslim trash", "black vermin"), so a bare
    adjective such as "black" never anchors on its own.
    """

    id: str
    identity_axis: IdentityAxis
    target_type: str | None = None
    terms: list[str]
    modifiers: list[str] = Field(default_factory=list)
    typo: bool = True
    note: str | None = None


class LexiconEntry(_Strict):
    """A named list of alternatives, used inside patterns as ``{NAME}``."""

    terms: list[str]
    typo: bool = False
    note: str | None = None


class Cues(_Strict):
    """Suppression cue lists (regex fragments over normalized text)."""

    negation: list[str]
    negation_exceptions: list[str] = Field(default_factory=list)
    reporting: list[str]
    condemnation: list[str]
    clause_breaks: list[str]


class BenignContext(_Strict):
    """A context that makes a literal reading likely (pest control, fiction ...)."""

    id: str
    cues: list[str]
    rows: list[str]
    note: str | None = None


class PatternSpec(_Strict):
    """One pattern of a row; a bare string in YAML is shorthand for ``{regex: ...}``."""

    regex: str
    note: str | None = None


class LanguagePack(_Strict):
    """Everything one language contributes: anchors, references, cues, patterns."""

    language: str
    note: str | None = None
    references: list[str]
    anchors: list[Anchor]
    lexicon: dict[str, LexiconEntry]
    cues: Cues
    benign: list[BenignContext] = Field(default_factory=list)
    typo_exclude: list[str] = Field(default_factory=list)
    patterns: dict[str, list[PatternSpec]]

    @field_validator("patterns", mode="before")
    @classmethod
    def _shorthand(cls, value: object) -> object:
        if isinstance(value, dict):
            return {
                key: [{"regex": p} if isinstance(p, str) else p for p in (items or [])]
                for key, items in value.items()
            }
        return value

    @field_validator("lexicon")
    @classmethod
    def _macro_names(cls, value: dict[str, LexiconEntry]) -> dict[str, LexiconEntry]:
        for name in value:
            if not MACRO_NAME.match(name):
                raise ValueError(f"lexicon name {name!r} must be UPPER_SNAKE_CASE")
        return value


class Dogwhistle(_Strict):
    """A coded term: what it says on the surface and what it means in-group."""

    id: str
    surface: list[str]
    canonical: str
    meaning: str
    identity_axis: IdentityAxis | None
    names_group: bool
    row: str
    weight: Annotated[float, Field(gt=0.0, le=1.0)]
    note: str | None = None


class DogwhistlePack(_Strict):
    language: Literal["en"]
    source: str
    entries: list[Dogwhistle]


# -- benchmark suite and legacy gate -------------------------------------------------------

SLOT = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")
CASE_LANGUAGE = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$")
SNAKE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
TEMPLATE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
Expectation = Literal["harmful", "not_harmful"]
TransformName = Literal["leet", "spaced", "dotted", "zero_width", "homoglyph"]


def _case_language(value: str | None) -> str | None:
    """Any well-formed code, supported or not: the fallback capability needs unknown ones."""
    if value is not None and not CASE_LANGUAGE.match(value):
        raise ValueError(f"language {value!r} must be a lowercase code such as en or pt-br")
    return value


class SuiteTemplate(_Strict):
    """A sentence frame: ``{SLOT}``s in ``text`` take every combination of their fillers.

    ``transform`` obfuscates the filler values (all slots, or ``transform_slots``)
    so that the suite states obfuscation once instead of spelling out each variant.
    """

    id: str
    text: str
    language: str | None = None
    fillers: dict[str, list[str]] = Field(default_factory=dict)
    expect: Expectation
    mechanism: MechanismName | None = None
    transform: TransformName | None = None
    transform_slots: list[str] | None = None
    note: str | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not TEMPLATE_ID.match(value):
            raise ValueError(f"template id {value!r} must be lowercase letters, digits, . _ -")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        return _case_language(value)

    @model_validator(mode="after")
    def _consistent(self) -> SuiteTemplate:
        slots = set(SLOT.findall(self.text))
        missing = sorted(slots - set(self.fillers))
        if missing:
            raise ValueError(f"slot(s) {', '.join(missing)} in text have no fillers")
        unused = sorted(set(self.fillers) - slots)
        if unused:
            raise ValueError(f"fillers {', '.join(unused)} do not appear in text")
        for slot, values in self.fillers.items():
            if not values:
                raise ValueError(f"fillers {slot}: empty list")
            if any(not value.strip() for value in values):
                raise ValueError(f"fillers {slot}: empty value")
            if len(set(values)) != len(values):
                raise ValueError(f"fillers {slot}: duplicate value")
        if self.expect == "harmful" and self.mechanism is None:
            raise ValueError("a harmful template needs a mechanism")
        if self.expect == "not_harmful" and self.mechanism is not None:
            raise ValueError("a not_harmful template takes no mechanism")
        if self.transform_slots is not None:
            if self.transform is None:
                raise ValueError("transform_slots without a transform")
            stray = sorted(set(self.transform_slots) - slots)
            if stray:
                raise ValueError(f"transform_slots {', '.join(stray)} are not slots of text")
        elif self.transform is not None and not slots:
            raise ValueError("a transform needs at least one slot to apply to")
        return self


class SuiteCapability(_Strict):
    """One behaviour the classifier must have, reported as one line of the benchmark."""

    name: str
    description: str
    templates: Annotated[list[SuiteTemplate], Field(min_length=1)]

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not SNAKE_NAME.match(value):
            raise ValueError(f"capability name {value!r} must be snake_case")
        return value


class SuiteFile(_Strict):
    """The templated functional benchmark suite (``benchmark_v1.yaml``).

    ``baselines`` holds each capability's pass rate at the suite's release; a run
    that falls below one is a regression, whatever the overall pass rate.
    """

    suite_version: str
    description: str | None = None
    language: str = "en"
    baselines: dict[str, Annotated[float, Field(ge=0.0, le=1.0)]]
    capabilities: Annotated[list[SuiteCapability], Field(min_length=1)]

    @field_validator("suite_version")
    @classmethod
    def _semver(cls, value: str) -> str:
        if not re.fullmatch(r"\d+\.\d+\.\d+", value):
            raise ValueError(f"suite_version {value!r} must have three parts, e.g. 1.0.0")
        return value

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        _case_language(value)
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SuiteFile:
        names = [capability.name for capability in self.capabilities]
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(f"capability {name}: duplicate capability name")
            seen.add(name)
        ids: set[str] = set()
        for capability in self.capabilities:
            for template in capability.templates:
                if template.id in ids:
                    raise ValueError(
                        f"capability {capability.name}: template {template.id}: duplicate id"
                    )
                ids.add(template.id)
        unknown = sorted(set(self.baselines) - seen)
        if unknown:
            raise ValueError(f"baselines: unknown capability {', '.join(unknown)}")
        missing = [name for name in names if name not in self.baselines]
        if missing:
            raise ValueError(f"baselines: no baseline for {', '.join(missing)}")
        return self


class GateSample(_Strict):
    """One fixed sample of the legacy gate, with its expected decision."""

    id: str
    text: Annotated[str, Field(min_length=1)]
    language: str | None = None
    expected_harmful: bool
    expected_mechanism: MechanismName | None = None

    @field_validator("language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        return _case_language(value)

    @model_validator(mode="after")
    def _consistent(self) -> GateSample:
        if self.expected_mechanism is not None and not self.expected_harmful:
            raise ValueError("a not-harmful sample takes no expected_mechanism")
        return self


class GateFile(_Strict):
    """The legacy phase-1 dehumanization gate: fixed, balanced samples and a pass mark."""

    gate: str
    description: str | None = None
    required_accuracy: Annotated[float, Field(gt=0.0, le=1.0)]
    samples: Annotated[list[GateSample], Field(min_length=2)]

    @model_validator(mode="after")
    def _consistent(self) -> GateFile:
        seen: set[str] = set()
        for sample in self.samples:
            if sample.id in seen:
                raise ValueError(f"sample {sample.id}: duplicate id")
            seen.add(sample.id)
        harmful = sum(sample.expected_harmful for sample in self.samples)
        if harmful * 2 != len(self.samples):
            raise ValueError(
                f"samples: {harmful} harmful of {len(self.samples)}; the gate must be balanced"
            )
        return self
