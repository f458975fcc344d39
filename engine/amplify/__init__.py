"""Optional score amplification: the seam (``base``), a provider (``azure``) and the
factory that picks one from settings.

The factory lives here rather than in ``base`` so that the provider imports the
seam and nothing imports the provider but this function, on demand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.amplify.base import AmplificationResult, Amplifier, Item, NullAmplifier, Span

if TYPE_CHECKING:
    from engine.rules.models import Amplification

__all__ = [
    "AmplificationResult",
    "Amplifier",
    "Item",
    "NullAmplifier",
    "Span",
    "build_amplifier",
]


def build_amplifier(
    endpoint: str | None,
    key: str | None,
    config: Amplification,
    timeout_s: float | None = None,
) -> Amplifier:
    """Chooses the provider from settings; half-set credentials mean "off", not an error."""
    if endpoint and endpoint.strip() and key and key.strip():
        from engine.amplify.azure import AzureLanguageAmplifier

        return AzureLanguageAmplifier(
            endpoint=endpoint, key=key.strip(), config=config, timeout_s=timeout_s
        )
    return NullAmplifier()
