"""The import path used before the engine was split into stages.

The taxonomy models are in engine.rules.models, those of suites and gates in
engine.evaluation.models.

Kept for callers outside the engine; new code imports the new path.
"""

from engine.evaluation.models import *  # noqa: F403
from engine.rules.models import *  # noqa: F403
from engine.rules.models import LANGUAGES as LANGUAGES
