"""Optional score amplification from an external text-analytics provider.

The classifier is rule-based and must give the same decision with or without a
provider, so a provider can only *raise* the score of a signal that already
survived suppression, by a bounded factor taken from the taxonomy. This module
holds the seam (result type, protocol, the no-provider stand-in); the Azure AI
Language client lives in ``engine.amplify.azure`` and the factory that picks one
in ``engine.amplify``, which imports the client only when credentials are
configured, so the core never loads an HTTP client for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "AmplificationResult",
    "Amplifier",
    "Item",
    "NullAmplifier",
    "Span",
]

Span = tuple[int, int]
Item = tuple[str, str, Sequence[Span]]


@dataclass(frozen=True, slots=True)
class AmplificationResult:
    """What the provider contributed to one classification, recorded in the result.

    A skipped result is a normal outcome (factor 1.0) rather than an error, so the
    classification result can always carry the reason for audit.
    """

    factor: float
    provider: str | None
    model_version: str | None
    skipped_reason: str | None

    def to_dict(self) -> dict[str, object]:
        return {
            "factor": self.factor,
            "provider": self.provider,
            "model_version": self.model_version,
            "skipped_reason": self.skipped_reason,
        }


class Amplifier(Protocol):
    """The seam the classifier and /health use, so tests and deployments can swap providers."""

    def amplify(
        self, text: str, language: str, anchor_spans: Sequence[Span]
    ) -> AmplificationResult: ...

    def amplify_many(self, items: Sequence[Item]) -> list[AmplificationResult]: ...

    def status(self) -> str: ...

    def close(self) -> None: ...


_NOT_CONFIGURED = AmplificationResult(1.0, None, None, "not_configured")


class NullAmplifier:
    """Stands in when no credentials are set, so the classifier has one code path."""

    def amplify(
        self, text: str, language: str, anchor_spans: Sequence[Span]
    ) -> AmplificationResult:
        return _NOT_CONFIGURED

    def amplify_many(self, items: Sequence[Item]) -> list[AmplificationResult]:
        return [_NOT_CONFIGURED] * len(items)

    def status(self) -> str:
        return "not_configured"

    def close(self) -> None:
        return None

    def __repr__(self) -> str:
        return "NullAmplifier()"
