"""The `math` library: exact unit tests, and differential tests against
real Lua 5.4 (lupa) on hypothesis-generated arguments."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runvil.lua.errors import LuaError
from runvil.lua.stdlib import math as mathlib
from runvil.lua.runtime.tables import LuaTable

from .libdiff import L, FakeState, error_text, open_lib, pcall_of

MAXI, MINI = 2**63 - 1, -(2**63)
NAN = float("nan")
INF = float("inf")
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


M = open_lib(mathlib, "math")


def call(name, *args):
    """Our result as a tuple, or ('error', message)."""
    try:
        r = M.get(name)(*args)
    except LuaError as e:
        return ("error", str(e))
    return tuple(r) if isinstance(r, tuple) else (r,)


def same(a, b) -> bool:
    """Lua-value equality: types must match, NaN equals NaN, -0.0 != 0.0."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


def same_all(xs, ys) -> bool:
    return len(xs) == len(ys) and all(same(x, y) for x, y in zip(xs, ys))


# ------------------------------------------------------------ real Lua

def _to_lua(v):
    if isinstance(v, str):
        return v.encode("latin-1")
    if isinstance(v, LuaTable):
        return L.table()
    return v


def lua(name, *args):
    """Real Lua's results of pcall(math.<name>, args), as `call` gives ours
    (called straight from pcall, Lua names the function 'math.<name>' in
    messages, as runvil does for a builtin called from Python)."""
    r = pcall_of(f"math.{name}")(*[_to_lua(a) for a in args])
    if not r[1]:
        return ("error", error_text(r[2]))
    out = []
    for i in range(2, r[b"n"] + 1):
        v = r[i]
        out.append(v.decode("latin-1") if isinstance(v, bytes) else v)
    return tuple(out)


def check_same(name, *args):
    ours, theirs = call(name, *args), lua(name, *args)
    assert same_all(ours, theirs), (name, args, ours, theirs)


# ----------------------------------------------------------- strategies

special_ints = st.sampled_from([0, 1, -1, 2, -2, 3, 7, 10, MAXI, MINI, MAXI - 1, MINI + 1, 2**53, 2**31, -(2**32)])
special_floats = st.sampled_from(
    [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, INF, -INF, NAN, 2.0**53, 2.0**63, -(2.0**63), 2.0**64, 1e308, 5e-324,
     3.7, -3.7, 100.0, 10.0, 2.0, math.pi]
)
numbers = st.one_of(
    special_ints,
    special_floats,
    st.integers(MINI, MAXI),
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e6, 1e6),
)
others = st.sampled_from(["10", "3.7", "0x10", " 5 ", "-3", "abc", "", "1e400", None, True, False, LuaTable()])
values = st.one_of(numbers, numbers, numbers, others)

ONE_ARG = ["abs", "ceil", "floor", "sqrt", "exp", "sin", "cos", "tan", "asin", "acos", "tointeger", "type", "modf"]
TWO_ARGS = ["fmod", "log", "atan", "ult", "max", "min"]
LIBM = {"sqrt", "exp", "sin", "cos", "tan", "asin", "acos", "log", "atan"}


def close(ours, theirs, name) -> bool:
    """Exact, except libm results may differ in the last bit."""
    if same_all(ours, theirs):
        return True
    if name not in LIBM or len(ours) != 1 or len(theirs) != 1:
        return False
    a, b = ours[0], theirs[0]
    return type(a) is float and type(b) is float and math.isclose(a, b, rel_tol=1e-15)


# ------------------------------------------------------- differential


@SETTINGS
@given(st.sampled_from(ONE_ARG), values)
def test_differential_one_arg(name, x):
    ours, theirs = call(name, x), lua(name, x)
    assert close(ours, theirs, name), (name, x, ours, theirs)


@SETTINGS
@given(st.sampled_from(TWO_ARGS), values, values)
def test_differential_two_args(name, x, y):
    ours, theirs = call(name, x, y), lua(name, x, y)
    assert close(ours, theirs, name), (name, x, y, ours, theirs)


@SETTINGS
@given(st.sampled_from(["max", "min"]), st.lists(numbers, min_size=0, max_size=6))
def test_differential_max_min(name, xs):
    check_same(name, *xs)


@SETTINGS
@given(st.sampled_from(ONE_ARG + TWO_ARGS))
def test_differential_no_args(name):
    check_same(name)


@SETTINGS
@given(
    st.one_of(special_ints, st.integers(MINI, MAXI)),
    st.one_of(st.none(), special_ints, st.integers(MINI, MAXI)),
    st.lists(
        st.one_of(
            st.tuples(),
            st.tuples(st.one_of(special_ints, st.integers(-100, 100), st.integers(MINI, MAXI))),
            st.tuples(
                st.one_of(special_ints, st.integers(-100, 100)),
                st.one_of(special_ints, st.integers(-100, 100), st.integers(MINI, MAXI)),
            ),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_differential_random(seed1, seed2, calls):
    seed = (seed1,) if seed2 is None else (seed1, seed2)
    assert same_all(call("randomseed", *seed), lua("randomseed", *seed))
    for args in calls:
        ours, theirs = call("random", *args), lua("random", *args)
        assert same_all(ours, theirs), (seed, args, ours, theirs)


@SETTINGS
@given(st.sampled_from([1.5, "x", None, LuaTable(), 2.0**70, "7"]), st.sampled_from([(), (1,), (1, 2), (1, 2, 3)]))
def test_differential_random_errors(bad, shape):
    for pos in range(len(shape)):
        args = list(shape)
        args[pos] = bad
        check_same("random", *args)
    check_same("randomseed", bad)


# ---------------------------------------------------------------- units


def test_constants():
    assert M.get("pi") == math.pi
    assert M.get("huge") == INF
    assert M.get("maxinteger") == MAXI and M.get("mininteger") == MINI


@pytest.mark.parametrize(
    "name,args,expected",
    [
        ("floor", (3.7,), (3,)),
        ("floor", (-3.5,), (-4,)),
        ("floor", (-0.0,), (0,)),
        ("floor", ("3.7",), (3,)),
        ("floor", (2.0**63,), (2.0**63,)),
        ("floor", (-(2.0**63),), (MINI,)),
        ("ceil", (3.2,), (4,)),
        ("ceil", (-0.5,), (0,)),
        ("ceil", (INF,), (INF,)),
        ("abs", (MINI,), (MINI,)),
        ("abs", (-3,), (3,)),
        ("abs", ("-3",), (3.0,)),
        ("abs", (-0.0,), (0.0,)),
        ("fmod", (-7, 3), (-1,)),
        ("fmod", (7, -3), (1,)),
        ("fmod", (MINI, -1), (0,)),
        ("fmod", (7.5, 2), (1.5,)),
        ("fmod", (1, INF), (1.0,)),
        ("modf", (3.5,), (3, 0.5)),
        ("modf", (-3.5,), (-3, -0.5)),
        ("modf", (5,), (5, 0.0)),
        ("modf", (INF,), (INF, 0.0)),
        ("modf", (-INF,), (-INF, 0.0)),
        ("modf", (2.0**63,), (2.0**63, 0.0)),
        ("max", (1, 2.5, -1), (2.5,)),
        ("max", (1.0, 1), (1.0,)),
        ("min", (1, 1.0), (1,)),
        ("max", ("10", "9"), ("9",)),
        ("tointeger", (3.0,), (3,)),
        ("tointeger", (3.5,), (None,)),
        ("tointeger", ("8",), (8,)),
        ("tointeger", ("0x10",), (16,)),
        ("tointeger", (2.0**63,), (None,)),
        ("tointeger", (LuaTable(),), (None,)),
        ("type", (1,), ("integer",)),
        ("type", (1.0,), ("float",)),
        ("type", ("1",), (None,)),
        ("ult", (1, -1), (True,)),
        ("ult", (-1, 1), (False,)),
        ("log", (8, 2), (3.0,)),
        ("log", (100, 10), (2.0,)),
        ("log", (0,), (-INF,)),
        ("log", (27, 3), (math.log(27) / math.log(3),)),
        ("exp", (1000,), (INF,)),
        ("atan", (1, -1), (math.atan2(1, -1),)),
        ("atan", (-0.0, -1), (-math.pi,)),
        ("sqrt", (4,), (2.0,)),
    ],
)
def test_values(name, args, expected):
    assert same_all(call(name, *args), expected)


def test_nan_results():
    for name, args in [("sqrt", (-1,)), ("log", (-1,)), ("asin", (2,)), ("acos", (2,)), ("sin", (INF,)),
                       ("fmod", (1, 0.0)), ("fmod", (INF, 1)), ("log", (1, 1))]:
        (r,) = call(name, *args)
        assert r != r, (name, args)
    ip, frac = call("modf", NAN)
    assert ip != ip and frac != frac


@pytest.mark.parametrize(
    "name,args,message",
    [
        ("floor", (), "bad argument #1 to 'math.floor' (number expected, got no value)"),
        ("floor", (LuaTable(),), "bad argument #1 to 'math.floor' (number expected, got table)"),
        ("sqrt", (None,), "bad argument #1 to 'math.sqrt' (number expected, got nil)"),
        ("fmod", (1, 0), "bad argument #2 to 'math.fmod' (zero)"),
        ("fmod", (1, "x"), "bad argument #2 to 'math.fmod' (number expected, got string)"),
        ("max", (), "bad argument #1 to 'math.max' (value expected)"),
        ("min", (1, "a"), "attempt to compare string with number"),
        ("max", (1, "a"), "attempt to compare number with string"),
        ("tointeger", (), "bad argument #1 to 'math.tointeger' (value expected)"),
        ("type", (), "bad argument #1 to 'math.type' (value expected)"),
        ("ult", (1.5, 2), "bad argument #1 to 'math.ult' (number has no integer representation)"),
        ("random", (3, 1), "bad argument #1 to 'math.random' (interval is empty)"),
        ("random", (1, 2, 3), "wrong number of arguments"),
        ("random", (1.5,), "bad argument #1 to 'math.random' (number has no integer representation)"),
        ("randomseed", (1.5,), "bad argument #1 to 'math.randomseed' (number has no integer representation)"),
    ],
)
def test_errors(name, args, message):
    assert call(name, *args) == ("error", message)


def test_random_matches_lua():
    assert call("randomseed", 42) == (42, 0)
    assert call("random", 1, 100) == (50,)
    call("randomseed", 42)
    lua("randomseed", 42)
    for args in [(), (0,), (10,), (-5, 5), (MINI, MAXI), (1, 2**62 + 1)]:
        assert same_all(call("random", *args), lua("random", *args))


def test_random_ranges():
    call("randomseed", 7)
    for _ in range(200):
        (x,) = call("random")
        assert type(x) is float and 0.0 <= x < 1.0
        (y,) = call("random", 3, 5)
        assert y in (3, 4, 5)
        (z,) = call("random", 6)
        assert 1 <= z <= 6


def test_randomseed_without_args_returns_two_integers():
    a, b = call("randomseed")
    assert type(a) is int and type(b) is int


def test_states_are_independent():
    m1, m2 = open_lib(mathlib, "math"), open_lib(mathlib, "math")
    m1.get("randomseed")(5)
    m2.get("randomseed")(5)
    xs = [m1.get("random")(1000) for _ in range(5)]
    m2.get("random")()  # advances only m2
    m1.get("randomseed")(5)
    assert [m1.get("random")(1000) for _ in range(5)] == xs


def test_random_state_lives_on_state():
    s = FakeState()
    mathlib.open_lib(s)
    assert isinstance(s.random, mathlib.Xoshiro256)
