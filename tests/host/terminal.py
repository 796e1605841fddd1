"""Running a command with some of its streams on a pseudo-terminal, as a
person's terminal would be, and reading what the terminal showed."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def on_a_terminal(argv, streams=("stderr",), env=None, cwd=ROOT, timeout: float = 120):
    """Runs argv with `streams` ("stderr", "stdout") on one terminal; a
    stdout not on it is piped, a stderr not on it dropped. Returns (exit
    status, stdout bytes when piped, the terminal's bytes)."""
    leader, follower = pty.openpty()
    p = subprocess.Popen(argv, stdout=follower if "stdout" in streams else subprocess.PIPE,
                         stderr=follower if "stderr" in streams else subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL, cwd=cwd, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the terminal closed
            break
        if not data:
            break
        seen += data
    out = p.stdout.read() if p.stdout is not None else b""
    code = p.wait(timeout=timeout)
    os.close(leader)
    return code, out, seen
