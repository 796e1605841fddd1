"""Whole Lua programs run through `runvil lua FILE` from their own folder,
compared byte for byte with what real Lua 5.4 printed for them
(`programs/expected/`, made by `lua5.4`): stdout, the error message, and
the exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "programs"
EXPECTED = HERE / "expected"

# Programs that differ from real Lua on purpose or for now, and why.
KNOWN = {
    "io_write": "no io library in the sandbox (docs/reference/lua.md)",
    "io_files": "no io library in the sandbox",
    "debug_lib": "no debug library in the sandbox",
    "gc_misc": "no collectgarbage in the sandbox",
    "gc_finalizers": "no __gc finalizers",
    "misc_builtins": "no collectgarbage in the sandbox",
    "os_misc": "os has only time, clock and date in the sandbox",
    "load_env": "binary chunks: a different message",
    "pairs_order": "pairs walks 1..n then insertion order; C Lua's hash order differs",
    "toplevel_error5": "uses io.write",
    "os_time": "local time zone dependent",
}


def programs():
    for path in sorted(HERE.glob("*.lua")):
        name = path.stem
        marks = [pytest.mark.xfail(reason=KNOWN[name], strict=True)] if name in KNOWN else []
        yield pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", list(programs()))
def test_program_matches_lua54(name):
    p = subprocess.run(
        [sys.executable, "-m", "runvil.host.cli", "lua", f"{name}.lua"], cwd=HERE, capture_output=True, timeout=120
    )
    err = p.stderr.decode("latin-1").splitlines()
    message = err[0].removeprefix("runvil: ") if err else ""
    assert p.stdout == (EXPECTED / f"{name}.out").read_bytes()
    assert message == (EXPECTED / f"{name}.err").read_text(encoding="latin-1").rstrip("\n")
    assert p.returncode == int((EXPECTED / f"{name}.rc").read_text())
