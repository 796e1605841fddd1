"""Lua errors as Python exceptions, and where a runtime error happened.

A Lua error is any Lua value; `LuaError` carries it through Python frames.
Positions ("chunk:line:") are found by walking the Python stack: every
compiled Lua function lives in code whose file name is registered here with
a table mapping generated Python lines to Lua lines, so the hot path pays
nothing for line tracking.
"""

from __future__ import annotations

import sys
import weakref


class LuaError(Exception):
    """A raised Lua value (`value` may be any Lua value, not only a string)."""

    def __init__(self, value, traceback: str | None = None):
        super().__init__(value)
        self.value = value
        self.lua_traceback = traceback

    #: how a value other than a string reads in str(e): Lua's tostring
    #: without metamethods, set by runvil.lua.runtime.values (which knows
    #: the value types; this module sits beneath every stage)
    describe = staticmethod(repr)

    def __str__(self) -> str:
        v = self.value
        if isinstance(v, str):
            return v
        return self.describe(v)


class LuaSyntaxError(LuaError):
    """A chunk that does not compile; the value is Lua's message."""


class LimitExceeded(LuaError):
    """A sandbox limit was hit; still a catchable Lua error."""


class ArgError(LuaError):
    """`bad argument #n to 'fname' (msg)`, or `calling 'fname' on bad self`
    for the receiver of a method call (argument #0)."""

    def __init__(self, argno: int, fname: str, msg: str, where: str):
        self.argno, self.fname, self.msg, self.where = argno, fname, msg, where
        super().__init__(self._text())

    def _text(self) -> str:
        if self.argno == 0:
            return f"{self.where}calling '{self.fname}' on bad self ({self.msg})"
        return f"{self.where}bad argument #{self.argno} to '{self.fname}' ({self.msg})"



class CoroutineKill(BaseException):
    """Unwinds a suspended coroutine that is being closed. Not a Lua error:
    pcall does not catch it, and `__close` handlers see a normal exit."""


# ----------------------------------------------------------- code registries

#: co_filename of generated code -> (chunk name, list: python line -> lua line)
LUA_CODE: dict[str, tuple[str, list[int]]] = {}
#: co_filename of generated code -> {(python line, column): (name, is_method)}
#: for each call: how Lua names the called function at that call site
CALL_SITES: dict[str, dict] = {}
#: code objects of builtins: frames that count as a (C) function level
BUILTIN_CODES: set = set()
#: code object of a library builtin -> its global name ("table.insert"),
#: which Lua uses in messages when no call site names the function
QUALNAMES: dict = {}


#: id(code) -> code of BUILTIN_CODES: a code's hash is not cached and costs
#: microseconds, and the Engine marks its closures again for every VM
_MARKED: dict = {}


def builtin(fn):
    """Marks a Python function as a Lua builtin for stack-level counting."""
    code = fn.__code__
    if _MARKED.get(id(code)) is not code:
        BUILTIN_CODES.add(code)
        _MARKED[id(code)] = code
    return fn


#: code -> frame -> the frame a walk goes on at: the bottom of an escalated
#: call's context continues at the generator twin that escalated it
#: (runvil.lua.runtime.generators); None ends the walk (where a coroutine's stack begins)
_HOPS: dict = {}


def add_stack_hop(code, hop) -> None:
    _HOPS[code] = hop


def up(f):
    """The frame below `f` in its Lua-visible stack."""
    hop = _HOPS.get(f.f_code)
    if hop is not None:
        return hop(f)
    return f.f_back


def lua_position(filename: str, pyline: int, unknown=0) -> str | None:
    """"chunk:line" of a line of generated code (`filename` a compiled
    chunk's, `pyline` its Python line; `unknown` stands for a line past the
    map), or None when the file is not a Lua chunk's."""
    info = LUA_CODE.get(filename)
    if info is None:
        return None
    chunk, lines = info
    return f"{chunk}:{lines[pyline] if 0 <= pyline < len(lines) else unknown}"


def lua_frames(frame=None):
    """Yields (frame, where) for each Lua-visible level, innermost first.

    `where` is "chunk:line:" for a Lua function and "" for a builtin;
    internal helper frames are skipped.
    """
    f = frame if frame is not None else sys._getframe(1)
    merge = False  # the frame below was a hoisted expression of this one
    while f is not None:
        code = f.f_code
        if code.co_filename in LUA_CODE:
            deep = code.co_name.startswith("_deep")
            if not merge and not in_direct_tail(f):
                yield f, lua_position(code.co_filename, f.f_lineno or 0) + ":"
            merge = deep  # a hoisted expression and its function are one Lua level
        elif code in BUILTIN_CODES:
            yield f, ""
        f = up(f)


def where(level: int = 1, frame=None) -> str:
    """Lua's luaL_where: "chunk:line: " of the Lua-visible level `level`
    counted from `frame` (level 0; default: the caller of `where`), or ""
    when that level is a builtin or does not exist."""
    f = frame if frame is not None else sys._getframe(1)
    i = -1
    for _f, w in lua_frames(f):
        i += 1
        if i == level:
            return w + " " if w else ""
    return ""


def builtin_context(fname: str) -> tuple[str, str, bool]:
    """For an error raised by the innermost running builtin: the position of
    its caller, the name to report, and whether the call was a method call
    (`o:f()`: Lua does not count the receiver). Called from Lua, the name is
    the one at the call site (`fmt` for `local fmt = string.format`); called
    from a builtin such as pcall, it is the global name (`coroutine.resume`)."""
    f = sys._getframe(1)
    while f is not None and f.f_code not in BUILTIN_CODES:
        if f.f_code.co_filename in LUA_CODE:
            return where(0, f), fname, False
        f = up(f)
    if f is None:
        return "", fname, False
    caller = up(f)
    while caller is not None and caller.f_code not in BUILTIN_CODES and caller.f_code.co_filename not in LUA_CODE:
        caller = up(caller)
    if caller is None or caller.f_code in BUILTIN_CODES:
        return "", QUALNAMES.get(f.f_code, fname), False
    event = metamethod_event(f.f_back)
    if event is not None:  # called as a metamethod: Lua names the event
        return where(0, caller), event, False
    site = call_site(caller)
    if site is None:
        return where(0, caller), fname, False
    return where(0, caller), site[0], site[1]


#: the operator helpers that call metamethods (their function names) -> the
#: event; None: the helper's own `event` argument ("__add") says
_METAMETHOD_CALLERS = {
    "_arith_meta": None, "string_arith": None, "unm": "unm", "bnot": "bnot", "eq": "eq", "lt": "lt",
    "le": "le", "concat": "concat", "length": "len", "index": "index", "setindex": "newindex",
    "add": "add", "sub": "sub", "mul": "mul",  # (their first case calls the metamethod itself)
    "_tbc_close": "close",
}  # fmt: skip


def metamethod_event(frame) -> str | None:
    """The event ("add") when `frame` is the call of a metamethod by one of
    the operator helpers (cstack.meta_call), else None."""
    if frame is None or frame.f_code.co_name != "meta_call" or frame.f_back is None:
        return None
    op = frame.f_back
    if not op.f_code.co_filename.startswith(_PACKAGE_DIR) or op.f_code.co_name not in _METAMETHOD_CALLERS:
        return None
    event = _METAMETHOD_CALLERS[op.f_code.co_name]
    if event is None:
        e = op.f_locals.get("event")
        event = e[2:] if type(e) is str and e.startswith("__") else None
    return event


_PACKAGE_DIR = __file__.rsplit("/", 1)[0]


def call_site(frame) -> tuple | None:
    """The name a Lua frame's current call gives the called function, from
    the compiler's call markers (CALL_SITES), or None."""
    return _sites_at(frame.f_code).get(frame.f_lasti)


def in_direct_tail(frame) -> bool:
    """Whether a Lua frame is in a direct tail call (compile_expr's
    direct_tail): Lua reused its level for the called function, so the
    frame is no level of Lua's stack."""
    site = _sites_at(frame.f_code).get(frame.f_lasti)
    return site is not None and len(site) > 2


#: id of a Lua function's code -> (a reference to the code, its sites by
#: f_lasti)
_SITES_AT: dict = {}


def _sites_at(code) -> dict:
    """f_lasti -> call site for the instructions of a code at a marked
    call: found once per code, as reading a frame's position costs about
    0.2 us per instruction before it."""
    hit = _SITES_AT.get(id(code))
    if hit is None or hit[0]() is not code:
        sites = CALL_SITES.get(code.co_filename)
        at = {}
        if sites:
            for i, p in enumerate(code.co_positions()):
                site = sites.get((p[0], p[2]))
                if site is not None:
                    at[2 * i] = site
        hit = _SITES_AT[id(code)] = (weakref.ref(code), at)
    return hit[1]


def caller_where() -> str:
    """Position of whatever called the innermost running builtin: where a
    builtin's own errors (bad argument, ...) are reported, as luaL_error."""
    f = sys._getframe(1)
    while f is not None and f.f_code not in BUILTIN_CODES:
        if f.f_code.co_filename in LUA_CODE:
            return where(0, f)
        f = up(f)
    if f is None:
        return ""
    return where(1, f)


def lua_error(msg: str):
    """luaL_error: raises msg with the position of the running builtin's
    caller (the library functions' own errors)."""
    raise LuaError(caller_where() + msg)


def current_where() -> str:
    """Position of the innermost *Lua* function (for runtime errors raised
    by operators, which Lua reports at the instruction's line)."""
    for _f, w in lua_frames(sys._getframe(1)):
        return w + " " if w else ""
    return ""


def rt_error(msg: str):
    """Raises a Lua runtime error with the innermost position, as luaG_runerror."""
    raise LuaError(current_where() + msg)


def chunkid(chunkname: str, source: str = "") -> str:
    """How Lua names a chunk in messages (luaO_chunkid)."""
    if chunkname.startswith("="):
        return chunkname[1:60]
    if chunkname.startswith("@"):
        name = chunkname[1:]
        return name if len(name) <= 59 else "..." + name[-56:]
    first, nl, _rest = chunkname.partition("\n")
    if not nl and len(first) <= 44:
        return f'[string "{first}"]'
    return f'[string "{first[:45]}..."]'


def stack_overflow_message(e: BaseException) -> str:
    """Lua's message for a runaway recursion, at the innermost Lua line.
    The recursion's traceback is released on the way (`release_traceback`)."""
    tb = e.__traceback__
    where = ""
    while tb is not None:
        position = lua_position(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if position is not None:
            where = position + ": "
        tb = tb.tb_next
    release_traceback(e)
    return f"{where}stack overflow"


def release_traceback(e: BaseException) -> None:
    """Drops e's traceback (and those of the exceptions it was raised in)
    one entry at a time, innermost first. A traceback as long as a runaway
    recursion, dropped at once, is freed by C code that recurses once per
    entry: deeper than WebAssembly's stack allows (Pyodide's interpreter
    dies of `Maximum call stack size exceeded`), while each frame freed
    here alone frees nothing further."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb, e.__traceback__ = e.__traceback__, None
        entries = []
        while tb is not None:
            entries.append(tb)
            after = tb.tb_next
            tb.tb_next = None
            tb = after
        while entries:
            entries.pop()
        e = e.__context__
