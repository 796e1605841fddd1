"""Converting between Python and Lua values, for hosts of the Lua layer.

Python text becomes a Lua string of its UTF-8 bytes (one char per byte);
dicts and lists become tables; callables become builtins taking and
returning Lua values. Going back, tables whose keys are exactly 1..n become
lists, other tables dicts.
"""

from __future__ import annotations

from types import FunctionType

from .debuginfo import builtin
from .runtime.tables import LuaTable
from .runtime.values import EMPTY, Multi, Userdata


def to_lua(value):
    """A Python value as a Lua value (copying containers)."""
    if value is None or type(value) in (bool, int, float):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("latin-1")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("latin-1")
    if isinstance(value, LuaTable) or isinstance(value, Userdata) or type(value) is FunctionType:
        return value
    if isinstance(value, dict):
        t = LuaTable()
        for k, v in value.items():
            t.set(to_lua(k), to_lua(v))
        return t
    if isinstance(value, (list, tuple)):
        return LuaTable([to_lua(v) for v in value])
    if callable(value):
        return python_function(value)
    raise TypeError(f"no Lua form for {type(value).__name__}")


def python_function(fn):
    """A Lua builtin calling fn with Python values; its result (a value, or
    a tuple of several) goes back as Lua values."""

    def call(*args):
        r = fn(*(to_python(a) for a in args))
        if isinstance(r, tuple):
            return Multi(tuple(to_lua(v) for v in r)) if r else EMPTY
        return to_lua(r)

    return builtin(call)


def to_python(value):
    """A Lua value as a Python value: strings decoded from UTF-8, tables
    copied into lists or dicts; functions and userdata as they are."""
    if type(value) is str:
        return value.encode("latin-1").decode("utf-8", "surrogateescape")
    if type(value) is LuaTable:
        n = value.length()
        keys = value.keys_snapshot()
        if n and len(keys) == n:
            return [to_python(value.get(i)) for i in range(1, n + 1)]
        return {to_python(k): to_python(value.get(k)) for k in keys}
    return value
