"""Coroutines on baton threads (ARCHITECTURE.md decision 2).

Each coroutine runs its function on its own Python thread (with a large
stack), and exactly one thread of a state runs at a time: `resume` hands the
baton to the coroutine and waits; `yield` hands it back and waits. So the
evaluator stays plain synchronous Python, and a yield may happen at any
depth of Lua and Python calls.

`coroutine.close` (or the state closing) resumes a suspended coroutine with
a `CoroutineKill`, which unwinds its stack and runs its pending `__close`
handlers; so no coroutine thread outlives its state.
"""

from __future__ import annotations

import threading
import weakref

from .. import values as V
from ..args import type_error
from ..errors import CoroutineKill, LuaError, builtin, caller_where
from ..state import ensure_recursion_limit, start_lua_thread, stack_overflow_message
from ..values import Multi
from . import lib_table

def baton():
    """A binary semaphore that starts taken: `release` hands the baton over,
    `acquire` waits for it. A raw lock (any thread may release it) is a C
    call each way, several times cheaper than threading.Semaphore."""
    lock = threading.Lock()
    lock.acquire()
    return lock


_current = threading.local()  # .co: the Coroutine running on this thread


class Coroutine:
    """A Lua thread value."""

    __slots__ = ("fn", "status", "state", "_thread", "_go", "_back", "_transfer", "_kill", "error", "errored",
                 "nny", "__weakref__")

    def __init__(self, fn, state):
        self.fn = fn
        self.state = state
        self.status = "suspended"
        self._thread = None
        self._go = baton()  # the coroutine waits here
        self._back = baton()  # the resumer waits here
        self._transfer = None
        self._kill = False
        self.error = None  # the error value a dead coroutine died with
        self.errored = False
        self.nny = 0  # builtin callbacks running in it (C calls in C Lua): no yield while > 0

    # -------------------------------------------------------- resumer side

    def resume(self, args: tuple):
        """Runs the coroutine until it yields, returns or fails: returns
        ('yield'|'return', values) or ('error', value)."""
        prev = getattr(_current, "co", None)
        if prev is not None:
            prev.status = "normal"
        self.status = "running"
        self._transfer = args
        if self._thread is None:
            ensure_recursion_limit()
            self._thread = start_lua_thread(self._body, name="lua-coroutine")
        else:
            self._go.release()
        self._back.acquire()
        if prev is not None:
            prev.status = "running"
        kind, values = self._transfer
        self._transfer = None
        if kind == "raise":
            self.status = "dead"
            raise values
        if kind == "yield":
            self.status = "suspended"
        else:
            self.status = "dead"
            if kind == "error":
                self.error = values
                self.errored = True
        return kind, values

    def kill(self):
        """Closes a suspended coroutine: unwinds it, running __close."""
        if self.status != "suspended":
            return
        if self._thread is None:
            self.status = "dead"
            return
        self._kill = True
        self.resume(())

    # ------------------------------------------------------ coroutine side

    def _body(self):
        _current.co = self
        V.set_string_meta(self.state.string_meta)
        try:
            result = ("return", V.calln(self.fn, *self._transfer))
        except CoroutineKill:
            result = ("return", ())
        except LuaError as e:
            result = ("error", e.value)
        except RecursionError as e:
            result = ("error", stack_overflow_message(e))
        except MemoryError:
            result = ("error", "not enough memory")
        except BaseException as e:  # not a Lua error (a host cancelling): re-raised in the resumer
            result = ("raise", e)
        self._transfer = result
        self._back.release()

    def yield_(self, values: tuple) -> tuple:
        self._transfer = ("yield", values)
        self._back.release()
        self._go.acquire()
        if self._kill:
            raise CoroutineKill()
        args = self._transfer
        self._transfer = None
        return args


V.register_type(Coroutine, "thread")


class CCall:
    """`with CCall():` marks a builtin's callbacks (a sort comparator, a
    gsub function, `__tostring`) as C Lua's C calls: a yield inside them
    raises `attempt to yield across a C-call boundary`, as in Lua 5.4."""

    __slots__ = ("co",)

    def __enter__(self):
        co = self.co = getattr(_current, "co", None)
        if co is not None:
            co.nny += 1

    def __exit__(self, *exc):
        if self.co is not None:
            self.co.nny -= 1


def open_lib(state) -> None:
    main = Coroutine(None, state)
    main.status = "running"
    live: weakref.WeakSet = weakref.WeakSet()
    state.coroutines = live

    def current():
        return getattr(_current, "co", None)

    def check_co(args, n, fname) -> Coroutine:
        co = args[n - 1] if len(args) >= n else None
        if type(co) is not Coroutine:
            type_error(args, n, fname, "thread")
        return co

    def create(*args):
        f = args[0] if args else None
        if type(f) is not V.FunctionType:
            type_error(args, 1, "create", "function")
        co = Coroutine(f, state)
        live.add(co)
        return co

    def resume(*args):
        co = check_co(args, 1, "resume")
        if co is main or co.status == "running":
            return Multi((False, "cannot resume non-suspended coroutine"))
        if co.status == "dead":
            return Multi((False, "cannot resume dead coroutine"))
        if co.status != "suspended":
            return Multi((False, "cannot resume non-suspended coroutine"))
        kind, values = co.resume(args[1:])
        if kind == "error":
            return Multi((False, values))
        return Multi((True,) + tuple(values))

    def yield_(*args):
        co = current()
        if co is None:
            raise LuaError("attempt to yield from outside a coroutine")
        if co.nny:
            raise LuaError("attempt to yield across a C-call boundary")
        return Multi(co.yield_(args))

    def status(*args):
        co = check_co(args, 1, "status")
        if co is main:
            return "running" if current() is None else "normal"
        return co.status

    def running(*args):
        co = current()
        if co is None:
            return Multi((main, True))
        return Multi((co, False))

    def isyieldable(*args):
        co = check_co(args, 1, "isyieldable") if args else (current() or main)
        return co is not main and not co.nny

    def wrap(*args):
        if not args or type(args[0]) is not V.FunctionType:
            type_error(args, 1, "wrap", "function")
        co = create(*args)

        def wrapped(*a):
            if co.status == "dead":
                raise LuaError(caller_where() + "cannot resume dead coroutine")
            if co.status != "suspended":
                raise LuaError(caller_where() + "cannot resume non-suspended coroutine")
            kind, values = co.resume(a)
            if kind == "error":
                v = values
                if type(v) is str:
                    v = caller_where() + v
                raise LuaError(v)
            return Multi(tuple(values))

        return builtin(wrapped)

    def close(*args):
        co = check_co(args, 1, "close")
        st = "running" if co is main else co.status
        if st in ("running", "normal"):
            raise LuaError(caller_where() + f"cannot close a {st} coroutine")
        if st == "suspended":
            try:
                co.kill()
            except LuaError as e:  # a __close handler failed
                return Multi((False, e.value))
            if co.errored:
                return Multi((False, co.error))
            return True
        if co.errored:
            err, co.error, co.errored = co.error, None, False
            return Multi((False, err))
        return True

    lib = lib_table(
        {
            "create": create,
            "resume": resume,
            "yield": yield_,
            "status": status,
            "running": running,
            "isyieldable": isyieldable,
            "wrap": wrap,
            "close": close,
        },
        "coroutine.",
    )
    state.G.set_str("coroutine", lib)


def close_all(state) -> None:
    """Ends every suspended coroutine of a state (the host calls this when
    the state is done), so none of their threads outlives it."""
    for co in list(getattr(state, "coroutines", ())):
        try:
            co.kill()
        except LuaError:
            pass
