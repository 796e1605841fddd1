"""Baton threads (ARCHITECTURE.md decision 2): every Lua execution context
of a run (the walk, a task, a fan-out arm) runs on its own thread, and
exactly one holds the baton at a time.

A context that needs outside work posts its effects and waits; the
scheduler's `run_until_blocked` returns when no context can run, with the
effects they wait on. `resume` hands answers back and makes their contexts
runnable again. A context may also wait on other contexts (`block`, woken
by `wake`): `tasks.await` and `tasks.fanout` do. Scheduling is therefore
deterministic: contexts run in the order they became runnable.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque

from ..lua.state import ensure_recursion_limit, start_lua_thread
from ..lua.stdlib.coroutine import baton


class Cancelled(BaseException):
    """Unwinds a context whose run was cancelled or abandoned (not a Lua
    error: pcall does not catch it)."""


class Context:
    """One Lua execution context on its own baton thread."""

    def __init__(self, sched: "Scheduler", name: str, body):
        self.sched = sched
        self.name = name
        self.body = body
        self.thread: threading.Thread | None = None
        self._go = baton()
        self.waiting: set[int] = set()
        self.answers: dict[int, object] = {}
        self.finished = False
        self.cancelled = False
        self.result = None
        self.error: BaseException | None = None
        self.on_finish: list = []  # callbacks run on this thread as it ends

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
            self.sched._idle.release()


class Scheduler:
    def __init__(self):
        self._idle = baton()
        self.runnable: deque[Context] = deque()
        self.contexts: list[Context] = []
        self.failed: list[Context] = []  # contexts that ended with an exception
        self.pending: dict[int, tuple[Context, object]] = {}
        self._ids = itertools.count(1)
        self.current: Context | None = None
        self.dropped: set[int] = set()  # effects of cancelled contexts

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
        ensure_recursion_limit()
        while self.runnable:
            ctx = self.runnable.popleft()
            self.current = ctx
            if ctx.thread is None:
                ctx.thread = start_lua_thread(ctx._main, name=f"runvil-{ctx.name}")
            else:
                ctx._go.release()
            self._idle.acquire()
            self.current = None
        return [eff for _ctx, eff in self.pending.values()]

    def await_effects(self, effects: list) -> list:
        """Called on a context's thread: posts effects, hands the baton back,
        and returns their answers in order once all have come."""
        ctx = self.current
        assert ctx is not None, "await_effects outside a running context"
        for e in effects:
            self.pending[e.id] = (ctx, e)
            ctx.waiting.add(e.id)
        self.block()
        return [ctx.answers.pop(e.id) for e in effects]

    def block(self) -> None:
        """Called on a context's thread: hands the baton back until the
        context is made runnable again (by `resume` or `wake`)."""
        ctx = self.current
        assert ctx is not None, "block outside a running context"
        self._idle.release()
        ctx._go.acquire()
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
        """Unwinds every context still alive, so no thread outlives the run."""
        for ctx in self.contexts:
            if ctx.thread is not None and not ctx.finished:
                ctx.cancelled = True
                for eid in list(ctx.waiting):
                    self.pending.pop(eid, None)
                ctx.waiting.clear()
                self.current = ctx
                ctx._go.release()
                self._idle.acquire()
                self.current = None
        self.runnable.clear()
