"""Lua numbers: 64-bit integer wraparound, arithmetic on two numbers, Lua's
float formatting, and string-to-number conversion (luaO_str2num), with no
other dependency: the compiler folds constants with `arith`, and the
runtime's operators (runvil.lua.runtime.operators) run the same cores
once their operands are numbers."""

from __future__ import annotations

import math
import re

MAXI = 2**63 - 1
MINI = -(2**63)
INF = float("inf")
#: the NaN x86-64's C gives for 0.0/0.0 (its sign bit set: `-nan`), made
#: so on every platform, as runvil prints NaN as x86-64 lua5.4 does
DEFAULT_NAN = math.copysign(math.nan, -1.0)
#: the NaN of the C library's own results (glibc's log10(-1), ...): `nan`
POSITIVE_NAN = math.copysign(math.nan, 1.0)


def wrap(i: int) -> int:
    """Wraps a Python int to Lua's signed 64-bit integer."""
    if MINI <= i <= MAXI:
        return i
    return ((i + 2**63) & 0xFFFFFFFFFFFFFFFF) - 2**63


def fmt_float(x: float) -> str:
    """Lua's `%.14g` float formatting, with `.0` added to integral values."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if x == INF:
        return "inf"
    if x == -INF:
        return "-inf"
    s = "%.14g" % x
    if s.lstrip("-").isdigit():
        s += ".0"
    return s


def fmt_number(x) -> str:
    if type(x) is int:
        return str(x)
    return fmt_float(x)


def float_to_int(x: float):
    """The integer equal to float x, or None (Lua's luaV_flttointns, exact)."""
    if x.is_integer() and -9.3e18 < x < 9.3e18:
        i = int(x)
        if MINI <= i <= MAXI:
            return i
    return None


_SPACES = " \f\n\r\t\v"
#: whether a decimal numeral's body holds only the characters one may hold
_numeral_chars = re.compile(r"[0-9.eE+\-]*").fullmatch


def str2number(s: str):
    """Lua's string-to-number conversion (luaO_str2num), or None."""
    if len(s) <= 18 and s.isdigit() and s.isascii():
        return int(s)  # plain decimal digits (isascii: no '²'), too few to overflow
    s = s.strip(_SPACES)
    if not s:
        return None
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    if body[:2] in ("0x", "0X"):
        return _hex2number(body[2:], neg)
    if not body or body[0] not in "0123456789.":
        return None  # rejects 'inf', 'nan', '+-1', ...
    if _numeral_chars(body) is None:
        return None
    if body.isdigit():
        digits = body.lstrip("0")
        # more than 19 digits never fits (and CPython refuses to convert
        # 4,300 or more): such a numeral is a float, as Lua reads it
        v = int(digits or "0") if len(digits) <= 19 else MAXI + 2
        if v <= MAXI + (1 if neg else 0):
            return -v if neg else v
        try:
            return float(s)
        except ValueError:
            return None
    try:
        f = float(body)
    except ValueError:
        return None
    return -f if neg else f


def _hex2number(h: str, neg: bool):
    mant, exp = h, None
    for sep in "pP":
        if sep in h:
            mant, _, exp = h.partition(sep)
            break
    if exp is None and "." not in mant:
        if not mant or any(c not in "0123456789abcdefABCDEF" for c in mant):
            return None
        v = wrap(int(mant, 16))
        return wrap(-v) if neg else v
    ip, _, fp = mant.partition(".")
    digits = ip + fp
    if not digits or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    e = 0
    if exp is not None:
        if not exp or exp.lstrip("+-") == "" or not exp.lstrip("+-").isdigit() or exp[1:].strip("0123456789"):
            return None
        # a longer exponent only over- or underflows (CPython refuses to
        # read 4,300 digits)
        e = int(exp) if len(exp) < 12 else (-(10**12) if exp[0] == "-" else 10**12)
    try:
        v = math.ldexp(float(int(digits, 16)), e - 4 * len(fp)) if len(digits) < 250 else INF
    except OverflowError:
        v = INF
    return -v if neg else v


def tonumber(v):
    """A number for arithmetic: numbers as they are, numeric strings converted."""
    t = type(v)
    if t is int or t is float:
        return v
    if t is str:
        return str2number(v)
    return None


def tointeger(v):
    """An integer for bitwise operators and integer arguments, or None."""
    t = type(v)
    if t is int:
        return v
    if t is float:
        return float_to_int(v)
    if t is str:
        n = str2number(v)
        if n is not None:
            return tointeger(n)
    return None


# ------------------------------------------------------------- arithmetic


def float_div(x: float, y: float) -> float:
    """`/` on two floats, as C divides (a zero divisor gives inf or NaN)."""
    if y == 0.0:
        if x != x:
            return x  # C passes a NaN operand on, its sign with it
        if x == 0.0:
            return DEFAULT_NAN
        return math.copysign(INF, x) * math.copysign(1.0, y)
    return x / y


def float_idiv(x: float, y: float) -> float:
    """`//` on two floats: the floor of their quotient."""
    q = float_div(x, y)
    if q != q or q == INF or q == -INF or q == 0.0:
        return q
    return float(math.floor(q))


def fmod_lua(x: float, y: float) -> float:
    """Lua's float modulo: C fmod, then moved toward the divisor's sign."""
    if x != x:
        return x  # a NaN operand passes on, its sign with it
    if y != y:
        return y
    if y == 0.0 or math.isinf(x):
        return DEFAULT_NAN
    if math.isinf(y):
        if x == 0.0 or (x > 0) == (y > 0):
            return x
        return y
    r = math.fmod(x, y)
    if r != 0.0 and (r < 0) != (y < 0):
        r += y
    return r


def float_pow(x: float, y: float) -> float:
    """`^` on two floats, as C's pow gives it: a NaN operand passes on
    with its sign (except where pow is 1 whatever the other operand), and
    a NaN base with its sign bit set loses it for an odd integer exponent
    (glibc's pow squares a special base and gives it the sign an odd power
    of a negative base has: `(0/0)^-1` prints `nan`, `(0/0)^2` `-nan`)."""
    if y == 0.0 or x == 1.0:
        return 1.0
    if x != x:
        if y == y and y.is_integer() and abs(y) < 9007199254740992.0 and int(y) & 1 and math.copysign(1.0, x) < 0:
            return -x
        return x
    if y != y:
        return y
    try:
        return math.pow(x, y)
    except OverflowError:
        return INF if x > 0 or y % 2 == 0 else -INF
    except ValueError:
        if x == 0.0 and y < 0:
            return INF if (y % 2 != 1 or math.copysign(1.0, x) > 0) else -INF
        return DEFAULT_NAN


def shift_left(x: int, y: int) -> int:
    """Lua's logical shift on 64-bit integers (negative y shifts right)."""
    if y <= -64 or y >= 64:
        return 0
    u = x & 0xFFFFFFFFFFFFFFFF
    u = (u << y) & 0xFFFFFFFFFFFFFFFF if y >= 0 else u >> -y
    return u - 2**64 if u > MAXI else u


def _int_operands(x, y) -> tuple[int, int]:
    a, b = (v if type(v) is int else float_to_int(v) for v in (x, y))
    if a is None or b is None:
        raise ArithmeticError("number has no integer representation")
    return a, b


def _int_div(x: int, y: int) -> int:
    if y == 0:
        raise ZeroDivisionError("attempt to divide by zero")
    return wrap(x // y)


def _int_mod(x: int, y: int) -> int:
    if y == 0:
        raise ZeroDivisionError("attempt to perform 'n%0'")
    return x % y


def arith(op: str, x, y):
    """Lua's binary operator `op` ("+", "//", "<<", ...) on two numbers (int
    or float, no strings, no metamethods); raises ArithmeticError where Lua
    raises an error (an integer divided by zero, a float with no integer
    representation in a bitwise operation)."""
    if op in _BITWISE_OPS:
        a, b = _int_operands(x, y)
        return _BITWISE_OPS[op](a, b)
    both_int = type(x) is int and type(y) is int
    if op in _INT_OPS and both_int:
        return _INT_OPS[op](x, y)
    return _FLOAT_OPS[op](float(x), float(y))


_INT_OPS = {"+": lambda a, b: wrap(a + b), "-": lambda a, b: wrap(a - b), "*": lambda a, b: wrap(a * b),
            "//": _int_div, "%": _int_mod}
_FLOAT_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": float_div,
              "//": float_idiv, "%": fmod_lua, "^": float_pow}
_BITWISE_OPS = {"&": lambda a, b: a & b, "|": lambda a, b: a | b, "~": lambda a, b: a ^ b,
                "<<": shift_left, ">>": lambda a, b: shift_left(a, -b)}
