"""`make install` puts `harmwatch` on the user's PATH; `make uninstall` takes only its own link.

Run as a user would, in a temporary home directory. ``-o`` tells make the venv
stamp is up to date, so the test never rebuilds the project's ``.venv``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_SCRIPT = ROOT / ".venv" / "bin" / "harmwatch"
STAMP = ".venv/.installed-stamp"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture(autouse=True)
def _needs_make_and_venv() -> None:
    reason = None
    if shutil.which("make") is None:
        reason = "make is not installed"
    elif not VENV_SCRIPT.exists():
        reason = f"{VENV_SCRIPT} does not exist (make test creates it)"
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)


def _env(home: Path, path: str = SYSTEM_PATH) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV", "BINDIR")
    }
    env.update(HOME=str(home), PATH=path)
    return env


def _make(target: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-o", STAMP, target, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_install_links_the_command_into_the_users_bin(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _make("install", _env(home))
    assert done.returncode == 0, done.stderr
    link = home / ".local" / "bin" / "harmwatch"
    assert link.is_symlink() and link.resolve() == VENV_SCRIPT.resolve()
    assert "is not on your PATH" in done.stdout  # ~/.local/bin is not on the test's PATH
    # A new shell with ~/.local/bin on PATH and no venv activated finds the command.
    shell = subprocess.run(
        ["sh", "-c", "cd / && harmwatch --version"],
        env=_env(home, f"{link.parent}:{SYSTEM_PATH}"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.startswith("harmwatch ")


def test_install_into_a_directory_on_path_says_nothing_more(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    done = _make("install", _env(tmp_path, f"{bindir}:{SYSTEM_PATH}"), f"BINDIR={bindir}")
    assert done.returncode == 0, done.stderr
    assert "is not on your PATH" not in done.stdout
    assert (bindir / "harmwatch").resolve() == VENV_SCRIPT.resolve()


def test_uninstall_removes_only_this_checkouts_link(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    env = _env(tmp_path)
    assert _make("install", env, f"BINDIR={bindir}").returncode == 0
    removed = _make("uninstall", env, f"BINDIR={bindir}")
    assert removed.returncode == 0 and not (bindir / "harmwatch").exists()
    other = bindir / "harmwatch"
    other.write_text("#!/bin/sh\necho another harmwatch\n")
    kept = _make("uninstall", env, f"BINDIR={bindir}")
    assert kept.returncode == 0
    assert "left alone" in kept.stdout
    assert other.read_text().startswith("#!/bin/sh")
