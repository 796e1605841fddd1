"""Helpers that compiled code calls: table constructors, loops, tail calls,
to-be-closed variables, goto signals, and the namespace they live in.

`values` holds the operators; this module holds the statement machinery.
"""

from __future__ import annotations

import math
import re
import sys
from itertools import chain
from types import FunctionType

from . import values as V
from . import calls as LC
from . import indexing as LI
from . import operators as LO
from .calls import ccall, meta_call
from .envslots import env_given, env_now
from .machine import RUNNING
from ..errors import CoroutineKill, LuaError, rt_error, stack_overflow_message
from ..compiler.contract import INLINE_STRING_CALLS, INLINE_STRING_METHODS
from ..compiler.costs import IPAIRS_ITEM_COST, NEXT_ITEM_COST
from .tables import LuaTable, from_items, from_list
from .values import EMPTY, TAILCALL, Multi

# ------------------------------------------------------------ constructors


#: `{a, b, c}` where the last item may be nil: the items are the array part
tlist = from_list


def tnamed(d: dict) -> LuaTable:
    """`{x = 1, y = 2}` with distinct names: nil values leave no key (as
    luaH_newkey, so `next(t, "x")` of `{x = nil}` is an invalid key).
    Generated code calls this only when a value may be nil: it builds the
    table of non-nil values itself."""
    if None in d.values():
        d = {k: v for k, v in d.items() if v is not None}
    return LuaTable(None, d)


def tmixed(vals: list, layout: tuple) -> LuaTable:
    """Any other constructor: `layout` says, item by item, 0 = positional,
    1 = keyed (key and value follow), 2 = the expanded last positional."""
    try:
        return from_items(vals, layout)
    except ValueError as e:
        rt_error(f"table {e}")


def fixed(r, n: int) -> tuple:
    """Exactly n values of a call's raw result (a value or a Multi)."""
    if type(r) is not Multi:
        return (r, None) if n == 2 else (r,) + (None,) * (n - 1)
    if r and r[0] is TAILCALL:
        r = V.expand(r)
    return r if len(r) == n else adjust(r, n)


def adjust(values: tuple, n: int) -> tuple:
    """Exactly n values: truncated or padded with nils."""
    m = len(values)
    if m == n:
        return values
    if m > n:
        return values[:n]
    return values + (None,) * (n - m)


# ------------------------------------------------------------------ loops


def make_forprep(steps: list, tick):
    """The numeric for, as Lua's forprep. An integer loop is a `range` whose
    iterations are charged to the step budget up front (in slices, so long
    loops still reach `tick`); a float loop is a generator that counts each
    step."""

    def forprep(start, stop, step):
        if type(start) is int and type(step) is int:
            if step == 0:
                rt_error("'for' step is zero")
            if type(stop) is not int:
                stop = _for_limit(start, stop, step)
                if stop is None:
                    return ()
            r = range(start, stop + 1, step) if step > 0 else range(start, stop - 1, step)
            n = max(0, (stop - start) // step + 1)  # len(r) fails past sys.maxsize
            if n <= steps[0]:
                steps[0] -= n
                return r
            return _sliced(r, n, steps, tick)
        # Lua checks the limit, then the step, then the initial value
        flimit = _for_float(stop, "limit")
        fstep = _for_float(step, "step")
        finit = _for_float(start, "initial value")
        if fstep == 0:
            rt_error("'for' step is zero")
        if (flimit < finit) if 0 < fstep else (finit < flimit):
            return ()
        return _float_loop(finit, flimit, fstep, steps, tick)

    def refund(r, i):
        """A loop left early gives back the iterations it was charged for."""
        if type(r) is _Sliced:
            r = r.current
        if type(r) is range:
            steps[0] += (r.stop - i) // r.step - 1 + (1 if (r.stop - i) % r.step else 0)

    return forprep, refund


_SLICE = 10_000


class _Sliced(chain):
    """A long integer loop: its range in slices, each charged as it starts
    (so `tick` still runs), iterated at C speed."""


def _sliced(r: range, n: int, steps: list, tick) -> _Sliced:
    def charge(sub: range) -> range:
        it.current = sub
        steps[0] -= len(sub)
        if steps[0] < 0:
            tick()
        return sub

    it = _Sliced.from_iterable(map(charge, (r[i : i + _SLICE] for i in range(0, n, _SLICE))))
    return it


def _for_error(v, what: str):
    rt_error(f"bad 'for' {what} (number expected, got {V.obj_typename(v)})")


def _for_float(v, what: str) -> float:
    """tonumber of a float loop's control value (a numeric string counts)."""
    if type(v) is float:
        return v
    if type(v) is int:
        return float(v)
    n = V.str2number(v) if type(v) is str else None
    if n is None:
        _for_error(v, what)
    return float(n)


def _for_limit(start: int, stop, step: int):
    """Lua's forlimit: an integer loop's limit (or None to skip the loop)."""
    lim = V.str2number(stop) if type(stop) is str else stop
    if type(lim) is int:
        p = lim
    elif type(lim) is float:
        f = lim if lim != lim or lim in (V.INF, -V.INF) else (math.floor(lim) if step > 0 else math.ceil(lim))
        p = int(f) if f == f and -(2**63) <= f < 2**63 else None
        if p is None:  # NaN or out of the integers' range
            if 0 < lim:
                if step < 0:
                    return None
                p = V.MAXI
            else:
                if step > 0:
                    return None
                p = V.MINI
    else:
        _for_error(stop, "limit")
    if (start > p) if step > 0 else (start < p):
        return None
    return p


def _float_loop(i: float, stop: float, step: float, steps, tick):
    # forprep already decided the first iteration runs (also with a NaN limit)
    while True:
        steps[0] -= 1
        if steps[0] < 0:
            tick()
        yield i
        i += step
        if not ((i <= stop) if step > 0 else (stop <= i)):
            return


def make_giter(steps: list, tick, next_fn, ipairs_aux, pairs_fn):
    """The generic for, as a Python iterator: native walks for `next` and
    `ipairs`, and repeated calls of any other iterator function.

    `callee` is what the for's one call called (compiler/shapes.py
    FOR_CALL_ITERATOR): `for k, v in pairs(t)` is the sandbox pairs' walk,
    which fixes t's keys when it starts (docs/reference/lua.md), while `next`
    given any other way walks live, as Lua's."""

    def giter(f, s, c, close, n, callee=None):
        if close is not None:
            _tbc_check(close, "(for state)")
        if f is next_fn and type(s) is not LuaTable:
            from ..debuginfo import current_where
            from ..errors import ArgError

            got = V.type_name(s)
            raise ArgError(1, "for iterator", f"table expected, got {got}", current_where())
        # next, ipairs and the sandbox pairs walk natively and charge their
        # items themselves (a generator layer less than _charged)
        if f is next_fn and c is None:
            if callee is pairs_fn and (s.meta is None or s.meta.hash.get("__pairs") is None):
                it = _walk_fixed(s, n, steps, tick)
            else:
                it = _walk_next(s, n, steps, tick)
        elif f is ipairs_aux and type(s) is LuaTable and s.meta is None and c == 0:
            it = _walk_ipairs(s, n, steps, tick)
        elif type(f) is FunctionType and (walk := getattr(f, "lua_walk_calls", None)) is not None:
            it = walk(s, c, n, steps, tick)  # a coroutine.wrap function: it resumes its coroutine itself
        else:
            it = walk_calls(f, s, c, n, steps, tick)
        return it if close is None else _closing(it, close)

    return giter


def _charged(it, steps, tick, cost: int):
    """Charges `cost` steps an item (compiler/costs.py), 64 items at a time (the
    native walks below do the same, inline)."""
    k = 0
    for x in it:
        k += 1
        if k == 64:
            steps[0] -= 64 * cost
            k = 0
            if steps[0] < 0:
                tick()
        yield x
    steps[0] -= k * cost


def _closing(it, close):
    err = None
    try:
        yield from it
    except GeneratorExit:  # the loop was left (break, return, goto): a normal exit
        raise
    except BaseException as e:
        err = e
        raise
    finally:
        _tbc_close(close, err)


def _walk_next(t: LuaTable, n: int, steps, tick):
    k = None
    m = 0  # items not charged yet, as _charged counts them
    while True:
        r = t.next(k)
        if r is None:
            break
        m += 1
        if m == 64:
            steps[0] -= 64 * NEXT_ITEM_COST
            m = 0
            if steps[0] < 0:
                tick()
        k = r[0]
        if n == 1:
            yield k
        elif n == 2:
            yield r
        else:
            yield (k, r[1]) + (None,) * (n - 2)
    steps[0] -= m * NEXT_ITEM_COST


def _walk_fixed(t: LuaTable, n: int, steps, tick):
    """The sandbox pairs' walk: t's keys as they are when it starts (keys
    added later are not visited, keys removed since are skipped), in the
    order `next` walks them."""
    keys = t.keys_snapshot()
    get = t.get
    m = 0  # items not charged yet, as _charged counts them
    for k in keys:
        v = get(k)
        if v is None:
            continue
        m += 1
        if m == 64:
            steps[0] -= 64 * NEXT_ITEM_COST
            m = 0
            if steps[0] < 0:
                tick()
        if n == 2:
            yield (k, v)
        elif n == 1:
            yield k
        else:
            yield (k, v) + (None,) * (n - 2)
    steps[0] -= m * NEXT_ITEM_COST


def _walk_ipairs(t: LuaTable, n: int, steps, tick):
    i = 0
    m = 0  # items not charged yet, as _charged counts them
    while True:
        a = t.arr  # get_int(i + 1), inline
        v = a[i] if i < len(a) else t.hash.get(i + 1)
        if v is None:
            break
        i += 1
        m += 1
        if m == 64:
            steps[0] -= 64 * IPAIRS_ITEM_COST
            m = 0
            if steps[0] < 0:
                tick()
        if n == 2:
            yield (i, v)
        elif n == 1:
            yield i
        else:
            yield (i, v) + (None,) * (n - 2)
    steps[0] -= m * IPAIRS_ITEM_COST


def walk_calls(f, s, c, n: int, steps, tick):
    """A generic for's calls of its iterator function f, a step an item."""
    return _charged(_walk_calls(f, s, c, n), steps, tick, 1)


def _walk_calls(f, s, c, n: int):
    while True:
        r = f(s, c) if type(f) is FunctionType else LC.callx(f, "for iterator 'for iterator'", s, c)
        if type(r) is Multi:
            r = V.expand(r)
            c = r[0] if r else None
            if c is None:
                return
            if n == 1:
                yield c
            else:
                yield adjust(r, n)
        else:
            c = r
            if c is None:
                return
            if n == 1:
                yield c
            else:
                yield (c,) + (None,) * (n - 1)


# ------------------------------------------------------ to-be-closed vars


def _tbc_check(v, name: str):
    if v is None or v is False:
        return
    if V.getmetamethod(v, "__close") is None:
        rt_error(f"variable '{name}' got a non-closable value")


def _tbc_close(v, err):
    if v is None or v is False:
        return
    if err is not None and isinstance(err, _CAUGHT):
        m = RUNNING[0]
        owner = m.co  # in a coroutine: its protected call closes it, or its end leaves it for close
        if owner is None and _caught_here(sys._getframe(1)):
            owner = m
        if owner is not None:
            if owner.unwinding is None:
                owner.unwinding = []
            owner.unwinding.append(v)
            return
    h = V.getmetamethod(v, "__close")
    if h is None:  # removed after the variable was declared
        rt_error("attempt to call a nil value (metamethod 'close')")
    if err is None or isinstance(err, CoroutineKill):
        meta_call(h, v, None)
    else:
        meta_call(h, v, error_value(err))


#: the errors a protected call catches: the closing values they leave are
#: closed where they are caught, as Lua closes them
_CAUGHT = (LuaError, RecursionError, MemoryError)


#: the codes of the protected calls (pcall, xpcall, load's reader, a
#: finalizer's call), registered by their modules: a frame of one of them
#: above an error of the main coroutine catches it
CATCHER_CODES: set = set()


def _caught_here(frame) -> bool:
    """Whether a protected call is under way below `frame` (walked only for
    an error leaving a closing value, where it decides who closes it)."""
    codes = CATCHER_CODES
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


def take_unwound(owner):
    """The closing values an error left in `owner` (a coroutine, or the
    machine for the main one), taken for its catcher; None if none."""
    pending = owner.unwinding
    if pending is not None:
        owner.unwinding = None
    return pending


def close_unwound(pending, value):
    """Runs the __close of the values an error left (innermost first), as
    Lua's catcher does after its message handler: each with the error
    value, which an error in one replaces. Returns the last error value."""
    for v in pending:
        try:
            h = V.getmetamethod(v, "__close")
            if h is None:  # removed after the variable was declared
                rt_error("attempt to call a nil value (metamethod 'close')")
            meta_call(h, v, value)
        except _CAUGHT as e:
            value = closed_after(caught_value(e))  # the failing __close's own, closed first
    return value


def closed_after(value, owner=None):
    """What a catcher of an error returns: its value, once the closing
    values the error left in `owner` (by default the running coroutine, or
    the machine for the main one) are closed with it (close_unwound)."""
    if owner is None:
        m = RUNNING[0]
        owner = m.co or m
    pending = take_unwound(owner)
    return value if pending is None else close_unwound(pending, value)


#: how many times Lua calls a message handler for one error, the handler's
#: own errors included, before "error in error handling": each of its
#: errors calls it again, one C level deeper, up to LUAI_MAXCCALLS / 10 * 11
#: (luaE_checkcstack), 215 times from a script's main chunk under lua.c
HANDLER_CALLS = 215


def handler_value(handler, e: BaseException):
    """xpcall's error value: its message handler's first result. An error
    in the handler calls it again with that error's value, as Lua does,
    until it returns or has been called HANDLER_CALLS times ("error in
    error handling", at once for a stack overflow in it, as luaD_growstack
    throws; its memory error is xpcall's, as Lua calls no handler for one).
    The closing values its errors left are closed with the value, deepest
    first; xpcall closes the first error's after them."""
    value, left = caught_value(e), None
    for _ in range(HANDLER_CALLS):
        try:
            h = call_handler(handler, value)
        except _CAUGHT as again:
            value = caught_value(again)
            m = RUNNING[0]
            if (pending := take_unwound(m.co or m)) is not None:
                left = [pending] if left is None else [*left, pending]
            if isinstance(again, RecursionError):
                value = "error in error handling"
            elif not isinstance(again, MemoryError):
                continue
        else:
            value = h[0] if h else None
        break
    else:
        value = "error in error handling"
    for pending in reversed(left or ()):
        value = close_unwound(pending, value)
    return value


def error_value(e: BaseException):
    """The Lua value an exception stands for."""
    if isinstance(e, LuaError):
        return e.value
    if isinstance(e, RecursionError):
        return "stack overflow"
    if isinstance(e, MemoryError):
        return "not enough memory"
    return f"{type(e).__name__}: {e}"


#: what a hoisted block (compile_nesting) returns for a break
BREAK = object()


class GotoSignal(Exception):
    """A goto that leaves a Python loop to reach its label's dispatcher."""

    def __init__(self, label: str):
        self.label = label


# ----------------------------------------------------------------- concat


def concatn(parts: tuple, descs: tuple):
    """`a .. b .. c ...`: joins strings and numbers at once (a number as
    Lua converts it), else right to left as Lua."""
    for p in parts:  # a plain loop: all() over a generator costs twice as much
        if type(p) is not str:
            strs = _as_strings(parts)
            if strs is None:
                return _concat_right(parts, descs)
            parts = strs
            break
    n = sum(map(len, parts))
    if n > V.INLINE_CONCAT:
        V.reserve_memory(n)
        V.charge_steps(n >> 6)  # and its copy in steps (stdlib/limits.py)
    elif n > V.TINY_RESULT:
        V.check_string_size(n)  # Lua's memory error past the sandbox's string limit
        V.count_unreserved(n)
    return "".join(parts)


def _concat_right(parts: tuple, descs: tuple):
    """Right to left, each step with its metamethods and errors, as Lua."""
    acc = parts[-1]
    for i in range(len(parts) - 2, -1, -1):
        acc = LO.concat(parts[i], acc, descs[i], descs[i + 1] if i + 1 == len(parts) - 1 else None)
    return acc


def _as_strings(parts: tuple) -> list | None:
    """The parts as a list of strings if they are all strings or numbers."""
    strs = []
    for p in parts:
        t = type(p)
        if t is str:
            strs.append(p)
        elif t is int:
            strs.append(str(p))
        elif t is float:
            strs.append(V.fmt_number(p))
        else:
            return None
    return strs


def base_namespace() -> dict:
    """The names compiled code refers to, except the per-state ones: a copy
    of the first one made (a state is made per section entry), with dicts
    of its own where the state's string library writes."""
    made = _BASE.get("made")
    if made is None:
        made = _BASE["made"] = _base_namespace()
    ns = made.copy()
    ns["_SIh"] = {}
    for _ok, chars in INLINE_STRING_METHODS.values():
        ns[chars] = {}
    return ns


#: "made": the first namespace `base_namespace` made
_BASE: dict = {}


def _base_namespace() -> dict:
    return {
        "_Table": LuaTable,
        "_FT": FunctionType,
        "_Multi": Multi,
        "_EMPTY": EMPTY,
        "_TAILCALL": TAILCALL,
        "_first": V.first,
        "_expand": V.expand,
        "_callable": LC.callable_of,
        "_callable_yield": LC.callable_of,  # (compiler/shapes.py YIELD_CALLEE)
        "_tail": LC.tail,
        "_TAIL_NOW": LC.TAIL_NOW,
        "_wrap": V.wrap,
        "_method": LI.method_of,
        "_method_from": LI.method_from,
        "_index": LI.index,
        "_envnow": env_now,
        "_envgive": env_given,
        "_setindex": LI.setindex,
        "_add": LO.add,
        "_sub": LO.sub,
        "_mul": LO.mul,
        "_div": LO.div,
        "_idiv": LO.idiv,
        "_mod": LO.mod,
        "_pow": LO.pow_,
        "_unm": LO.unm,
        "_band": LO.band,
        "_bor": LO.bor,
        "_bxor": LO.bxor,
        "_shl": LO.shl,
        "_shr": LO.shr,
        "_bnot": LO.bnot,
        "_len": LO.length,
        "_eq": LO.eq,
        "_lt": LO.lt,
        "_le": LO.le,
        "_concat": LO.concat,
        "_concatn": concatn,
        "_tlist": tlist,
        "_tnamed": tnamed,
        "_tmixed": tmixed,
        "_adjust": adjust,
        "_fixed": fixed,
        "_smethod": LI.string_method,
        # the regex calls of inline pattern calls (compiler/strcalls.py): C methods called unbound
        "_RXM": re.Pattern.match,
        "_RXS": re.Pattern.search,
        "_MSTART": re.Match.start,
        "_MEND": re.Match.end,
        "_MGROUP": re.Match.group,
        "_MGROUPS": re.Match.groups,
        "_SIh": {},  # the hash of the string metatable's __index table, once the string library is open
        # (and `s:upper()`'s inline answers: none until then)
        **{ok: False for ok, _chars in INLINE_STRING_METHODS.values()},
        **{chars: {} for _ok, chars in INLINE_STRING_METHODS.values()},
        **dict.fromkeys(INLINE_STRING_CALLS.values(), False),
        "_tbc_check": _tbc_check,
        "_tbc_close": _tbc_close,
        "_GotoSignal": GotoSignal,
        "_BRK": BREAK,
        "_NUMS": frozenset((int, float)),
        "_PRIM": frozenset((int, float, str, bool, type(None))),
        "_NAN": V.DEFAULT_NAN,
        "_INF": V.INF,
    }


def call_handler(handler, value) -> tuple:
    """xpcall's call of its message handler, as luaD_callnoyield: a nested
    C call where a yield is an error (so it ends in "error in error handling")."""
    co = RUNNING[0].co
    if co is not None:
        co.nny += 1
    try:
        return V.expand(ccall(handler, value))
    finally:
        if co is not None:
            co.nny -= 1


def caught_value(e: BaseException):
    if isinstance(e, RecursionError):
        return stack_overflow_message(e)
    return error_value(e)
