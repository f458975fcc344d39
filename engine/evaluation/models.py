"""Validated models of the benchmark suite and the legacy gate files.

Evaluation data, not rules: they sit apart from the taxonomy models so that the
classification path never loads them.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from engine.rules.models import MechanismName, Strict

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


class SuiteTemplate(Strict):
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


class SuiteCapability(Strict):
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


class SuiteFile(Strict):
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


class GateSample(Strict):
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


class GateFile(Strict):
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
