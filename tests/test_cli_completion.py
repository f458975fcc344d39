"""Shell completion: ``harmwatch --show-completion`` prints a script, ``--install-completion``
installs it for the user, and completing reaches every command without importing any.

The installed console script is run as a user's shell would run it (a subprocess with
the shell's completion variables); the lazy listing is checked in-process with the
command modules made unimportable, so a completion that imported them fails loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workbench import cli

HARMWATCH = Path(sys.executable).with_name("harmwatch")


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HARMWATCH_", "TRACKING_", "_HARMWATCH"))
    }
    # The shell is named on the command line rather than detected from the process tree,
    # which differs between a terminal, CI and a test runner.
    env.update(HOME=str(home), _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1", **extra)
    return env


def _harmwatch(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HARMWATCH), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "_HARMWATCH_COMPLETE=complete_bash"),
        ("zsh", "_HARMWATCH_COMPLETE=complete_zsh"),
        ("fish", "_HARMWATCH_COMPLETE=complete_fish"),
    ],
)
def test_show_completion_prints_a_script_for_each_shell(
    tmp_path: Path, shell: str, marker: str
) -> None:
    done = _harmwatch(["--show-completion", shell], _env(tmp_path))
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout
    assert "harmwatch" in done.stdout
    assert not list(tmp_path.iterdir()), "showing must not install anything"


def test_install_completion_writes_the_script_and_sources_it(tmp_path: Path) -> None:
    done = _harmwatch(["--install-completion", "bash"], _env(tmp_path))
    assert done.returncode == 0, done.stderr
    script = tmp_path / ".bash_completions" / "harmwatch.sh"
    assert "_HARMWATCH_COMPLETE=complete_bash" in script.read_text()
    assert ".bash_completions/harmwatch.sh" in (tmp_path / ".bashrc").read_text()
    assert "bash completion installed" in done.stdout


def test_the_installed_script_completes_commands_and_options(tmp_path: Path) -> None:
    """What bash runs on TAB: the script's own environment variables and the console script."""
    words = _env(tmp_path, _HARMWATCH_COMPLETE="complete_bash")
    top = _harmwatch([], {**words, "COMP_WORDS": "harmwatch tr", "COMP_CWORD": "1"})
    assert top.returncode == 0, top.stderr
    assert top.stdout.split() == ["track"]
    inner = _harmwatch([], {**words, "COMP_WORDS": "harmwatch track ", "COMP_CWORD": "2"})
    assert {"observe", "show", "list", "verify", "export"} <= set(inner.stdout.split())


def test_completing_a_command_name_imports_no_command(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> None:
        raise AssertionError(f"completion imported the {name!r} command")

    monkeypatch.setattr(cli, "command_module", refuse)
    env = {"_HARMWATCH_COMPLETE": "complete_bash", "COMP_WORDS": "harmwatch ", "COMP_CWORD": "1"}
    result = CliRunner().invoke(cli.create_app(), [], env=env, prog_name="harmwatch")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert set(result.output.split()) == set(cli.COMMANDS)
