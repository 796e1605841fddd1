"""Lua 5.4's `debug` library (ldblib.c), for a host that grants it
(`runvil lua --allow debug`), and Lua's stack traceback, which the host
also prints under an uncaught error.

Everything here reads the Python stack on demand, so nothing costs while
it is not called: a Lua level is a frame of compiled code (its chunk and
line from the registry of runvil.lua.errors) or a builtin's (`[C]`). A
function is described from its code: its chunk, the Lua line of its
definition (0: the main chunk), its parameters and upvalues (the compiled
code's free variables). Hooks cost nothing while none is set: a count hook
replaces the step meter's `_tick`, line/call/return hooks use Python's
trace function on the Lua thread.
"""

from __future__ import annotations

import re
import sys
from types import FunctionType

from ..errors import BUILTIN_CODES, LUA_CODE, QUALNAMES, call_site, lua_frames, metamethod_event
from ..runtime import values as V
from ..runtime.args import arg_error, check_int, opt_str, type_error
from ..runtime.calls import call
from ..runtime.helpers import call_handler
from ..runtime.machine import RUNNING
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, Multi
from . import lib_table

#: levels shown before and after the cut of a long traceback (lauxlib.c)
LEVELS1, LEVELS2 = 10, 11
_LOCAL = re.compile(r"^L_(.+)_(\d+)$")


# ------------------------------------------------------------ describing


def lua_name(var: str) -> str | None:
    """The Lua name of a compiled local or upvalue (`L_x_3` -> x, `_ENV_0`
    -> _ENV), or None for the compiler's own."""
    m = _LOCAL.match(var)
    if m is not None:
        return m.group(1)
    return "_ENV" if var.startswith("_ENV") else None


def source_of(chunk: str) -> str:
    """A chunk's `source` from the name its messages use."""
    if chunk.startswith("[string ") or chunk == "?":
        return chunk
    if chunk.startswith("(") or chunk == "stdin":
        return "=" + chunk
    return "@" + chunk


def code_info(code) -> dict:
    """What getinfo says of a function by its code."""
    entry = LUA_CODE.get(code.co_filename)
    if entry is None:
        return {"source": "=[C]", "short_src": "[C]", "what": "C", "linedefined": -1, "lastlinedefined": -1,
                "nparams": 0, "isvararg": True, "nups": 0}
    chunk, lines = entry
    first = lines[code.co_firstlineno] if code.co_firstlineno < len(lines) else 0
    last = max((lines[n] for _s, _e, n in code.co_lines() if n is not None and n < len(lines)), default=first)
    vararg = bool(code.co_flags & 4) and code.co_varnames[code.co_argcount] == "VA"
    ups = [v for v in code.co_freevars if lua_name(v) is not None]
    if "_ENV" not in map(lua_name, ups) and {"_Gh", "_gget", "_gset"} & set(code.co_names):
        ups.append("_ENV")  # globals are read through _ENV, an upvalue in Lua
    return {"source": source_of(chunk), "short_src": chunk, "what": "main" if first == 0 else "Lua",
            "linedefined": first, "lastlinedefined": 0 if first == 0 else last,
            "nparams": code.co_argcount, "isvararg": vararg or first == 0, "nups": len(ups)}


def current_line(frame) -> int:
    entry = LUA_CODE.get(frame.f_code.co_filename)
    if entry is None:
        return -1
    lines = entry[1]
    n = frame.f_lineno or 0
    return lines[n] if 0 <= n < len(lines) else -1


def levels(frame) -> list:
    """The Lua levels from `frame` (level 0) outwards: their frames. Under
    xpcall's message handler, Lua's stack still holds the levels that
    raised the error (the handler runs on top of them): they are found in
    the error being handled, between the handler's levels and xpcall's."""
    handler = frame
    while handler is not None and handler.f_code is not _HANDLER_CODE:
        handler = handler.f_back
    if handler is not None:
        error = sys.exc_info()[1]
        tb = getattr(error, "__traceback__", None)
        if tb is not None:
            while tb.tb_next is not None:
                tb = tb.tb_next
            above = set()
            f = frame
            while f is not handler:
                above.add(id(f))
                f = f.f_back
            upper = []
            for f, _w in lua_frames(frame):
                if id(f) not in above:
                    break
                upper.append(f)
            return upper + [f for f, _w in lua_frames(tb.tb_frame)]
    return [f for f, _w in lua_frames(frame)]


def global_name(code, loaded) -> str | None:
    """pushglobalfuncname: `mod.name` of a function of this code found in
    a table of package.loaded (`_G.` dropped)."""
    if type(loaded) is not LuaTable:
        return None
    for modname, module in list(loaded.hash.items()):
        if type(module) is not LuaTable or type(modname) is not str:
            continue
        for key, value in list(module.hash.items()):
            if type(value) is FunctionType and value.__code__ is code and type(key) is str:
                return key if modname == "_G" else f"{modname}.{key}"
    return None


def name_from_caller(frames: list, i: int) -> tuple[str, str]:
    """(namewhat, name) of level i as its caller's code names it."""
    f = frames[i]
    event = metamethod_event(f.f_back) if f.f_back is not None else None
    if event is not None:
        return "metamethod", event
    if i + 1 >= len(frames):
        return "", ""
    caller = frames[i + 1]
    if caller.f_code.co_filename not in LUA_CODE:
        if f.f_code in BUILTIN_CODES and caller.f_code in BUILTIN_CODES:
            return "", ""
        return "", ""
    site = call_site(caller)
    if site is None:
        return "", ""
    name, is_method = site[0], site[1]
    if is_method:
        return "method", name
    code = caller.f_code
    if any(lua_name(v) == name for v in code.co_varnames if v.startswith("L_")):
        return "local", name
    if any(lua_name(v) == name for v in code.co_freevars):
        return "upvalue", name
    return "global" if _is_global(name) else "field", name


def _is_global(name: str) -> bool:
    state = RUNNING[0].state
    return state is not None and state.G.hash.get(name) is not None


def level_info(frames: list, i: int, what: str, loaded=None) -> LuaTable:
    """getinfo of level i (frames from lua_frames)."""
    f = frames[i]
    info = code_info(f.f_code)
    t = LuaTable()
    if "S" in what:
        for k in ("source", "short_src", "what", "linedefined", "lastlinedefined"):
            t.set_str(k, info[k])
    if "l" in what:
        t.set_str("currentline", current_line(f))
    if "u" in what:
        t.set_str("nups", info["nups"])
        t.set_str("nparams", info["nparams"])
        t.set_str("isvararg", info["isvararg"])
    if "n" in what:
        namewhat, name = name_from_caller(frames, i)
        t.set_str("namewhat", namewhat)
        if name:
            t.set_str("name", name)
        elif f.f_code in QUALNAMES and info["what"] == "C" and i + 1 < len(frames):
            pass
    if "t" in what:
        t.set_str("istailcall", False)
    if "r" in what:
        t.set_str("ftransfer", 0)
        t.set_str("ntransfer", 0)
    if "f" in what:
        fn = _function_of(f)
        if fn is not None:
            t.set_str("func", fn)
    if "L" in what and info["what"] != "C":
        t.set_str("activelines", _active_lines(f.f_code))
    return t


def _function_of(frame):
    """The function a frame runs, where one function has its code."""
    import gc

    for ref in gc.get_referrers(frame.f_code):
        if type(ref) is FunctionType and ref.__code__ is frame.f_code:
            return ref
    return None


def _active_lines(code) -> LuaTable:
    entry = LUA_CODE.get(code.co_filename)
    t = LuaTable()
    if entry is None:
        return t
    lines = entry[1]
    for _s, _e, n in code.co_lines():
        if n is not None and n < len(lines) and lines[n] > 0:
            t.set(lines[n], True)
    return t


def function_info(fn, what: str) -> LuaTable:
    t = LuaTable()
    code = getattr(fn, "__code__", None)
    info = code_info(code) if code is not None and type(fn) is FunctionType else code_info(_C_CODE)
    if "S" in what:
        for k in ("source", "short_src", "what", "linedefined", "lastlinedefined"):
            t.set_str(k, info[k])
    if "l" in what:
        t.set_str("currentline", -1)
    if "u" in what:
        t.set_str("nups", info["nups"] if info["what"] != "C" else len(getattr(fn, "__closure__", None) or ()))
        t.set_str("nparams", info["nparams"])
        t.set_str("isvararg", info["isvararg"])
    if "n" in what:
        t.set_str("namewhat", "")
    if "t" in what:
        t.set_str("istailcall", False)
    if "f" in what:
        t.set_str("func", fn)
    if "L" in what and info["what"] != "C":
        t.set_str("activelines", _active_lines(code))
    return t


_C_CODE = (lambda: None).__code__
_HANDLER_CODE = call_handler.__code__


def traceback(message, frame, level: int = 1, loaded=None, bottom: bool = True) -> str:
    """luaL_traceback from `frame` (level 0): message, `stack traceback:`,
    a line per level (a long stack cut in the middle), and `[C]: in ?` for
    the host below the main level (`bottom`)."""
    frames = levels(frame)
    shown = [(i, f) for i, f in enumerate(frames) if i >= level]
    lines = [message + "\n" if message is not None else "", "stack traceback:"]
    entries = []
    for i, f in shown:
        entries.append(_traceback_line(frames, i, loaded))
    if bottom and RUNNING[0].co is None:
        entries.append("\n\t[C]: in ?")
    if len(entries) > LEVELS1 + LEVELS2 + 1:
        # (lauxlib.c counts one level fewer than it leaves out)
        skipped = len(entries) - LEVELS1 - LEVELS2 - 1
        entries = entries[:LEVELS1] + [f"\n\t...\t(skipping {skipped} levels)"] + entries[-LEVELS2:]
    return "".join(lines) + "".join(entries)


def _traceback_line(frames: list, i: int, loaded) -> str:
    f = frames[i]
    info = code_info(f.f_code)
    line = current_line(f)
    head = f"\n\t{info['short_src']}:" + (f"{line}:" if line > 0 else "") + " in "
    name = QUALNAMES.get(f.f_code) if info["what"] == "C" else global_name(f.f_code, loaded)
    if name is not None:
        return head + f"function '{name}'"
    namewhat, called = name_from_caller(frames, i)
    if namewhat:
        return head + f"{namewhat} '{called}'"
    if info["what"] == "main":
        return head + "main chunk"
    if info["what"] != "C":
        return head + f"function <{info['short_src']}:{info['linedefined']}>"
    return head + "?"


# ------------------------------------------------------------- the library


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
                if f.f_code.co_filename in LUA_CODE:
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
        if frame.f_code.co_filename not in LUA_CODE:
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


def open_lib(state) -> None:
    hooks = Hooks(state)
    registry = LuaTable()

    def loaded():
        package = state.G.get("package")
        return package.get("loaded") if type(package) is LuaTable else None

    def thread_args(args):
        """Lua's optional first argument, a thread: (thread, the rest)."""
        if args and V.type_name(args[0]) == "thread":
            return args[0], args[1:]
        return None, args

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
            return level_info(frames, level, what, loaded())
        if V.type_name(target) != "function":
            arg_error(1, "getinfo", "function or level expected")
        return function_info(target, what)

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
        found = _locals(frames[level])
        if n < 0:
            return _varargs(frames[level], n)
        if 0 < n <= len(found):
            return Multi(found[n - 1])
        return None

    def d_getupvalue(*args):
        fn = args[0] if args else None
        n = check_int(args, 2, "getupvalue")
        ups = _upvalues(fn)
        if not 0 < n <= len(ups):
            return EMPTY
        name, cell = ups[n - 1]
        try:
            return Multi((name, cell.cell_contents))
        except ValueError:
            return Multi((name, None))

    def d_setupvalue(*args):
        fn = args[0] if args else None
        n = check_int(args, 2, "setupvalue")
        value = args[2] if len(args) > 2 else None
        ups = _upvalues(fn)
        if not 0 < n <= len(ups):
            return None
        name, cell = ups[n - 1]
        cell.cell_contents = value
        return name

    def d_upvalueid(*args):
        fn = args[0] if args else None
        n = check_int(args, 2, "upvalueid")
        ups = _upvalues(fn)
        if not 0 < n <= len(ups):
            return None
        return _UpvalueId(ups[n - 1][1])

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

    def d_getmetatable(*args):
        if not args:
            arg_error(1, "getmetatable", "value expected")
        return V.getmetatable(args[0])

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
            state.string_meta = mt
            RUNNING[0].string_meta = mt
        return v

    def d_getuservalue(*args):
        return Multi((None, False))

    def d_setuservalue(*args):
        return args[0] if args else None

    def d_upvaluejoin(*args):
        f1, n1 = args[0] if args else None, check_int(args, 2, "upvaluejoin")
        f2, n2 = args[2] if len(args) > 2 else None, check_int(args, 4, "upvaluejoin")
        ups1, ups2 = _upvalues(f1), _upvalues(f2)
        if not 0 < n1 <= len(ups1):
            arg_error(2, "upvaluejoin", "invalid upvalue index")
        if not 0 < n2 <= len(ups2):
            arg_error(4, "upvaluejoin", "invalid upvalue index")
        try:
            ups1[n1 - 1][1].cell_contents = ups2[n2 - 1][1].cell_contents
        except ValueError:
            pass
        return EMPTY

    def d_setcstacklimit(*args):
        return 0

    def d_getregistry(*args):
        return registry

    def d_setlocal(*args):
        return None

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


class _UpvalueId(V.Userdata):
    """debug.upvalueid's light userdata: equal for the same upvalue."""

    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell

    def lua_eq(self, other) -> bool:
        return type(other) is _UpvalueId and other.cell is self.cell

    def lua_tostring(self) -> str:
        return f"userdata: 0x{id(self.cell):x}"


def _upvalues(fn) -> list:
    if type(fn) is not FunctionType:
        return []
    code = fn.__code__
    cells = fn.__closure__ or ()
    if code.co_filename not in LUA_CODE:
        return [("", c) for c in cells]
    return [(lua_name(v), c) for v, c in zip(code.co_freevars, cells) if lua_name(v) is not None]


def _locals(frame) -> list:
    """(name, value) of a level's active locals, in declaration order."""
    if frame.f_code.co_filename not in LUA_CODE:
        return []
    found = []
    for var, value in frame.f_locals.items():
        m = _LOCAL.match(var)
        if m is not None and var not in frame.f_code.co_freevars:
            found.append((int(m.group(2)), m.group(1), value))
    found.sort()
    return [(name, value) for _n, name, value in found]


def _varargs(frame, n: int):
    va = frame.f_locals.get("VA") if frame.f_code.co_filename in LUA_CODE else None
    if not va or -n > len(va):
        return None
    return Multi(("(vararg)", va[-n - 1]))

