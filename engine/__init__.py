"""harmwatch's classification engine: pure, taxonomy-driven, no I/O beyond the taxonomy.

``classify(text, context=None, language=None)`` uses a process-wide default
classifier, built on first use from the environment (HARMWATCH_TAXONOMY,
HARMWATCH_MAX_TEXT_CHARS, TEXT_ANALYTICS_*). Front ends that hold their own
settings build a ``Classifier`` with ``build_classifier(settings)`` instead.
"""

from __future__ import annotations

import threading

from engine.classifier import Classifier
from engine.result import Classification, DogwhistleMatch, Signal, Suppression
from engine.settings import Settings
from engine.taxonomy import LoadedTaxonomy, TaxonomyError, load_taxonomy

__all__ = [
    "Classification",
    "Classifier",
    "DogwhistleMatch",
    "LoadedTaxonomy",
    "Settings",
    "Signal",
    "Suppression",
    "TaxonomyError",
    "build_classifier",
    "classify",
    "default_classifier",
    "load_taxonomy",
]

_default: Classifier | None = None
_default_lock = threading.Lock()


def build_classifier(settings: Settings) -> Classifier:
    """A classifier configured from settings (taxonomy, text limit, amplifier)."""
    from engine.amplification import build_amplifier

    taxonomy = load_taxonomy(settings.taxonomy_path)
    key = settings.text_analytics_key.get_secret_value() if settings.text_analytics_key else None
    amplifier = build_amplifier(
        settings.text_analytics_endpoint,
        key,
        taxonomy.root.amplification,
        settings.text_analytics_timeout_s,
    )
    return Classifier(taxonomy, amplifier=amplifier, max_text_chars=settings.max_text_chars)


def default_classifier() -> Classifier:
    """The process-wide classifier behind ``classify``, built on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = build_classifier(Settings())
    return _default


def classify(
    text: str, *, context: str | None = None, language: str | None = None
) -> Classification:
    """Classify one text with the default classifier (SPEC sections 2 and 3)."""
    return default_classifier().classify(text, context=context, language=language)
