"""The import path used before the engine was split into stages: engine.evaluation.benchmark.

Kept for callers outside the engine; new code imports the new path.
"""

from engine.evaluation.benchmark import *  # noqa: F403
