"""Execution contexts: where Lua runs, and how a running Lua computation
suspends (ARCHITECTURE.md decision 2).

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

With threads, all Lua runs on the Lua thread (or, with threads, on context threads it
starts): a daemon thread with a large C stack that runs the jobs handed to
`run_lua` one at a time, from any host thread. So deep Lua recursion ends
in Lua's `stack overflow`, never in a crash. Python's recursion limit is
process-wide: it is raised only while a job runs, so host code on small
stacks (YAML, JSON, the prompt parser) keeps the default limit and fails
with a RecursionError, never a segfault. Inline, Lua runs on the calling
thread, under a recursion limit that the platform's stack holds
(`inline_recursion_limit`), so deep recursion ends in Lua's `stack
overflow` there too.
"""

from __future__ import annotations

import functools
import os
import queue
import sys
import threading

from ..errors import LuaError

try:
    import greenlet as _greenlet_mod
except ImportError:  # optional: the threads backend stands in
    _greenlet_mod = None

#: C stack of every thread that runs Lua
THREAD_STACK = 512 * 1024 * 1024
#: Python frames a Lua job may nest (a Lua call takes one to three); the
#: stack above holds them with a wide margin
LUA_RECURSION_LIMIT = 200_000


BACKENDS = ("greenlet", "threads", "inline")


def threads_start() -> bool:
    """Whether this platform can start a thread: Pyodide (emscripten) and
    WASI cannot. (Told by the platform's name: starting a thread to find
    out would cost every process half a millisecond.)"""
    return sys.platform not in ("emscripten", "wasi")


def choose_backend() -> str:
    """RUNVIL_CONTEXTS when it names a backend this platform has; else
    greenlet where it imports, threads where they start, inline otherwise."""
    wanted = os.environ.get("RUNVIL_CONTEXTS", "").strip().lower()
    if wanted == "inline":
        return "inline"
    if not CAN_THREAD:
        return "inline"
    if wanted == "threads" or _greenlet_mod is None:
        return "threads"
    return "greenlet"


CAN_THREAD = threads_start()
BACKEND = choose_backend()
#: no execution contexts: everything that suspends is a generator
INLINE = BACKEND == "inline"


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


_tl = threading.local()  # .ctx: threads: the context of this thread; .lua: a Lua thread

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


def _baton():
    """A binary semaphore that starts taken: `release` hands the baton over,
    `acquire` waits for it (a raw lock: any thread may release it)."""
    lock = threading.Lock()
    lock.acquire()
    return lock


def _t_current() -> Context:
    ctx = getattr(_tl, "ctx", None)
    if ctx is None:
        ctx = _tl.ctx = Context(name="main")
        ctx._impl = threading.current_thread()
        ctx._go = _baton()
    return ctx


def _t_main(ctx: Context) -> None:
    _tl.ctx = ctx
    _tl.lua = True
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


# ---------------------------------------------------------------- the Lua thread


def start_big_thread(target, name: str) -> threading.Thread:
    """Starts a daemon thread with the large stack Lua needs."""
    with _stack_lock:
        old = threading.stack_size(THREAD_STACK)
        try:
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
        finally:
            threading.stack_size(old)
    return t


_stack_lock = threading.Lock()


def on_lua_thread() -> bool:
    """Whether the calling thread may run Lua directly."""
    return getattr(_tl, "lua", False)


class _Job:
    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn):
        self.fn = fn
        self.done = _baton()
        self.result = None
        self.error: BaseException | None = None


_jobs: queue.SimpleQueue = queue.SimpleQueue()
_lua_thread: threading.Thread | None = None
_start_lock = threading.Lock()


def _serve() -> None:
    _tl.lua = True
    while True:
        job = _jobs.get()
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, LUA_RECURSION_LIMIT))
        try:
            job.result = job.fn()
        except BaseException as e:  # handed to the host thread that waits
            job.error = e
        finally:
            sys.setrecursionlimit(old)
            job.done.release()


@functools.cache
def inline_recursion_limit() -> int:
    """The Python frames Lua may nest on the calling thread (inline): what
    its C stack holds with a margin, as far as the platform tells (a
    generator resumed inside another takes C stack, some kilobytes a level
    at most); on WebAssembly, what Pyodide's stack in Node and in a browser's
    worker was seen to hold with Lua run as generator twins
    (`LuaState._call_here`)."""
    if sys.platform in ("emscripten", "wasi"):
        return WASM_RECURSION_LIMIT
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
    except (ImportError, OSError, ValueError):
        return sys.getrecursionlimit()
    if soft == resource.RLIM_INFINITY or soft <= 0:
        soft = 8 * 1024 * 1024
    return max(sys.getrecursionlimit(), min(LUA_RECURSION_LIMIT, soft // INLINE_FRAME_BYTES))


#: Python frames Lua may nest on WebAssembly (Pyodide): infinite recursion
#: through twins ends in `stack overflow` at 6,000 in Node; 4,000 leaves room
WASM_RECURSION_LIMIT = 4000
#: C stack a Python frame may take on the inline backend's calling thread
#: (the largest measured for a Lua call through generator twins, doubled)
INLINE_FRAME_BYTES = 2048


def _run_inline(fn):
    """run_lua on the inline backend: on the calling thread."""
    _tl.lua = True
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, inline_recursion_limit()))
    try:
        return fn()
    finally:
        sys.setrecursionlimit(old)
        _tl.lua = False


def run_lua(fn):
    """Runs `fn()` on the Lua thread and returns its result (or raises what
    it raised). On a Lua thread already, it simply calls it. Inline, the
    calling thread is the Lua thread."""
    if getattr(_tl, "lua", False):
        return fn()
    if INLINE and not CAN_THREAD:  # where threads start, they give Lua a large stack still
        return _run_inline(fn)
    global _lua_thread
    with _start_lock:
        if _lua_thread is None:
            _lua_thread = start_big_thread(_serve, "runvil Lua thread")
    job = _Job(fn)
    _jobs.put(job)
    job.done.acquire()
    if job.error is not None:
        err, job.error = job.error, None
        raise err
    return job.result
