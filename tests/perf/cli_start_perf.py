"""Issue 15, fast start: whole ``harmwatch`` processes, timed from spawn to exit.

Targets: ``harmwatch --version`` <= 0.2 s (about 12 times a bare ``python -c
pass``) and ``harmwatch classify "..."`` with a warm taxonomy cache <= 0.5 s. The
cold-cache classify (a fresh HARMWATCH_CACHE_DIR each run) is reported beside it,
so the report shows what the cache saves. hyperfine is used when installed (its
median over warm-up and runs); otherwise repeated subprocess timing, median.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HARMWATCH = Path(sys.executable).with_name("harmwatch")
TEXT = "They are vermin and should be driven out of our town."
# Further warm-cache calls: a text that names a group (the mention finder and the
# patterns run), and texts in the two largest packs, the second in Arabic script
# (the Set in its full Unicode spelling).
MORE_TEXTS = {
    "en_group": ("Muslims are vermin and should be driven out of our town.", "en"),
    "fr_group": ("Les musulmans sont des rats, il faut les chasser d'ici.", "fr"),
    "ar_group": ("اللاجئين حشرات", "ar"),
}
RUNS = 9
COLD_RUNS = 3


def _environment(home: Path, cache: Path) -> dict[str, str]:
    """No user settings, a private data directory and the given cache directory."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
        # A user's Python keeps the bytecode of what it imported (pip compiles an
        # installed package's); a shell that forbids it would time the compilation
        # of every module of the engine on every call (about 0.1 s here).
        and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        HARMWATCH_CACHE_DIR=str(cache),
    )
    return env


def _median_s(command: list[str], env: dict[str, str], runs: int, *, fresh_cache: bool) -> float:
    """Median wall time of ``runs`` processes (hyperfine when available and the cache
    stays warm; a fresh cache per run needs a preparation step, so it is timed here)."""
    hyperfine = shutil.which("hyperfine")
    if hyperfine is not None and not fresh_cache:
        with tempfile.NamedTemporaryFile(suffix=".json") as report:
            subprocess.run(
                [
                    hyperfine,
                    "--warmup",
                    "2",
                    "--runs",
                    str(runs),
                    "-N",
                    "--export-json",
                    report.name,
                    subprocess.list2cmdline(command),
                ],
                env=env,
                check=True,
                capture_output=True,
                cwd=ROOT,
            )
            return float(json.loads(Path(report.name).read_text())["results"][0]["median"])
    times = []
    for _ in range(runs):
        if fresh_cache:
            shutil.rmtree(env["HARMWATCH_CACHE_DIR"], ignore_errors=True)
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True, cwd=ROOT, timeout=300)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli_start_section() -> dict[str, Any]:
    """Start times of the console script, against a bare interpreter."""
    with tempfile.TemporaryDirectory(prefix="harmwatch-start-") as tmp:
        home = Path(tmp)
        env = _environment(home, home / "taxonomy-cache")
        bare = _median_s([sys.executable, "-c", "pass"], env, RUNS, fresh_cache=False)
        version = _median_s([str(HARMWATCH), "--version"], env, RUNS, fresh_cache=False)
        classify = [str(HARMWATCH), "classify", TEXT, "--json"]
        cold = _median_s(classify, env, COLD_RUNS, fresh_cache=True)
        subprocess.run(classify, env=env, check=True, capture_output=True, cwd=ROOT)  # warm
        warm = _median_s(classify, env, RUNS, fresh_cache=False)
        by_text = {}
        for name, (text, language) in MORE_TEXTS.items():
            command = [str(HARMWATCH), "classify", text, "-l", language, "--json"]
            subprocess.run(command, env=env, check=True, capture_output=True, cwd=ROOT)  # warm
            by_text[name] = round(_median_s(command, env, RUNS, fresh_cache=False), 3)
    return {
        "method": "hyperfine" if shutil.which("hyperfine") else "subprocess median",
        "python_pass_s": round(bare, 3),
        "version_s": round(version, 3),
        "version_target_s": 0.2,
        "version_met": version <= 0.2,
        "version_vs_python": round(version / bare, 1),
        "classify_cold_cache_s": round(cold, 3),
        "classify_warm_cache_s": round(warm, 3),
        "classify_warm_target_s": 0.5,
        "classify_warm_met": warm <= 0.5,
        "classify_warm_more_texts_s": by_text,
        "classify_warm_all_met": warm <= 0.5 and all(v <= 0.5 for v in by_text.values()),
        "classify_warm_vs_python": round(warm / bare, 1),
    }


if __name__ == "__main__":
    print(json.dumps(cli_start_section(), indent=2))
