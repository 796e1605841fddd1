"""The base library (Lua 5.4 manual §6.1), sandboxed: no dofile, loadfile,
collectgarbage; `load` only for text chunks and only when the host allows
it; `pairs` is the sandbox pairs of docs/reference/lua.md."""

from __future__ import annotations

import sys
from types import FunctionType

from ..runtime import values as V
from ..runtime import calls as LC
from ..runtime import indexing as LI
from ..runtime.args import arg_error, check_any, check_function, check_int, check_table, opt_int, opt_str, type_error
from ..runtime.calldepth import LUAI_MAXCCALLS, CCall, check
from ..runtime.machine import RUNNING
from ..debuginfo import BUILTIN_CODES, CHUNKS, builtin, in_direct_tail, lua_position, where
from ..errors import LuaError, LuaSyntaxError
from ..runtime.helpers import CATCHER_CODES, caught_value, close_unwound, closed_after, handler_value, take_unwound
from ..errors import chunkid
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, TAILCALL, Multi, Userdata
from ..numbers import fmt_float
from . import lib_table
from .limits import TINY_RESULT, reserve_result
from .strdump import undump


def open_lib(state) -> None:
    G = state.G

    def print_(*args):
        parts = [LI.tostring(a) for a in args]
        size = sum(map(len, parts)) + len(parts)
        if size > TINY_RESULT:  # the line is a new string (and its host keeps a copy: the Engine's events)
            reserve_result(size)
        state.stdout("\t".join(parts) + "\n")
        return EMPTY

    def load(*args):
        # the order of Lua's luaB_load: mode first, then the chunk
        mode = opt_str(args, 3, "load", "bt")
        chunk = args[0] if args else None
        if type(chunk) in (str, int, float):
            text = chunk if type(chunk) is str else V.tostring_basic(chunk)
            name = opt_str(args, 2, "load", text)
        else:
            name = opt_str(args, 2, "load", "=(load)")
            if type(chunk) is not FunctionType:
                type_error(args, 1, "load", "function")
            try:
                with CCall():  # lua_load's calls of the reader: nested C calls, not yieldable
                    text = read_chunk(chunk, sys._getframe())
            except (LuaError, RecursionError, MemoryError) as e:  # lua_load catches the reader's errors
                return Multi((None, closed_after(caught_value(e))))
        if len(mode) > TINY_RESULT:  # the messages below quote it
            reserve_result(len(mode))
        if text[:1] == "\x1b":  # LUA_SIGNATURE[0]: a binary chunk
            if "b" not in mode:
                return Multi((None, f"attempt to load a binary chunk (mode is '{mode}')"))
            undumped = undump(text) if getattr(state, "binary_chunks", False) else binary_fault(text)
            if type(undumped) is str:
                return Multi((None, f"{binary_name(name)}: bad binary format ({undumped})"))
            # string.dump's chunk: its name and text (runvil.lua.stdlib.strdump)
            name, text, main = "=" + undumped[0], undumped[1], undumped[2]
            if not main:  # a chunk that returns the function, its upvalues fresh
                made = compile_text(text, name, args)
                return LC.call1(made) if type(made) is FunctionType else made
        elif "t" not in mode:
            return Multi((None, f"attempt to load a text chunk (mode is '{mode}')"))
        if text[:1] == "#":
            # no statement starts with '#': only files skip a first '#' line
            return Multi((None, f"{chunkid(name, text)}:1: unexpected symbol near '#'"))
        return compile_text(text, name, args)

    def compile_text(text: str, name: str, args: tuple):
        """A text chunk as `load` makes it (args: load's own, for its env).
        Apart from `load` so that `load` never refers to itself: a closure
        in its own cell would keep the state alive past its release."""
        try:
            from ..runtime.pieces import compile_meter

            progress = compile_meter(len(text))  # a long chunk: charged first, and as it compiles
            if len(args) > 3 and args[3] is None or progress is not None:  # (also an explicit nil _ENV)
                from ..compiler.codegen import compile_chunk

                env = args[3] if len(args) > 3 else G
                compiled = compile_chunk(text, chunkid(name, text), env is G, progress, once=False)
                compiled.info.lua_source = text  # (string.dump's)
                return compiled.instantiate(state.ns, env)
            return state.load(text, name, env=args[3] if len(args) > 3 else G, once=False)
        except LuaSyntaxError as e:
            return Multi((None, e.value))

    def read_chunk(reader, frame) -> str:
        """The pieces of a reader function until it returns nil or ""."""
        pieces = []
        size = 0
        while True:
            piece = LC.call1(reader)
            if piece is None or piece == "":
                return "".join(pieces)
            if type(piece) in (int, float):
                piece = V.tostring_basic(piece)
            elif type(piece) is not str:
                raise LuaError(where(1, frame) + "reader function must return a string")
            size += len(piece)
            V.reserve_memory(size)
            pieces.append(piece)

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
    state.bind_iterators(next_, ipairs_aux, pairs)


def binary_name(name: str) -> str:
    """How lundump.c names a binary chunk in its messages."""
    if name[:1] in ("@", "="):
        return name[1:]
    return "binary string" if name[:1] == "\x1b" else name


def binary_fault(text: str) -> str:
    """What lundump.c's header check says of a binary chunk runvil cannot
    load (any but string.dump's, and those too where it is not granted)."""
    if text[1:4] != "Lua"[: len(text) - 1]:
        return "not a binary chunk"
    if len(text) < 5:
        return "truncated chunk"
    return "version mismatch" if text[4] != "\x54" else "truncated chunk"


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
    if len(args) == 1:  # the common call, without the argument check
        v, level = args[0], 1
    else:
        v = args[0] if args else None
        level = opt_int(args, 2, "error", 1)
    if type(v) is str and level > 0:
        v = error_where(level, sys._getframe()) + v
    raise LuaError(v)


def error_where(level: int, frame) -> str:
    """where(level, frame) for `error` (its own frame): at level 1, when its
    caller is a Lua function's frame (the usual `error(msg)`), that frame's
    position, without walking the stack."""
    if level == 1:
        f = frame.f_back
        if f is not None and (name := f.f_code.co_filename) in CHUNKS and not in_direct_tail(f):
            return lua_position(name, f.f_lineno or 0) + ": "
        if f is not None and f.f_code in BUILTIN_CODES:  # called by a builtin (`pcall(error, msg)`): no position
            return ""
    return where(level, frame)


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
    if len(args) == 2:
        t, mt = args
        if type(t) is LuaTable and type(mt) is LuaTable and t.meta is None:
            t.meta = mt  # the common shape, an object getting its class: nothing to refuse
            if "__gc" in mt.hash or "__mode" in mt.hash:
                RUNNING[0].state.collector.metatable_set(t, mt)
            return t
    t = check_table(args, 1, "setmetatable")
    mt = args[1] if len(args) > 1 else None
    if len(args) < 2 or (mt is not None and type(mt) is not LuaTable):
        type_error(args, 2, "setmetatable", "nil or table")
    if t.meta is not None and t.meta.hash.get("__metatable") is not None:
        raise LuaError(where(1, sys._getframe()) + "cannot change a protected metatable")
    t.meta = mt
    if mt is not None and ("__gc" in mt.hash or "__mode" in mt.hash):
        RUNNING[0].state.collector.metatable_set(t, mt)
    return t


@builtin
def ipairs(*args):
    t = check_any(args, 1, "ipairs")
    return Multi((ipairs_aux, t, 0))


@builtin
def ipairs_aux(*args):
    t = args[0] if args else None
    if len(args) != 2 or type(args[1]) is not int:
        i = check_int(args, 2, "?")
    else:
        i = args[1]
    i = V.wrap(i + 1)  # wraps around, as luaL_intop
    v = t.get_int(i) if type(t) is LuaTable and t.meta is None else LI.index(t, i)
    if v is None:
        return None
    return Multi((i, v))


@builtin
def next_(*args):
    t = check_table(args, 1, "next")
    k = args[1] if len(args) > 1 else None
    r = t.next(k)
    if r is None:
        return None
    return Multi(r)


@builtin
def pairs(*args):
    """`next, t, nil` as in Lua (so `pairs(t) == next`); a generic for over
    this call fixes t's keys when its walk starts (the sandbox pairs of
    docs/reference/lua.md: runtime/helpers.make_giter is told the callee)."""
    if args and type(t := args[0]) is LuaTable and (t.meta is None or t.meta.hash.get("__pairs") is None):
        return Multi((next_, t, None))  # the common case, without the checks below
    t = check_any(args, 1, "pairs")
    h = V.getmetamethod(t, "__pairs")
    if h is not None:
        r = LC.calln(h, t)
        return Multi((r + (None, None, None))[:3])
    if isinstance(t, Userdata):
        r = t.lua_pairs()
        if r is not None:
            return Multi(tuple(r))
    return Multi((next_, t, None))  # next raises for a value that is no table, as Lua's pairs lets it


@builtin
def pcall(*args):
    """lua_pcall of args[0]: one nested C call (runvil.lua.runtime.calldepth),
    counted here as `ccall` counts it, without its frame: a protected call
    that succeeds is the common case and costs what a plain call costs
    plus the count. A pending tail call left by the callee runs after the
    count goes down again, still protected."""
    if not args:
        arg_error(1, "pcall", "value expected")
    f = args[0]
    m = RUNNING[0]
    n = m.depth + 1
    try:
        if n >= LUAI_MAXCCALLS:
            check(n, False)
        m.depth = n
        try:
            r = f(*args[1:]) if type(f) is FunctionType else LC.call(f, *args[1:])
        finally:
            m.depth = n - 1
        if type(r) is not Multi:
            return (True, r)
        if r and r[0] is TAILCALL:
            r = V.expand(r)
        return (True, *r)
    except LuaError as e:
        if (m.co or m).unwinding is not None:  # closing values the error left: closed here, as Lua does
            return (False, closed_after(e.value, m.co or m))
        return (False, e.value)
    except (RecursionError, MemoryError) as e:
        if (m.co or m).unwinding is not None:
            return (False, closed_after(caught_value(e), m.co or m))
        return (False, caught_value(e))


@builtin
def xpcall(*args):
    """lua_pcall with a message handler: as pcall; the handler runs on top of
    the levels that raised (call_handler, which luastack.levels finds)."""
    handler = args[1] if len(args) > 1 else None
    if type(handler) is not FunctionType:
        check_function(args, 2, "xpcall")
    f = args[0]
    m = RUNNING[0]
    n = m.depth + 1
    try:
        if n >= LUAI_MAXCCALLS:
            check(n, False)
        m.depth = n
        try:
            r = f(*args[2:]) if type(f) is FunctionType else LC.call(f, *args[2:])
        finally:
            m.depth = n - 1
        if type(r) is not Multi:
            return (True, r)
        if r and r[0] is TAILCALL:
            r = V.expand(r)
        return (True, *r)
    except (LuaError, RecursionError, MemoryError) as e:
        pending = take_unwound(m.co or m)  # (before the handler, which may leave its own)
        value = handler_value(handler, e)
        return (False, value if pending is None else close_unwound(pending, value))


#: the protected calls here: an error below one of them is caught there (its
#: closing values closed there, helpers.close_unwound); `load` for its reader
CATCHER_CODES.update((pcall.__code__, xpcall.__code__, next(
    c for c in open_lib.__code__.co_consts if getattr(c, "co_name", None) == "load")))


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
    if len(args) == 1 and type(v := args[0]) is str:
        return V.str2number(v)  # the common shape, without the argument check
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
    from ..runtime.pieces import PIECE_ITEMS, charge_items

    for piece in range(0, len(s), PIECE_ITEMS):  # a long numeral: the limits checked as it goes
        if piece:
            charge_items(PIECE_ITEMS)
        for ch in s[piece:piece + PIECE_ITEMS]:
            d = "0123456789abcdefghijklmnopqrstuvwxyz".find(ch)
            if d < 0 or d >= base:
                return None
            n = (n * base + d) & 0xFFFFFFFFFFFFFFFF  # wraps as Lua's unsigned accumulation
    return V.wrap(-n if neg else n)


@builtin
def tostring(*args):
    if args:  # the common cases, without the argument check (no metatable of theirs counts)
        v = args[0]
        t = type(v)
        if t is str:
            return v
        if t is int:
            return str(v)
        if t is float:
            return fmt_float(v)
        if v is True:
            return "true"
        if v is False:
            return "false"
        if v is None:
            return "nil"
    return LI.tostring(check_any(args, 1, "tostring"))


@builtin
def type_(*args):
    if args:
        return V._TYPE_NAMES.get(type(args[0]), "userdata")  # type_name(), inline
    check_any(args, 1, "type")  # raises Lua's error
