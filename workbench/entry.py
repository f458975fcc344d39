"""The console script's first stop: ``harmwatch --version`` answers before typer loads.

Issue 15 holds ``harmwatch --version`` to 0.2 s as a whole process, about twelve
interpreter starts; importing typer, click and rich costs about as much again on
this project's 2-core machines. So the version is printed from here with the
standard library alone, and every other call goes on to the typer app in
``workbench.cli`` (whose own ``--version`` option says the same, for
``harmwatch --version`` written with other options).
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version


def package_version() -> str:
    try:
        return version("harmwatch")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown"


def main() -> None:
    """Console-script entry point (``harmwatch = "workbench.entry:main"``)."""
    if sys.argv[1:] == ["--version"]:
        sys.stdout.write(f"harmwatch {package_version()}\n")
        return
    from workbench.cli import main as run_app

    run_app()
