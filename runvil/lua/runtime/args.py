"""Argument checking for builtins, so every `bad argument` reads as Lua's.

Builtins take `*args`; these helpers read argument n (1-based) of the
builtin named `fname` and raise Lua's own messages:
`bad argument #1 to 'insert' (table expected, got nil)`, `... got no value)`.
"""

from __future__ import annotations

from ..debuginfo import builtin_context
from ..errors import ArgError
from .tables import LuaTable
from .values import Userdata, float_to_int, fmt_number, str2number, type_name


def arg_error(n: int, fname: str, msg: str):
    where, name, method = builtin_context(fname)
    raise ArgError(n - 1 if method else n, name, msg, where)  # a method's receiver is not counted


def typename_of(args, n: int) -> str:
    """Lua's luaL_typename for argument n: 'no value' when it is absent."""
    if len(args) < n:
        return "no value"
    v = args[n - 1]
    if isinstance(v, Userdata) or type(v) is LuaTable:
        mt = v.meta
        if mt is not None:
            name = mt.hash.get("__name")
            if type(name) is str:
                return name
    return type_name(v)


def type_error(args, n: int, fname: str, expected: str):
    arg_error(n, fname, f"{expected} expected, got {typename_of(args, n)}")


def check_any(args, n: int, fname: str):
    if len(args) < n:
        arg_error(n, fname, "value expected")
    return args[n - 1]


def check_table(args, n: int, fname: str) -> LuaTable:
    v = args[n - 1] if len(args) >= n else None
    if type(v) is not LuaTable:
        type_error(args, n, fname, "table")
    return v


def check_int(args, n: int, fname: str) -> int:
    v = args[n - 1] if len(args) >= n else None
    t = type(v)
    if t is int:
        return v
    if t is float:
        i = float_to_int(v)
        if i is None:
            arg_error(n, fname, "number has no integer representation")
        return i
    if t is str:
        x = str2number(v)
        if x is not None:
            if type(x) is int:
                return x
            i = float_to_int(x)
            if i is None:
                arg_error(n, fname, "number has no integer representation")
            return i
    type_error(args, n, fname, "number")


def opt_int(args, n: int, fname: str, default):
    if len(args) < n or args[n - 1] is None:
        return default
    return check_int(args, n, fname)


def check_number(args, n: int, fname: str):
    v = args[n - 1] if len(args) >= n else None
    t = type(v)
    if t is int or t is float:
        return v
    if t is str:
        x = str2number(v)
        if x is not None:
            return x
    type_error(args, n, fname, "number")


def check_str(args, n: int, fname: str) -> str:
    """A string argument; numbers are converted, as lua_tolstring does."""
    v = args[n - 1] if len(args) >= n else None
    t = type(v)
    if t is str:
        return v
    if t is int or t is float:
        return fmt_number(v)
    type_error(args, n, fname, "string")


def opt_str(args, n: int, fname: str, default):
    if len(args) < n or args[n - 1] is None:
        return default
    return check_str(args, n, fname)


def check_function(args, n: int, fname: str):
    from types import FunctionType

    v = args[n - 1] if len(args) >= n else None
    if type(v) is not FunctionType:
        type_error(args, n, fname, "function")
    return v
