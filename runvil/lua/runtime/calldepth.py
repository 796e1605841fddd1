"""Lua's C-stack limit (LUAI_MAXCCALLS in Lua 5.4's llimits.h).

C Lua counts nested C calls: a metamethod called by an operator, `pcall`'s
call, a `gsub` replacement function, a `sort` comparator, `__tostring`
through `tostring`, a coroutine resume. At 200 the next one raises `C stack
overflow`; calls made while that error is being handled may go on to 220,
where the error becomes `error in error handling` (luaE_checkcstack). So a
runaway recursion through metamethods or coroutines stops at once with a
catchable error, long before memory or the Python stack runs out.

The calls that count are made by runtime/calls.py (`meta_call`, `ccall`,
`call_tostring`) and the builtins (`CCall`). The count is one number for the running context, the running machine's
`depth` (runvil.lua.runtime.machine): exactly one context runs at a time
(runvil.lua.runtime.contexts), and a coroutine resume saves and sets it
(runvil.lua.stdlib.coroutine).
"""

from __future__ import annotations

import sys

from ..debuginfo import where
from ..errors import LuaError
from ..compiler.costs import META_CALL_COST
from .machine import RUNNING

LUAI_MAXCCALLS = 200
#: where `error in error handling` replaces `C stack overflow`
ERRERR_CCALLS = LUAI_MAXCCALLS // 10 * 11
#: the count a chunk called by the host starts at, as under lua.c (its
#: `pmain` and `docall` are two protected calls)
HOST_CCALLS = 1


def check(n: int, positioned: bool = True) -> None:
    """luaE_checkcstack for a count about to become `n` (>= the limit):
    raises at the limit, lets calls that handle that error through, and
    raises `error in error handling` past them. With `positioned`, the
    message has the position of the running Lua level (none when that level
    is a builtin), as luaG_runerror gives it."""
    if n == LUAI_MAXCCALLS:
        raise LuaError((where(0, sys._getframe(2)) if positioned else "") + "C stack overflow")
    if n >= ERRERR_CCALLS:
        raise LuaError("error in error handling")


#: `meta_call`'s third operand when there is none
_NONE = object()
# the running machine's `direct` is true while a generator twin calls an
# operator helper directly (runvil.lua.runtime.generators): a metamethod
# call is then refused


class NeedsContext(Exception):
    """meta_call's refusal while the machine is `direct`: the helper has changed nothing yet,
    and runs again on an execution context of its own (runvil.lua.runtime.generators).
    Its args are the metamethod and its operands."""


#: the one refusal meta_call raises (making one each time costs a third
#: more): who catches it sets its __traceback__ to None, else it grows
REFUSAL = NeedsContext()


def charge_meta(h) -> None:
    """Charges the Lua function h META_CALL_COST steps from its state's
    budget, as a metamethod call is charged: the operator or call site that
    reached it was weighed as a plain one. (meta_call and table.sort's
    comparator do the same inline: their calls are the hot ones.)"""
    steps = h.__globals__.get("_S")  # a Lua function's: its state's countdown
    if steps is not None:
        steps[0] -= META_CALL_COST
        if steps[0] < 0:
            h.__globals__["_tick"]()


class CCall:
    """`with CCall():` marks a builtin's callbacks (a sort comparator, a
    gsub function, `__tostring`) as C Lua's C calls: one nested C call, and
    a yield inside them raises `attempt to yield across a C-call boundary`,
    as in Lua 5.4."""

    __slots__ = ("co", "n", "calls", "m")

    def __init__(self, calls: bool = True):
        self.calls = calls  # False: only no yields (the calls it makes count themselves)

    def __enter__(self):
        m = self.m = RUNNING[0]
        n = self.n = m.depth + self.calls
        if n >= LUAI_MAXCCALLS and self.calls:
            check(n, False)
        m.depth = n
        co = self.co = m.co
        if co is not None:
            co.nny += 1

    def __exit__(self, *exc):
        self.m.depth = self.n - self.calls
        if self.co is not None:
            self.co.nny -= 1
