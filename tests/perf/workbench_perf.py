"""Issue 11: the workbench's speed, measured as a user meets it (never asserted in tests).

The first frame and "ready to classify" are timed on a whole ``harmwatch tui``
process under a pseudo-terminal, from spawn to the bytes on the terminal: the
title bar for the first frame, the taxonomy version in it for ready. The rest
runs the real app headless through its pilot, over a real SQLite store.
"""

from __future__ import annotations

import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from fcntl import ioctl
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HARMWATCH = Path(sys.executable).with_name("harmwatch")


def _spawn_under_pty(home: Path, columns: int = 120, rows: int = 40) -> dict[str, Any]:
    """Start ``harmwatch tui`` on a pty; seconds to its first frame and to ready; then quit."""
    master, slave = pty.openpty()
    ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    for name in ("TRACKING_DB_URL", "DATABASE_URL", "TEXTUAL_ANIMATIONS"):
        env.pop(name, None)
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(HARMWATCH), "tui"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        cwd=home,
        start_new_session=True,
        close_fds=True,
    )
    os.close(slave)
    seen = b""
    first_frame: float | None = None
    ready: float | None = None
    deadline = started + 60
    try:
        while time.perf_counter() < deadline and ready is None:
            readable, _, _ = select.select([master], [], [], 0.05)
            if not readable:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            now = time.perf_counter() - started
            if first_frame is None and b"harmwatch" in seen:
                first_frame = now
            if b"taxonomy 1." in seen or b"taxonomy failed" in seen:
                ready = now
        os.write(master, b"\x11")  # ctrl+q
        process.wait(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return {
        "first_frame_s": None if first_frame is None else round(first_frame, 3),
        "ready_to_classify_s": None if ready is None else round(ready, 3),
        "exit_code": process.returncode,
    }


def startup_figures(runs: int = 3) -> dict[str, Any]:
    """Cold starts (a fresh process and a fresh SQLite file each time); the best and each run."""
    results = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="hw-tui-perf-") as home:
            results.append(_spawn_under_pty(Path(home)))
    frames = [r["first_frame_s"] for r in results if r["first_frame_s"] is not None]
    readies = [r["ready_to_classify_s"] for r in results if r["ready_to_classify_s"] is not None]
    first = min(frames) if frames else None
    ready = min(readies) if readies else None
    return {
        "runs": results,
        "first_frame_s": first,
        "ready_to_classify_s": ready,
        "targets": {
            "first_frame_s_max": 0.4,
            "ready_s_max": 3.0,
            "first_frame_met": first is not None and first <= 0.4,
            "ready_met": ready is not None and ready <= 3.0,
        },
    }


def workbench_section() -> dict[str, Any]:
    return {"startup": startup_figures()}


if __name__ == "__main__":
    import json

    print(json.dumps(workbench_section(), indent=2))
