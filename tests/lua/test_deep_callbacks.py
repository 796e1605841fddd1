"""A runaway recursion inside each kind of callback (deep_callbacks.py) ends
in Lua's own error, caught by pcall, as real Lua 5.4 ends it; the state runs
on. On this process's backend here (the default one, or the inline one when
the suite runs with RUNVIL_CONTEXTS=inline); on a platform without threads
in tests/engine/test_inline.py; on Pyodide in tests/pyodide."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from runvil.lua import LuaState

from .deep_callbacks import KINDS, LUA_SAYS, chunk, outcome

LUA54 = shutil.which("lua5.4")
#: the kinds whose message was wrong on every backend (the reader's stack
#: overflow escaped load); the others go 200,000 deep here, a second or two
#: each, and run in the slow tier
QUICK = ("load reader", "gsub in a load reader")


def kinds():
    for kind in KINDS:
        marks = [] if kind in QUICK else [pytest.mark.tier]
        yield pytest.param(kind, marks=marks, id=kind)


@pytest.mark.parametrize("kind", list(kinds()))
def test_a_runaway_inside_a_callback_ends_as_in_lua(kind):
    printed: list[str] = []
    state = LuaState(stdout=printed.append, allow_load=True)
    try:
        state.call(state.load(chunk(kind), "=(command line)"))
    finally:
        state.close()
    first, depth, last = outcome("".join(printed))
    assert (first, last) == (LUA_SAYS[kind], "alive")
    assert depth > 1000


@pytest.mark.skipif(LUA54 is None, reason="lua5.4 is not installed")
@pytest.mark.parametrize("kind", list(KINDS))
def test_the_expected_lines_are_lua_5_4s(kind):
    done = subprocess.run([LUA54, "-e", chunk(kind)], capture_output=True, text=True, timeout=60)
    first, depth, last = outcome(done.stdout)
    assert (first, last) == (LUA_SAYS[kind], "alive")
    assert depth >= 99  # (a handler's recursion stops at 99 in Lua 5.4, its error handling's own limit)
