"""Lua errors as Python exceptions, and their messages.

A Lua error is any Lua value; `LuaError` carries it through Python frames.
Where an error happened ("chunk:line:") is read from the Lua-visible stack
by runvil.lua.debuginfo.
"""

from __future__ import annotations

from .debuginfo import caller_where, current_where, stack_overflow_position


class LuaError(Exception):
    """A raised Lua value (`value` may be any Lua value, not only a string).
    BaseException's own constructor keeps it (in `args`): making one runs
    no Python-level __init__, which would double the cost of an error that
    a protected call catches at once."""

    @property
    def value(self):
        args = self.args
        return args[0] if args else None

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


def lua_error(msg: str):
    """luaL_error: raises msg with the position of the running builtin's
    caller (the library functions' own errors)."""
    raise LuaError(caller_where() + msg)


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
    where = stack_overflow_position(e.__traceback__)
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
