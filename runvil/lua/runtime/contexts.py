"""Execution contexts: where Lua runs, and how a running Lua computation
suspends (docs/DECISIONS.md, "Execution contexts").

A context is a coroutine or an Engine context (the walk, a task, a fan-out
arm). Exactly one context of the process runs at a time: `resume(ctx)` runs
`ctx` until it calls `suspend()` (or its body ends), and then the resumer
goes on. Two backends give the same behaviour:

- `greenlet` (where greenlet imports): every context is a greenlet of the
  one Lua thread. A switch copies a little stack (about 1 µs) and a
  suspended context costs a few KB, so a process can hold 100,000.
- `threads` (the fallback; `RUNVIL_CONTEXTS=threads` forces it): every
  context is a thread of its own with a large stack, and a baton (one lock
  per context) makes exactly one of them run.
- `inline` (where no thread can start, as on Pyodide;
  `RUNVIL_CONTEXTS=inline` forces it on CPython, where Lua still runs on
  the large-stack Lua thread): there is no context to switch to.
  Everything that may suspend is a Python generator running on its
  resumer's stack: a coroutine as its function's twin (runvil.lua.runtime.generators),
  an Engine context as a generator whose wait is a `yield SUSPEND` passed
  up through every generator between it and the scheduler. `resume`,
  `suspend` and `transfer` are never called on it.

Where Lua runs (the Lua thread with its large stack, or the calling thread
inline) is runvil.lua.stack's.
"""

from __future__ import annotations

import threading

from ..errors import LuaError
from ..stack import BACKEND, CAN_THREAD, INLINE, LUA_RECURSION_LIMIT, THREAD_STACK  # noqa: F401
from ..stack import GREENLET as _greenlet_mod
from ..stack import baton as _baton
from ..stack import mark_lua_thread, on_lua_thread, run_lua, start_big_thread  # noqa: F401

class Suspend:
    """What an Engine context's generator yields when it waits (inline
    backend): passed up unchanged by every generator between the wait and
    the scheduler, as a Lua coroutine's yield never is (that is a tuple)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SUSPEND"


SUSPEND = Suspend()
#: what a wait says where it cannot pass up to the scheduler, as Lua says
#: of a yield inside a C function (a gsub callback, a sort comparator)
C_BOUNDARY = "attempt to yield across a C-call boundary"


def drive(gen):
    """Runs a generator that may wait (an Engine function, Lua run as a twin)
    to its end where nothing can pass its wait up: with greenlets or threads
    it never yields (it switches contexts inside); inline, a wait here is
    refused as Lua refuses a yield across a C call."""
    try:
        gen.send(None)
        while True:  # (inline only: it yielded SUSPEND)
            gen.throw(LuaError(C_BOUNDARY))
    except StopIteration as e:
        return e.value


class Context:
    """One execution context: runs `body()` on its first `resume`. An
    exception escaping `body` is raised again in whoever resumed it."""

    __slots__ = ("body", "name", "finished", "parent", "_impl", "_go", "_error")

    def __init__(self, body=None, name: str = "lua"):
        self.body = body
        self.name = name
        self.finished = False
        self.parent: Context | None = None  # threads: the context that resumed it last
        self._impl = None  # its greenlet or thread, made at the first resume
        self._go = None  # threads: the baton this context waits on
        self._error: BaseException | None = None

    @property
    def started(self) -> bool:
        return self._impl is not None


_tl = threading.local()  # .ctx: threads: the context of this thread

# The Lua coroutine whose code runs now, and the rest of what the running
# context needs, are on the running machine (runvil.lua.runtime.machine):
# whoever switches contexts another way than a coroutine's resume
# (`transfer`: the Engine's scheduler) switches machines too.


# ------------------------------------------------------------ greenlet backend

if _greenlet_mod is not None:
    _getcurrent = _greenlet_mod.getcurrent

    class _Greenlet(_greenlet_mod.greenlet):
        __slots__ = ("ctx",)


def _g_current() -> Context:
    g = _getcurrent()
    ctx = getattr(g, "ctx", None)
    if ctx is None:  # the thread's own (root) greenlet: its main context
        ctx = g.ctx = Context(name="main")
        ctx._impl = g
    return ctx


def _g_main():
    ctx = _getcurrent().ctx
    try:
        ctx.body()
    finally:
        ctx.finished = True


def _g_resume(ctx: Context) -> None:
    g = ctx._impl
    cur = _getcurrent()
    if g is None:
        g = ctx._impl = _Greenlet(_g_main, cur)
        g.ctx = ctx
    else:
        g.parent = cur
    g.switch()


def _g_suspend() -> None:
    _getcurrent().parent.switch()


def _g_transfer(ctx: Context) -> None:
    ctx._impl.switch()


# ------------------------------------------------------------- threads backend


def _t_current() -> Context:
    ctx = getattr(_tl, "ctx", None)
    if ctx is None:
        ctx = _tl.ctx = Context(name="main")
        ctx._impl = threading.current_thread()
        ctx._go = _baton()
    return ctx


def _t_main(ctx: Context) -> None:
    _tl.ctx = ctx
    mark_lua_thread()
    try:
        ctx.body()
    except BaseException as e:  # raised again in the resumer
        ctx._error = e
    finally:
        ctx.finished = True
        ctx.parent._go.release()


def _t_resume(ctx: Context) -> None:
    me = _t_current()
    ctx.parent = me
    if ctx._impl is None:
        ctx._go = _baton()
        try:
            ctx._impl = start_big_thread(lambda: _t_main(ctx), f"runvil-{ctx.name}")
        except RuntimeError:  # can't start new thread: out of threads or address space
            raise MemoryError("cannot start a thread for a context") from None
    else:
        ctx._go.release()
    me._go.acquire()
    if ctx._error is not None:
        err, ctx._error = ctx._error, None
        raise err


def _t_suspend() -> None:
    me = _tl.ctx
    me.parent._go.release()
    me._go.acquire()


def _t_transfer(ctx: Context) -> None:
    me = _t_current()
    ctx._go.release()
    me._go.acquire()


def _no_contexts(*_args):
    raise RuntimeError("the inline backend has no execution contexts to switch")


if BACKEND == "greenlet":
    current, resume, suspend, transfer = _g_current, _g_resume, _g_suspend, _g_transfer
elif BACKEND == "threads":
    current, resume, suspend, transfer = _t_current, _t_resume, _t_suspend, _t_transfer
else:
    current = resume = suspend = transfer = _no_contexts

current.__doc__ = "The running context (the thread's main context outside any other)."
resume.__doc__ = """Runs `ctx` (which becomes its resumer's child) until it suspends
or ends; raises what escapes its body."""
suspend.__doc__ = "Hands control back to the context that resumed this one, until it runs again."
transfer.__doc__ = """Hands control to a started context where it stopped, leaving
its resumer as it was (the Engine's scheduler: a context that waits on an
effect may be deep inside a coroutine). Returns when this one runs again."""
