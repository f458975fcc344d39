"""The engine's layout keeps its promises: one module touches re2, settings stay light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def test_only_re2x_imports_re2() -> None:
    importers = []
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name == "re2" or name.startswith("re2.") for name in names):
                importers.append(path.relative_to(ENGINE).as_posix())
    assert importers == ["text/re2x.py"]


def test_importing_settings_loads_no_classifier() -> None:
    code = (
        "import sys, engine.settings, engine.languages; "
        "print(sorted(m for m in sys.modules if m.startswith('engine.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['engine.languages', 'engine.settings']"
