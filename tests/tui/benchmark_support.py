"""A small benchmark suite whose expectations are partly wrong on purpose.

The shipped suite passes in full, so failure browsing needs cases that fail:
neutral sentences that the suite claims are harmful. The engine classifies
them correctly as not harmful; the suite is what is wrong.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from workbench.tui.services import EngineService

FAILING_SUITE = """\
suite_version: "0.9.0"
language: en
baselines:
  weather: 1.0
  weather_es: 1.0
capabilities:
  - name: weather
    description: Plain remarks about the weather.
    templates:
      - id: wx.plain
        text: "The {DAY} was sunny and warm."
        fillers: {DAY: [morning, afternoon]}
        expect: not_harmful
      - id: wx.wrong
        text: "It rained all {DAY} in the valley."
        fillers: {DAY: [night]}
        expect: harmful
        mechanism: animalization
  - name: weather_es
    description: The same in Spanish.
    templates:
      - id: wx.es.plain
        language: es
        text: "La {PARTE} fue tranquila."
        fillers: {PARTE: [noche]}
        expect: not_harmful
      - id: wx.es.wrong
        language: es
        text: "Hace buen tiempo esta {PARTE}."
        fillers: {PARTE: [tarde]}
        expect: harmful
        mechanism: demonization
"""


def write_failing_suite(folder: Path) -> Path:
    path = folder / "failing_suite.yaml"
    path.write_text(FAILING_SUITE, encoding="utf-8")
    return path


def hold_benchmark(engine: EngineService, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Hold a benchmark run in its first step (warming a language) until the event is set.

    A test can then act on a job that is certainly still running (cancel it, ask the
    palette about it) without racing the suite, which runs in well under a second.
    """
    release = threading.Event()
    warm = engine.warm_language

    def held_warm(language: str) -> None:
        release.wait(timeout=10)
        warm(language)

    monkeypatch.setattr(engine, "warm_language", held_warm)
    return release
