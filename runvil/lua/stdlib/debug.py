"""Lua 5.4's `debug` library (ldblib.c), for a host that grants it
(`runvil lua --allow debug`). What it says of the stack and of functions
comes from runvil.lua.stdlib.luastack, read on demand. Hooks cost nothing
while none is set: a count hook wraps the `_tick` that compiled code calls
when its step countdown runs out, line/call/return hooks use Python's
trace function on the Lua thread.
"""

from __future__ import annotations

import sys
from types import FunctionType

from ..debuginfo import is_lua_code
from ..runtime import values as V
from ..runtime.args import arg_error, check_int, opt_str, type_error
from ..runtime.calls import call
from ..runtime.envslots import EnvSlot, set_env
from ..runtime.machine import RUNNING
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, Multi
from . import lib_table
from .luastack import (FunctionFinder, UpvalueId, active_locals, cell_value, current_line, function_info, level_info, levels,
                       lua_name, set_cell_value, traceback, upvalues, vararg)


class Hooks:
    """debug.sethook's hook of a state: a count hook fires where compiled
    code calls the step meter's check (`LuaState.count_hook`: the countdown
    is armed at most `count` steps at a time while one is set); line, call
    and return hooks use Python's trace function on the Lua thread."""

    def __init__(self, state):
        self.state = state
        self.hook = None
        self.mask = ""
        self.count = 0
        self.running = False
        self.last_line = {}

    def set(self, hook, mask: str, count: int) -> None:
        state = self.state
        if state.count_hook is not None:  # the step meter's own check again
            state.ns["_tick"] = state.count_hook[1]
            state.count_hook = None
        sys.settrace(None)
        _untrace(sys._getframe())
        self.hook, self.mask, self.count = hook, mask, count
        self.last_line = {}
        if hook is None:
            return
        if count > 0:
            # compiled code calls `_tick` from the namespace when its
            # countdown runs out, which is armed at most `count` steps
            # while the hook is set (LuaState._rearm)
            tick = state.ns["_tick"]

            def hooked_tick():
                tick()
                self.fire("count", None)

            state.count_hook = (count, tick)
            state.ns["_tick"] = hooked_tick
            excess = state._steps[0] - count
            if excess > 0:  # the countdown armed now ends within `count` steps
                state._steps[0] -= excess
                state._armed -= excess
        if any(c in mask for c in "lcr"):
            trace = self.trace
            f = sys._getframe().f_back
            while f is not None:
                if is_lua_code(f.f_code):
                    f.f_trace = trace
                    self.last_line[id(f)] = current_line(f)  # the line running now is no new one
                f = f.f_back
            sys.settrace(trace)

    def fire(self, event: str, line) -> None:
        if self.running or self.hook is None:
            return
        self.running = True
        try:
            call(self.hook, event, line)
        finally:
            self.running = False

    def trace(self, frame, event, arg):
        if not is_lua_code(frame.f_code):
            return None if event == "call" else self.trace
        if self.running:
            return self.trace
        if event == "call" and "c" in self.mask:
            self.fire("call", None)
        elif event == "return" and "r" in self.mask:
            self.fire("return", None)
        elif event == "line" and "l" in self.mask:
            line = current_line(frame)
            key = id(frame)
            if line > 0 and self.last_line.get(key) != line:
                self.last_line[key] = line
                self.fire("line", line)
        return self.trace


def _untrace(frame) -> None:
    while frame is not None:
        if frame.f_trace is not None:
            frame.f_trace = None
        frame = frame.f_back


def thread_args(args):
    """Lua's optional first argument, a thread: (thread, the rest)."""
    if args and V.type_name(args[0]) == "thread":
        return args[0], args[1:]
    return None, args


def d_getlocal(*args):
    thread, rest = thread_args(args)
    target = rest[0] if rest else None
    n = check_int(rest, 2, "getlocal")
    if type(target) is FunctionType:
        code = target.__code__
        names = [lua_name(v) for v in code.co_varnames[:code.co_argcount]]
        return names[n - 1] if 0 < n <= len(names) else None
    level = check_int(rest, 1, "getlocal")
    frames = levels(sys._getframe())
    if level < 0 or level >= len(frames):
        arg_error(1, "getlocal", "level out of range")
    found = active_locals(frames[level])
    if n < 0:
        return vararg(frames[level], n)
    if 0 < n <= len(found):
        return Multi(found[n - 1])
    return None


def d_getupvalue(*args):
    fn = args[0] if args else None
    n = check_int(args, 2, "getupvalue")
    ups = upvalues(fn)
    if not 0 < n <= len(ups):
        return EMPTY
    name, cell = ups[n - 1]
    return Multi((name, cell_value(cell)))


def d_setupvalue(*args):
    fn = args[0] if args else None
    n = check_int(args, 2, "setupvalue")
    value = args[2] if len(args) > 2 else None
    ups = upvalues(fn)
    if not 0 < n <= len(ups):
        return None
    name, cell = ups[n - 1]
    if type(cell) is EnvSlot:
        set_env(fn, value)
    else:
        set_cell_value(cell, value)
    return name


def d_upvalueid(*args):
    fn = args[0] if args else None
    n = check_int(args, 2, "upvalueid")
    ups = upvalues(fn)
    if not 0 < n <= len(ups):
        return None
    return UpvalueId(ups[n - 1][1])


def d_getmetatable(*args):
    if not args:
        arg_error(1, "getmetatable", "value expected")
    return V.getmetatable(args[0])


def d_getuservalue(*args):
    return Multi((None, False))


def d_setuservalue(*args):
    return args[0] if args else None


def d_upvaluejoin(*args):
    f1, n1 = args[0] if args else None, check_int(args, 2, "upvaluejoin")
    f2, n2 = args[2] if len(args) > 2 else None, check_int(args, 4, "upvaluejoin")
    ups1, ups2 = upvalues(f1), upvalues(f2)
    if not 0 < n1 <= len(ups1):
        arg_error(2, "upvaluejoin", "invalid upvalue index")
    if not 0 < n2 <= len(ups2):
        arg_error(4, "upvaluejoin", "invalid upvalue index")
    cell = ups1[n1 - 1][1]
    value = cell_value(ups2[n2 - 1][1])  # (Python's cells cannot be shared after the fact: the value is)
    if type(cell) is EnvSlot:
        set_env(f1, value)
    else:
        try:
            set_cell_value(cell, value)
        except ValueError:
            pass
    return EMPTY


def d_setcstacklimit(*args):
    return 0


def d_setlocal(*args):
    return None


def set_string_meta(state, mt) -> None:
    """debug.setmetatable of strings: the state's string metatable, and
    what compiled code reads of it at once (`_SIh`, the hash of its
    __index; the flags of the methods it answers inline), which watches
    only the state's own metatable: another one is read as it is now."""
    from ..compiler.contract import INLINE_STRING_CALLS, INLINE_STRING_METHODS

    own = state.string_meta_opened = getattr(state, "string_meta_opened", state.string_meta)
    state.string_meta = mt
    state.machine.string_meta = RUNNING[0].string_meta = mt
    if mt is own and getattr(state, "index_watcher", None) is not None:
        state.index_watcher()
        return
    index = mt.hash.get("__index") if mt is not None else None
    state.ns["_SIh"] = index.hash if type(index) is LuaTable else {}
    for ok, _chars in INLINE_STRING_METHODS.values():
        state.ns[ok] = False
    for ok in INLINE_STRING_CALLS.values():
        state.ns[ok] = False


def open_lib(state) -> None:
    hooks = Hooks(state)
    registry = LuaTable()
    function_of = FunctionFinder()  # (getinfo's `func` of a level)

    def loaded():
        package = state.G.get("package")
        return package.get("loaded") if type(package) is LuaTable else None

    def d_traceback(*args):
        thread, rest = thread_args(args)
        msg = rest[0] if rest else None
        if msg is not None and type(msg) is not str and type(msg) not in (int, float):
            return msg
        if type(msg) in (int, float):
            msg = V.tostring_basic(msg)
        level = rest[1] if len(rest) > 1 and rest[1] is not None else (1 if thread is None else 0)
        if type(level) is not int:
            level = check_int(rest, 2, "traceback")
        if thread is not None:
            return (msg + "\n" if msg is not None else "") + "stack traceback:"
        return traceback(msg, sys._getframe(), level, loaded())

    def d_getinfo(*args):
        thread, rest = thread_args(args)
        what = opt_str(rest, 2, "getinfo", "flnSrtu")
        target = rest[0] if rest else None
        if what.startswith(">"):
            arg_error(2, "getinfo", "invalid option '>'")
        for c in what:
            if c not in "SlnrutfL":
                arg_error(2, "getinfo", "invalid option")
        if type(target) in (int, float):
            level = check_int(rest, 1, "getinfo")
            frames = levels(sys._getframe()) if thread is None else []
            if thread is None and RUNNING[0].co is None:
                frames.append(None)  # the host below the main chunk: `[C]`
            if level < 0 or level >= len(frames):
                return None
            if frames[level] is None:
                return function_info(None, what)
            return level_info(frames, level, what, loaded(), function_of)
        if V.type_name(target) != "function":
            arg_error(1, "getinfo", "function or level expected")
        return function_info(target, what)

    def d_sethook(*args):
        thread, rest = thread_args(args)
        hook = rest[0] if rest else None
        if hook is None:
            hooks.set(None, "", 0)
            return EMPTY
        mask = opt_str(rest, 2, "sethook", "")
        count = rest[2] if len(rest) > 2 and type(rest[2]) is int else 0
        if V.type_name(hook) != "function":
            type_error(rest, 1, "sethook", "function")
        hooks.set(hook, mask, count)
        return EMPTY

    def d_gethook(*args):
        if hooks.hook is None:
            return None
        mask = "".join(c for c in "crl" if c in hooks.mask)
        return Multi((hooks.hook, mask, hooks.count))

    def d_setmetatable(*args):
        v = args[0] if args else None
        mt = args[1] if len(args) > 1 else None
        if mt is not None and type(mt) is not LuaTable:
            type_error(args, 2, "setmetatable", "nil or table")
        if type(v) is LuaTable or isinstance(v, V.Userdata):
            try:
                v.meta = mt
            except AttributeError:
                pass
        elif type(v) is str:
            set_string_meta(state, mt)
        return v

    def d_getregistry(*args):
        return registry

    def d_debug(*args):
        while True:
            sys.stderr.write("lua_debug> ")
            sys.stderr.flush()
            line = sys.stdin.readline()
            if not line or line == "cont\n":
                return EMPTY
            try:
                call(state.load(line.encode("utf-8", "surrogateescape").decode("latin-1"), "=(debug command)"))
            except Exception as e:  # noqa: BLE001 - printed as lua.c's debug loop prints it
                sys.stderr.write(f"{getattr(e, 'value', e)}\n")

    funcs = {
        "debug": d_debug, "gethook": d_gethook, "getinfo": d_getinfo, "getlocal": d_getlocal,
        "getmetatable": d_getmetatable, "getregistry": d_getregistry, "getupvalue": d_getupvalue,
        "getuservalue": d_getuservalue, "sethook": d_sethook, "setlocal": d_setlocal,
        "setmetatable": d_setmetatable, "setupvalue": d_setupvalue, "setuservalue": d_setuservalue,
        "traceback": d_traceback, "upvalueid": d_upvalueid, "upvaluejoin": d_upvaluejoin,
        "setcstacklimit": d_setcstacklimit,
    }
    state.G.set_str("debug", lib_table(funcs, "debug."))
