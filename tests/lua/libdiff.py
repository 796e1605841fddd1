"""Shared by the library differential tests (table, utf8, os): a library
opened on a bare state, called from Python and from real Lua 5.4 (lupa),
with results normalised so the two compare equal when they agree."""

from __future__ import annotations

import math
import re

from lupa import lua54

from runvil.lua.errors import LuaError
from runvil.lua.runtime.tables import LuaTable


class FakeState:
    def __init__(self):
        self.G = LuaTable()


def open_lib(module, name: str) -> LuaTable:
    """The library `name` as `module.open_lib` installs it."""
    state = FakeState()
    module.open_lib(state)
    return state.G.get(name)


def norm(v):
    """A value of either side, comparable: strings as text, numbers tagged
    by kind (and the sign of a zero), tables by their sorted contents."""
    if isinstance(v, bytes):
        return ("s", v.decode("latin-1"))
    if isinstance(v, str):
        return ("s", v)
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return ("i", v)
    if isinstance(v, float):
        return ("f", "nan") if v != v else ("f", v, math.copysign(1.0, v))
    if isinstance(v, LuaTable):
        return ("t", tuple(sorted(((norm(k), norm(v.get(k))) for k in v.keys_snapshot()), key=repr)))
    if lua54.lua_type(v) == "table":
        return ("t", tuple(sorted(((norm(k), norm(x)) for k, x in v.items()), key=repr)))
    return ("other", type(v).__name__)


def call(lib, name, *args):
    """Our result, normalised: ('ok', values) or ('error', message)."""
    try:
        r = lib.get(name)(*args)
    except LuaError as e:
        return ("error", str(e))
    r = tuple(r) if isinstance(r, tuple) else (r,)
    return ("ok", tuple(norm(v) for v in r))


# ------------------------------------------------------------ real Lua

L = lua54.LuaRuntime(encoding=None)
_PREFIX = re.compile(r'^(\[string "[^"]*"\]|[\w.=\-]*):\d+: ')
_wrappers: dict = {}


def error_text(msg) -> str:
    """A real Lua error message without its position prefix."""
    msg = msg.decode("latin-1") if isinstance(msg, bytes) else str(msg)
    return _PREFIX.sub("", msg, count=1)


def packed_result(r, first: int):
    """A `table.pack(pcall(...))` from real Lua, as `call` gives ours
    (values from index `first` on)."""
    if not r[1]:
        return ("error", error_text(r[2]))
    return ("ok", tuple(norm(r[i]) for i in range(first, r[b"n"] + 1)))


def pcall_of(qualname: str):
    """A real Lua function returning table.pack(pcall(<qualname>, ...)):
    called straight from pcall, Lua names the builtin '<qualname>' in
    messages, as runvil does for a builtin called from Python."""
    f = _wrappers.get(qualname)
    if f is None:
        f = _wrappers[qualname] = L.eval(f"function(...) return table.pack(pcall({qualname}, ...)) end".encode())
    return f


def real(qualname: str, *args):
    """Real Lua's result of pcall(<qualname>, args), normalised."""
    return packed_result(pcall_of(qualname)(*args), 2)
