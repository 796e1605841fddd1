"""Lua numbers: 64-bit integer wraparound, Lua's float formatting, and
string-to-number conversion (luaO_str2num), with no other dependency."""

from __future__ import annotations

import math
import re

MAXI = 2**63 - 1
MINI = -(2**63)
INF = float("inf")
DEFAULT_NAN = INF * 0.0  # the platform's default NaN, as C's 0.0/0.0 gives


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
