"""The sandbox's `require` never runs a file outside its folder, whatever
the name, template or symlink, never waits on a FIFO, and refuses a huge
module before reading it (runvil lua: 16 MB; a prompt: its block bound)."""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

from runvil.lua.api import LuaState, ModuleFiles, open_package

from .luacli import runvil_lua

OUTSIDE = "escaped = true\nprint('ESCAPED')\nreturn 'outside'\n"


@pytest.fixture
def box(tmp_path: Path) -> Path:
    """tmp/box is the boundary; tmp/secret.lua, tmp/dir/x.lua and
    /tmp-like absolute paths lie outside it."""
    box = tmp_path / "box"
    (box / "sub").mkdir(parents=True)
    (box / "inside.lua").write_text("return 'inside'\n")
    (box / "sub" / "init.lua").write_text("return 'sub init'\n")
    (tmp_path / "secret.lua").write_text(OUTSIDE)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.lua").write_text(OUTSIDE)
    (tmp_path / "dir" / "init.lua").write_text(OUTSIDE)
    os.symlink(tmp_path / "secret.lua", box / "link.lua")
    os.symlink(tmp_path / "dir", box / "linkdir")
    os.symlink("../secret.lua", box / "rel.lua")
    os.mkfifo(box / "fifo.lua")
    with open(box / "huge.lua", "wb") as f:
        f.truncate(3 * 1024**3)  # sparse: no disk, but a read would take 3 GB
    return box


def sandbox(folder: Path, max_bytes: int = 16 * 1024 * 1024):
    out: list[str] = []
    state = LuaState(stdout=out.append)
    open_package(state, ModuleFiles(str(folder), max_bytes))
    return state, out


def attempt(state, out, name: str, path: str | None = None):
    setup = f"package.path = {path!r}\n" if path is not None else ""
    code = setup + "return pcall(require, ...)"
    ok, value = state.call(state.load(code, "=test"), name)[:2]
    return ok, value


HOSTILE_NAMES = [
    "..secret", "../secret", ".secret", "...secret", "/secret", "//secret", "./../secret",
    "sub/../../secret", "sub.....secret", "link", "linkdir.x", "linkdir", "rel", "fifo", "dir.x", "dir",
    "..dir.x", "x\0../../secret", "\xff../secret",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_runs_nothing_outside(box, name):
    state, out = sandbox(box)
    ok, value = attempt(state, out, name)
    assert ok is False and "not found" in value, value
    assert state.G.get("escaped") is None and out == []


def test_absolute_names_that_start_with_a_dot(box, tmp_path):
    # `require '.tmp.x.config'` once became an absolute path
    state, out = sandbox(box)
    name = str(tmp_path / "secret").replace("/", ".")
    ok, value = attempt(state, out, name)
    assert ok is False and state.G.get("escaped") is None and out == []
    ok, value = attempt(state, out, str(tmp_path / "secret"))
    assert ok is False and state.G.get("escaped") is None


@pytest.mark.parametrize("template", [
    "{outside}/?.lua", "../?.lua", "./../?.lua", "./sub/../../?.lua", "./linkdir/?.lua", "./?/../../?.lua",
    "/?.lua", "?.lua;{outside}/dir/?.lua",
])
def test_a_hostile_template_reaches_nothing_outside(box, tmp_path, template):
    state, out = sandbox(box)
    path = template.format(outside=tmp_path)
    for name in ("secret", "x", "dir", "dir.x"):
        ok, value = attempt(state, out, name, path)
        assert ok is False, (name, value)
    found = state.call(state.load("return package.searchpath('secret', ...)", "=t"), path)
    assert found[0] is None
    assert state.G.get("escaped") is None and out == []


def test_inside_still_works(box):
    state, out = sandbox(box)
    assert attempt(state, out, "inside") == (True, "inside")
    assert attempt(state, out, "sub") == (True, "sub init")


def test_a_fifo_and_a_3_gb_file_neither_hang_nor_are_read(box):
    state, out = sandbox(box)
    started = time.process_time()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    ok, value = attempt(state, out, "huge")
    assert ok is False
    assert value == ("error loading module 'huge' from file './huge.lua':\n"
                     f"\tmodule 'huge' is {3 * 1024**3} bytes of Lua; the limit is 16777216 bytes")
    ok, value = attempt(state, out, "fifo", "./fifo.lua")
    assert ok is False and "no file './fifo.lua'" in value
    assert time.process_time() - started < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000  # KB: nothing was read whole


def test_runvil_lua_keeps_require_in_the_scripts_folder(box, tmp_path):
    (box / "main.lua").write_text(
        "for _, n in ipairs({'..secret', '../secret', 'link', 'rel', 'linkdir.x', %r}) do\n"
        "  print(n, (pcall(require, n)))\nend\nprint(require('inside'), escaped)\n" % str(tmp_path / "secret").replace("/", "."))
    code, out, err = runvil_lua(["box/main.lua"], tmp_path)
    assert (code, err) == (0, "")
    assert b"ESCAPED" not in out and out.endswith(b"\ninside\tnil\n")


def test_with_every_grant_require_is_lua54s(box, tmp_path):
    # --allow all: the current directory and lua5.4's paths, as lua5.4 itself
    code, out, err = runvil_lua(["--allow", "all", "-e", "print(require('secret'))"], tmp_path)
    assert (code, out) == (0, b"ESCAPED\noutside\t./secret.lua\n")
