"""The import path used before the engine was split into stages: engine.rules.load.

Kept for callers outside the engine; new code imports the new path.
"""

from engine.rules.load import *  # noqa: F403
from engine.rules.load import DEFAULT_TAXONOMY, LoadedTaxonomy, TaxonomyError, load_taxonomy

__all__ = ["DEFAULT_TAXONOMY", "LoadedTaxonomy", "TaxonomyError", "load_taxonomy"]
