"""What every CLI test needs: a clean environment and one shared classifier.

Commands read settings from the environment and build a classifier per run; the
tests isolate the first and share the second (compiling a language takes a
fraction of a second, thousands of times over would take minutes).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from typer import rich_utils

import engine
from engine import Classifier, Settings

ENV_PREFIXES = ("HARMWATCH_", "TEXT_ANALYTICS_", "TRACKING_")
ENV_NAMES = ("DATABASE_URL", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
WIDTH = 100


def isolate_cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No harmwatch settings from the caller's environment, no .env, no real user
    data directory (the default SQLite store lives there), 100 columns."""
    for name in list(os.environ):
        if name.startswith(ENV_PREFIXES) or name in ENV_NAMES:
            monkeypatch.delenv(name)
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("TERMINAL_WIDTH", str(WIDTH))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # never the real default store
    monkeypatch.setattr(rich_utils, "MAX_WIDTH", WIDTH)
    monkeypatch.setattr(rich_utils, "FORCE_TERMINAL", False)
    # CliRunner's stdout is not a terminal, so listings would be TSV; the tests of the
    # table view want the table (tests of piped output patch this back to False).
    monkeypatch.setattr("workbench.output.stdout_is_terminal", lambda: True)
    monkeypatch.chdir(tmp_path)


def shared_builder(shared: Classifier) -> Callable[[Settings], Classifier]:
    """A ``build_classifier`` that reuses ``shared`` unless the settings change it."""

    def build(settings: Settings) -> Classifier:
        if settings.taxonomy_path is not None:
            return engine.build_classifier(settings)
        if settings.max_text_chars == shared.max_text_chars:
            return shared
        return Classifier(shared.taxonomy, max_text_chars=settings.max_text_chars)

    return build
