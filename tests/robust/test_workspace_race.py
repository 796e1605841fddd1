"""The `files` Pack against a second process that swaps a workspace folder
for a symbolic link to a folder outside, thousands of times a second
(issue 26: "a process that swaps a workspace folder for a symlink between
the two (an atomic rename exchange) makes ordinary `files/write` calls land
outside ... and `files/read` return an outside file to the model").

The swapper exchanges `ws/d` (a real folder) and `ws/link` (a link to
`outside/`) with renameat2(RENAME_EXCHANGE) through ctypes, in a tight loop,
in its own process. A control first shows the race is live: a plain open by
name through `ws/d` does reach the outside file. Then the Pack writes and
reads through `d/` while the swapping goes on: no file may appear outside,
no read may return the outside text.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import time

import pytest

from runvil.engine.effects import ToolCall, ToolFailure, ToolResult
from runvil.harness.packs import PackTools
from runvil.harness.workspace import Workspace

SWAPPER = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
print("ready", flush=True)
while True:  # killed by the test
    if libc.renameat2(-100, a, -100, b, 2) != 0:  # AT_FDCWD, RENAME_EXCHANGE
        sys.exit(ctypes.get_errno())
"""

CALLS = 1600
#: the ends of the refusals a swap may cause
RACED = ("passes through a symbolic link, which the workspace does not follow",
         "a part of the path is a file, not a folder", "no such file or directory")
INSIDE, OUTSIDE = "inside text", "OUTSIDE TEXT"


def has_rename_exchange() -> bool:
    return sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "renameat2")


@pytest.fixture
def swapped(tmp_path):
    """(the workspace's PackTools, the outside folder) while a second
    process swaps ws/d and a link to the outside folder."""
    if not has_rename_exchange():
        pytest.skip("renameat2(RENAME_EXCHANGE) is Linux's")
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "d").mkdir(parents=True)
    outside.mkdir()
    (ws / "d" / "secret.txt").write_text(INSIDE)
    (outside / "secret.txt").write_text(OUTSIDE)
    os.symlink(outside, ws / "link")
    tools = PackTools(Workspace.at(ws))
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(ws / "d"), str(ws / "link")],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout.readline().strip() == "ready"
        yield tools, ws, outside
        assert swapper.poll() is None, f"the swapper stopped: errno {swapper.returncode}"
    finally:
        swapper.kill()
        swapper.wait()
        tools.close()


def naive_escapes(ws, seconds: float = 10.0) -> int:
    """How often an open by name through ws/d read the outside file, trying
    until it did at least 20 times (or the time is up)."""
    seen, deadline = 0, time.monotonic() + seconds
    while seen < 20 and time.monotonic() < deadline:
        try:
            with open(ws / "d" / "secret.txt") as f:
                seen += f.read() == OUTSIDE
        except OSError:
            pass
    return seen


def test_a_swapped_folder_leads_no_write_and_no_read_outside(swapped):
    tools, ws, outside = swapped
    assert naive_escapes(ws) > 0, "the race is not live: the test would prove nothing"
    outcomes = {"wrote": 0, "read": 0, "refused": 0}
    outside_reads = []
    for i in range(CALLS):
        w = tools(ToolCall(1, "files/write", {"path": f"d/w{i}.txt", "content": "x"}))
        r = tools(ToolCall(2, "files/read", {"path": "d/secret.txt"}))
        outcomes["wrote"] += isinstance(w, ToolResult)
        outcomes["read"] += isinstance(r, ToolResult)
        outcomes["refused"] += isinstance(w, ToolFailure) + isinstance(r, ToolFailure)
        if isinstance(r, ToolResult) and r.text != INSIDE:
            outside_reads.append(r.text)
        for answer in (w, r):
            if isinstance(answer, ToolFailure):  # the walk met the link (named by a look after it)
                assert answer.message.endswith(RACED), answer.message
    assert sorted(os.listdir(outside)) == ["secret.txt"]  # zero writes outside
    assert outside_reads == []  # zero outside reads
    assert (outside / "secret.txt").read_text() == OUTSIDE
    # the race was met, and the Pack still did its work between the swaps
    assert outcomes["refused"] > 0 and outcomes["wrote"] > 0 and outcomes["read"] > 0, outcomes


def test_a_listing_during_the_swaps_names_no_outside_file(swapped):
    tools, ws, outside = swapped
    (outside / "outside-only.txt").write_text("x")
    for _ in range(300):
        answer = tools(ToolCall(1, "files/list", {}))
        assert isinstance(answer, ToolResult)
        assert "outside-only" not in answer.text, answer.text
