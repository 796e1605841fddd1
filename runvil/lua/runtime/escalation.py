"""Escalated calls: a call that a coroutine's generator twin cannot run on
its own stack (a builtin that calls back, a metamethod that is not a final
step, a function without a twin) runs on an execution context of the
coroutine's own, its *worker* (runvil.lua.runtime.contexts), where a yield
suspends the context; the twin that escalated the call passes that yield
on with its own `yield` (runtime/generators.py).
"""

from __future__ import annotations

import sys

from . import values as V
from .contexts import INLINE, Context
from .contexts import resume as run_context
from .contexts import suspend as leave_context
from .machine import RUNNING
from ..debuginfo import add_stack_hop
from ..errors import CoroutineKill
from .values import TAILCALL, Multi

try:  # what a dropped greenlet is unwound with: a worker lets it through
    from greenlet import GreenletExit as _EXIT
except ImportError:
    _EXIT = None


class Worker:
    """The execution context a coroutine's twin escalates calls to, kept
    for the next one (a new greenlet or thread for each would cost 10 to
    100 times more). Its frames continue, for positions and levels, at the
    twin that escalated the running call."""

    __slots__ = ("ctx", "fn", "args", "result", "error", "busy", "from_frame")

    def __init__(self):
        self.ctx = Context(self.serve, "lua-escalation")
        self.fn = self.args = self.result = self.error = self.from_frame = None
        self.busy = False

    def serve(self):
        """The context's body: runs one call each time it is resumed, and
        suspends when it ends (or when the coroutine yields inside it)."""
        while True:
            try:
                r = self.fn(*self.args)
                if type(r) is Multi and r and r[0] is TAILCALL:  # run here: it may yield
                    r = Multi(V.expand(r))
                self.result = r
            except BaseException as e:  # raised again in the twin; a dropped context just ends
                if _EXIT is not None and isinstance(e, _EXIT):
                    raise
                self.error = e
            self.busy = False
            self.fn = self.args = None
            leave_context()


add_stack_hop(Worker.serve.__code__, lambda frame: frame.f_locals["self"].from_frame)


def held(co, n: int):
    """A nested C call that a twin of `co` (None: the main coroutine) enters
    (n = 1) or leaves (n = -1), counted in co's depth as it happens: a yield
    may come from inside it, and walk_wrapped does not count the calls a
    twin holds when it yields (Coroutine.depth)."""
    if co is not None:
        co.depth += n
    return co


def escalate(fn, args: tuple):
    """Runs fn(*args) on the coroutine's worker context; a yield of the
    coroutine inside it is passed on as this generator's yield. Inline
    there is no context: fn runs here, where no yield can reach the twin
    (one inside fails as a yield across a C call does)."""
    co = RUNNING[0].co
    if INLINE:
        return (yield from _direct(fn, args, co))
    w = co.worker
    if w is None or w.busy:  # busy: its call was left suspended by a twin that is gone
        w = co.worker = Worker()
    w.fn, w.args, w.from_frame, w.busy = fn, args, sys._getframe(1), True
    co.escalations.append(w.ctx)
    depth = co.depth
    base = RUNNING[0].depth - depth  # where the coroutine was resumed (what its depth counts from)
    try:
        while True:
            run_context(w.ctx)
            if not w.busy:
                err, r = w.error, w.result
                w.error = w.result = w.from_frame = None
                if err is not None:
                    raise err
                return r
            # a yield inside: its depth is the calls it holds, those of the
            # escalated call too (Coroutine.yield_ counts them from a base
            # that walk_wrapped does not set)
            co.depth = RUNNING[0].depth - base
            _kind, values = co._transfer  # set by the yield inside (Coroutine.yield_)
            try:
                co._transfer = yield values
            except CoroutineKill:  # coroutine.close: the call unwinds (co._kill is set)
                continue
            finally:
                base = RUNNING[0].depth - co.depth  # resumed: from where, this time
    finally:
        co.escalations.pop()
        co.depth = depth


def _direct(fn, args: tuple, co):
    """escalate's call on the inline backend."""
    if co is not None:
        co.nny += 1
    try:
        r = fn(*args)
        if type(r) is Multi and r and r[0] is TAILCALL:  # run here, as a worker runs it
            r = Multi(V.expand(r))
        return r
    finally:
        if co is not None:
            co.nny -= 1
    yield  # (a generator, as escalate's callers take it)
