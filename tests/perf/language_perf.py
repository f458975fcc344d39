"""`make perf` section "language" (issue 15): what knowing a text's language costs.

Two targets, per 280-character text in each of the eight languages:

- the script check that runs on every text sent without a language
  (``engine.text.script.dominant_script``): <= 2 µs, so that the default path stays
  as fast as it was (an ASCII text skips it after one ``str.isascii``);
- identification for ``language: "auto"`` (``engine.text.langid.identify``,
  CLD2): <= 30 µs.

Each text is timed alone, best of a few rounds; the report gives the median and
p95 per language and over all texts.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

SCRIPT_TARGET_US = 2.0
IDENTIFY_TARGET_US = 30.0
ROUNDS = 5
INNER = 20  # calls per timing, so the clock's own cost is spread


def _per_text_us(texts: list[str], fn: Callable[[str], object]) -> list[float]:
    best = [float("inf")] * len(texts)
    for _ in range(ROUNDS):
        for i, text in enumerate(texts):
            start = time.perf_counter_ns()
            for _ in range(INNER):
                fn(text)
            best[i] = min(best[i], (time.perf_counter_ns() - start) / 1000 / INNER)
    return best


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "median_us": round(statistics.median(ordered), 3),
        "p95_us": round(ordered[int(len(ordered) * 0.95)], 3),
    }


def language_section() -> dict[str, Any]:
    from engine.text import langid
    from engine.text.script import dominant_script
    from tests.language_samples import SENTENCES, texts_of

    start = time.perf_counter()
    langid.identify("warming up the identifier")  # imports pycld2
    first_call_s = time.perf_counter() - start
    script: dict[str, Any] = {}
    identify: dict[str, Any] = {}
    all_script: list[float] = []
    all_identify: list[float] = []
    right = 0
    for code in SENTENCES:
        texts = texts_of(code)
        right += sum(langid.identify(text).code == code for text in texts)
        s = _per_text_us(texts, dominant_script)
        i = _per_text_us(texts, langid.identify)
        script[code], identify[code] = _stats(s), _stats(i)
        all_script += s
        all_identify += i
    script_all, identify_all = _stats(all_script), _stats(all_identify)
    return {
        "texts": len(all_script),
        "chars_per_text": 280,
        "script_check": {
            "target_us": SCRIPT_TARGET_US,
            **script_all,
            "met": script_all["median_us"] <= SCRIPT_TARGET_US,
            "by_language": script,
        },
        "identify": {
            "library": f"{langid.LIBRARY} {langid.library_version()}",
            "target_us": IDENTIFY_TARGET_US,
            **identify_all,
            "met": identify_all["median_us"] <= IDENTIFY_TARGET_US,
            "first_call_s": round(first_call_s, 4),
            "identified_right": f"{right}/{len(all_identify)}",
            "by_language": identify,
        },
    }
