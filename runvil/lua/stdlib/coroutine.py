"""Coroutines on execution contexts (runvil.lua.runtime.contexts: greenlets, or
baton threads as the fallback).

Each coroutine runs its function on a context of its own, and exactly one
context runs at a time: `resume` switches to the coroutine and returns when
it yields, returns or fails; `yield` switches back. So the evaluator stays
plain synchronous Python, and a yield may happen at any depth of Lua and
Python calls.

A resume is one of Lua's nested C calls (runvil.lua.runtime.calldepth): the coroutine
runs one above its resumer, plus the calls its own suspended frames hold,
so unbounded nesting of coroutines ends in `C stack overflow` at once. It
runs under its resumer's machine (runvil.lua.runtime.machine): a resume sets
the machine's `depth` and `co`, and puts them back when it returns.

`coroutine.close` (or the state closing) resumes a suspended coroutine with
a `CoroutineKill`, which unwinds its stack and runs its pending `__close`
handlers, where a yield is an error (as in lua_closethread); so no
coroutine's context outlives its state.
"""

from __future__ import annotations

import os

from ..runtime import values as V
from ..runtime import calls as LC
from ..runtime.args import type_error
from ..runtime.contexts import C_BOUNDARY, INLINE, SUSPEND, Context
from ..runtime.contexts import current as current_context
from ..runtime.contexts import resume as run_context
from ..runtime.contexts import suspend as leave_context
from ..runtime.calldepth import LUAI_MAXCCALLS, check
from ..runtime.machine import RUNNING
from ..debuginfo import add_stack_hop, builtin, caller_where, current_where
from ..errors import CoroutineKill, LuaError
from ..runtime.helpers import close_unwound, take_unwound, walk_calls
from ..errors import stack_overflow_message
from ..runtime.tables import LuaTable
from ..runtime.values import TAILCALL, Multi
from . import lib_table


class Coroutine:
    """A Lua thread value."""

    __slots__ = ("fn", "status", "state", "ctx", "_transfer", "_kill", "error", "errored", "nny", "base",
                 "depth", "twin", "gen", "escalations", "worker", "unwinding", "__weakref__")

    def __init__(self, fn, state):
        self.fn = fn
        self.state = state
        self.status = "suspended"
        # (a main coroutine, fn None, never runs: no body, so no cycle through it)
        self.ctx = Context(self._body if fn is not None else None, "lua-coroutine")
        self._transfer = None
        self._kill = False
        self.error = None  # the error value a dead coroutine died with
        self.errored = False
        self.nny = 0  # builtin callbacks running in it (C calls in C Lua): no yield while > 0
        # the closing values an error left: its pcall's, or, when the error
        # ends it, coroutine.close's or its wrap function's to close
        self.unwinding = None
        self.base = 0  # the C-call count of its resumer
        # the C calls a resume of it adds: its own, and the nested ones its
        # suspended frames hold (set again whenever it suspends)
        self.depth = 1
        # runs as its function's generator twin (runvil.lua.runtime.generators) when it has one
        has_twin = getattr(state, "has_twin", None)
        if has_twin is None and fn is not None and getattr(state, "install_twins", None) is not None:
            state.install_twins()  # the state's first coroutine
            has_twin = state.has_twin
        # (inline, every coroutine does: twins.gcall runs any function, and
        # one that no twin can hold runs directly, where it may not yield)
        self.twin = fn is not None and has_twin is not None and (INLINE or has_twin(fn))
        self.gen = None  # the running twin's generator
        self.escalations: list = []  # contexts of calls its twin escalated, innermost last
        self.worker = None  # the context its twin escalates calls to (twins.Worker)

    @property
    def started(self) -> bool:
        return self.gen is not None if self.twin else self.ctx.started

    def status_now(self) -> str:
        """Its status: a twin that a generic for resumes (walk_wrapped)
        keeps "suspended" written while it runs, and runs while its
        generator does (so is "running", or "normal" to the status builtin)."""
        st = self.status
        if st == "suspended" and self.gen is not None and self.gen.gi_running:
            return "running"
        return st

    # -------------------------------------------------------- resumer side

    def resume(self, args: tuple, passing: bool = False):
        """Runs the coroutine until it yields, returns or fails: returns
        ('yield'|'return', values) or ('error', value). Inline, an Engine
        context may wait inside it (its twin yields SUSPEND): with
        `passing` (a twin's resume) that gives ('wait', None) and `proceed`
        goes on once the wait is over; else the wait is refused there."""
        m = RUNNING[0]
        mine = m.depth
        if mine + 1 >= LUAI_MAXCCALLS:
            if mine >= LUAI_MAXCCALLS:  # lua_resume's own check: nothing happens
                return "error", "C stack overflow"
            if not self.started:  # the call of its body fails: it dies
                try:
                    check(mine + 1, False)
                except LuaError as e:
                    self.status = "dead"
                    self.error, self.errored = e.value, True
                    return "error", e.value
        prev = m.co
        self.status = "running"  # its resumer's is "normal" now (coroutine.status tells them apart)
        self.base = mine
        m.depth = mine + self.depth
        m.co = self
        try:
            if self.twin:  # on this stack: the common case, a yield, in this frame
                gen = self.gen
                if gen is None or self._kill:
                    kind, values = self._step_twin(args)
                else:
                    values = gen.send(args)
                    if values is SUSPEND:
                        return self._waits(mine, prev, passing)
                    self.depth = m.depth - mine  # with the nested C calls its twins hold (a pcall)
                    m.depth = mine
                    m.co = prev
                    self.status = "suspended"
                    return "yield", values
                if values is SUSPEND:
                    return self._waits(mine, prev, passing)
                self.depth = m.depth - mine
            else:
                self._transfer = args
                run_context(self.ctx)
                kind, values = self._transfer
                self._transfer = None
        except BaseException as e:
            return self.raised(e, mine, prev)
        m.depth = mine
        m.co = prev
        return self._settled(kind, values)

    def _waits(self, mine: int, prev, passing: bool):
        """The twin yielded SUSPEND (inline): an Engine context waits inside
        the coroutine. Passed on, the coroutine stays running and its
        resumer's count and coroutine are put back until `proceed`; refused,
        the wait fails where it is, as a yield across a C call does."""
        if passing:
            self._back(mine, prev)
            return "wait", None
        try:
            values = SUSPEND
            while values is SUSPEND:
                values = self.gen.throw(LuaError(C_BOUNDARY))
        except BaseException as e:
            return self.raised(e, mine, prev)
        self._back(mine, prev)
        return self._settled("yield", values)

    def proceed(self):
        """Goes on after a wait passed on by `resume`: as resume does, with
        nothing sent in (the Engine's answers are the scheduler's)."""
        m = RUNNING[0]
        mine = m.depth
        prev = m.co
        m.depth = mine + self.depth
        m.co = self
        try:
            values = self.gen.send(None)
        except BaseException as e:
            return self.raised(e, mine, prev)
        if values is SUSPEND:
            return self._waits(mine, prev, True)
        self._back(mine, prev)
        return self._settled("yield", values)

    def _back(self, mine: int, prev) -> None:
        """Its resumer's count and coroutine put back, as a yield leaves them
        (keeping the calls its suspended frames hold)."""
        m = RUNNING[0]
        self.depth = m.depth - mine
        m.depth = mine
        m.co = prev

    def _settled(self, kind: str, values):
        """The end of a resume: the coroutine is suspended or dead."""
        if kind == "yield":
            self.status = "suspended"
            return kind, values
        self.status = "dead"
        self.state.coroutines.discard(self)
        if kind == "error":
            self.error = values
            self.errored = True
        return kind, values

    def raised(self, e: BaseException, mine: int, prev):
        """The rest of a resume (or of walk_wrapped's inline one) whose run
        raised e: a twin's return or end (StopIteration, ENDINGS); the
        refusal of walk_wrapped's send to a twin that runs already (its
        status stays "suspended" written there: status_now); anything else
        (a host cancelling, no thread for a context) goes on."""
        if type(e) is ValueError and self.gen is not None and self.gen.gi_running:  # nothing ran
            m = RUNNING[0]
            m.depth = mine
            m.co = prev
            return "error", not_suspended(self)
        try:
            if self.twin and type(e) is StopIteration:
                kind, values = self._twin_returned(e.value)
            elif self.twin and isinstance(e, ENDINGS):
                kind, values = ended_by(e)
            else:
                raise e
        except BaseException:
            self.status = "dead" if self.started else "suspended"
            if self.status == "dead":
                self.state.coroutines.discard(self)
            raise
        finally:
            m = RUNNING[0]
            m.depth = mine
            m.co = prev
        return self._settled(kind, values)

    def kill(self):
        """Closes a suspended coroutine: unwinds it, running __close (where
        it may not yield)."""
        if self.status_now() != "suspended":
            return
        if not self.started:
            self.status = "dead"
            return
        self._kill = True
        self.nny += 1
        self.resume(())
        if self.status == "suspended":  # refused at the C-stack limit: still suspended
            self._kill = False
            self.nny -= 1
        elif self.errored:  # a __close failed: the others got its error, to close now
            self.error = close_left(self, self.error)

    # ------------------------------------------------------ coroutine side

    def _step_twin(self, args: tuple):
        """A twin's first resume, or its resume by coroutine.close."""
        if self.gen is None:
            self.state.coroutines.add(self)
            twin = self.state.twin_of(self.fn)
            self.gen = twin(*args) if twin is not None else self.state.twin_call(self.fn, args)
            return "yield", self.gen.send(None)
        gen = self.gen
        gen.throw(CoroutineKill())  # returns only if a __close handler yields while it unwinds:
        while True:  # refused where it yields, as lua_closethread runs them (until the body ends)
            gen.throw(LuaError(C_BOUNDARY))

    def _twin_returned(self, r):
        """The twin's function returned `r`: a pending tail call goes on as
        the coroutine's generator (a proper tail call), anything else ends it."""
        while type(r) is Multi and r and r[0] is TAILCALL:
            self.gen = self.state.twin_call(r[1], r[2])
            try:
                return "yield", self.gen.send(None)
            except StopIteration as e:
                r = e.value
            except ENDINGS as e:
                return ended_by(e)
        return "return", V.expand(r)

    def _body(self):
        self.state.coroutines.add(self)  # started: closed with its state unless it ends
        try:
            result = ("return", LC.calln(self.fn, *self._transfer))
        except ENDINGS as e:
            result = ended_by(e)
        self._transfer = result

    def yield_(self, values: tuple) -> tuple:
        if self.twin and (not self.escalations or current_context() is not self.escalations[-1]):
            # Lua code ran on a twin's stack outside any escalated call: a
            # builtin the twins take for one that runs none (twins._SAFE_BUILTINS)
            raise LuaError("attempt to yield across a C-call boundary")
        self._transfer = ("yield", values)
        self.depth = RUNNING[0].depth - self.base
        leave_context()
        if self._kill:
            raise CoroutineKill()
        args = self._transfer
        self._transfer = None
        return args


def resume_wrapped(co: Coroutine, args: tuple, where) -> tuple:
    """A coroutine.wrap function's resume of co: its values, or its errors
    raised again, positioned by `where()` (a string error only)."""
    if co.status != "suspended" or (gen := co.gen) is not None and gen.gi_running:  # (status_now, inline)
        raise LuaError(where() + not_suspended(co))
    return wrapped_outcome(*co.resume(args), where, co)


def not_suspended(co: Coroutine) -> str:
    """The message of a resume of a coroutine that is not suspended."""
    return "cannot resume dead coroutine" if co.status == "dead" else "cannot resume non-suspended coroutine"


def resume_passing(co: Coroutine, args: tuple):
    """A resume of co from a twin (inline): an Engine context's wait inside
    it passes up through this generator. Gives what `Coroutine.resume` does."""
    kind, values = co.resume(args, True)
    while kind == "wait":
        yield SUSPEND
        kind, values = co.proceed()
    return kind, values


def close_left(co: Coroutine, value):
    """The error value of dead coroutine co once the closing values its
    error left are closed, as lua_closethread closes them: from its
    resumer, where they may not yield. An error in one replaces it."""
    if co.unwinding is None:
        return value
    caller = RUNNING[0].co
    if caller is not None:
        caller.nny += 1
    try:
        return close_unwound(take_unwound(co), value)
    finally:
        if caller is not None:
            caller.nny -= 1


def wrapped_outcome(kind: str, values, where, co: Coroutine) -> tuple:
    if kind == "error":
        values = close_left(co, values)  # before the error goes on, as auxwrap closes the coroutine
        raise LuaError(where() + values if type(values) is str else values)
    return values


def walk_wrapped(co: Coroutine, s, c, steps: list, tick):
    """A generic for of one variable over a coroutine.wrap function
    (runtime.make_giter), natively: each item is the first value the
    coroutine yields next, resumed with (s, c) as the for calls its
    iterator, with the function's errors at the loop's line; a step an
    item, charged 64 at a time (as runtime._charged charges an iterator
    function's). A for of more variables calls the function (walk_calls)."""
    k = 64  # 64 - the items not charged yet (as _charged counts them)
    running, top = RUNNING, LUAI_MAXCCALLS - 1
    prev = running[0].co  # the loop's own coroutine (a frame runs in one only)
    while True:
        gen = co.gen
        m = running[0]  # (read again each item: a wait in the loop's body may switch contexts)
        mine = m.depth
        if gen is not None and co.status == "suspended" and mine < top:
            # Coroutine.resume inline for its common case, a started twin
            # (about a fifth of an item's time: two calls and a tuple less;
            # its base is only read by a context's yield, Coroutine.yield_,
            # which escalate corrects; a suspended coroutine's _kill is only
            # set within its kill). Its status stays "suspended" written: it
            # runs while its generator does (Coroutine.status_now), and a
            # generator that runs already refuses the send with a
            # ValueError, nothing run
            m.depth = mine + co.depth
            m.co = co
            try:
                values = gen.send((s, c))
            except BaseException as e:
                values = wrapped_outcome(*co.raised(e, mine, prev), current_where, co)
            else:  # (its depth: what its twins hold, counted as they enter them, generators.held)
                m.depth = mine
                m.co = prev
        else:
            values = resume_wrapped(co, (s, c), current_where)
        try:
            c = values[0]
        except IndexError:  # no values: the for ends, as at a nil
            break
        except TypeError:  # SUSPEND (inline): a wait inside, where it cannot pass up (told apart here,
            m.depth = mine + co.depth  # not at each item); refused there, the coroutine running again
            m.co = co
            values = wrapped_outcome(*co._waits(mine, prev, False), current_where, co)
            c = values[0] if values else None
        if c is None:
            break
        k -= 1
        if not k:
            steps[0] -= 64
            k = 64
            if steps[0] < 0:
                tick()
        yield c
    steps[0] -= 64 - k


#: what ends a coroutine's body, other than its return
ENDINGS = (CoroutineKill, LuaError, RecursionError, MemoryError)


def ended_by(e: BaseException) -> tuple:
    """How one of ENDINGS ends a coroutine: ('return', ()) when it was
    closed, else ('error', its error value)."""
    if isinstance(e, CoroutineKill):
        return "return", ()
    if isinstance(e, LuaError):
        return "error", e.value
    if isinstance(e, RecursionError):
        return "error", stack_overflow_message(e)
    return "error", "not enough memory"


V.register_type(Coroutine, "thread")
# a twin's Lua stack begins where its coroutine is resumed (debuginfo.up stops there)
for _bottom in (Coroutine.resume, Coroutine._step_twin, Coroutine._twin_returned):
    add_stack_hop(_bottom.__code__, lambda frame: None)


def running_co():
    """The running coroutine (None: the main one)."""
    return RUNNING[0].co


def check_co(args, n, fname) -> Coroutine:
    co = args[n - 1] if len(args) >= n else None
    if type(co) is not Coroutine:
        type_error(args, n, fname, "thread")
    return co


def is_main(co: Coroutine) -> bool:
    """Whether co is a state's main coroutine (the only one without a
    function: coroutine.create takes one)."""
    return co.fn is None


# The builtins below need nothing of their state: one function for every
# state, known once to the twins and in messages (lib_table).


def resume(*args):
    co = args[0] if args else None
    if type(co) is not Coroutine:
        check_co(args, 1, "resume")
    if co.status != "suspended" or (gen := co.gen) is not None and gen.gi_running or co.fn is None:
        return Multi((False, not_suspended(co)))  # (status_now, inline; is_main)
    kind, values = co.resume(args[1:])
    if kind == "error":
        return Multi((False, values))
    return (True, *values)  # several results: a tuple (values.Multi is tuple)


def resume_twin(*args):
    """coroutine.resume as a twin calls it (inline): a wait inside passes up."""
    co = args[0] if args else None
    if type(co) is not Coroutine or co.status_now() != "suspended" or is_main(co):
        return resume(*args)  # the refusals, as resume gives them
    kind, values = yield from resume_passing(co, args[1:])
    if kind == "error":
        return Multi((False, values))
    return (True, *values)


def yield_(*args):
    co = RUNNING[0].co
    if co is None or co.nny:
        if co is None:
            raise LuaError("attempt to yield from outside a coroutine")
        raise LuaError("attempt to yield across a C-call boundary")
    return co.yield_(args)  # the values it is resumed with: a tuple


def status(*args):
    co = check_co(args, 1, "status")
    if is_main(co):
        return "running" if running_co() is None else "normal"
    st = co.status_now()
    # "running" from its resume until it yields or ends: the coroutine that
    # runs now, or one that resumed it (or resumed one that did)
    return "normal" if st == "running" and co is not running_co() else st


def isyieldable(*args):
    co = check_co(args, 1, "isyieldable") if args else running_co()
    return co is not None and not is_main(co) and not co.nny


def close(*args):
    co = check_co(args, 1, "close")
    st = status(co)
    if st in ("running", "normal"):
        raise LuaError(caller_where() + f"cannot close a {st} coroutine")
    if st == "suspended":
        co.kill()  # an error in a __close handler is its error now
    if co.errored:  # reported once: the coroutine is reset, as lua_closethread does
        err, co.error, co.errored = co.error, None, False
        return Multi((False, close_left(co, err)))
    return True


def wrapped_function(co: Coroutine):
    """coroutine.wrap's function of co: a builtin level of its own, walked
    natively by a generic for (`lua_walk_calls`); inline, with a twin of
    its own that an Engine wait passes up through."""

    def wrapped(*a):
        return resume_wrapped(co, a, caller_where)  # a tuple: several results

    def walk(s, c, n: int, steps: list, tick):  # a for over it (of one variable: natively)
        return walk_wrapped(co, s, c, steps, tick) if n == 1 else walk_calls(wrapped, s, c, n, steps, tick)

    wrapped.lua_walk_calls = walk
    if INLINE:
        def twin(*a):  # a builtin level of its own while it runs (the positions of errors)
            if co.status_now() != "suspended":
                return resume_wrapped(co, a, caller_where)  # the refusal
            return wrapped_outcome(*(yield from resume_passing(co, a)), caller_where, co)

        wrapped.lua_twin = builtin(twin)
    return builtin(wrapped)


#: the code of every coroutine.wrap function (Twins: it only resumes another coroutine)
WRAPPED_CODE = next(c for c in wrapped_function.__code__.co_consts if getattr(c, "co_name", None) == "wrapped")


#: RUNVIL_TWINS=0 turns generator twins off: every coroutine runs on a context
TWINS = os.environ.get("RUNVIL_TWINS", "").strip() not in ("0", "off", "no", "false")


class CoroutineLibrary:
    """The coroutine library of one state: its main coroutine, the
    builtins that need the state (create, running, wrap: the others are
    this module's functions), and the switch to generator twins at the
    state's first coroutine."""

    __slots__ = ("state", "main", "table", "libs")

    def __init__(self, state):
        self.state = state
        self.main = Coroutine(None, state)
        self.main.status = "running"
        self.libs = None  # the builtins as opened (enable_twins)
        create, running, wrap = self.builtins()
        self.table = lib_table(
            {"create": create, "resume": resume, "yield": yield_, "status": status, "running": running,
             "isyieldable": isyieldable, "wrap": wrap, "close": close},
            "coroutine.",
        )
        state.parts.append(self)

    def release(self) -> None:
        """The state is released: the library and its builtins' closures
        refer to each other, and no longer to the state."""
        self.state = self.main = self.table = self.libs = None

    def create(self, args: tuple) -> Coroutine:
        f = args[0] if args else None
        if type(f) is not V.FunctionType:
            type_error(args, 1, "create", "function")
        return Coroutine(f, self.state)

    def running(self) -> Multi:
        co = running_co()
        if co is None:
            return Multi((self.main, True))
        return Multi((co, False))

    def wrap(self, args: tuple):
        if not args or type(args[0]) is not V.FunctionType:
            type_error(args, 1, "wrap", "function")
        return wrapped_function(Coroutine(args[0], self.state))

    def builtins(self) -> tuple:
        """create, running and wrap as Lua calls them. A builtin is a plain
        function of its own (Lua values are told apart by type, a builtin's
        name in messages is found by its code), so each of these is one
        that calls this object's method."""

        def create(*args):
            return self.create(args)

        def running(*args):
            return self.running()

        def wrap(*args):
            return self.wrap(args)

        return create, running, wrap

    # ------------------------------------------------------------ twins

    def enable_twins(self) -> None:
        """Lets the state's coroutines run as generator twins
        (runvil.lua.runtime.generators), set up at its first coroutine: a
        state that makes none pays only for a copy of its builtins as opened
        (and imports no runvil.lua.runtime.generators)."""
        state = self.state
        if not (TWINS or INLINE) or not hasattr(state, "iterators"):  # (inline needs them)
            return
        # the globals and library tables as the libraries have just opened them
        # (a program may replace a builtin later: the twins must know the real ones)
        self.libs = {k: v.hash.copy() if type(v) is LuaTable else v for k, v in state.G.hash.items()}
        state.install_twins = self.install_twins

    def install_twins(self) -> None:
        """The state's first coroutine: its twins (see enable_twins)."""
        from ..runtime import generators as twins

        self.state.install_twins = None
        twins.install(self.state, yield_, WRAPPED_CODE, self.libs, self.table)
        if INLINE:  # a twin's resume is a generator an Engine wait passes up through
            resume.lua_twin = resume_twin


def open_lib(state) -> None:
    lib = CoroutineLibrary(state)
    state.coroutines = set()  # started and not dead: closed with the state
    state.enable_twins = lib.enable_twins
    state.G.set_str("coroutine", lib.table)


def close_all(state) -> None:
    """Ends every suspended coroutine of a state (the host calls this when
    the state is done), so none of their contexts outlives it."""
    for co in list(getattr(state, "coroutines", ())):
        co.kill()
