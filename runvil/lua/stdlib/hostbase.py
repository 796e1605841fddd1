"""The base functions the sandbox leaves out (`collectgarbage`, `dofile`,
`loadfile`, `warn`), for a host that grants them (`runvil lua --allow base`).
Files are read as Lua reads them (a BOM and a first `#` line skipped).
Warnings are `lua.c`'s: off until `warn('@on')`, then written to stderr
as `Lua warning: ...`, with a finalizer's error among them."""

from __future__ import annotations

import gc
import sys

from ..errors import LuaError, LuaSyntaxError
from ..runtime import values as V
from ..runtime.args import arg_error, check_str, opt_str
from ..runtime.calls import call
from ..runtime.values import EMPTY, Multi
from . import lib_table

#: collectgarbage's options (lbaselib.c's opts) and what each gives back
_GC_OPTIONS = ("stop", "restart", "collect", "count", "step", "setpause", "setstepmul", "isrunning",
               "generational", "incremental")


def open_lib(state) -> None:
    G = state.G
    running = [True]
    mode = ["incremental"]
    tuning = {"setpause": 200, "setstepmul": 100}

    collector = state.collector

    def collectgarbage(*args):
        option = opt_str(args, 1, "collectgarbage", "collect")
        if option not in _GC_OPTIONS:
            arg_error(1, "collectgarbage", f"invalid option '{option}'")
        if option == "collect":
            collector.collect()  # weak tables and finalizers as Lua's full collection
            return 0
        if option == "count":
            used = max(0, state.memory_budget.rss() - state.memory_budget.base) + sys.getallocatedblocks() * 32
            return used / 1024.0
        if option == "step":
            gc.collect(0)
            return False  # (a step that ends no cycle, as Lua's usually does)
        if option in ("stop", "restart"):
            running[0] = option == "restart"
            collector.stopped = not running[0]  # no automatic collection while stopped
            return 0
        if option == "isrunning":
            return running[0]
        if option in ("setpause", "setstepmul"):
            previous = tuning[option]
            value = args[1] if len(args) > 1 and type(args[1]) is int else 0
            tuning[option] = value
            return previous
        previous, mode[0] = mode[0], option
        return previous

    def read_source(filename):
        """The chunk text of a file, or of stdin for nil."""
        from ..files import file_source

        if filename is None:
            buffer = getattr(sys.stdin, "buffer", None)
            data = buffer.read() if buffer is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
            return file_source(data), "=stdin"
        path = filename.encode("latin-1").decode("utf-8", "surrogateescape")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            what = "read" if isinstance(e, IsADirectoryError) else "open"
            raise LuaSyntaxError(f"cannot {what} {filename}: {e.strerror}") from None
        V.reserve_memory(len(data))
        return file_source(data), "@" + filename

    def loadfile(*args):
        filename = None if not args or args[0] is None else check_str(args, 1, "loadfile")
        mode = opt_str(args, 2, "loadfile", "bt")
        env = args[2] if len(args) > 2 else G
        try:
            source, name = read_source(filename)
            if "t" not in mode:
                return Multi((None, f"attempt to load a text chunk (mode is '{mode}')"))
            return state.load(source, name, env=env, once=False)
        except LuaSyntaxError as e:
            return Multi((None, e.value))

    def dofile(*args):
        filename = None if not args or args[0] is None else check_str(args, 1, "dofile")
        try:
            source, name = read_source(filename)
            fn = state.load(source, name)
        except LuaSyntaxError as e:
            raise LuaError(e.value) from None
        return call(fn)

    warnings = Warnings()
    collector.warn = warnings.emit

    def warn(*args):
        pieces = [check_str(args, i, "warn") for i in range(1, max(len(args), 1) + 1)]
        warnings.message(pieces)
        return EMPTY

    lib = {"collectgarbage": collectgarbage, "dofile": dofile, "loadfile": loadfile, "warn": warn}
    for name, f in lib_table(lib).hash.items():
        G.set_str(name, f)


class Warnings:
    """lua.c's warning function (lauxlib's warnf): off at first; a message
    of one piece that starts with `@` is a control (`@on`, `@off`, others
    ignored); a message is written whole to stderr, `Lua warning: ` first."""

    def __init__(self):
        self.on = False

    def message(self, pieces: list[str]) -> None:
        if len(pieces) == 1 and pieces[0].startswith("@"):
            if pieces[0] == "@on":
                self.on = True
            elif pieces[0] == "@off":
                self.on = False
            return
        self.emit("".join(pieces))

    def emit(self, text: str) -> None:
        if self.on:
            from .io import StdStream

            StdStream("stderr").write(("Lua warning: " + text + "\n").encode("latin-1"))

