"""Text at the Engine boundary: Lua strings are byte strings held as one
char per byte (docs/DECISIONS.md, "Values"); every global and the VM turn
them into Python text and back with these two.

Each makes a copy, which the Engine keeps (a record, an event, a task's
result): a long one is reserved against the running Lua's memory budget
first, as a builtin reserves its result (runvil.lua.MemoryBudget), so the
run's copies count against its `memory` limit where they are made."""

from __future__ import annotations

import codecs

from ..lua.api import reserve_long


def _lua_bytes_error(e: UnicodeEncodeError):
    """Encoding back to Lua bytes: surrogateescape's U+DC80..U+DCFF become
    their byte; any other lone surrogate (a `\\ud800` JSON escape, a world's
    `"\\uDB04"`) becomes U+FFFD, so the result is a byte string in every case."""
    out = bytearray()
    for ch in e.object[e.start : e.end]:
        o = ord(ch)
        out += bytes((o - 0xDC00,)) if 0xDC80 <= o <= 0xDCFF else b"\xef\xbf\xbd"
    return bytes(out), e.end


#: the codec error handler of every text -> Lua bytes conversion
LUA_BYTES = "runvil-lua"
codecs.register_error(LUA_BYTES, _lua_bytes_error)


def lua_bytes(s: str) -> str:
    """Python text -> a Lua byte string (one char per UTF-8 byte), nothing
    reserved (to_lua_str reserves a long one first)."""
    return s.encode("utf-8", LUA_BYTES).decode("latin-1")


def to_lua_str(s: str) -> str:
    """Python text -> a Lua byte string (one char per UTF-8 byte)."""
    reserve_long(len(s))
    return lua_bytes(s)


def from_lua_str(s: str) -> str:
    """A Lua byte string -> Python text."""
    reserve_long(len(s))
    return s.encode("latin-1").decode("utf-8", "surrogateescape")
