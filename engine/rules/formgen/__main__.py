"""``python -m engine.rules.formgen [TAXONOMY_DIR]``: rewrite taxonomy/forms/*.yaml."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.rules.formgen import write_all


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "taxonomy"
    for path in write_all(root):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
