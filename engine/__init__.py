"""harmwatch's classification engine: pure, taxonomy-driven, no I/O beyond the taxonomy.

``classify(text, context=None, language=None)`` uses a process-wide default
classifier, built on first use from the environment (HARMWATCH_TAXONOMY,
HARMWATCH_MAX_TEXT_CHARS, TEXT_ANALYTICS_*). Front ends that hold their own
settings build a ``Classifier`` with ``build_classifier(settings)`` instead.

The names below load on first use (PEP 562): a front end that only needs
``Settings`` (``harmwatch --version``, the workbench's first frame) does not
pay the ~0.15 s of importing the classifier and the taxonomy models.
"""

from __future__ import annotations

import importlib
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.classifier import Classifier
    from engine.errors import PackCompileError, TaxonomyError
    from engine.result import Classification, DogwhistleMatch, Signal, Suppression
    from engine.rules.load import LoadedTaxonomy, load_taxonomy
    from engine.settings import Settings

__all__ = [
    "Classification",
    "Classifier",
    "DogwhistleMatch",
    "LoadedTaxonomy",
    "PackCompileError",
    "Settings",
    "Signal",
    "Suppression",
    "TaxonomyError",
    "build_classifier",
    "classify",
    "configured_taxonomy",
    "default_classifier",
    "load_taxonomy",
]

_LAZY: dict[str, str] = {
    "Classifier": "engine.classifier",
    "Classification": "engine.result",
    "DogwhistleMatch": "engine.result",
    "Signal": "engine.result",
    "Suppression": "engine.result",
    "Settings": "engine.settings",
    "LoadedTaxonomy": "engine.rules.load",
    "PackCompileError": "engine.errors",
    "TaxonomyError": "engine.errors",
    "load_taxonomy": "engine.rules.load",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


_default: Classifier | None = None
_default_lock = threading.Lock()


def configured_taxonomy(settings: Settings) -> LoadedTaxonomy:
    """The taxonomy the settings name, from the on-disk cache when its files are unchanged.

    Every entry point that needs the taxonomy (a classifier, the tracking rules of
    ``track show``, ``serve``'s preflight) reads it here: validating it from the
    YAML files costs seconds (every pattern is compiled once to check it), the
    cache entry a few hundred milliseconds, and a broken or changed file is
    loaded afresh and reported exactly as ``load_taxonomy`` reports it.
    """
    from engine.rules.cache import default_cache_dir, load_taxonomy_cached

    cache_dir = settings.cache_dir if settings.cache_dir is not None else default_cache_dir()
    return load_taxonomy_cached(settings.taxonomy_path, cache_dir)


def build_classifier(settings: Settings) -> Classifier:
    """A classifier configured from settings (taxonomy, text limit, amplifier)."""
    from engine.amplify import build_amplifier
    from engine.classifier import Classifier

    taxonomy = configured_taxonomy(settings)
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
                from engine.settings import Settings

                _default = build_classifier(Settings())
    return _default


def classify(
    text: str, *, context: str | None = None, language: str | None = None
) -> Classification:
    """Classify one text with the default classifier (SPEC sections 2 and 3)."""
    return default_classifier().classify(text, context=context, language=language)
