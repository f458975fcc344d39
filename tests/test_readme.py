"""The README's examples, run as written by someone who just ran ``make run`` or ``make test``.

Convention (stated here and followed in README.md):

- a fenced block marked ```` ```sh ```` is run, top to bottom, as one
  ``bash -euo pipefail`` script; every block must exit 0;
- an HTML comment ``<!-- readme-test: skip (reason) -->`` on the line just before a
  fence leaves that block out (a command that runs until stopped, ``make test``
  itself, the evaluation data of ../shared); the reason is required;
- ``<!-- readme-test: server -->`` before a block (``sh`` or ``python``) runs it
  against a ``harmwatch serve`` that the test starts on a free port, with the
  README's ``127.0.0.1:8000`` pointed there;
- other blocks (``python`` without the marker, ``console``, ``text``, ``yaml``) are
  shown, not run.

The blocks run in order in one scratch directory, as a reader following the README
would: ``.venv/bin`` first on ``PATH`` (what ``. .venv/bin/activate`` does), a
temporary ``HOME`` whose data directory holds the default SQLite store, and no
harmwatch setting from the environment of the test run.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent
MARKER = re.compile(r"^<!-- readme-test: (skip \(.+\)|server) -->$")
FENCE = re.compile(r"^```(\w*)\s*$")
README_SERVER = "127.0.0.1:8000"
LONG_RUNNING = re.compile(r"\bharmwatch (?:serve|tui)\b|\bmake (?:run|test)\b")
BLOCK_TIMEOUT_S = 300
STARTUP_S = 120


@dataclass(frozen=True)
class Block:
    line: int
    language: str
    marker: str | None
    code: str

    @property
    def runs(self) -> bool:
        if self.marker is not None and self.marker.startswith("skip"):
            return False
        return self.language == "sh" or (self.language == "python" and self.marker == "server")


def readme_blocks() -> list[Block]:
    blocks: list[Block] = []
    lines = README.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        before = lines[index - 1] if index else ""
        marker = MARKER.match(before)
        end = index + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        code = "\n".join(lines[index + 1 : end]) + "\n"
        blocks.append(Block(index + 1, opening.group(1), marker.group(1) if marker else None, code))
        index = end + 1
    return blocks


BLOCKS = readme_blocks()
RUN = [block for block in BLOCKS if block.runs]


def test_the_readme_follows_the_convention() -> None:
    """Markers are spelt right, long-running commands are skipped, and enough is run."""
    text = README.read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if "readme-test" in line:
            assert MARKER.match(line), f"README.md:{number}: malformed marker {line!r}"
    for block in RUN:
        assert not LONG_RUNNING.search(block.code), (
            f"README.md:{block.line} starts a long-running command: mark it "
            "<!-- readme-test: skip (reason) -->"
        )
    assert sum(block.language == "sh" for block in RUN) >= 5
    assert any(block.marker == "server" for block in RUN)


@dataclass
class Sandbox:
    directory: Path
    env: dict[str, str]
    server: str | None = None  # host:port of the README's server, once started
    process: subprocess.Popen[bytes] | None = None


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    directory = tmp_path_factory.mktemp("readme")
    home = directory / "home"
    home.mkdir()
    (directory / ".venv").symlink_to(ROOT / ".venv")  # `. .venv/bin/activate` works here too
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_", "XDG_"))
        and name not in ("DATABASE_URL", "VIRTUAL_ENV")
    }
    env.update(
        HOME=str(home),
        PATH=f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
        COLUMNS="100",
        NO_COLOR="1",
    )
    box = Sandbox(directory, env)
    try:
        yield box
    finally:
        if box.process is not None:
            box.process.terminate()
            try:
                box.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                box.process.kill()
                box.process.wait(timeout=10)


def _serve(box: Sandbox) -> str:
    """``harmwatch serve`` in the sandbox, started for the first block that needs it."""
    if box.server is not None:
        return box.server
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (box.directory / "serve.log").open("wb") as log:
        process = subprocess.Popen(
            [str(VENV_BIN / "harmwatch"), "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=box.directory,
            env=box.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    box.process = process
    base = f"127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"harmwatch serve exited: {(box.directory / 'serve.log').read_text()}")
        try:
            if httpx.get(f"http://{base}/health", timeout=2).status_code == 200:
                box.server = base
                return base
        except httpx.HTTPError:
            time.sleep(0.2)
    pytest.fail(f"harmwatch serve did not answer in {STARTUP_S} s")


@pytest.mark.parametrize("block", RUN, ids=[f"README.md:{block.line}" for block in RUN])
def test_readme_example_runs(block: Block, sandbox: Sandbox) -> None:
    code = block.code
    if block.marker == "server":
        code = code.replace(README_SERVER, _serve(sandbox))
    if block.language == "sh":
        command = ["bash", "-euo", "pipefail", "-c", code]
    else:
        command = ["python", "-c", code]
    done = subprocess.run(
        command,
        cwd=sandbox.directory,
        env=sandbox.env,
        capture_output=True,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"README.md:{block.line} exited {done.returncode}\n--- block\n{block.code}"
        f"--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
    )
    if block.marker == "server" and block.language == "sh":
        assert '"is_harmful":true' in done.stdout  # the quick start's answers, not error pages
