"""The run's execution contexts (ARCHITECTURE.md decision 2): every Lua
execution context of a run (the walk, a task, a fan-out arm) is a context
of runvil.lua.contexts (a greenlet, or a baton thread as the fallback), the
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
"""

from __future__ import annotations

import itertools
from collections import deque

from ..lua import contexts
from ..lua.cstack import C
from ..lua.values import set_string_meta, string_meta


def save_locals() -> tuple:
    """What belongs to the running context rather than the thread: its
    nested C calls, its state's string metatable, its running coroutine."""
    return C[0], string_meta(), contexts.RUNNING_CO[0]


def restore_locals(saved: tuple) -> None:
    C[0], meta, contexts.RUNNING_CO[0] = saved
    set_string_meta(meta)


class Cancelled(BaseException):
    """Unwinds a context whose run was cancelled or abandoned (not a Lua
    error: pcall does not catch it)."""


class Context:
    """One Lua execution context of the run."""

    def __init__(self, sched: "Scheduler", name: str, body):
        self.sched = sched
        self.name = name
        self.body = body
        self.lua = contexts.Context(self._main, f"runvil-{name}")
        self.stopped_at: contexts.Context | None = None  # where it waits: itself or a coroutine in it
        self.waiting: set[int] = set()
        self.answers: dict[int, object] = {}
        self.finished = False
        self.cancelled = False
        self.result = None
        self.error: BaseException | None = None
        self.on_finish: list = []  # callbacks run in this context as it ends

    def _main(self):
        try:
            if self.cancelled:  # cancelled before it ever ran
                raise Cancelled()
            self.result = self.body()
        except Cancelled:
            pass
        except BaseException as e:  # handed to whoever reads the outcome
            self.error = e
            self.sched.failed.append(self)
        finally:
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
        self._home = contexts.current()
        self.current = ctx
        saved = save_locals()
        try:
            if ctx.stopped_at is None:
                contexts.resume(ctx.lua)
            else:
                where, ctx.stopped_at = ctx.stopped_at, None
                contexts.transfer(where)
        finally:
            restore_locals(saved)
            self.current = None

    def await_effects(self, effects: list) -> list:
        """Called in a running context: posts effects, hands control back,
        and returns their answers in order once all have come."""
        ctx = self.current
        assert ctx is not None, "await_effects outside a running context"
        for e in effects:
            self.pending[e.id] = (ctx, e)
            ctx.waiting.add(e.id)
        self.block()
        return [ctx.answers.pop(e.id) for e in effects]

    def block(self) -> None:
        """Called in a running context: hands control back until the
        context is made runnable again (by `resume` or `wake`)."""
        ctx = self.current
        assert ctx is not None, "block outside a running context"
        ctx.stopped_at = contexts.current()
        saved = save_locals()
        contexts.transfer(self._home)
        restore_locals(saved)
        if ctx.cancelled:
            raise Cancelled()

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
        for eid in ctx.waiting:
            self.pending.pop(eid, None)
            self.dropped.add(eid)
        ctx.waiting.clear()
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
            if ctx.lua.started and not ctx.finished:
                ctx.cancelled = True
                for eid in list(ctx.waiting):
                    self.pending.pop(eid, None)
                ctx.waiting.clear()
                self._switch_to(ctx)
        self.runnable.clear()
