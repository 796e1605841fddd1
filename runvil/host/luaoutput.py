"""What `runvil lua` and its prompt REPL (`runvil lua --prompt`) share: the
limits of a standalone program, how Lua's output reaches stdout, and how an
uncaught error value reads."""

from __future__ import annotations

import sys

from ..lua.api import Limits, LuaError
from ..lua.api import getmetamethod, tostring, tostring_basic, type_name

# A standalone program may compute for longer than a prompt block.
STANDALONE_LIMITS = Limits(steps=200_000_000)


def write_stdout(text: str) -> None:
    """Lua's strings are bytes (carried as latin-1 text): written as they are."""
    sys.stdout.buffer.write(text.encode("latin-1", "replace"))


def error_message(value) -> str:
    """What the `lua` command prints for an uncaught error value."""
    if type(value) is str:
        return value
    if type(value) in (int, float):
        return tostring_basic(value)
    if getmetamethod(value, "__tostring") is not None:
        try:
            return tostring(value)
        except LuaError:
            pass
    return f"(error object is a {type_name(value)} value)"
