"""The import path used before the engine was split into stages: engine.amplify.

Kept for callers outside the engine; new code imports the new path.
"""

from engine.amplify import *  # noqa: F403
