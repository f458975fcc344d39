"""The import path used before the engine was split into stages: engine.evaluation.validation.

Kept for callers outside the engine; new code imports the new path.
"""

from engine.evaluation.validation import *  # noqa: F403
