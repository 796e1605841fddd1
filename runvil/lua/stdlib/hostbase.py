"""The base functions the sandbox leaves out (`collectgarbage`, `dofile`,
`loadfile`), for a host that grants them (`runvil lua --allow base`).
Files are read as Lua reads them (a BOM and a first `#` line skipped)."""

from __future__ import annotations

import gc
import sys

from ..errors import LuaError, LuaSyntaxError
from ..runtime import values as V
from ..runtime.args import arg_error, check_str, opt_str
from ..runtime.calls import call
from ..runtime.values import Multi
from . import lib_table

#: collectgarbage's options (lbaselib.c's opts) and what each gives back
_GC_OPTIONS = ("stop", "restart", "collect", "count", "step", "setpause", "setstepmul", "isrunning",
               "generational", "incremental")


def open_lib(state) -> None:
    G = state.G
    running = [True]
    mode = ["incremental"]
    tuning = {"setpause": 200, "setstepmul": 100}

    def collectgarbage(*args):
        option = opt_str(args, 1, "collectgarbage", "collect")
        if option not in _GC_OPTIONS:
            arg_error(1, "collectgarbage", f"invalid option '{option}'")
        if option == "collect":
            gc.collect()
            return 0
        if option == "count":
            used = max(0, state.memory_budget.rss() - state.memory_budget.base) + sys.getallocatedblocks() * 32
            return used / 1024.0
        if option == "step":
            gc.collect(0)
            return False  # (a step that ends no cycle, as Lua's usually does)
        if option in ("stop", "restart"):
            running[0] = option == "restart"
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
            return state.load(source, name, env=env)
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

    for name, f in lib_table({"collectgarbage": collectgarbage, "dofile": dofile, "loadfile": loadfile}).hash.items():
        G.set_str(name, f)

