"""Lua 5.4's `math` library (lmathlib.c), including its xoshiro256** generator.

Integer/float rules follow Lua exactly: `floor`/`ceil` (and the integral
part of `modf`) return an integer when the result fits, `abs`/`fmod`/`max`/
`min` keep integers as integers, and functions implemented by C's libm
return C's special values (inf, -inf, NaN) instead of raising, with NaN
signs as glibc produces them (`-nan` for most invalid operations).
"""

from __future__ import annotations

import math as _m
import time as _time

from ..runtime import values as V
from ..runtime import operators as LO
from ..runtime.args import arg_error, check_any, check_int, check_number, opt_int
from ..errors import lua_error as _error
from ..runtime.values import DEFAULT_NAN, INF, MAXI, MINI, Multi
from . import lib_table



_M64 = 0xFFFFFFFFFFFFFFFF
_POS_NAN = _m.copysign(_m.nan, 1.0)  # the positive NaN glibc's asin/acos/log10 return


def _is_int(args, n: int) -> bool:
    """lua_isinteger: the argument is an actual integer (not a string)."""
    return len(args) >= n and type(args[n - 1]) is int


def _flt(args, n: int, fname: str) -> float:
    return float(check_number(args, n, fname))


def _numint(d: float):
    """Lua's pushnumint: the float d as an integer if it fits, else d."""
    if d != d or d == INF or d == -INF:
        return d
    if -9.2233720368547758e18 <= d < 9.2233720368547758e18:
        return int(d)
    return d


# ------------------------------------------------------------ basic ops


def m_abs(*args):
    if _is_int(args, 1):
        n = args[0]
        return V.wrap(-n) if n < 0 else n
    return _m.fabs(_flt(args, 1, "abs"))


def m_ceil(*args):
    x = args[0] if args else None
    if type(x) is int:
        return x
    if type(x) is not float:
        x = _flt(args, 1, "ceil")
    if x != x or x == INF or x == -INF:
        return x
    c = _m.ceil(x)
    return c if MINI <= c <= MAXI else float(c)


def m_floor(*args):
    x = args[0] if args else None
    if type(x) is int:
        return x
    if type(x) is not float:
        x = _flt(args, 1, "floor")
    if x != x or x == INF or x == -INF:
        return x
    f = _m.floor(x)
    return f if MINI <= f <= MAXI else float(f)


def _c_fmod(a: float, b: float) -> float:
    """C's fmod (NaN for a zero divisor or an infinite dividend)."""
    if a != a:
        return a
    if b != b:
        return b
    if b == 0.0 or a == INF or a == -INF:
        return DEFAULT_NAN
    return _m.fmod(a, b)


def m_fmod(*args):
    if _is_int(args, 1) and _is_int(args, 2):
        a, d = args[0], args[1]
        if d == 0:
            arg_error(2, "fmod", "zero")
        if d == -1:
            return 0
        r = abs(a) % abs(d)  # C's '%' truncates toward zero
        return -r if a < 0 else r
    # C evaluates fmod's two luaL_checknumber calls right to left
    b = _flt(args, 2, "fmod")
    a = _flt(args, 1, "fmod")
    return _c_fmod(a, b)


def m_modf(*args):
    if _is_int(args, 1):
        return Multi((args[0], 0.0))
    n = _flt(args, 1, "modf")
    if n != n:
        return Multi((n, n - n))
    if n == INF or n == -INF:
        return Multi((n, 0.0))
    ip = float(_m.ceil(n)) if n < 0 else float(_m.floor(n))
    return Multi((_numint(ip), 0.0 if n == ip else n - ip))


def m_tointeger(*args):
    if args:
        v = args[0]
        if type(v) is int:
            return v
        r = V.tointeger(v)
        if r is not None:
            return r
    check_any(args, 1, "tointeger")
    return None


def m_type(*args):
    v = check_any(args, 1, "type")
    t = type(v)
    if t is int:
        return "integer"
    if t is float:
        return "float"
    return None


def m_ult(*args):
    a = check_int(args, 1, "ult")
    b = check_int(args, 2, "ult")
    return (a & _M64) < (b & _M64)


def m_max(*args):
    n = len(args)
    if n == 2:
        a, b = args
        ta, tb = type(a), type(b)
        if (ta is int or ta is float) and (tb is int or tb is float):
            return b if a < b else a
    elif n < 1:
        arg_error(1, "max", "value expected")
    best = args[0]
    for i in range(1, n):
        v = args[i]
        if LO.lt(best, v):
            best = v
    return best


def m_min(*args):
    n = len(args)
    if n == 2:
        a, b = args
        ta, tb = type(a), type(b)
        if (ta is int or ta is float) and (tb is int or tb is float):
            return b if b < a else a
    elif n < 1:
        arg_error(1, "min", "value expected")
    best = args[0]
    for i in range(1, n):
        v = args[i]
        if LO.lt(v, best):
            best = v
    return best


# ------------------------------------------------------ libm functions


def _libm(x: float, func, invalid_nan=DEFAULT_NAN) -> float:
    """A libm function with C's results where Python's math raises."""
    try:
        return func(x)
    except ValueError:
        return invalid_nan
    except OverflowError:
        return INF


def m_deg(*args):
    return _flt(args, 1, "deg") * (180.0 / _m.pi)


def m_rad(*args):
    return _flt(args, 1, "rad") * (_m.pi / 180.0)


def m_sqrt(*args):
    return _libm(_flt(args, 1, "sqrt"), _m.sqrt)


def m_exp(*args):
    return _libm(_flt(args, 1, "exp"), _m.exp)


def m_sin(*args):
    return _libm(_flt(args, 1, "sin"), _m.sin)


def m_cos(*args):
    return _libm(_flt(args, 1, "cos"), _m.cos)


def m_tan(*args):
    return _libm(_flt(args, 1, "tan"), _m.tan)


def m_asin(*args):
    return _libm(_flt(args, 1, "asin"), _m.asin, _POS_NAN)


def m_acos(*args):
    return _libm(_flt(args, 1, "acos"), _m.acos, _POS_NAN)


def _c_log(x: float, func=_m.log) -> float:
    if x != x:
        return x
    if x == 0.0:
        return -INF
    if x < 0.0:
        return DEFAULT_NAN
    if x == INF:
        return INF
    return func(x)


def m_log(*args):
    x = _flt(args, 1, "log")
    if len(args) < 2 or args[1] is None:
        return _c_log(x)
    base = _flt(args, 2, "log")
    if base == 2.0:
        return _c_log(x, _m.log2)
    if base == 10.0:
        return _POS_NAN if x < 0.0 else _c_log(x, _m.log10)
    return _c_div(_c_log(x), _c_log(base))


def _c_div(a: float, b: float) -> float:
    """C's float division (no exception on a zero divisor)."""
    if b == 0.0:
        if a != a:
            return a
        if a == 0.0:
            return DEFAULT_NAN
        return _m.copysign(INF, a) * _m.copysign(1.0, b)
    return a / b


def m_atan(*args):
    y = _flt(args, 1, "atan")
    x = args[1] if len(args) >= 2 else None
    x = 1.0 if x is None else _flt(args, 2, "atan")
    return _m.atan2(y, x)


# ------------------------------------------- Lua 5.3's, in 5.4's default build
# (LUA_COMPAT_MATHLIB, which LUA_COMPAT_5_3 turns on in Lua's makefile and Debian's)


def m_pow(*args):
    return LO.float_pow(_flt(args, 1, "pow"), _flt(args, 2, "pow"))


def m_ldexp(*args):
    x = _flt(args, 1, "ldexp")
    e = check_int(args, 2, "ldexp")
    e = ((e + 2**31) & 0xFFFFFFFF) - 2**31  # C's (int) cast
    if x != x or x in (0.0, INF, -INF):
        return x
    try:
        return _m.ldexp(x, e)
    except OverflowError:
        return _m.copysign(INF, x)


def m_frexp(*args):
    x = _flt(args, 1, "frexp")
    if x != x or x in (INF, -INF):
        return Multi((x, 0))
    m, e = _m.frexp(x)
    return Multi((m, e))


def m_cosh(*args):
    x = _flt(args, 1, "cosh")
    return _libm(x, _m.cosh) if x == x else x


def m_sinh(*args):
    x = _flt(args, 1, "sinh")
    if x != x:
        return x
    try:
        return _m.sinh(x)
    except OverflowError:
        return _m.copysign(INF, x)


def m_tanh(*args):
    x = _flt(args, 1, "tanh")
    return x if x != x else _m.tanh(x)


def m_log10(*args):
    x = _flt(args, 1, "log10")
    if x < 0.0:
        return _POS_NAN  # glibc's log10 of a negative number
    return _c_log(x, _m.log10)


# ------------------------------------------------------------- random


class Xoshiro256:
    """xoshiro256**, as Lua 5.4's math.random (lmathlib.c, 64-bit path)."""

    __slots__ = ("s", "_seed")

    def __init__(self, n1: int = 0, n2: int = 0):
        # seeded at the first draw: every state opens the library, few draw
        # from it, and seeding cost more than the rest of the opening
        self.s = None
        self._seed = (n1, n2)

    def seed(self, n1: int, n2: int) -> None:
        self.s = [n1 & _M64, 0xFF, n2 & _M64, 0]
        for _ in range(16):
            self.next()  # discard initial values to "spread" the seed

    def next(self) -> int:
        if self.s is None:
            self.seed(*self._seed)
        s0, s1, s2, s3 = self.s
        r = ((s1 * 5) & _M64)
        r = ((((r << 7) | (r >> 57)) & _M64) * 9) & _M64
        t = (s1 << 17) & _M64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & _M64
        self.s = [s0, s1, s2, s3]
        return r

    def project(self, ran: int, n: int) -> int:
        """A uniform integer in [0, n] from the random value ran (Lua's
        `project`: mask to the smallest 2^b-1 >= n, then reject)."""
        if n & (n + 1) == 0:  # n + 1 is a power of 2
            return ran & n
        lim = (1 << n.bit_length()) - 1
        ran &= lim
        while ran > n:
            ran = self.next() & lim
        return ran


def _state_random(state) -> Xoshiro256:
    g = getattr(state, "random", None)
    if g is None:
        g = Xoshiro256(int(_time.time()), id(state))
        try:
            state.random = g
        except AttributeError:
            pass
    return g


def _make_random(state):
    def m_random(*args):
        g = _state_random(state)
        rv = g.next()
        n = len(args)
        if n == 0:
            return (rv >> 11) * (0.5**53)
        if n == 1:
            low = 1
            up = check_int(args, 1, "random")
            if up == 0:
                return rv - (1 << 64) if rv > MAXI else rv
        elif n == 2:
            low = check_int(args, 1, "random")
            up = check_int(args, 2, "random")
        else:
            _error("wrong number of arguments")
        if low > up:
            arg_error(1, "random", "interval is empty")
        p = g.project(rv, (up - low) & _M64)
        return V.wrap(p + low)

    def m_randomseed(*args):
        g = _state_random(state)
        if not args:
            n1 = int(_time.time()) & _M64
            n2 = id(g) & _M64
        else:
            n1 = check_int(args, 1, "randomseed")
            n2 = opt_int(args, 2, "randomseed", 0)
        g.seed(n1, n2)
        return Multi((V.wrap(n1), V.wrap(n2)))

    return m_random, m_randomseed


# ------------------------------------------------------------- opening


def open_lib(state) -> None:
    if getattr(state, "random", None) is None:
        _state_random(state)
    m_random, m_randomseed = _make_random(state)
    lib = lib_table(
        {
            "abs": m_abs,
            "ceil": m_ceil,
            "floor": m_floor,
            "fmod": m_fmod,
            "modf": m_modf,
            "tointeger": m_tointeger,
            "type": m_type,
            "ult": m_ult,
            "max": m_max,
            "min": m_min,
            "sqrt": m_sqrt,
            "deg": m_deg,
            "rad": m_rad,
            "exp": m_exp,
            "log": m_log,
            "sin": m_sin,
            "cos": m_cos,
            "tan": m_tan,
            "asin": m_asin,
            "acos": m_acos,
            "atan": m_atan,
            "random": m_random,
            "randomseed": m_randomseed,
            "cosh": m_cosh,
            "sinh": m_sinh,
            "tanh": m_tanh,
            "pow": m_pow,
            "frexp": m_frexp,
            "ldexp": m_ldexp,
            "log10": m_log10,
        },
        "math.",
    )
    lib.set_str("pi", _m.pi)
    lib.set_str("huge", INF)
    lib.set_str("maxinteger", MAXI)
    lib.set_str("mininteger", MINI)
    state.G.set_str("math", lib)

