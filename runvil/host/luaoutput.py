"""What `runvil lua` and its prompt REPL (`runvil lua --prompt`) share: the
limits of a standalone program, how Lua's output reaches stdout, and how an
uncaught error value reads."""

from __future__ import annotations

import re
import sys

from ..lua.api import GRANTS, Limits, LuaError
from ..lua.api import getmetamethod, tostring, tostring_basic, type_name

# A standalone program may compute for longer than a prompt block
# (`--cpu off` lifts this budget as well).
STANDALONE_LIMITS = Limits(steps=200_000_000)


def write_stdout(text: str) -> None:
    """Lua's strings are bytes (carried as latin-1 text): written as they
    are, or to a stream that takes only text (a notebook's, a StringIO)
    decoded as UTF-8 with surrogate escapes."""
    write_bytes(sys.stdout, text)


def write_bytes(stream, text: str) -> None:
    """A Lua string to a stream, its bytes as they are where it has a
    binary buffer."""
    data = text.encode("latin-1", "replace")
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        buffer.write(data)
    else:
        stream.write(data.decode("utf-8", "surrogateescape"))


def read_stdin_bytes() -> bytes:
    """All of stdin as bytes, whether it is a file or a text stream."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer.read()
    return sys.stdin.read().encode("utf-8", "surrogateescape")


#: every grant of `runvil lua --allow` (`all`)
ALL_GRANTS = frozenset(GRANTS)

#: what an absent library's failure reads like -> the grant that opens it
_ABSENT = re.compile(r"attempt to (?:index|call) a nil value \((global|field|method) '([^']*)'\)")
_NEEDS = {
    ("global", "io"): "io", ("global", "debug"): "debug", ("global", "collectgarbage"): "base",
    ("global", "dofile"): "base", ("global", "loadfile"): "base", ("field", "dump"): "base",
    **{(kind, name): "os" for name in ("getenv", "exit", "remove", "rename", "tmpname", "difftime", "setlocale")
       for kind in ("field", "method")},
    ("field", "execute"): "process", ("field", "popen"): "process",
}


def grant_help(message: str, grants) -> str | None:
    """The `help:` line for an error on a library the sandbox leaves out."""
    m = _ABSENT.search(message)
    if m is None:
        return None
    grant = _NEEDS.get((m.group(1), m.group(2)))
    if grant is None or grant in grants:
        return None
    return f"help: runvil lua --allow {grant} grants {GRANTS[grant]}"


def uncaught_report(state, error: LuaError, grants=frozenset()) -> str:
    """An uncaught error as lua.c reports it (its message, then Lua's stack
    traceback, unless a __tostring made the message), and a help line
    when it failed on a library not granted."""
    from ..lua.api import lua_traceback

    value = error.value
    text = error_message(value)
    if type(value) in (str, int, float) or getmetamethod(value, "__tostring") is None:
        tb = error.__traceback__
        if tb is not None:  # (the levels that raised it, each at the line it was left)
            package = state.G.get("package")
            loaded = package.get("loaded") if hasattr(package, "get") else None
            text = lua_traceback(text, tb, 0, loaded)
    hint = grant_help(text, grants) if type(value) is str else None
    return text if hint is None else f"{text}\n{hint}"


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
