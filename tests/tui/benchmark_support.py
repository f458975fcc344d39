"""A small benchmark suite whose expectations are partly wrong on purpose.

The shipped suite passes in full, so failure browsing needs cases that fail:
neutral sentences that the suite claims are harmful. The engine classifies
them correctly as not harmful; the suite is what is wrong.
"""

from __future__ import annotations

from pathlib import Path

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
