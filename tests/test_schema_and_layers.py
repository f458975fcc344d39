"""The generated taxonomy JSON Schema is current, and the engine stays a pure core."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from engine.schema import SCHEMA_PATH, render, taxonomy_json_schema
from engine.taxonomy import DEFAULT_TAXONOMY
from engine.taxonomy_models import LanguagePack, Taxonomy


def test_committed_schema_matches_the_models() -> None:
    assert SCHEMA_PATH.read_text(encoding="utf-8") == render(), (
        "taxonomy/taxonomy.schema.json is stale: run python -m engine.schema"
    )


def test_schema_describes_every_file_kind() -> None:
    schema = taxonomy_json_schema()
    assert set(schema["$defs"]) == {
        "Taxonomy",
        "LanguagePack",
        "DogwhistlePack",
        "SuiteFile",
        "GateFile",
    }
    root = schema["$defs"]["Taxonomy"]
    assert "decision_threshold" in root["properties"]
    assert root["additionalProperties"] is False
    json.dumps(schema)


def test_shipped_files_validate_against_the_models() -> None:
    root = yaml.safe_load(DEFAULT_TAXONOMY.read_text(encoding="utf-8"))
    Taxonomy.model_validate(root)
    for ref in root["languages"].values():
        pack = yaml.safe_load((DEFAULT_TAXONOMY.parent / ref["file"]).read_text(encoding="utf-8"))
        LanguagePack.model_validate(pack)


def test_engine_imports_nothing_of_the_front_ends() -> None:
    """Importing and using the engine must not load HTTP, SQL or terminal packages."""
    code = (
        "import sys, engine\n"
        "engine.classify('Muslims are vermin.')\n"
        "bad = [m for m in ('fastapi', 'typer', 'textual', 'sqlalchemy', 'uvicorn', 'rich',"
        " 'api', 'store', 'workbench', 'pandas', 'dask', 'pyarrow') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == ""


def test_the_cli_loads_no_textual_and_only_the_command_it_runs() -> None:
    """The CLI starts without textual, and each command module loads only when it runs.

    Every command module is imported here too (as running each would), and still
    textual stays out: only ``workbench.tui`` may import it.
    """
    code = (
        "import sys, workbench.cli\n"
        "early = [m for m in ('engine', 'store', 'api', 'fastapi', 'sqlalchemy', 'textual',"
        " 'workbench.commands.classify') if m in sys.modules]\n"
        "from workbench.cli import COMMANDS, command_module\n"
        "for name in COMMANDS: command_module(name)\n"
        "late = [m for m in sys.modules if m == 'textual' or m.startswith(('textual.',"
        " 'workbench.tui'))]\n"
        "print(','.join(early) + '|' + ','.join(late))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "|"
