"""JSON Schema of the taxonomy format, generated from the validating models.

Editors and CI of other projects can check a taxonomy without Python; the file
``taxonomy/taxonomy.schema.json`` is regenerated with ``python -m engine.schema``
and a test keeps it identical to what the models say.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engine.evaluation.models import GateFile, SuiteFile
from engine.rules.models import DogwhistlePack, LanguagePack, Taxonomy

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "taxonomy" / "taxonomy.schema.json"


def taxonomy_json_schema() -> dict[str, Any]:
    """One schema document with a definition per file kind of the taxonomy."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://harmwatch.invalid/schema/taxonomy-1.json",
        "title": "harmwatch taxonomy (schema 1)",
        "description": (
            "taxonomy_v1.yaml is a Taxonomy; each lang/<code>.yaml a LanguagePack; "
            "dogwhistles_en.yaml a DogwhistlePack; benchmark_v1.yaml a SuiteFile; "
            "legacy_gate_v1.yaml a GateFile. See docs/taxonomy-format.md and docs/benchmark.md."
        ),
        "$defs": {
            "Taxonomy": Taxonomy.model_json_schema(by_alias=True),
            "LanguagePack": LanguagePack.model_json_schema(by_alias=True),
            "DogwhistlePack": DogwhistlePack.model_json_schema(by_alias=True),
            "SuiteFile": SuiteFile.model_json_schema(by_alias=True),
            "GateFile": GateFile.model_json_schema(by_alias=True),
        },
        "oneOf": [
            {"$ref": "#/$defs/Taxonomy"},
            {"$ref": "#/$defs/LanguagePack"},
            {"$ref": "#/$defs/DogwhistlePack"},
            {"$ref": "#/$defs/SuiteFile"},
            {"$ref": "#/$defs/GateFile"},
        ],
    }


def render() -> str:
    return json.dumps(taxonomy_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else SCHEMA_PATH
    target.write_text(render(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
