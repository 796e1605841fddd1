"""Where Lua runs: which execution backend this platform allows, and a
stack deep enough for Lua's recursion (docs/DECISIONS.md, "Execution contexts").

Lua code, and the compiler's passes over a deeply nested chunk, recurse in
Python. With threads, all Lua runs on the Lua thread (or, with the threads
backend, on context threads it starts): a daemon thread with a large C
stack that runs the jobs handed to `run_lua` one at a time, from any host
thread. So deep Lua recursion ends in Lua's `stack overflow`, never in a
crash. Python's recursion limit is process-wide: it is raised only while a
job runs, so host code on small stacks (YAML, JSON, the prompt parser)
keeps the default limit and fails with a RecursionError, never a segfault.
Inline (no threads: Pyodide), Lua runs on the calling thread, under a
recursion limit that the platform's stack holds (`inline_recursion_limit`),
so deep recursion ends in Lua's `stack overflow` there too.

A module of its own, beneath every stage, because the compiler needs the
deep stack as much as the runtime does; switching between execution
contexts is the runtime's (runvil.lua.runtime.contexts).
"""

from __future__ import annotations

import functools
import os
import queue
import sys
import threading

from ..threads import start_helper_thread

try:
    import greenlet as GREENLET
except ImportError:  # optional: the threads backend stands in
    GREENLET = None

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
    if wanted == "threads" or GREENLET is None:
        return "threads"
    return "greenlet"


CAN_THREAD = threads_start()
BACKEND = choose_backend()
#: no execution contexts: everything that suspends is a generator
INLINE = BACKEND == "inline"

#: .lua: whether this thread runs Lua
_tl = threading.local()


def baton():
    """A binary semaphore that starts taken: `release` hands the baton over,
    `acquire` waits for it (a raw lock: any thread may release it)."""
    lock = threading.Lock()
    lock.acquire()
    return lock


def start_big_thread(target, name: str) -> threading.Thread:
    """Starts a daemon thread with the large stack Lua needs."""
    with _stack_lock:
        old = threading.stack_size(THREAD_STACK)
        try:
            return start_helper_thread(target, name)
        finally:
            threading.stack_size(old)


_stack_lock = threading.Lock()


def on_lua_thread() -> bool:
    """Whether the calling thread may run Lua directly."""
    return getattr(_tl, "lua", False)


def mark_lua_thread() -> None:
    """Marks the calling thread as one that runs Lua (a context's thread,
    runvil.lua.runtime.contexts)."""
    _tl.lua = True


class _Job:
    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn):
        self.fn = fn
        self.done = baton()
        self.result = None
        self.error: BaseException | None = None


_jobs: queue.SimpleQueue = queue.SimpleQueue()
_lua_thread: threading.Thread | None = None
_start_lock = threading.Lock()


def _serve() -> None:
    _tl.lua = True
    while True:
        job = _jobs.get()
        if job is None:  # stop_lua_thread
            return
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, LUA_RECURSION_LIMIT))
        try:
            job.result = job.fn()
        except BaseException as e:  # handed to the host thread that waits
            job.error = e
        finally:
            sys.setrecursionlimit(old)
            job.done.release()
        del job  # (kept until the next job, it would keep the last call's function and state alive)


def stop_lua_thread(timeout: float = 5.0) -> bool:
    """Ends the Lua thread, between two jobs (the next `run_lua` starts a
    new one): a host about to fork a worker process (a batch) forks a
    process with one thread. Whether it has ended."""
    global _lua_thread
    with _start_lock:
        thread, _lua_thread = _lua_thread, None
        if thread is None:
            return True
        _jobs.put(None)
    thread.join(timeout)
    return not thread.is_alive()


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


#: Python frames Lua may nest on WebAssembly (Pyodide). Its CPython (3.13)
#: nests no C call for a Python call or a generator's, so frames take no
#: WebAssembly stack; what does is freeing a traceback as long as the
#: recursion when its error is caught (C recurses once an entry: past about
#: 7,000 in Node, Pyodide dies; in Chromium 150's worker a runaway inside a
#: gsub callback died with a limit of 4,000, and 3,800 held) and ending a
#: coroutine suspended as deep (a state's close of one 8,000 frames deep
#: dies in Node, 6,000 holds). A stack overflow's own traceback is released
#: entry by entry (errors.release_traceback), a plain recursion stops at
#: most 500 frames past this (state.SMALL_STACK_STEPS): 2,500 leaves room
#: for browsers whose workers have smaller stacks still
WASM_RECURSION_LIMIT = 2500
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
