"""`runvil lua`: the sandboxed Lua state as a command, like `lua`.

`-e` chunks run first, in order, then FILE (its name as given is the chunk
name, so errors read `FILE:line:`); with neither, an interactive REPL.
An uncaught error prints `runvil: {message}` on stderr and exits 1.
"""

from __future__ import annotations

import sys

from ..lua import Limits, LuaError, LuaState, LuaSyntaxError, LuaTable
from ..lua.values import tostring, tostring_basic, getmetamethod


def _write_stdout(text: str) -> None:
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
    from ..lua.values import type_name

    return f"(error object is a {type_name(value)} value)"


def run_lua_command(chunks: list[str], file: str | None, script_args: list[str]) -> int:
    # a standalone program may compute for longer than a prompt block
    state = LuaState(stdout=_write_stdout, allow_load=True, limits=Limits(steps=200_000_000))
    try:
        for code in chunks:
            state.execute(code, "=(command line)")
        if file is not None:
            if file == "-":
                source = sys.stdin.buffer.read().decode("latin-1")
                name = "=stdin"
            else:
                try:
                    with open(file, "rb") as f:
                        source = f.read().decode("latin-1")
                    if source.startswith("\xef\xbb\xbf"):
                        source = source[3:]  # a UTF-8 byte order mark, skipped as Lua does
                except OSError:
                    sys.stdout.flush()
                    print(f"runvil: cannot open {file}", file=sys.stderr)
                    return 1
                name = "@" + file
            arg = LuaTable()
            arg.set(0, file)
            for i, a in enumerate(script_args, 1):
                arg.set(i, a)
            state.set_global("arg", arg)
            fn = state.load(source, name)
            state.call(fn, *script_args)
        elif not chunks:
            return repl(state)
    except LuaSyntaxError as e:
        sys.stdout.flush()
        print(f"runvil: {e.value}", file=sys.stderr)
        return 1
    except LuaError as e:
        sys.stdout.flush()
        print(f"runvil: {error_message(e.value)}", file=sys.stderr)
        return 1
    finally:
        sys.stdout.flush()
    return 0


def repl(state: LuaState) -> int:
    """A `lua -i`-like loop: expressions print their values; an incomplete
    chunk continues on the next line."""

    interactive = sys.stdin.isatty()
    buffer = ""
    while True:
        prompt = ">> " if buffer else "> "
        if interactive:
            sys.stdout.write(prompt)
            sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            if interactive:
                sys.stdout.write("\n")
            return 0
        buffer = buffer + line if buffer else line
        text = buffer.encode("utf-8", "replace").decode("latin-1")
        try:
            try:
                fn = state.load("return " + text, "=stdin")
            except LuaSyntaxError:
                fn = state.load(text, "=stdin")
        except LuaSyntaxError as e:
            if str(e.value).endswith("<eof>"):
                continue  # incomplete: read more
            print(e.value, file=sys.stderr)
            buffer = ""
            continue
        buffer = ""
        try:
            results = state.call(fn)
        except LuaError as e:
            sys.stdout.flush()
            print(error_message(e.value), file=sys.stderr)
            continue
        if results:
            _write_stdout("\t".join(tostring(v) for v in results) + "\n")
            sys.stdout.flush()
