"""Calling a Lua value: a function directly, anything else through its
`__call` chain or a userdata's call; tail calls as pending calls the caller
runs; and the calls Lua makes as C calls (a metamethod, a builtin's
callback, `__tostring`), counted against the C-stack limit
(runtime/calldepth.py)."""

from __future__ import annotations

import sys
from types import FunctionType

from ..debuginfo import BUILTIN_CODES, CHUNKS, metamethod_event
from ..errors import rt_error
from ..stack import on_lua_thread, run_lua
from ..compiler.costs import META_CALL_COST
from .calldepth import _NONE, LUAI_MAXCCALLS, REFUSAL, CCall, charge_meta, check
from .machine import RUNNING
from .values import TAILCALL, Multi, Userdata, _desc, expand, first, getmetamethod, obj_typename


def call(f, *args):
    """Calls any Lua value (functions directly, else through __call)."""
    if type(f) is FunctionType:
        return f(*args)
    return resolve_callable(f, None)(*args)

def callx(f, desc, *args):
    return resolve_callable(f, desc)(*args)

def callable_of(f, desc):
    """A Python function that calls the Lua value f: f itself, or one that
    finds f's __call when it is called, after the arguments are evaluated
    (Lua's OP_CALL looks it up then: the arguments may set it)."""
    if type(f) is FunctionType:
        return f

    def call_late(*a):
        h = getmetamethod(f, "__call")
        if type(h) is FunctionType:  # the common case, called as _tm_caller calls it
            charge_meta(h)
            return h(f, *a)
        return resolve_callable(f, desc)(*a)

    return call_late

def late_callee(fn) -> tuple:
    """The (value, desc) that callable_of made `fn` (a call_late) for."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__))
    return cells["f"].cell_contents, cells["desc"].cell_contents

def resolve_callable(f, desc):
    """What calling the Lua value f calls, now: f itself, its __call
    metamethod, a userdata's call, or one that raises Lua's error."""
    if type(f) is FunctionType:
        return f
    h = getmetamethod(f, "__call")
    if h is not None:
        return _call_tm(h, f, desc)
    if isinstance(f, Userdata):
        return _call_ud(f)
    return _fail_call(f"attempt to call a {obj_typename(f)} value{_desc(desc)}")

#: a chain of __call metamethods longer than this fills Lua's stack
MAX_CALL_CHAIN = 100_000

def _call_tm(h, f, desc):
    """Lua puts the metamethod in the called slot, the value before the
    arguments, and tries again: a chain of __call ends in a function (or
    fails naming the slot, as Lua names it: `(upvalue 'a')`)."""
    prefix = [f]
    while type(h) is not FunctionType:
        nxt = getmetamethod(h, "__call")
        if nxt is None:
            if isinstance(h, Userdata):
                return lambda *a: h.lua_call(*reversed(prefix), *a)
            return _fail_call(f"attempt to call a {obj_typename(h)} value{_desc(desc)}")
        if len(prefix) >= MAX_CALL_CHAIN:
            return _fail_call("stack overflow")
        prefix.append(h)
        h = nxt
    prefix.reverse()
    return _tm_caller(h, tuple(prefix))

def _tm_caller(h, prefix: tuple):
    # a call through __call is charged as a metamethod call (cstack.charge_meta):
    # the call site was weighed as a plain call
    def call_tm(*a):
        charge_meta(h)
        return h(*prefix, *a)

    call_tm.lua_tm = (h, prefix)  # what `tail` calls in its place
    return call_tm

def _call_ud(f):
    return lambda *a: f.lua_call(*a)

def _fail_call(msg):
    def fail(*_a):
        rt_error(msg)

    return fail

def tail(f, args: tuple):
    """`return f(args)`. A Lua function becomes a pending call that the
    caller's caller runs, so tail calls do not grow the stack; anything else
    (a builtin, __call, an error) runs now, in the caller's frame, as Lua
    runs a C function called in tail position."""
    # The code object is told apart by its file name or its id: CPython
    # recomputes a code object's hash (from its bytecode) on every lookup.
    code = f.__code__
    if code.co_filename in CHUNKS:  # a compiled Lua function (never a builtin)
        return Multi((TAILCALL, f, args))
    if id(code) in _RUNS_NOW:
        return f(*args)
    if code is LATE_CODE:  # a value that is no function: what calling it calls now
        return tail(resolve_callable(*late_callee(f)), args)
    if code is _TM_CODE:  # through __call: the metamethod is the tail call
        h, prefix = f.lua_tm
        return tail(h, prefix + args)
    if code in BUILTIN_CODES:
        _RUNS_NOW.add(id(code))  # BUILTIN_CODES keeps it alive: the id stays its own
        if f.__closure__ is None and len(TAIL_NOW) < _TAIL_NOW_MAX:
            TAIL_NOW.add(f)  # a module's builtin (alive for good): called in place from now on
        return f(*args)
    return Multi((TAILCALL, f, args))

#: builtins a tail call calls in place, without `tail` (compile_expr.tailcall):
#: those `tail` has run, made by no factory (a set of functions, not of code
#: ids, so the test costs no call; bounded all the same)
TAIL_NOW: set = set()
_TAIL_NOW_MAX = 4096

def call1(f, *args):
    """Calls f and returns its first result."""
    return first(call(f, *args))

def calln(f, *args) -> tuple:
    """Calls f and returns all its results as a tuple."""
    return expand(call(f, *args))

#: ids of the code objects a tail call runs at once: the callables above
#: (module-level code, alive for good), and each builtin once seen
_RUNS_NOW = {id(_call_ud(None).__code__), id(_fail_call("").__code__)}
_TM_CODE = _tm_caller(None, ()).__code__
LATE_CODE = callable_of(None, None).__code__


def meta_call(h, a, b, c=_NONE):
    """Calls a metamethod as luaT_callTMres does: one nested C call. A Lua
    metamethod is also charged META_CALL_COST steps from its state's
    budget: the operator that calls it was weighed as a plain one. The
    operands are fixed parameters (two, or three for __newindex), so the
    call of a Lua metamethod is a plain call, which CPython runs inline."""
    m = RUNNING[0]
    if m.direct:
        REFUSAL.args = (h, (a, b) if c is _NONE else (a, b, c))
        raise REFUSAL
    n = m.depth + 1
    if n >= LUAI_MAXCCALLS:
        check(n)
    m.depth = n
    try:
        if type(h) is FunctionType:
            steps = h.__globals__.get("_S")  # a Lua function's: its state's countdown
            if steps is not None:
                steps[0] -= META_CALL_COST
                if steps[0] < 0:
                    h.__globals__["_tick"]()
            return h(a, b) if c is _NONE else h(a, b, c)
        if getmetamethod(h, "__call") is None and not isinstance(h, Userdata):
            event = metamethod_event(sys._getframe(0))
            named = f" (metamethod '{event}')" if event else ""
            rt_error(f"attempt to call a {obj_typename(h)} value{named}")  # luaG_callerror
        return call(h, a, b) if c is _NONE else call(h, a, b, c)
    finally:
        m.depth = n - 1


def ccall(f, *args):
    """Calls a Lua value from a builtin (lua_call, lua_pcall): one nested C
    call; an overflow has no position, as the running function is C."""
    m = RUNNING[0]
    n = m.depth + 1
    if n >= LUAI_MAXCCALLS:
        check(n, False)
    m.depth = n
    try:
        if type(f) is FunctionType:
            return f(*args)
        return call(f, *args)
    finally:
        m.depth = n - 1


def call_tostring(h, v):
    """`__tostring` as luaL_tolstring calls it (a C call), on the Lua thread
    even when the host asks (an uncaught error's message)."""
    if not on_lua_thread():
        return run_lua(lambda: call_tostring(h, v))
    with CCall():
        return first(call(h, v))
