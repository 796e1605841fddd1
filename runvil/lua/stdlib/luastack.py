"""The Lua stack as Lua's debug interface describes it, read from the
Python stack on demand (nothing is kept while it is not asked): a Lua
level is a frame of compiled code (its chunk and line from the registry
of runvil.lua.errors) or a builtin's (`[C]`). A function is described
from its code: its chunk, the Lua line of its definition (0: the main
chunk), its parameters and upvalues (the compiled code's free variables).
Lua's stack traceback (luaL_traceback) is built here, for debug.traceback
and for the host's report of an uncaught error."""

from __future__ import annotations

import re
import sys
from types import FunctionType, TracebackType

from ..debuginfo import QUALNAMES, call_site, chunk_info, in_direct_tail, is_lua_code, lua_frames, metamethod_event
from ..runtime import values as V
from ..runtime.envslots import reads_globals, slot_of
from ..runtime.helpers import call_handler
from ..runtime.machine import RUNNING
from ..runtime.tables import LuaTable
from ..runtime.values import Multi

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


def defined_at(code) -> tuple[str, str, int]:
    """(short_src, what, linedefined) of a function by its code: what a
    traceback line needs, without code_info's walk of the code's lines."""
    info = chunk_info(code)
    if info is None:
        return "[C]", "C", -1
    lines = info.lines
    first = lines[code.co_firstlineno] if code.co_firstlineno < len(lines) else 0
    return info.name, "main" if first == 0 else "Lua", first


def code_info(code) -> dict:
    """What getinfo says of a function by its code."""
    info = chunk_info(code)
    if info is None:
        return {"source": "=[C]", "short_src": "[C]", "what": "C", "linedefined": -1, "lastlinedefined": -1,
                "nparams": 0, "isvararg": True, "nups": 0}
    chunk, lines = info.name, info.lines
    first = lines[code.co_firstlineno] if code.co_firstlineno < len(lines) else 0
    last = max((lines[n] for _s, _e, n in code.co_lines() if n is not None and n < len(lines)), default=first)
    vararg = bool(code.co_flags & 4) and code.co_varnames[code.co_argcount] == "VA"
    ups = [v for v in code.co_freevars if lua_name(v) is not None]
    if "_ENV" not in map(lua_name, ups) and reads_globals(code):
        ups.append("_ENV")  # globals are read through _ENV, an upvalue in Lua
    return {"source": source_of(chunk), "short_src": chunk, "what": "main" if first == 0 else "Lua",
            "linedefined": first, "lastlinedefined": 0 if first == 0 else last,
            "nparams": code.co_argcount, "isvararg": vararg or first == 0, "nups": len(ups)}


def current_line(frame, unwound=None) -> int:
    """The Lua line a level is at; `unwound`: the Python lines of frames
    an error has left (Levels.unwound)."""
    info = chunk_info(frame.f_code)
    if info is None:
        return -1
    lines = info.lines
    left = unwound.get(id(frame)) if unwound else None
    n = (left[0] if left is not None else frame.f_lineno) or 0
    return lines[n] if 0 <= n < len(lines) else -1


class Levels(list):
    """The frames of Lua's levels, and the Python line of each that an
    error has left, from its traceback: the frame itself has gone on to a
    loop's cleanup by then, whose line is not the one that raised."""

    __slots__ = ("unwound",)

    def __init__(self, frames, tb=None):
        super().__init__(frames)
        self.unwound = {}
        while tb is not None:
            self.unwound[id(tb.tb_frame)] = (tb.tb_lineno, tb.tb_lasti)
            tb = tb.tb_next


def _lasti(frames, frame) -> int | None:
    """Where an error left the frame (Levels.unwound), or None."""
    left = getattr(frames, "unwound", {}).get(id(frame))
    return left[1] if left is not None else None


def levels(frame) -> Levels:
    """The Lua levels from `frame` (level 0) outwards: their frames. Under
    xpcall's message handler, Lua's stack still holds the levels that
    raised the error (the handler runs on top of them): they are found in
    the error being handled, between the handler's levels and xpcall's.
    `frame` may be an error's traceback: the levels that raised it."""
    if isinstance(frame, TracebackType):
        tb = frame
        while tb.tb_next is not None:
            tb = tb.tb_next
        return Levels([f for f, _w in lua_frames(tb.tb_frame)], frame)
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
            return Levels(upper + [f for f, _w in lua_frames(tb.tb_frame)], error.__traceback__)
    return Levels(f for f, _w in lua_frames(frame))


def global_names(loaded) -> dict:
    """pushglobalfuncname's `mod.name` (`_G.` dropped) of every function
    in the tables of package.loaded, by the id of its code: one walk for
    all the levels of a traceback (the first name found wins, as in a walk
    per level; ids, as a code object's hash is computed anew each time)."""
    names: dict = {}
    if type(loaded) is not LuaTable:
        return names
    for modname, module in list(loaded.hash.items()):
        if type(module) is not LuaTable or type(modname) is not str:
            continue
        for key, value in list(module.hash.items()):
            if type(value) is FunctionType and type(key) is str:
                code = id(value.__code__)
                if code not in names:
                    names[code] = key if modname == "_G" else f"{modname}.{key}"
    return names


def tail_called(frames: list, i: int) -> bool:
    """Whether level i was entered by a tail call: a Lua frame in a direct
    tail call (no level of Lua's) stands between it and the next level."""
    f = frames[i]
    outer = frames[i + 1] if i + 1 < len(frames) else None
    f = f.f_back if f is not None else None
    for _ in range(64):
        if f is None or f is outer:
            return False
        if is_lua_code(f.f_code) and in_direct_tail(f, _lasti(frames, f)):
            return True
        f = f.f_back
    return False


def name_from_caller(frames: list, i: int) -> tuple[str, str]:
    """(namewhat, name) of level i as its caller's code names it (none
    for a function entered by a tail call)."""
    f = frames[i]
    event = metamethod_event(f.f_back) if f.f_back is not None else None
    if event is not None:
        return "metamethod", event
    if i + 1 >= len(frames) or tail_called(frames, i):
        return "", ""
    caller = frames[i + 1]
    if caller is None or not is_lua_code(caller.f_code):  # called by a builtin: Lua knows no name
        return "", ""
    site = call_site(caller, _lasti(frames, caller))
    if site is None:
        return "", ""
    name, is_method = site[0], site[1]
    if is_method:
        return "method", name
    code = caller.f_code
    local = f"L_{name}_"  # a local's compiled name: L_<name>_<n> (lua_name)
    if any(v.startswith(local) and v[len(local):].isdecimal() for v in code.co_varnames):
        return "local", name
    if any(lua_name(v) == name for v in code.co_freevars):
        return "upvalue", name
    return "global" if _is_global(name) else "field", name


def _is_global(name: str) -> bool:
    state = RUNNING[0].state
    return state is not None and state.G.hash.get(name) is not None


def level_info(frames: list, i: int, what: str, loaded=None, function_of=None) -> LuaTable:
    """getinfo of level i (frames from lua_frames); `function_of`: the
    caller's FunctionFinder (one of its own by default)."""
    f = frames[i]
    info = code_info(f.f_code)
    t = LuaTable()
    if "S" in what:
        for k in ("source", "short_src", "what", "linedefined", "lastlinedefined"):
            t.set_str(k, info[k])
    if "l" in what:
        t.set_str("currentline", current_line(f, getattr(frames, "unwound", None)))
    if "u" in what:
        t.set_str("nups", info["nups"])
        t.set_str("nparams", info["nparams"])
        t.set_str("isvararg", info["isvararg"])
    if "n" in what:
        namewhat, name = name_from_caller(frames, i)
        t.set_str("namewhat", namewhat)
        if name:
            t.set_str("name", name)
    if "t" in what:
        t.set_str("istailcall", tail_called(frames, i))
    if "r" in what:
        t.set_str("ftransfer", 0)
        t.set_str("ntransfer", 0)
    if "f" in what:
        fn = (function_of or FunctionFinder())(f)
        if fn is not None:
            t.set_str("func", fn)
    if "L" in what and info["what"] != "C":
        t.set_str("activelines", _active_lines(f.f_code))
    return t


#: what a frame without a free variable of that name gives
_NO_VALUE = object()


class FunctionFinder:
    """Which function a frame runs: one of the functions with its code
    whose upvalues are the frame's. Python's frames do not say, and a walk
    of the heap (gc.get_referrers) costs milliseconds, so the functions of
    a code found by the last walk are kept (weakly) and the heap is walked
    again only when none of them is the frame's (a closure made since)."""

    def __init__(self):
        self.by_code: dict = {}  # code -> [weakref to a function with that code]

    def __call__(self, frame):
        code = frame.f_code
        if code.co_name in code.co_freevars:  # a function that names itself runs as that one (its code may
            fn = frame.f_locals.get(code.co_name)  # be replaced since: set_env; a twin runs on its cells)
            if type(fn) is FunctionType and fn.__code__.co_qualname == code.co_qualname:
                return fn
        caller = frame.f_back  # the caller's locals often hold the very function (`f()` of a local f)
        if caller is not None:
            held = [v for v in caller.f_locals.values() if type(v) is FunctionType and v.__code__ is code]
            fn = self._match(frame, held, weak=False) if held else None
            if fn is not None:
                return fn
        refs = self.by_code.get(code)
        if refs:
            fn = self._match(frame, refs)
            if fn is not None:
                return fn
        refs = self._walk(code)
        if not refs:
            return None
        fn = self._match(frame, refs)
        if fn is not None:
            return fn
        return refs[0]()

    def _walk(self, code) -> list:
        import gc
        import weakref

        refs = [weakref.ref(r) for r in gc.get_referrers(code) if type(r) is FunctionType and r.__code__ is code]
        if len(self.by_code) > 4096:  # (codes of chunks gone)
            self.by_code.clear()
        self.by_code[code] = refs
        return refs

    @staticmethod
    def _match(frame, refs: list, weak: bool = True):
        names = frame.f_code.co_freevars
        values = frame.f_locals if names else None
        for ref in refs:
            fn = ref() if weak else ref
            if fn is None:
                continue
            if not names:
                return fn
            cells = fn.__closure__ or ()
            try:
                if all(values.get(n, _NO_VALUE) is c.cell_contents for n, c in zip(names, cells)):
                    return fn
            except ValueError:  # an empty cell
                continue
        return None


def _active_lines(code) -> LuaTable:
    info = chunk_info(code)
    t = LuaTable()
    if info is None:
        return t
    lines = info.lines
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
    names = global_names(loaded) if shown else {}
    for i, f in shown:
        entries.append(_traceback_line(frames, i, names))
    if bottom and RUNNING[0].co is None:
        entries.append("\n\t[C]: in ?")
    if len(entries) > LEVELS1 + LEVELS2 + 1:
        # (lauxlib.c counts one level fewer than it leaves out)
        skipped = len(entries) - LEVELS1 - LEVELS2 - 1
        entries = entries[:LEVELS1] + [f"\n\t...\t(skipping {skipped} levels)"] + entries[-LEVELS2:]
    return "".join(lines) + "".join(entries)


def _traceback_line(frames: list, i: int, names: dict) -> str:
    """One level's line; `names`: global_names of package.loaded."""
    f = frames[i]
    short_src, what, linedefined = defined_at(f.f_code)
    line = current_line(f, getattr(frames, "unwound", None))
    head = f"\n\t{short_src}:" + (f"{line}:" if line > 0 else "") + " in "
    tail = "\n\t(...tail calls...)" if what != "C" and tail_called(frames, i) else ""
    name = QUALNAMES.get(f.f_code) if what == "C" else names.get(id(f.f_code))
    if name is not None:
        return head + f"function '{name}'" + tail
    namewhat, called = name_from_caller(frames, i)
    if namewhat:
        return head + f"{namewhat} '{called}'" + tail
    if what == "main":
        return head + "main chunk" + tail
    if what != "C":
        return head + f"function <{short_src}:{linedefined}>" + tail
    return head + "?"


# ------------------------------------------------------------- the library


class UpvalueId(V.Userdata):
    """debug.upvalueid's light userdata: equal for the same upvalue."""

    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell

    def lua_eq(self, other) -> bool:
        return type(other) is UpvalueId and other.cell is self.cell

    def lua_tostring(self) -> str:
        return f"userdata: 0x{id(self.cell):x}"


def upvalues(fn) -> list:
    if type(fn) is not FunctionType:
        return []
    code = fn.__code__
    cells = fn.__closure__ or ()
    if not is_lua_code(code):
        return [("", c) for c in cells]
    ups = [(lua_name(v), c) for v, c in zip(code.co_freevars, cells) if lua_name(v) is not None]
    slot = slot_of(fn)  # the globals read directly (runvil.lua.runtime.envslots): they are its _ENV
    if slot is not None:
        at = next((i for i, (name, _c) in enumerate(ups) if name == "_ENV"), None)
        if at is None:
            ups.append(("_ENV", slot))
        else:  # (the chunk's _ENV passed down to a factory: the names are what its code reads)
            ups[at] = ("_ENV", slot)
    return ups


def cell_value(cell):
    """An upvalue's value: a local that is assigned after it is captured
    lives in a one-item list (the compiler's box), no Lua value is a list."""
    try:
        value = cell.cell_contents
    except ValueError:  # an empty cell
        return None
    return value[0] if type(value) is list else value


def set_cell_value(cell, value) -> None:
    try:
        box = cell.cell_contents
    except ValueError:
        box = None
    if type(box) is list:
        box[0] = value
    else:
        cell.cell_contents = value


def active_locals(frame) -> list:
    """(name, value) of a level's active locals, in declaration order."""
    if not is_lua_code(frame.f_code):
        return []
    found = []
    for var, value in frame.f_locals.items():
        m = _LOCAL.match(var)
        if m is not None and var not in frame.f_code.co_freevars:
            found.append((int(m.group(2)), m.group(1), value[0] if type(value) is list else value))
    found.sort()
    return [(name, value) for _n, name, value in found]


def vararg(frame, n: int):
    va = frame.f_locals.get("VA") if is_lua_code(frame.f_code) else None
    if not va or -n > len(va):
        return None
    return Multi(("(vararg)", va[-n - 1]))
