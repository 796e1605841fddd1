"""How Lua reads a chunk from a file (luaL_loadfilex): a UTF-8 byte order
mark is dropped, then a first line starting with '#' (a Unix `#!` line),
keeping its newline so line numbers hold. Only files are read so: `load`
and `-e` chunks keep a '#' (and fail on it, as in Lua)."""

from __future__ import annotations


def file_source(data: bytes) -> str:
    """The chunk text of a Lua file's bytes (one character per byte)."""
    source = data.decode("latin-1").removeprefix("\xef\xbb\xbf")
    if source[:1] == "#":
        cut = source.find("\n")
        source = source[cut:] if cut >= 0 else ""
    return source
