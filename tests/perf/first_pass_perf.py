"""`make perf` section "first_pass": what a process pays for texts it has never seen.

The other engine sections warm their corpus first and then time it, so every
automaton state they need is already cached: that is the cost of a text seen
before. A stream of real posts is mostly new text, and a new text makes RE2 build
the DFA states its bytes lead to; when a cache fills it is reset and rebuilt (a
scan Set once thrashed that way on every Arabic text, warm or not). This section
classifies each language's case-table texts (tests/data/cases_*.yaml, 60 to 2,000
varied texts written by this project) in a fresh interpreter: the first pass, then
a second pass over the same texts, which should cost what a warm corpus costs.
Every pattern is compiled before the first pass; what the first pass still pays is
automaton states and, at each pattern's first match, RE2's reverse program (the
one that finds where a match starts), about as long to build as the pattern: that
is most of the gap between the first pass's mean and its median.
"""

from __future__ import annotations

from typing import Any

from tests.perf.fresh import run_fresh

_FIRST_PASS = """
import json, resource, statistics, time
import yaml
from pathlib import Path
from engine import Classifier, load_taxonomy

classifier = Classifier(load_taxonomy())
out = {}
for path in sorted(Path("tests/data").glob("cases_*.yaml")):
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    code = table["language"]
    texts = [case["text"] for case in table["cases"]]
    classifier.pipeline(code).warm(patterns=True)
    passes = []
    for _ in range(2):
        times = []
        for text in texts:
            start = time.thread_time_ns()
            classifier.classify(text, language=code)
            times.append((time.thread_time_ns() - start) / 1000)
        passes.append(times)
    first, second = passes
    out[code] = {
        "texts": len(texts),
        "first_pass_median_us": round(statistics.median(first), 1),
        "first_pass_mean_us": round(statistics.fmean(first), 1),
        "second_pass_median_us": round(statistics.median(second), 1),
        "second_pass_mean_us": round(statistics.fmean(second), 1),
    }
print(json.dumps({
    "languages": out,
    "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
}))
"""


def first_pass_section() -> dict[str, Any]:
    """Per language: first and second pass over the case-table texts (thread CPU time)."""
    result = run_fresh(_FIRST_PASS, timeout=1200)
    result["clock"] = "thread CPU time"
    return result
