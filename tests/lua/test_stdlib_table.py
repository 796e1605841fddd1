"""The `table` library: exact unit tests, and differential tests against
real Lua 5.4 (lupa) on hypothesis-generated tables and arguments."""

from __future__ import annotations

from runvil.lua.runtime.machine import Machine, running, switch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runvil.lua.runtime import values as V
from runvil.lua.runtime import operators as LO
from runvil.lua.errors import LuaError
from runvil.lua.stdlib import table as tablib
from runvil.lua.runtime.tables import LuaTable

from .libdiff import L, norm, open_lib, real
from .libdiff import call as libcall

MAXI, MINI = 2**63 - 1, -(2**63)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


T = open_lib(tablib, "table")


def call(name, *args):
    return libcall(T, name, *args)


@pytest.fixture(autouse=True)
def _no_running_state():
    """The builtins are called by the tests themselves, so they account to
    no state: a state an earlier test ran on this thread (and may have left
    with its step budget spent) is not theirs."""
    prev = switch(Machine())
    yield
    switch(prev)


def mk(*items, **fields) -> LuaTable:
    """A table built as Lua's constructor would: t[1], t[2], ... then fields."""
    t = LuaTable()
    for i, v in enumerate(items, 1):
        if v is not None:
            t.set_int(i, v)
    for k, v in fields.items():
        t.set_str(k, v)
    return t


def contents(t) -> dict:
    """Every key/value of a table (ours or lupa's), normalised."""
    if isinstance(t, LuaTable):
        return {norm(k): norm(t.get(k)) for k in t.keys_snapshot()}
    return {norm(k): norm(v) for k, v in t.items()}


# ------------------------------------------------------------ real Lua


class Cmp:
    """A sort comparator, written once in Lua and once in Python."""

    def __init__(self, name, lua_src, py):
        self.name, self.lua_src, self.py = name, lua_src, py
        self.lua_fn = L.eval(lua_src.encode())

    def __repr__(self):
        return f"Cmp({self.name})"


COMPARATORS = [
    Cmp("lt", "function(a, b) return a < b end", lambda a, b: LO.lt(a, b)),
    Cmp("gt", "function(a, b) return a > b end", lambda a, b: LO.lt(b, a)),
    Cmp("le", "function(a, b) return a <= b end", lambda a, b: LO.le(a, b)),
    Cmp("true", "function(a, b) return true end", lambda a, b: True),
    Cmp("false", "function(a, b) return false end", lambda a, b: False),
    Cmp("nil", "function(a, b) end", lambda a, b: V.EMPTY),
]


def to_lua(v):
    if isinstance(v, str):
        return v.encode("latin-1")
    if isinstance(v, list):
        t = L.table()
        for i, x in enumerate(v, 1):
            if x is not None:
                t[i] = to_lua(x)
        return t
    if isinstance(v, Cmp):
        return v.lua_fn
    return v


def to_ours(v):
    if isinstance(v, list):
        return mk(*[to_ours(x) for x in v])
    if isinstance(v, Cmp):
        return v.py
    return v


def lua(name, *args):
    return real(f"table.{name}", *args)


def differential(name, *spec):
    """Runs table.<name> on both sides; compares results and the tables."""
    ours_args = [to_ours(a) for a in spec]
    lua_args = [to_lua(a) for a in spec]
    ours, theirs = call(name, *ours_args), lua(name, *lua_args)
    assert ours == theirs, (name, spec, ours, theirs)
    for a, b in zip(ours_args, lua_args):
        if isinstance(a, LuaTable):
            assert contents(a) == contents(b), (name, spec, contents(a), contents(b))


# ----------------------------------------------------------- strategies

scalars = st.one_of(
    st.integers(-50, 50),
    st.sampled_from([MAXI, MINI, 0.0, -0.0, 1.5, float("inf"), "", "a", "b", "ab", "10", "9"]),
    st.floats(-100, 100),
    st.text("abc\x00\xff", max_size=3),
)
ints = st.lists(st.integers(-20, 20), max_size=40)
floats = st.lists(st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.0])), max_size=40)
strs = st.lists(st.text("abz\x00\xe9", max_size=3), max_size=40)
mixed = st.lists(scalars, max_size=12)
lists = st.one_of(ints, strs, mixed, st.lists(st.integers(1, 3), max_size=120))
positions = st.one_of(st.integers(-3, 45), st.sampled_from([MAXI, MINI, 2**31, 1.0, 2.5, "2", "x", None, True]))
absent = object()


def present(*args):
    return [a for a in args if a is not absent]


# ------------------------------------------------------- differential


@SETTINGS
@given(st.lists(scalars, max_size=10), st.one_of(st.just(absent), positions), st.one_of(scalars, st.none()),
       st.booleans())
def test_differential_insert(items, pos, value, extra):
    args = present(pos, value)
    if extra:
        args.append(1)
    differential("insert", items, *args)


@SETTINGS
@given(st.lists(scalars, max_size=10), st.one_of(st.just(absent), positions))
def test_differential_remove(items, pos):
    differential("remove", items, *present(pos))


@SETTINGS
@given(
    st.lists(st.one_of(scalars, scalars, st.sampled_from([True, []])), max_size=10),
    st.one_of(st.just(absent), st.sampled_from(["", ", ", "-", 1, 2.5, None, []])),
    st.one_of(st.just(absent), positions),
    st.one_of(st.just(absent), positions),
)
def test_differential_concat(items, sep, i, j):
    if j is not absent and i is absent:
        i = None
    if i is not absent and sep is absent:
        sep = None
    differential("concat", items, *present(sep, i, j))


@SETTINGS
@given(
    st.lists(scalars, max_size=10),
    st.one_of(st.just(absent), positions, st.sampled_from([-(2**40), 2**40])),
    st.one_of(st.just(absent), positions, st.sampled_from([-(2**40), 2**40])),
)
def test_differential_unpack(items, i, j):
    if j is not absent and i is absent:
        i = None
    differential("unpack", items, *present(i, j))


@SETTINGS
@given(st.sampled_from([None, 5, True]), st.sampled_from([(), (1, 0), (1, 2), (2,), (None, 1)]))
def test_differential_unpack_non_tables(v, ij):
    differential("unpack", v, *ij)


@SETTINGS
@given(
    st.lists(scalars, max_size=10),
    st.one_of(st.integers(-3, 12), st.sampled_from([MINI, MAXI, -(2**62), 2.0, 1.5, None])),
    st.one_of(st.integers(-3, 12), st.sampled_from([MINI, MAXI, 2**62, None])),
    st.one_of(st.integers(-3, 14), st.sampled_from([MINI, MAXI, MAXI - 3, None])),
    st.one_of(st.just(absent), st.none(), st.lists(scalars, max_size=6), st.sampled_from(["same", 7])),
)
def test_differential_move(items, f, e, t, dest):
    # keep Lua from looping over 2^62 keys: ranges are small or rejected
    fi, ei = (int(x) if type(x) is float and x.is_integer() else x for x in (f, e))
    if all(type(x) is int for x in (fi, ei)) and ei - fi > 1000 and (fi > 0 or ei < MAXI + fi):
        e = fi + 5
    if dest == "same":
        ours_t, lua_t = to_ours(items), to_lua(items)
        a = (ours_t, f, e, t, ours_t)
        b = (lua_t, f, e, t, lua_t)
        assert call("move", *a) == lua("move", *b), (items, f, e, t)
        assert contents(ours_t) == contents(lua_t)
        return
    differential("move", items, f, e, t, *present(dest))


@SETTINGS
@given(lists, st.one_of(st.just(absent), st.none(), st.sampled_from(COMPARATORS)))
def test_differential_sort(items, comp):
    differential("sort", items, *present(comp))


@SETTINGS
@given(st.one_of(ints, floats, strs))
def test_differential_sort_homogeneous(items):
    differential("sort", items)
    differential("sort", items, COMPARATORS[1])


@SETTINGS
@given(st.lists(scalars, max_size=10))
def test_differential_pack(items):
    differential("pack", *items)


# ---------------------------------------------------------------- units


def arr(t):
    return [t.get(i) for i in range(1, LO.length(t) + 1)]


def test_insert_append_and_positions():
    t = mk(1, 2, 3)
    assert T.get("insert")(t, 4) is V.EMPTY
    assert t.arr == [1, 2, 3, 4]
    T.get("insert")(t, 1, 0)
    T.get("insert")(t, 6, 5)
    T.get("insert")(t, 3, "x")
    assert t.arr == [0, 1, "x", 2, 3, 4, 5]
    T.get("insert")(t, 1.0, "y")
    assert t.arr[0] == "y"


def test_insert_nil_at_end_is_noop():
    t = mk(1, 2)
    T.get("insert")(t, None)
    assert t.arr == [1, 2]
    T.get("insert")(t, 3, None)
    assert t.arr == [1, 2]


@pytest.mark.parametrize(
    "args,message",
    [
        ((None, 1), "bad argument #1 to 'table.insert' (table expected, got nil)"),
        ((1, 2), "bad argument #1 to 'table.insert' (table expected, got number)"),
        ((), "bad argument #1 to 'table.insert' (table expected, got no value)"),
        ((mk(),), "wrong number of arguments to 'insert'"),
        ((mk(), 1, 2, 3), "wrong number of arguments to 'insert'"),
        ((mk(), 5, 1), "bad argument #2 to 'table.insert' (position out of bounds)"),
        ((mk(), 0, 1), "bad argument #2 to 'table.insert' (position out of bounds)"),
        ((mk(), "x", 1), "bad argument #2 to 'table.insert' (number expected, got string)"),
        ((mk(), 1.5, 1), "bad argument #2 to 'table.insert' (number has no integer representation)"),
    ],
)
def test_insert_errors(args, message):
    assert call("insert", *args) == ("error", message)


def test_remove():
    t = mk(1, 2, 3)
    assert T.get("remove")(t) == 3
    assert T.get("remove")(t, 1) == 1
    assert t.arr == [2]
    assert T.get("remove")(t, 2) is None  # #t + 1 is allowed
    assert T.get("remove")(mk()) is None
    assert T.get("remove")(mk(), 0) is None
    assert call("remove", mk(1, 2, 3), 7) == ("error", "bad argument #2 to 'table.remove' (position out of bounds)")
    assert call("remove", mk(), -1) == ("error", "bad argument #2 to 'table.remove' (position out of bounds)")
    t = mk(1, 2, 3)
    assert T.get("remove")(t, 4) is None and t.arr == [1, 2, 3]


def test_concat():
    c = T.get("concat")
    assert c(mk(1, 2.5, "x")) == "12.5x"
    assert c(mk(1, 2, 3), ", ") == "1, 2, 3"
    assert c(mk(1, 2, 3), "-", 2) == "2-3"
    assert c(mk(1, 2, 3), "-", 2, 2) == "2"
    assert c(mk(1, 2, 3), "-", 3, 2) == ""
    assert c(mk(), "x") == ""
    assert c(mk(1, 2), 0) == "102"
    assert c(mk(2**63 - 1, 1e100, -0.0)) == "92233720368547758071e+100-0.0"
    assert call("concat", mk(1, mk())) == ("error", "invalid value (table) at index 2 in table for 'concat'")
    assert call("concat", mk(1, 2), "", 1, 3) == ("error", "invalid value (nil) at index 3 in table for 'concat'")
    assert call("concat", mk(True)) == ("error", "invalid value (boolean) at index 1 in table for 'concat'")
    assert call("concat", "abc") == ("error", "bad argument #1 to 'table.concat' (table expected, got string)")
    assert call("concat", mk(), mk()) == ("error", "bad argument #2 to 'table.concat' (string expected, got table)")


def test_concat_checks_memory():
    old = running().max_string
    running().max_string = 1000
    try:
        t = mk(*(["x" * 100] * 20))
        with pytest.raises(LuaError, match="memory limit exceeded"):
            T.get("concat")(t)
    finally:
        running().max_string = old


def test_unpack_and_pack():
    u = T.get("unpack")
    assert u(mk(1, 2, 3)) == (1, 2, 3)
    assert u(mk(1, 2, 3), 2) == (2, 3)
    assert u(mk(1, 2, 3), 2, 5) == (2, 3, None, None)
    assert u(mk(1, 2, 3), -1, 1) == (None, None, 1)
    assert u(mk(1, 2, 3), 3, 1) is V.EMPTY
    assert u(mk(7)) == 7
    assert call("unpack", mk(), 1, 10**7) == ("error", "too many results to unpack")
    assert call("unpack", mk(), MINI, MAXI) == ("error", "too many results to unpack")
    assert call("unpack", None) == ("error", "attempt to get length of a nil value")
    p = T.get("pack")(1, None, 3, None)
    assert p.get("n") == 4 and p.get(1) == 1 and p.get(2) is None and p.get(3) == 3
    assert T.get("pack")().get("n") == 0


def test_move():
    m = T.get("move")
    t = mk(1, 2, 3, 4, 5)
    assert m(t, 1, 3, 3) is t
    assert arr(t) == [1, 2, 1, 2, 3]
    t = mk(1, 2, 3, 4, 5)
    m(t, 2, 5, 1)
    assert arr(t) == [2, 3, 4, 5, 5]
    d = mk()
    assert m(mk(1, 2, 3), 1, 3, 2, d) is d
    assert d.get(1) is None and [d.get(i) for i in (2, 3, 4)] == [1, 2, 3]
    assert call("move", mk(), 1, 2) == ("error", "bad argument #4 to 'table.move' (number expected, got no value)")
    assert call("move", mk(), MINI, 2, 1) == ("error", "bad argument #3 to 'table.move' (too many elements to move)")
    assert call("move", mk(), 1, MAXI, 2) == ("error", "bad argument #4 to 'table.move' (destination wrap around)")
    assert call("move", mk(), 1, 2, 1, 5) == ("error", "bad argument #5 to 'table.move' (table expected, got number)")


def test_sort():
    s = T.get("sort")
    t = mk(5, 3, 1, 4, 2)
    s(t)
    assert t.arr == [1, 2, 3, 4, 5]
    s(t, lambda a, b: a > b)
    assert t.arr == [5, 4, 3, 2, 1]
    t = mk("b", "a", "B", "\xff", "")
    s(t)
    assert t.arr == ["", "B", "a", "b", "\xff"]
    t = mk(3, 1.5, 2, -1.0)
    s(t)
    assert t.arr == [-1.0, 1.5, 2, 3]
    s(mk(1), 5)  # no check of the comparator for fewer than two elements
    assert call("sort", mk(1, 2), 5) == ("error", "bad argument #2 to 'table.sort' (function expected, got number)")
    assert call("sort", mk(3, "x")) == ("error", "attempt to compare string with number")
    assert call("sort", mk(*range(20)), lambda a, b: True) == ("error", "invalid order function for sorting")
    assert call("sort", LuaTable([1, None, 3])) == ("error", "attempt to compare nil with number")


def test_sort_large_and_stable_enough():
    import random

    rng = random.Random(5)
    xs = [rng.randint(-1000, 1000) for _ in range(3000)]
    t = mk(*xs)
    T.get("sort")(t, lambda a, b: a < b)
    assert t.arr == sorted(xs)
    ys = [rng.random() for _ in range(3000)]
    t = mk(*ys)
    T.get("sort")(t, lambda a, b: a > b)
    assert t.arr == sorted(ys, reverse=True)


def test_metamethods_are_respected():
    log = []
    proxy = mk(10, 20, 30)
    t = mk()
    meta = mk()
    meta.set_str("__index", lambda _t, k: proxy.get(k))
    meta.set_str("__newindex", lambda _t, k, v: (log.append((k, v)), proxy.set(k, v)) and V.EMPTY)
    meta.set_str("__len", lambda *_t: LO.length(proxy))  # Lua passes the operand twice
    t.meta = meta
    T.get("insert")(t, 40)
    assert log == [(4, 40)]
    assert T.get("concat")(t, ",") == "10,20,30,40"
    assert T.get("unpack")(t) == (10, 20, 30, 40)
    assert T.get("remove")(t, 1) == 10
    T.get("sort")(t, lambda a, b: a > b)
    assert proxy.arr == [40, 30, 20]
    assert T.get("unpack")(t) == (40, 30, 20)


def test_len_must_be_integer():
    t = mk()
    meta = mk()
    meta.set_str("__len", lambda *_t: "x")
    t.meta = meta
    assert call("insert", t, 1) == ("error", "object length is not an integer")


# ----------------------------------------------------- whole programs


def _state():
    try:
        from runvil.lua import LuaState

        return LuaState(libs=("base", "table", "math"))
    except Exception as e:  # the compiler is another engineer's work
        pytest.skip(f"LuaState unavailable: {e}")


def test_messages_from_lua_code_have_positions():
    st_ = _state()
    out = st_.execute(
        """
        local r = {}
        r[1] = select(2, pcall(function() table.insert({}, 1, 2, 3) end))
        r[2] = select(2, pcall(function() table.insert(nil, 1) end))
        r[3] = select(2, pcall(function() local s = table.concat({1, {}}) end))
        r[4] = select(2, pcall(function() table.sort({3, 2, 1}, function(a, b) return a.x end) end))
        local t = {5, 1, 4}
        table.sort(t, function(a, b) return a > b end)
        r[5] = table.concat(t, " ")
        return table.unpack(r)
        """,
        "=chunk",
    )
    assert out == (
        "chunk:3: wrong number of arguments to 'insert'",
        "chunk:4: bad argument #1 to 'insert' (table expected, got nil)",
        "chunk:5: invalid value (table) at index 2 in table for 'concat'",
        "chunk:6: attempt to index a number value (local 'a')",
        "5 4 1",
    )
