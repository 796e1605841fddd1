"""LuaState: one sandboxed Lua state — globals, libraries, limits — and the
host API to compile chunks, call Lua from Python and read results.

Limits (docs/DECISIONS.md, "Checks without a clock") are checked by the evaluator itself:
compiled code counts steps down in `_S[0]` at loop iterations and function
entries and calls `_tick()` when the count runs out; `_tick` accounts the
steps, the wall time, the CPU time and the memory, and raises a catchable
Lua error naming the limit that was passed. Where compiled code calls it is
a safe point, where the finalizers a collection found run (`_safe_point`).

No step reads a clock: `_tick` does, and it sets how many steps run before
the next one from how fast the last ones went, so that a check comes about
every CHECK_SECONDS of CPU however slow a step is (a builtin whose work
grows with its input also charges steps in proportion: stdlib/limits.py).
The CPU clock of a state stops while its context waits on the outside world
(`pause_cpu`, `resume_cpu`: runvil.engine.scheduler).

What the running Lua needs besides (its C-call count, its coroutine, its
string metatable and limits) is on the state's machine
(runvil.lua.runtime.machine): a call from the host runs under it.
"""

from __future__ import annotations

import itertools
import sys
import time

from ..structs import Struct
from .runtime import values as V
from .runtime import indexing as LI
from .compiler.chunkcache import compile_lua
from .runtime.contexts import SUSPEND, drive
from .stack import CAN_THREAD, INLINE, on_lua_thread, run_lua
from .runtime.calldepth import HOST_CCALLS
from .runtime.calls import ccall
from .runtime.machine import IDLE, RUNNING, Machine, switch
from .debuginfo import current_where
from .errors import LimitExceeded, LuaError, chunkid, stack_overflow_message
from .stdlib.limits import MemoryBudget
from .runtime.helpers import base_namespace, make_forprep, make_giter
from .runtime.tables import LuaTable
from .runtime.envslots import SLOTS, EnvSlot
from .runtime.collector import Collector

#: the most steps between two checks of the time and memory (when steps are fast)
CHECK_INTERVAL = 100_000
#: the fewest (when each step is slow)
MIN_CHECK_INTERVAL = 16
#: the CPU time aimed at between two checks
CHECK_SECONDS = 0.1
#: CPU seconds between two automatic collections, while a state has weak
#: tables or objects marked for finalization (a full collection of
#: Python's heap costs milliseconds)
COLLECT_SECONDS = 1.0
#: where Lua runs on the calling thread's small stack (inline, no threads:
#: Pyodide), the most steps between two calls of `_tick`. There Python's
#: recursion limit is what ends a runaway recursion in `stack overflow`, but
#: CPython 3.13 does not test it when it calls a function with defaults or
#: `*args`, as every compiled Lua function has (python/cpython#132744): plain
#: Lua recursion runs past it until a call that tests it, and the call of
#: `_tick` is one. A Lua call charges at least 2 steps a Python frame, so a
#: recursion stops at most 500 frames past the limit. The countdown is armed
#: in pieces of this size, and only the last one's end checks the limits
#: (`_next_piece`); where threads run Lua, its stack holds far more
SMALL_STACK_STEPS = 1000
#: whether the countdown is armed in pieces (SMALL_STACK_STEPS)
IN_PIECES = INLINE and not CAN_THREAD


class Limits(Struct):
    """Sandbox limits; None switches one off. (A Struct: `runvil lua` starts
    without importing attrs or dataclasses; copy with runvil.structs.replace.)"""

    # loop iterations and calls: a runaway prompt block stops in about a
    # second or two, far above what orchestration code needs
    steps: int | None = 20_000_000
    # bytes: the longest string (or other result) one operation may build,
    # and the limit of the memory budget of a state made without its run's
    memory: int | None = 1024 * 1024 * 1024
    depth: int = 200_000  # Python frames (a Lua call takes one to three)
    seconds: float | None = None  # wall time of one execution
    # CPU time of one execution (a block, a `runvil lua` chunk), waits on
    # the outside world not counted: ends a runaway whose steps are slow
    cpu_seconds: float | None = 10.0


class LuaState:
    """A Lua state with the sandboxed standard library."""

    def __init__(self, libs=None, limits: Limits | None = None, stdout=None, allow_load: bool = False,
                 memory_budget: MemoryBudget | None = None):
        """`memory_budget`: the run's (runvil.lua.stdlib.limits), shared by
        all the states a run makes; by default one of its own, whose limit
        is `limits.memory`."""
        from .stdlib import LIBRARIES, open_libs

        self.limits = limits or Limits()
        self.memory_budget = memory_budget if memory_budget is not None else MemoryBudget(self.limits.memory)
        self.G = LuaTable()
        self.string_meta = None
        self.stdout = stdout if stdout is not None else _default_stdout
        self.allow_load = allow_load
        self._steps = [CHECK_INTERVAL]
        self._armed = CHECK_INTERVAL
        self._unarmed = 0  # steps of the interval not in the countdown yet (IN_PIECES)
        self._interval = MIN_CHECK_INTERVAL  # steps between two checks, as fast as steps go
        self.steps_used = 0
        self.deadline: float | None = None
        self.cpu_spent = 0.0  # CPU seconds of this execution up to `_cpu_mark`
        self._cpu_mark = self._last_check = self._measured = time.process_time()
        self._unmeasured = 0  # steps since the resident size was read, at `_measured` (CPU time)
        self.count_hook = None  # debug.sethook's count hook: (every so many steps, the hook)
        self.machine = Machine()  # bound to this state by its libraries' install
        self.collector = Collector()  # weak tables and finalizers (runtime/collector.py)
        #: library objects that refer back to the state (through their
        #: builtins' closures): `release` has each let go of it
        self.parts: list = []
        self._collected = self._cpu_mark  # CPU time of the last automatic collection
        self.ns = self._namespace()
        self.G.set_str("_G", self.G)
        self.G.set_str("_VERSION", "Lua 5.4")
        open_libs(self, LIBRARIES if libs is None else libs)
        self._rearm()
        self._made()

    def _made(self) -> None:
        """A state made on the Lua thread is the one its Lua runs from now
        on (an Engine context makes its section's state, then runs it); the
        machine that runs while no call does has the string metatable of
        the state made last."""
        if self.machine.state is not self:  # (no limits library: nothing to account to)
            self.machine.bind(self)
        if on_lua_thread():
            RUNNING[0].bind(self)
        IDLE.string_meta = self.string_meta

    # ------------------------------------------------------------- limits

    def _namespace(self) -> dict:
        ns = base_namespace()
        G = self.G
        ns["_S"] = self._steps
        ns["_tick"] = tick = self._next_piece if IN_PIECES else self._safe_point
        ns["_Gh"] = G.hash
        ns["_Gt"] = G
        ns["_gget"] = lambda k: LI.index(G, k)
        ns["_gset"] = lambda k, v: G.set_str(k, v) if G.meta is None else LI.setindex(G, k, v)
        ns[SLOTS] = [EnvSlot(G, 0)]  # (the _ENV other than the globals a function was given: runtime/envslots.py)
        ns["_forprep"], ns["_refund"] = make_forprep(self._steps, tick)
        return ns

    def bind_iterators(self, next_fn, ipairs_aux, pairs_fn) -> None:
        """Called by the base library: lets the generic for walk tables
        natively when the iterator is `next` or ipairs' own, and with the
        sandbox pairs' fixed keys when it is pairs' `next`."""
        self.iterators = (next_fn, ipairs_aux)
        self.ns["_giter"] = make_giter(self._steps, self.ns["_tick"], next_fn, ipairs_aux, pairs_fn)

    def _rearm(self):
        lim = self.limits.steps
        n = self._interval if lim is None else max(0, min(self._interval, lim - self.steps_used))
        if self.count_hook is not None and n > self.count_hook[0]:
            n = self.count_hook[0]
        if IN_PIECES and n > SMALL_STACK_STEPS:
            self._unarmed = n - SMALL_STACK_STEPS
            n = SMALL_STACK_STEPS
        self._steps[0] = n
        self._armed = n

    def _next_piece(self):
        """`_tick` for compiled code where the countdown is armed in pieces
        (IN_PIECES): arms the next piece of the interval, and checks
        (`_safe_point`) only when none is left. Its call is a test of the
        recursion limit."""
        n = self._unarmed
        if n:
            if n > SMALL_STACK_STEPS:
                n = SMALL_STACK_STEPS
            self._unarmed -= n
            self._armed += n
            self._steps[0] += n
            if self._steps[0] >= 0:
                return
        self._safe_point()

    def _safe_point(self):
        """The step check as compiled code calls it (`_tick` in the
        namespace, there at loop iterations and function entries, and before
        a metamethod's call): `_tick`, then the finalizers a collection
        found, since Lua code runs here anyway. Each runs as Lua's GCTM
        calls it, a nested call that may not yield (runtime/collector.py),
        so nothing in it can suspend the caller, be it a generator twin that
        calls this as a plain helper. A builtin charging its work calls
        `_tick` alone: it may be inside Python code that no Lua may
        interrupt."""
        self._tick()
        if self.collector.pending:
            self.collector.finish()

    def _tick(self):
        """Runs when the step countdown passes zero: accounts and checks.
        It runs no Lua code: the finalizers an automatic collection finds
        wait for the next safe point (`_safe_point`)."""
        self._unarmed = 0  # (`_rearm` arms a new interval)
        done = self._armed - self._steps[0]
        self.steps_used += done
        lim = self.limits
        now = time.process_time()
        took, self._last_check = now - self._last_check, now
        # the next check in about CHECK_SECONDS of CPU at the pace of these steps
        # (and no more than four times the last: an execution starts checking
        # often, as its first steps may be slow ones)
        pace = CHECK_INTERVAL if took <= 0 else int(done * CHECK_SECONDS / took)
        self._interval = max(MIN_CHECK_INTERVAL, min(CHECK_INTERVAL, pace, self._interval * 4))
        if lim.steps is not None and self.steps_used >= lim.steps:
            self._steps[0] = 0
            self._armed = 0
            raise LimitExceeded(f"{current_where()}step limit exceeded ({lim.steps} steps)")
        if self.deadline is not None and time.monotonic() > self.deadline:
            self._steps[0] = 0
            self._armed = 0
            raise LimitExceeded(f"{current_where()}time limit exceeded ({lim.seconds:g} s)")
        if lim.cpu_seconds is not None and self.cpu_spent + now - self._cpu_mark > lim.cpu_seconds:
            self._steps[0] = 0
            self._armed = 0
            raise LimitExceeded(f"{current_where()}CPU time limit exceeded ({lim.cpu_seconds:g} s)")
        self._unmeasured += done
        budget = self.memory_budget
        if budget.limit is not None and (self._unmeasured >= CHECK_INTERVAL or now - self._measured >= CHECK_SECONDS):
            self._unmeasured = 0  # the resident size is read as often as before (each 100,000
            self._measured = now  # steps), or each CHECK_SECONDS when steps are slow
            if budget.over():  # the run's memory: all its states' together
                self._steps[0] = 0
                self._armed = 0
                raise budget.exceeded()
        collector = self.collector
        if collector and collector.due(now - self._collected, COLLECT_SECONDS):  # weak tables or finalizers to serve
            self._collected = now
            collector.sweep()
        self._rearm()

    def reset_limits(self) -> None:
        """Starts a new budget: every call from the host gets its own."""
        self.steps_used = 0
        s = self.limits.seconds
        self.deadline = time.monotonic() + s if s is not None else None
        self.cpu_spent = 0.0
        self._cpu_mark = self._last_check = time.process_time()
        self._interval = MIN_CHECK_INTERVAL
        self._rearm()

    def pause_cpu(self) -> None:
        """Its context waits: the CPU clock of this execution stops (the CPU
        other contexts and the host use meanwhile is not its own)."""
        self.cpu_spent += time.process_time() - self._cpu_mark

    def resume_cpu(self) -> None:
        """Its context runs again: the clock goes on."""
        self._cpu_mark = self._last_check = time.process_time()

    # ----------------------------------------------------------- compiling

    def load(self, source: str, chunkname: str = "=(load)", env=None, cache: bool = False, once: bool = True):
        """Compiles a chunk; returns its main function. `source` holds one
        char per byte; `chunkname` follows Lua ("=name", "@file", or text).
        Raises LuaSyntaxError. Compiling recurses as deep as the source
        nests, so it runs on the Lua thread's stack too. `cache`: use the
        disk cache of compiled chunks (the host's chunks, not Lua's `load`);
        `once`: compile_chunk's (False for Lua's `load` and `loadfile`)."""
        fast = env is None or env is self.G
        name = chunkid(chunkname, source)
        compiled = run_lua(lambda: compile_lua(source, name, fast_env=fast, cache=cache and once, once=once))
        return self.instantiate(compiled, env)

    def instantiate(self, compiled, env=None):
        """The main function of an already compiled chunk, in this state."""
        return compiled.instantiate(self.ns, self.G if env is None else env)

    def execute(self, source: str, chunkname: str = "=(load)", *args) -> tuple:
        """Compiles and runs a chunk; returns all its results."""
        fn = self.load(source, chunkname)
        return self.call(fn, *args)

    def call(self, f, *args) -> tuple:
        """Calls a Lua value on the Lua thread (runvil.lua.runtime.contexts: a large
        stack); returns its results as a tuple. Lua errors propagate as
        LuaError. Called from the host, the call gets a fresh budget; called
        from Lua (a builtin of the Engine), it is one more nested C call."""
        if on_lua_thread():
            return self._call_here(f, args)
        self.reset_limits()
        return run_lua(lambda: self._call_from_host(f, args))

    def call_g(self, f, *args):
        """`call` for a caller that is a generator (the Engine's, whose waits
        are generators: runvil.engine.scheduler), from Lua's thread. On the
        inline backend f runs as a generator twin (runvil.lua.runtime.generators), so a
        wait inside it (a SUSPEND) passes up through this one; a Lua yield
        that reaches here was made outside any coroutine. Elsewhere it is
        `call`, and never yields."""
        if not INLINE or getattr(self, "install_twins", False) is False:  # (no coroutine library: no twins)
            return self.call(f, *args)
        if self.install_twins is not None:
            self.install_twins()
        gen = self.twin_protected(f, args)  # one nested C call, as ccall; a twin's own protected call
        refusal = None
        try:
            while True:
                try:
                    made = gen.send(None) if refusal is None else gen.throw(refusal)
                except StopIteration as e:
                    return e.value
                if made is SUSPEND:
                    refusal = None
                    yield made
                else:
                    refusal = LuaError("attempt to yield from outside a coroutine")
        except RecursionError as e:
            raise LuaError(stack_overflow_message(e)) from None

    def _call_from_host(self, f, args):
        m = self.machine
        if m.state is not self:  # a state made on the Lua thread since has bound it (_made)
            m.bind(self)
        prev = switch(m)
        saved = m.depth
        m.depth = HOST_CCALLS
        try:
            return self._call_here(f, args)
        finally:
            m.depth = saved
            switch(prev)

    def _call_here(self, f, args):
        if INLINE and not CAN_THREAD:
            # on a stack as small as WebAssembly's, deep recursion in plain
            # compiled code crashes the interpreter, while generator twins end
            # in Python's RecursionError: run it as a twin (see call_g)
            return drive(self.call_g(f, *args))
        try:
            return V.expand(ccall(f, *args))
        except RecursionError as e:
            raise LuaError(stack_overflow_message(e)) from None

    def close(self) -> None:
        """Ends the state: suspended coroutines are unwound (their __close
        handlers run) so that none of their threads outlives it."""
        if getattr(self, "coroutines", None):
            from .stdlib.coroutine import close_all

            run_lua(lambda: close_all(self))
        if self.collector.marked or self.collector.pending:  # every finalizer left, as lua_close runs them
            run_lua(self.collector.close)
        from .stdlib.limits import uninstall

        uninstall(self)

    #: attributes through which the libraries' hooks refer back to the state
    _HOOKS = ("enable_twins", "install_twins", "twins", "has_twin", "twin_of", "twin_call", "twin_protected",
              "yield_watcher", "index_watcher", "iterators", "stdout", "guard", "meter")

    def release(self) -> None:
        """After `close`, for a host that runs none of the state's Lua again
        (the Engine's section VMs): empties its globals and namespace and
        drops its hooks. The state, its library closures and its compiled
        functions refer to one another, so without this they are freed
        only by the cyclic garbage collector, whose passes over the few
        hundred objects of every closed state cost a batch of short runs
        about a third of its time; released, they go at once."""
        self.ns.clear()
        for machine in (self.machine, IDLE, RUNNING[0]):
            if machine.state is self:
                machine.unbind()
        G = self.G
        G.hash.clear()
        G.arr.clear()
        G.meta = None
        G._tomb = 0
        G._iter = None
        for name in self._HOOKS:
            self.__dict__.pop(name, None)
        for part in self.parts:
            part.release()
        self.parts = []

    # ------------------------------------------------------------ globals

    def get_global(self, name: str):
        return self.G.get(name)

    def set_global(self, name: str, value) -> None:
        self.G.set(name, value)


def _default_stdout(text: str) -> None:
    sys.stdout.write(text)


_ids = itertools.count()
