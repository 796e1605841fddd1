"""The base library (Lua 5.4 manual §6.1), sandboxed: no dofile, loadfile,
collectgarbage; `load` only for text chunks and only when the host allows
it; `pairs` is the sandbox pairs of spec/runvil.md §9."""

from __future__ import annotations

import sys
from types import FunctionType

from .. import values as V
from ..args import arg_error, check_any, check_int, check_table, opt_int, type_error
from ..cstack import ccall
from ..errors import LuaError, LuaSyntaxError, builtin, where
from ..runtime import error_value
from ..table import LuaTable
from ..values import EMPTY, Multi, Userdata
from . import lib_table


def open_lib(state) -> None:
    G = state.G

    def print_(*args):
        state.stdout("\t".join(V.tostring(a) for a in args) + "\n")
        return EMPTY

    def load(*args):
        chunk = args[0] if args else None
        if type(chunk) is str:
            text = chunk
            default_name = chunk
        elif type(chunk) is FunctionType:
            pieces = []
            while True:
                piece = V.call1(chunk)
                if piece is None or piece == "":
                    break
                if type(piece) is not str:
                    return Multi((None, "reader function must return a string"))
                pieces.append(piece)
            text = "".join(pieces)
            default_name = "=(load)"
        else:  # lua_load takes text or a reader function
            type_error(args, 1, "load", "function")
        name = args[1] if len(args) > 1 and args[1] is not None else default_name
        if type(name) is not str:
            type_error(args, 2, "load", "string")
        mode = args[2] if len(args) > 2 and args[2] is not None else "bt"
        if text.startswith("\x1bLua"):
            return Multi((None, f"attempt to load a binary chunk (mode is '{mode}')"))
        if "t" not in mode:
            return Multi((None, f"attempt to load a text chunk (mode is '{mode}')"))
        env = args[3] if len(args) > 3 else G
        try:
            return state.load(text, name, env=env)
        except LuaSyntaxError as e:
            return Multi((None, e.value))

    funcs = {
        "assert": assert_,
        "error": error,
        "getmetatable": getmetatable,
        "ipairs": ipairs,
        "next": next_,
        "pairs": pairs,
        "pcall": pcall,
        "print": print_,
        "rawequal": rawequal,
        "rawget": rawget,
        "rawlen": rawlen,
        "rawset": rawset,
        "select": select,
        "setmetatable": setmetatable,
        "tonumber": tonumber,
        "tostring": tostring,
        "type": type_,
        "xpcall": xpcall,
    }
    if state.allow_load:
        funcs["load"] = load
    for name, f in lib_table(funcs).hash.items():
        G.set_str(name, f)
    state.bind_iterators(next_, ipairs_aux)


@builtin
def assert_(*args):
    if not args:
        arg_error(1, "assert", "value expected")
    v = args[0]
    if v is None or v is False:
        msg = args[1] if len(args) > 1 else "assertion failed!"
        if type(msg) is str:  # as Lua: assert calls error with level 1
            msg = where(1, sys._getframe()) + msg
        raise LuaError(msg)
    return Multi(args) if len(args) != 1 else v


@builtin
def error(*args):
    v = args[0] if args else None
    level = opt_int(args, 2, "error", 1)
    if type(v) is str and level > 0:
        v = where(level, sys._getframe()) + v
    raise LuaError(v)


@builtin
def getmetatable(*args):
    v = check_any(args, 1, "getmetatable")
    mt = V.getmetatable(v)
    if mt is None:
        return None
    protected = mt.hash.get("__metatable")
    return protected if protected is not None else mt


@builtin
def setmetatable(*args):
    t = check_table(args, 1, "setmetatable")
    mt = args[1] if len(args) > 1 else None
    if len(args) < 2 or (mt is not None and type(mt) is not LuaTable):
        type_error(args, 2, "setmetatable", "nil or table")
    if t.meta is not None and t.meta.hash.get("__metatable") is not None:
        raise LuaError(where(1, sys._getframe()) + "cannot change a protected metatable")
    t.meta = mt
    return t


@builtin
def ipairs(*args):
    t = check_any(args, 1, "ipairs")
    return Multi((ipairs_aux, t, 0))


@builtin
def ipairs_aux(t, i):
    i += 1
    v = t.get_int(i) if type(t) is LuaTable and t.meta is None else V.index(t, i)
    if v is None:
        return None
    return Multi((i, v))


@builtin
def next_(*args):
    t = check_table(args, 1, "next")
    k = args[1] if len(args) > 1 else None
    try:
        r = t.next(k)
    except KeyError:
        raise LuaError("invalid key to 'next'") from None
    if r is None:
        return None
    return Multi(r)


@builtin
def pairs(*args):
    t = check_any(args, 1, "pairs")
    h = V.getmetamethod(t, "__pairs")
    if h is not None:
        r = V.calln(h, t)
        return Multi((r + (None, None, None))[:3])
    if isinstance(t, Userdata):
        r = t.lua_pairs()
        if r is not None:
            return Multi(tuple(r))
    if type(t) is not LuaTable:
        return Multi((next_, t, None))  # next raises, as Lua's pairs lets it
    return Multi((sandbox_walker(t), t, None))


def sandbox_walker(t: LuaTable):
    """The iterator of the sandbox pairs: the keys are fixed when the walk
    starts; keys removed since are skipped."""
    keys = t.keys_snapshot()
    pos = [0]

    def walk(*_args):
        i = pos[0]
        n = len(keys)
        while i < n:
            k = keys[i]
            i += 1
            v = t.get(k)
            if v is not None:
                pos[0] = i
                return Multi((k, v))
        pos[0] = i
        return None

    def native(nvars):
        for k in keys[pos[0] :]:
            pos[0] += 1
            v = t.get(k)
            if v is not None:
                if nvars == 1:
                    yield k
                elif nvars == 2:
                    yield (k, v)
                else:
                    yield (k, v) + (None,) * (nvars - 2)

    builtin(walk)
    walk.lua_walk = native
    return walk


@builtin
def pcall(*args):
    if not args:
        arg_error(1, "pcall", "value expected")
    try:
        r = V.expand(ccall(args[0], *args[1:]))  # a nested C call (runvil.lua.cstack)
    except (LuaError, RecursionError, MemoryError) as e:
        return Multi((False, caught_value(e)))
    return Multi((True,) + r)


@builtin
def xpcall(*args):
    if len(args) < 2:
        type_error(args, 2, "xpcall", "function")
    f, handler = args[0], args[1]
    try:
        r = V.expand(ccall(f, *args[2:]))
    except (LuaError, RecursionError, MemoryError) as e:
        # the handler's first result replaces the error value
        try:
            h = V.expand(ccall(handler, caught_value(e)))
        except (LuaError, RecursionError, MemoryError):
            return Multi((False, "error in error handling"))
        return Multi((False, h[0] if h else None))
    return Multi((True,) + r)


def caught_value(e: BaseException):
    if isinstance(e, RecursionError):
        from ..state import stack_overflow_message

        return stack_overflow_message(e)
    return error_value(e)


@builtin
def rawequal(*args):
    a = check_any(args, 1, "rawequal")
    b = check_any(args, 2, "rawequal")
    if a is b:
        return a == a
    ta, tb = type(a), type(b)
    if ta is tb or (ta in (int, float) and tb in (int, float)):
        if ta is LuaTable or isinstance(a, Userdata):
            return False
        return a == b
    return False


@builtin
def rawget(*args):
    t = check_table(args, 1, "rawget")
    check_any(args, 2, "rawget")
    return t.get(args[1])


@builtin
def rawset(*args):
    t = check_table(args, 1, "rawset")
    check_any(args, 2, "rawset")
    check_any(args, 3, "rawset")
    try:
        t.set(args[1], args[2])
    except ValueError as e:
        raise LuaError(f"table {e}") from None
    return t


@builtin
def rawlen(*args):
    v = args[0] if args else None
    if type(v) is LuaTable:
        return v.length()
    if type(v) is str:
        return len(v)
    type_error(args, 1, "rawlen", "table or string")


@builtin
def select(*args):
    n = args[0] if args else None
    if n == "#" and type(n) is str:
        return len(args) - 1
    i = check_int(args, 1, "select")
    if i < 0:
        i = len(args) - 1 + i
        if i < 0:
            arg_error(1, "select", "index out of range")
        return Multi(args[1 + i :])
    if i == 0:
        arg_error(1, "select", "index out of range")
    return Multi(args[i:])


@builtin
def tonumber(*args):
    if len(args) < 2 or args[1] is None:
        v = check_any(args, 1, "tonumber")
        t = type(v)
        if t is int or t is float:
            return v
        if t is str:
            return V.str2number(v)
        return None
    base = check_int(args, 2, "tonumber")
    v = args[0]
    if type(v) is not str:
        type_error(args, 1, "tonumber", "string")
    if not 2 <= base <= 36:
        arg_error(2, "tonumber", "base out of range")
    s = v.strip(" \f\n\r\t\v").lower()
    neg = s.startswith("-")
    if neg or s.startswith("+"):
        s = s[1:]
    if not s:
        return None
    n = 0
    for ch in s:
        d = "0123456789abcdefghijklmnopqrstuvwxyz".find(ch)
        if d < 0 or d >= base:
            return None
        n = n * base + d
    return V.wrap(-n if neg else n)


@builtin
def tostring(*args):
    return V.tostring(check_any(args, 1, "tostring"))


@builtin
def type_(*args):
    return V.type_name(check_any(args, 1, "type"))
