"""A perf script run in a fresh interpreter: nothing compiled or cached by earlier sections."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_fresh(script: str, *, timeout: int) -> dict[str, Any]:
    """Run ``script`` with ``python -c`` from the repository root; it prints one JSON object."""
    out = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=timeout,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result
