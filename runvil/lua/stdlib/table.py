"""Lua 5.4's `table` library (ltablib.c).

Every function respects metamethods (`__index`, `__newindex`, `__len`) as
Lua 5.4 does; a table without a metatable takes a fast path working on the
array part directly (`arr`), which gives the same results.

`table.sort` runs Lua's own quicksort (median of three, same pivots, same
"invalid order function for sorting" checks), so results and errors match
Lua's, except: a plain array of only integers, only strings, or only floats
(no NaN, no mix of 0.0 and -0.0) without a comparator is sorted by Python's
sort, which gives the same result since equal elements are then
indistinguishable; and Lua re-randomises the pivot of badly unbalanced large
partitions from the clock, so with an inconsistent comparator the order of
elements comparing equal may differ from a given Lua run (as it does between
two Lua runs). A comparator that modifies the table being sorted sees a
snapshot (the sorted values are written back when the sort ends).
"""

from __future__ import annotations

from types import FunctionType

from ..runtime import values as V
from ..runtime import indexing as LI
from ..runtime import operators as LO
from ..runtime.args import arg_error, check_function, check_int, check_str, opt_int, type_error
from ..runtime.calldepth import LUAI_MAXCCALLS
from ..runtime.machine import RUNNING
from ..errors import lua_error as _error
from ..compiler.costs import META_CALL_COST
from ..runtime.tables import LuaTable, from_list
from ..runtime.values import EMPTY, Multi, getmetatable
from . import lib_table
from ..runtime.pieces import JOINED_AT_ONCE, joined_by_pieces
from .limits import BIG_WORK, BYTES_PER_STEP, MOVED_PER_STEP, TINY_RESULT, reserve_result, reserve_slots
from ..runtime.calldepth import CCall

_M64 = 0xFFFFFFFFFFFFFFFF
MAXI = V.MAXI
#: Lua's stack cannot take many more values than this (LUAI_MAXSTACK is
#: 1,000,000 slots, minus what the calling frames use)
MAX_RESULTS = 999_980

_TAB_R, _TAB_W, _TAB_L = 1, 2, 4
_FIELDS = ((_TAB_R, "__index"), (_TAB_W, "__newindex"), (_TAB_L, "__len"))


def _checktab(args, n: int, fname: str, what: int):
    """ltablib's checktab: a table, or a value whose metatable offers every
    field that `what` needs."""
    v = args[n - 1] if len(args) >= n else None
    if type(v) is LuaTable:
        return v
    mt = getmetatable(v)
    if mt is not None:
        h = mt.hash
        if all(not (what & bit) or h.get(ev) is not None for bit, ev in _FIELDS):
            return v
    type_error(args, n, fname, "table")


def _len(t) -> int:
    """luaL_len: the length, which must be an integer."""
    if type(t) is LuaTable and t.meta is None:
        return t.length()
    n = LO.length(t)
    if type(n) is not int:
        n = V.tointeger(n)  # lua_tointegerx: floats and numeric strings too
        if n is None:
            _error("object length is not an integer")
    return n


def _plain(t) -> bool:
    return type(t) is LuaTable and t.meta is None


def _geti(t, i):
    if type(t) is LuaTable and t.meta is None:
        return t.get_int(i)
    return LI.index(t, i)


def _seti(t, i, v):
    if type(t) is LuaTable and t.meta is None:
        t.set_int(i, v)
    else:
        LI.setindex(t, i, v)


# ------------------------------------------------------------- insert


def t_insert(*args):
    if len(args) == 2:  # fast path: append to a plain sequence
        t, v = args
        if type(t) is LuaTable and t.meta is None and v is not None:
            arr = t.arr
            h = t.hash
            if not h or (arr and len(arr) + 2 not in h):
                arr.append(v)
                return EMPTY
    t = _checktab(args, 1, "insert", _TAB_R | _TAB_W | _TAB_L)
    e = V.wrap(_len(t) + 1)  # first empty element
    nargs = len(args)
    if nargs == 2:
        v = args[1]
        if _plain(t):
            arr = t.arr
            if e == len(arr) + 1 and v is not None and (not t.hash or e + 1 not in t.hash):
                arr.append(v)
            else:
                t.set_int(e, v)
        else:
            _seti(t, e, v)
        return EMPTY
    if nargs != 3:
        _error("wrong number of arguments to 'insert'")
    pos = check_int(args, 2, "insert")
    # pos must be in [1, e]
    if ((pos - 1) & _M64) >= (e & _M64):
        arg_error(2, "insert", "position out of bounds")
    v = args[2]
    if e - pos > BIG_WORK:  # every item after pos moves: steps in proportion
        V.charge_steps((e - pos) >> MOVED_PER_STEP)
    if _plain(t):
        arr = t.arr
        if e == len(arr) + 1 and (v is not None or pos < e) and (
            not t.hash or e + 1 not in t.hash
        ):
            arr.insert(pos - 1, v)
            return EMPTY
        if e - pos > BIG_WORK:  # moved one by one: a step each
            V.charge_steps(e - pos)
        for i in range(e, pos, -1):
            t.set_int(i, t.get_int(i - 1))
        t.set_int(pos, v)
        return EMPTY
    for i in range(e, pos, -1):
        LI.setindex(t, i, LI.index(t, i - 1))
    LI.setindex(t, pos, v)
    return EMPTY


# ------------------------------------------------------------- remove


def t_remove(*args):
    if len(args) == 1:  # fast path: pop from a plain sequence
        t = args[0]
        if type(t) is LuaTable and t.meta is None:
            arr = t.arr
            if arr:
                v = arr.pop()
                while arr and arr[-1] is None:
                    arr.pop()
                return v
    t = _checktab(args, 1, "remove", _TAB_R | _TAB_W | _TAB_L)
    size = _len(t)
    pos = opt_int(args, 2, "remove", size)
    if pos != size and ((pos - 1) & _M64) > (size & _M64):
        # pos must be in [1, size + 1]
        arg_error(2, "remove", "position out of bounds")
    if size - pos > BIG_WORK:  # every item after pos moves: steps in proportion
        V.charge_steps((size - pos) >> MOVED_PER_STEP)
    if _plain(t):
        arr = t.arr
        if size == len(arr) and 1 <= pos <= size:
            v = arr.pop(pos - 1)
            if pos == size:
                while arr and arr[-1] is None:
                    arr.pop()
            return v
        if size - pos > BIG_WORK:  # moved one by one: a step each
            V.charge_steps(size - pos)
        v = t.get_int(pos)
        while pos < size:
            t.set_int(pos, t.get_int(pos + 1))
            pos += 1
        t.set_int(pos, None)
        return v
    v = LI.index(t, pos)
    while pos < size:
        LI.setindex(t, pos, LI.index(t, pos + 1))
        pos += 1
    LI.setindex(t, pos, None)
    return v


# ------------------------------------------------------------- concat


def _field_str(v, i):
    tv = type(v)
    if tv is str:
        return v
    if tv is int or tv is float:
        return V.fmt_number(v)
    _error(f"invalid value ({V.type_name(v)}) at index {i} in table for 'concat'")


def t_concat(*args):
    n = len(args)
    if n == 1 or n == 2:  # the common shape: a plain list of strings, the whole of it
        t = args[0]
        sep = args[1] if n == 2 else ""
        if type(t) is LuaTable and t.meta is None and type(sep) is str and (t.arr or not t.hash):
            a = t.arr
            if not a:
                return ""
            if len(a) == 1 and type(a[0]) is str:
                return a[0]  # one string (a decoder's text without escapes): nothing to build
            try:  # len() and join() refuse (TypeError) any value not a string: the general path says which
                size = sum(map(len, a)) + len(sep) * (len(a) - 1)
                if size > TINY_RESULT:  # a tiny one goes uncounted, as a new table does
                    reserve_result(size)
                if len(a) > BIG_WORK or size > BIG_WORK:  # its work grows with items and bytes
                    if len(a) > JOINED_AT_ONCE:
                        return joined_by_pieces(sep, a)  # its steps as it goes
                    V.charge_steps(len(a) + (size >> BYTES_PER_STEP))
                return sep.join(a)
            except TypeError:
                pass
    t = _checktab(args, 1, "concat", _TAB_R | _TAB_L)
    last = _len(t)
    sep = check_str(args, 2, "concat") if len(args) >= 2 and args[1] is not None else ""
    i = opt_int(args, 3, "concat", 1)
    last = opt_int(args, 4, "concat", last)
    if i > last:
        return ""
    if _plain(t) and 1 <= i and last <= len(t.arr):
        reserve_slots(last - i + 1)  # the list of parts, before the result
        parts = t.arr[i - 1 : last]
        for k, v in enumerate(parts):
            if type(v) is not str:
                parts[k] = _field_str(v, i + k)
    else:
        parts = []
        size = 0
        lsep = len(sep)
        while True:
            s = _field_str(_geti(t, i), i)
            parts.append(s)
            size += len(s) + lsep
            if not i & 1023:  # a range of up to 2^63 fields: metered
                V.charge_steps(10240)
            if size > 65536:
                V.reserve_memory(size - lsep)
            if i >= last:
                break
            i += 1
    n = len(parts)
    size = sum(map(len, parts)) + len(sep) * (n - 1)
    reserve_result(size)
    if n > BIG_WORK or size > BIG_WORK:  # its work grows with items and bytes
        if n > JOINED_AT_ONCE:
            return joined_by_pieces(sep, parts)  # its steps as it goes
        V.charge_steps(n + (size >> BYTES_PER_STEP))
    return sep.join(parts)


# ------------------------------------------------------- pack, unpack


def t_pack(*args):
    t = from_list(list(args))
    t.set_str("n", len(args))
    return t


def t_unpack(*args):
    t = args[0] if args else None
    i = opt_int(args, 2, "unpack", 1)
    if len(args) >= 3 and args[2] is not None:
        e = check_int(args, 3, "unpack")
    else:
        e = _len(t)
    if i > e:
        return EMPTY
    n = e - i  # number of elements minus 1
    if n >= MAX_RESULTS:
        _error("too many results to unpack")
    reserve_slots(n + 1)
    if _plain(t):
        arr = t.arr
        if 1 <= i and e <= len(arr):
            if n == 0:
                return arr[i - 1]
            return Multi(arr[i - 1 : e])
        get = t.get_int
        return Multi([get(k) for k in range(i, e + 1)])
    index = LI.index
    return Multi([index(t, k) for k in range(i, e + 1)])


# --------------------------------------------------------------- move


def t_move(*args):
    f = check_int(args, 2, "move")
    e = check_int(args, 3, "move")
    tpos = check_int(args, 4, "move")
    tt = 5 if len(args) >= 5 and args[4] is not None else 1
    a1 = _checktab(args, 1, "move", _TAB_R)
    dest = _checktab(args, tt, "move", _TAB_W)
    if e >= f:
        if not (f > 0 or e < MAXI + f):
            arg_error(3, "move", "too many elements to move")
        n = e - f + 1  # number of elements to move
        if tpos > MAXI - n + 1:
            arg_error(4, "move", "destination wrap around")
        if _plain(a1) and _plain(dest) and 1 <= f and e <= len(a1.arr):
            reserve_slots(n)  # (elsewhere each item is set alone: the step checks see the table grow)
            _move_plain(a1, f, e, tpos, dest)
        elif tpos > e or tpos <= f or (tt != 1 and not LO.eq(a1, dest)):
            for k in range(n):
                if not k & 1023:  # a range of up to 2^63 elements: metered
                    V.charge_steps(10240)
                _seti(dest, tpos + k, _geti(a1, f + k))
        else:
            for k in range(n - 1, -1, -1):
                if not k & 1023:
                    V.charge_steps(10240)
                _seti(dest, tpos + k, _geti(a1, f + k))
    return dest


def _move_plain(a1: LuaTable, f: int, e: int, tpos: int, dest: LuaTable):
    """move between tables without metatables, the source range inside the
    array part: a slice copy (which is what Lua's choice of copy direction
    amounts to when source and destination overlap)."""
    vals = a1.arr[f - 1 : e]
    darr = dest.arr
    if not dest.hash and 1 <= tpos <= len(darr) + 1:
        darr[tpos - 1 : tpos - 1 + len(vals)] = vals
        while darr and darr[-1] is None:
            darr.pop()
        return
    for k, v in enumerate(vals):
        dest.set_int(tpos + k, v)


# --------------------------------------------------------------- sort


class _TableView:
    """1-based item access to a table through its metamethods."""

    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        return LI.index(self.t, i)

    def __setitem__(self, i, v):
        LI.setindex(self.t, i, v)


class _RawView:
    """1-based raw item access to a table without a metatable."""

    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        return self.t.get_int(i)

    def __setitem__(self, i, v):
        self.t.set_int(i, v)


def _so_error():
    _error("invalid order function for sorting")


def _truthy(r) -> bool:
    """A comparison's result other than True, False and nil, as Lua tests
    it: the first value of several (or of a pending tail call)."""
    if type(r) is Multi:
        r = V.first(r)
        return r is not None and r is not False
    return True


def _auxsort(a, lo: int, up: int, lt, rnd: int = 0) -> None:
    """Lua 5.4's quicksort on a[lo..up] (1-based, a supports []), with
    `lt(x, y)` the order (V.lt or the Lua comparator itself: each test of
    its result reads True and False at once, _truthy any other value); the
    element comparisons and swaps follow ltablib.c's auxsort/partition
    step by step."""
    while lo < up:
        # sort elements a[lo], a[(lo+up)/2] and a[up]
        x, y = a[lo], a[up]
        if (r := lt(y, x)) is True or (r is not False and r is not None and _truthy(r)):
            a[lo], a[up] = y, x
        if up - lo == 1:
            break
        if up - lo < 100 or rnd == 0:
            p = (lo + up) // 2
        else:
            r4 = (up - lo) // 4
            p = rnd % (r4 * 2) + (lo + r4)
        x, y = a[p], a[lo]
        if (r := lt(x, y)) is True or (r is not False and r is not None and _truthy(r)):
            a[p], a[lo] = y, x
        else:
            z = a[up]
            if (r := lt(z, x)) is True or (r is not False and r is not None and _truthy(r)):
                a[p], a[up] = z, x
        if up - lo == 2:
            break
        pv = a[p]
        a[p] = a[up - 1]
        a[up - 1] = pv
        # partition: invariant a[lo..i] <= P <= a[j..up], a[up-1] == P
        i, j = lo, up - 1
        while True:
            i += 1
            ai = a[i]
            while (r := lt(ai, pv)) is True or (r is not False and r is not None and _truthy(r)):
                if i == up - 1:
                    _so_error()
                i += 1
                ai = a[i]
            j -= 1
            aj = a[j]
            while (r := lt(pv, aj)) is True or (r is not False and r is not None and _truthy(r)):
                if j < i:
                    _so_error()
                j -= 1
                aj = a[j]
            if j < i:
                a[up - 1] = ai
                a[i] = pv
                break
            a[i] = aj
            a[j] = ai
        p = i
        if p - lo < up - p:
            _auxsort(a, lo, p - 1, lt, rnd)
            n = p - lo
            lo = p + 1
        else:
            _auxsort(a, p + 1, up, lt, rnd)
            n = up - p
            up = p - 1
        if (up - lo) // 128 > n:
            rnd = _randomize_pivot()


def _randomize_pivot() -> int:
    import time

    return (int(time.process_time() * 1e6) + int(time.time())) & 0xFFFFFFFF


def _python_sortable(arr: list) -> bool:
    """Whether Python's sort gives Lua's result: all values of one kind and
    no two distinguishable values comparing equal."""
    if not arr:
        return True
    t0 = type(arr[0])
    if t0 is int or t0 is str:
        for v in arr:
            if type(v) is not t0:
                return False
        return True
    if t0 is float:
        zeros = 0
        for v in arr:
            if type(v) is not float or v != v:
                return False
            if v == 0.0:
                zeros |= 2 if str(v)[0] == "-" else 1
        return zeros != 3
    return False


def _class_lt(arr: list):
    """When every element is a table of one metatable whose __lt is a Lua
    function: `lt` for them with that lookup done once (operators.lt would
    find the same function on every comparison), calling it as meta_call
    does (one nested C call, META_CALL_COST steps). A comparison whose
    left operand's metatable or __lt the comparator has changed, one at
    the C-stack limit (its error's position) and any inside a twin's
    direct call take operators.lt itself; else None."""
    x = arr[0]
    mach = RUNNING[0]  # the sort runs on it: a comparison never switches contexts
    if type(x) is not LuaTable or (m := x.meta) is None or mach.direct:
        return None
    h = m.hash.get("__lt")
    if type(h) is not FunctionType or (steps := h.__globals__.get("_S")) is None:
        return None
    for v in arr:
        if type(v) is not LuaTable or v.meta is not m:
            return None
    get = m.hash.get
    tick = h.__globals__["_tick"]
    generic = LO.lt

    def lt(a, b):
        # a is one of the elements (the sort works on a snapshot of them)
        if a.meta is not m or get("__lt") is not h or (n := mach.depth + 1) >= LUAI_MAXCCALLS or mach.direct:
            return generic(a, b)
        mach.depth = n
        try:
            steps[0] -= META_CALL_COST
            if steps[0] < 0:
                tick()
            return h(a, b)  # its result's truth is tested by _auxsort, as by operators.lt
        finally:
            mach.depth = n - 1

    return lt


def t_sort(*args):
    t = _checktab(args, 1, "sort", _TAB_R | _TAB_W | _TAB_L)
    n = _len(t)
    if n <= 1:
        return EMPTY
    if n >= 2**31 - 1:
        arg_error(1, "sort", "array too big")
    comp = None
    if len(args) >= 2 and args[1] is not None:
        comp = check_function(args, 2, "sort")
    lt = LO.lt if comp is None else comp
    if _plain(t) and len(t.arr) == n and comp is None:
        if _python_sortable(t.arr):
            t.arr.sort()
            return EMPTY
        lt = _class_lt(t.arr) or lt
    with CCall():  # comparisons run as C Lua's C calls: not yieldable
        _sort(t, n, lt)
    return EMPTY


def _sort(t, n: int, lt) -> None:
    if _plain(t) and len(t.arr) == n:
        arr = t.arr
        a = [None]
        a.extend(arr)
        try:
            _auxsort(a, 1, n, lt)
        finally:
            del a[0]
            arr[:n] = a
            while arr and arr[-1] is None:
                arr.pop()
        return
    view = _RawView(t) if _plain(t) else _TableView(t)
    _auxsort(view, 1, n, lt)


# ------------------------------------------------------------- opening


def open_lib(state) -> None:
    lib = lib_table(
        {
            "concat": t_concat,
            "insert": t_insert,
            "move": t_move,
            "pack": t_pack,
            "remove": t_remove,
            "sort": t_sort,
            "unpack": t_unpack,
        },
        "table.",
    )
    state.G.set_str("table", lib)
