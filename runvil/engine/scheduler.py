"""The run's execution contexts (docs/DECISIONS.md, "Execution contexts"): every Lua
execution context of a run (the walk, a task, a fan-out arm) is a context
of runvil.lua.runtime.contexts (a greenlet, or a baton thread as the fallback), the
same kind coroutines run on, and exactly one runs at a time.

A context that needs outside work posts its effects and waits; the
scheduler's `run_until_blocked` returns when no context can run, with the
effects they wait on. `resume` hands answers back and makes their contexts
runnable again. A context may also wait on other contexts (`block`, woken
by `wake`): `tasks.await` and `tasks.fanout` do. Scheduling is therefore
deterministic: contexts run in the order they became runnable.

A context may wait while a coroutine of its Lua runs (a coroutine that calls
`models.infer`): it is the coroutine's context that stops, and the one the
scheduler switches back to.

Every Engine function that may wait is a generator, and so is a context's
body: `block` is `yield from`'d down to the wait. With greenlets or threads
it switches contexts inside and never yields; on the inline backend
(runvil.lua.runtime.contexts), where there is no context to switch, it yields
SUSPEND, which every generator between it and `_switch_to` passes up (Lua
code in between runs as generator twins: `LuaState.call_g`), and the
scheduler keeps the parked generator until the context is runnable again.
A waiting builtin (`waiting_builtin`) runs its generator to the end when
plain Lua code calls it, or as a generator when a twin does.

Each context runs under a machine of its own (runvil.lua.runtime.machine:
its nested C calls, its running coroutine, its state's limits), made from
the scheduler's when it first runs: switching contexts switches machines
(`machine.switch`), and nothing else is saved or restored.
"""

from __future__ import annotations

import itertools
from collections import deque
from types import CellType, FunctionType

from ..lua.api import BUILTIN_CODES, C_BOUNDARY, INLINE, QUALNAMES, SUSPEND, LuaError, contexts, drive
from ..lua.api import running_machine as running
from ..lua.api import switch_machine as switch


def waiting_builtin(name: str | None, body):
    """A builtin that may wait (models.loop, tools.call, ...) from `body`, a
    generator function: a plain call runs it to its end (`drive`); a twin
    calls its own generator (`lua_twin`), through which a wait passes up.
    Either way one builtin level stands between the body and its Lua caller
    (error levels and positions), known in messages as `name` (a method,
    None: by the name it was called by)."""
    key = body.__code__
    known = _WAITING_CODES.get(id(key))  # (by identity: a code's hash is not cached, and costs microseconds)
    codes = known[1] if known is not None and known[0] is key else None
    if codes is None:  # codes of their own (a builtin is known by its code), once per body's code
        short = (name or body.__name__).rpartition(".")[2]
        codes = tuple(f.__code__.replace(co_name=short) for f in _waiting_templates())
        for code in codes:
            BUILTIN_CODES.add(code)
            if name is not None:
                QUALNAMES[code] = name
        _WAITING_CODES[id(key)] = (key, codes)
    cell = CellType(body)
    plain_code, twin_code = codes
    plain = FunctionType(plain_code, _GLOBALS, plain_code.co_name, None, (cell,))
    plain.lua_twin = FunctionType(twin_code, _GLOBALS, twin_code.co_name, None, (cell,))
    return plain


def plain_builtin(name: str, body):
    """A builtin that never waits from `body`, any callable (a library
    object's bound method): one builtin level stands between the body and
    its Lua caller, as for a waiting builtin, known in messages as `name`.
    The Lua runtime calls only plain functions directly, so a bound method
    cannot be the builtin itself."""
    key = body.__code__
    known = _PLAIN_CODES.get(id(key))  # (by identity: a code's hash is not cached)
    code = known[1] if known is not None and known[0] is key else None
    if code is None:
        code = _plain_template().__code__.replace(co_name=name.rpartition(".")[2])
        BUILTIN_CODES.add(code)
        QUALNAMES[code] = name
        _PLAIN_CODES[id(key)] = (key, code)
    return FunctionType(code, _GLOBALS, code.co_name, None, (CellType(body),))


def _plain_template():
    body = None

    def plain(*args):
        return body(*args)

    return plain


#: the globals of the builtins made from this module's templates
_GLOBALS = globals()
#: id(a plain body's code) -> (that code, the code of its builtin) (one per library method)
_PLAIN_CODES: dict = {}


def _waiting_templates():
    body = None

    def plain(*args):
        return drive(body(*args))

    def twin(*args):
        return (yield from body(*args))

    return plain, twin


#: id(a waiting body's code) -> (that code, the codes of its plain builtin and its twin)
#: (shared by every closure of that body: a model handle's methods, made
#: per handle, add no codes)
_WAITING_CODES: dict = {}


class Cancelled(BaseException):
    """Unwinds a context whose run was cancelled or abandoned (not a Lua
    error: pcall does not catch it)."""


class Context:
    """One Lua execution context of the run."""

    def __init__(self, sched: "Scheduler", name: str, body):
        self.sched = sched
        self.name = name
        self.body = body
        # greenlets, threads: the context its body runs on; inline: its generator
        self.lua = None if INLINE else contexts.Context(self._main, f"runvil-{name}")
        self.gen = None
        self.machine = None  # what its Lua runs under (runvil.lua.runtime.machine), from its first run
        self.stopped_at: contexts.Context | None = None  # where it waits: itself or a coroutine in it
        self.waiting: set[int] = set()
        self.answers: dict[int, object] = {}
        self.finished = False
        self.cancelled = False
        self.result = None
        self.error: BaseException | None = None
        self.on_finish: list = []  # callbacks run in this context as it ends

    @property
    def started(self) -> bool:
        return self.gen is not None if INLINE else self.lua.started

    def _main(self):
        """The body on a context of its own (greenlets, threads)."""
        try:
            if self.cancelled:  # cancelled before it ever ran
                raise Cancelled()
            self.result = drive(self.body())
        except BaseException as e:
            self._ended(e)
        else:
            self._ended(None)

    def _step(self) -> None:
        """Runs the body's generator until it waits or ends (inline)."""
        try:
            if self.gen is None:
                if self.cancelled:  # cancelled before it ever ran
                    raise Cancelled()
                self.gen = self.body()
            self.gen.send(None)  # SUSPEND: it waits (block)
        except StopIteration as e:
            self.result = e.value
            self._ended(None)
        except BaseException as e:
            self._ended(e)

    def _ended(self, e: BaseException | None) -> None:
        if e is not None and not isinstance(e, Cancelled):  # handed to whoever reads the outcome
            self.error = e
            self.sched.failed.append(self)
        self.finished = True
        for callback in self.on_finish:
            callback(self)


class Scheduler:
    def __init__(self):
        self.runnable: deque[Context] = deque()
        self.contexts: list[Context] = []
        self.failed: list[Context] = []  # contexts that ended with an exception
        self.pending: dict[int, tuple[Context, object]] = {}
        self._ids = itertools.count(1)
        self.current: Context | None = None
        self.dropped: set[int] = set()  # effects of cancelled contexts
        self._home: contexts.Context | None = None  # where the scheduler loop runs

    def new_id(self) -> int:
        return next(self._ids)

    def spawn(self, name: str, body) -> Context:
        """A new context, runnable at the next step."""
        ctx = Context(self, name, body)
        self.contexts.append(ctx)
        self.runnable.append(ctx)
        return ctx

    def run_until_blocked(self) -> list:
        """Runs contexts until none can run; returns the pending effects in
        the order they were posted."""
        contexts.run_lua(self._run_runnable)
        return [eff for _ctx, eff in self.pending.values()]

    def _run_runnable(self) -> None:
        while self.runnable:
            self._switch_to(self.runnable.popleft())

    def _switch_to(self, ctx: Context) -> None:
        """Runs one context until it waits or ends (on the Lua thread)."""
        self.current = ctx
        home = running()
        if ctx.machine is None:  # its first run: it starts where the scheduler is
            ctx.machine = home.fork()
        switch(ctx.machine)
        try:
            if INLINE:
                ctx._step()
            elif ctx.stopped_at is None:
                self._home = contexts.current()
                contexts.resume(ctx.lua)
            else:
                self._home = contexts.current()
                where, ctx.stopped_at = ctx.stopped_at, None
                contexts.transfer(where)
        finally:
            switch(home)
            self.current = None

    def await_effects(self, effects: list):
        """Called in a running context (a generator: `yield from` it):
        posts effects, hands control back, and returns their answers in
        order once all have come."""
        ctx = self.current
        if ctx is None:  # Lua the Engine called outside any context of the run: it cannot wait
            raise LuaError(C_BOUNDARY)
        for e in effects:
            self.pending[e.id] = (ctx, e)
            ctx.waiting.add(e.id)
        yield from self.block()
        return [ctx.answers.pop(e.id) for e in effects]

    def block(self):
        """Called in a running context (a generator: `yield from` it):
        hands control back until the context is made runnable again (by
        `resume` or `wake`)."""
        ctx = self.current
        if ctx is None:
            raise LuaError(C_BOUNDARY)
        state = running().state  # its CPU clock stops while it waits (runvil.lua.state)
        if state is not None:
            state.pause_cpu()
        try:
            if INLINE:
                try:
                    yield SUSPEND
                except BaseException:  # refused where it was (drive): it waits on nothing now
                    self._withdraw(ctx)
                    raise
            else:
                ctx.stopped_at = contexts.current()
                mine = running()  # (a state made in it since has bound it: runvil.lua.state)
                contexts.transfer(self._home)
                switch(mine)
        finally:
            if state is not None:
                state.resume_cpu()
        if ctx.cancelled:
            raise Cancelled()

    def _withdraw(self, ctx: Context) -> None:
        for eid in ctx.waiting:
            self.pending.pop(eid, None)
            self.dropped.add(eid)
        ctx.waiting.clear()
    def wake(self, ctx: Context) -> None:
        """Makes a context that blocked on other contexts runnable."""
        if not ctx.finished and not ctx.waiting and ctx not in self.runnable and ctx is not self.current:
            self.runnable.append(ctx)

    def cancel(self, ctx: Context) -> None:
        """Cancels one context: its pending effects are dropped (answers to
        them are ignored) and it unwinds the next time it is scheduled."""
        if ctx.finished or ctx.cancelled:
            return
        ctx.cancelled = True
        self._withdraw(ctx)
        if ctx not in self.runnable and ctx is not self.current:
            self.runnable.append(ctx)

    def resume(self, answers: dict) -> None:
        """Delivers answers by effect id. An answer to an effect of a
        cancelled context is dropped; any other unknown id is a caller's bug."""
        answers = {eid: a for eid, a in answers.items() if eid not in self.dropped}
        for eid in answers:
            if eid not in self.pending:
                raise KeyError(f"no pending effect with id {eid}")
        for eid, answer in answers.items():
            ctx, _eff = self.pending.pop(eid)
            ctx.answers[eid] = answer
            ctx.waiting.discard(eid)
            if not ctx.waiting:
                self.runnable.append(ctx)

    def cancel_all(self) -> None:
        """Unwinds every context still alive, so none outlives the run."""
        contexts.run_lua(self._cancel_all)

    def _cancel_all(self) -> None:
        for ctx in self.contexts:
            if ctx.started and not ctx.finished:
                ctx.cancelled = True
                for eid in list(ctx.waiting):
                    self.pending.pop(eid, None)
                ctx.waiting.clear()
                self._switch_to(ctx)
        self.runnable.clear()

    def release(self) -> None:
        """After the run's end (`cancel_all`), when no context runs again:
        each lets go of its body and callbacks (closures over the run), so
        the run, its scheduler and its contexts form no cycle and are freed
        by reference counting rather than by the cyclic garbage collector."""
        for ctx in self.contexts:
            ctx.body = None
            ctx.on_finish = []
            ctx.machine = None  # (bound to the state of a VM of the run)
            if ctx.lua is not None:
                ctx.lua.body = None
        self.contexts = []
