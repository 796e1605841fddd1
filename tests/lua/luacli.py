"""Runs a Lua program two ways for the differential tests of `runvil lua`:
under Debian's `lua5.4` (a subprocess; the test is skipped where it is
missing) and under `runvil lua` in this process (its stdout and stderr
redirected to text streams, as an embedding host has them), and makes
the two outputs comparable: addresses (`table: 0x...`) and the program's
name in an uncaught error's first line (`lua5.4:`, `runvil:`) aside."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

_ADDRESS = re.compile(r"0x[0-9a-f]+")
_TMPNAME = re.compile(r"/tmp/lua_\w{6}")


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="latin-1")


def lua54(args: list[str], cwd: Path, stdin: bytes = b"") -> tuple[int, bytes, str]:
    if shutil.which("lua5.4") is None:
        pytest.skip("no lua5.4 binary")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LUA_")}
    p = subprocess.run(["lua5.4", *args], capture_output=True, cwd=cwd, input=stdin, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "surrogateescape")


def runvil_lua(args: list[str], cwd: Path, stdin: str = "") -> tuple[int, bytes, str]:
    """`runvil lua ARGS` in this process, in folder `cwd`."""
    from runvil.host.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    saved_stdin = sys.stdin
    os.chdir(cwd)
    try:
        sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["lua", *args])
    finally:
        sys.stdin = saved_stdin
        os.chdir(here)
    return code, out.getvalue().encode("utf-8", "surrogateescape"), err.getvalue()


def runvil_lua_process(args: list[str], cwd: Path, stdin: str = "") -> tuple[int, bytes, str]:
    """`runvil lua ARGS` in a process of its own: for a program whose time
    depends on Python's whole heap (automatic collections walk it), which
    earlier tests in this process have filled."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    p = subprocess.run([sys.executable, "-m", "runvil.host.cli", "lua", *args], capture_output=True, cwd=cwd,
                       input=stdin.encode("utf-8", "surrogateescape"), timeout=300, env=env)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "surrogateescape")


def comparable(result: tuple[int, bytes, str]) -> tuple[int, str, str]:
    code, out, err = result
    text = out.decode("latin-1")
    err = re.sub(r"^(lua5\.4|runvil): ", "LUA: ", err, flags=re.MULTILINE)
    return code, _normal(text), _normal(err)


def _normal(text: str) -> str:
    return _TMPNAME.sub("/tmp/lua_XXXXXX", _ADDRESS.sub("0xADDR", text))


def same_as_lua(tmp_path: Path, files: dict, args: list[str], grants=("--allow", "all", "--cpu", "off"),
                stdin: str = "", own_process: bool = False) -> tuple[int, str, str]:
    """Writes the files, runs ARGS under both, asserts they agree; returns
    runvil's (comparable) result. `own_process`: runvil in a process of its
    own (runvil_lua_process)."""
    write_tree(tmp_path, files)
    theirs = comparable(lua54(args, tmp_path, stdin.encode()))
    ours = comparable((runvil_lua_process if own_process else runvil_lua)([*grants, *args], tmp_path, stdin))
    assert ours == theirs
    return ours
