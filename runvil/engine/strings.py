"""Text at the Engine boundary: Lua strings are byte strings held as one
char per byte (ARCHITECTURE.md, "Lua values"); every global and the VM turn
them into Python text and back with these two."""

from __future__ import annotations


def to_lua_str(s: str) -> str:
    """Python text -> a Lua byte string (one char per UTF-8 byte)."""
    return s.encode("utf-8", "surrogateescape").decode("latin-1")


def from_lua_str(s: str) -> str:
    """A Lua byte string -> Python text."""
    return s.encode("latin-1").decode("utf-8", "surrogateescape")
