"""Shared by the string and pattern tests: the string library opened on a
bare state, called from Python with results normalised for comparison."""

from __future__ import annotations

import os
import re

import lupa.lua54

from hypothesis import settings

from runvil.lua.runtime import values
from runvil.lua.errors import LuaError
from runvil.lua.stdlib import string as string_lib

from .libdiff import FakeState

# bounded; RUNVIL_FUZZ_EXAMPLES raises it for a long local run
BOUNDED = settings(max_examples=int(os.environ.get("RUNVIL_FUZZ_EXAMPLES", 200)), deadline=None)


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


# ------------------------------------------------------------ real Lua

_L = lupa.lua54.LuaRuntime(encoding=None)
_REAL = _L.eval(rb"""
function(name, ...)
  -- called from C (pcall), as our tests call the builtins from Python: so
  -- errors carry no position and arg errors name 'string.xxx'
  local r = table.pack(pcall(string[name], ...))
  if not r[1] then return false, r[2] end
  return true, r.n - 1, table.unpack(r, 2, r.n)
end
""")


def _lua_args(args):
    return [a.encode("latin-1") if type(a) is str else a for a in args]


def _unpack_real(res):
    ok, *rest = res
    if not ok:
        return "err", re.sub(r'^(?:t|\[string "<python>"\]):\d+: ', "", rest[0].decode("latin-1"))
    n = rest[0]
    return "ok", tuple(_norm(v) for v in rest[1:1 + n])


def real(name, *args):
    return _unpack_real(_REAL(name.encode(), *_lua_args(args)))
