"""Shared by the string and pattern tests: the string library opened on a
bare state, called from Python with results normalised for comparison."""

from __future__ import annotations

import os

from hypothesis import settings

from runvil.lua import values
from runvil.lua.errors import LuaError
from runvil.lua.stdlib import string as string_lib
from runvil.lua.table import LuaTable

# bounded; RUNVIL_FUZZ_EXAMPLES raises it for a long local run
BOUNDED = settings(max_examples=int(os.environ.get("RUNVIL_FUZZ_EXAMPLES", 200)), deadline=None)


class FakeState:
    def __init__(self):
        self.G = LuaTable()


_STATE = FakeState()
string_lib.open_lib(_STATE)
LIB = _STATE.G.get("string")


def _norm(v):
    if type(v) is float:
        return ("float", repr(v))
    if type(v) is bytes:
        return v.decode("latin-1")
    return v


def call(name, *args):
    """('ok', results) or ('err', message) from our library."""
    try:
        return "ok", tuple(_norm(v) for v in values.expand(LIB.get(name)(*args)))
    except LuaError as e:
        return "err", str(e.value)


def err(name, *args):
    r = call(name, *args)
    assert r[0] == "err", r
    return r[1]
