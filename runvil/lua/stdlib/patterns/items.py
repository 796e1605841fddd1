"""Lua pattern items: the character classes and sets of Lua 5.4 patterns
(C locale), as the matcher (runvil.lua.stdlib.patterns.matcher) and the translation to
Python regexes (runvil.lua.stdlib.patterns.regex) read them."""

from __future__ import annotations

import re

from ...errors import LuaError
from ...errors import lua_error as error  # luaL_error: positioned at the caller

MAXCAPTURES = 32
MAXCCALLS = 200


# ------------------------------------------------------------ char classes

ALL = frozenset(map(chr, range(256)))
ALL_CHARS = tuple(map(chr, range(256)))  # in code order


def _chars(pred) -> frozenset:
    return frozenset(chr(c) for c in range(256) if pred(c))


def _isalpha(c):
    return 65 <= c <= 90 or 97 <= c <= 122


def _isdigit(c):
    return 48 <= c <= 57


_BASE = {
    "a": _chars(_isalpha),
    "c": _chars(lambda c: c < 32 or c == 127),
    "d": _chars(_isdigit),
    "g": _chars(lambda c: 33 <= c <= 126),
    "l": _chars(lambda c: 97 <= c <= 122),
    "p": _chars(lambda c: 33 <= c <= 126 and not _isalpha(c) and not _isdigit(c)),
    "s": _chars(lambda c: 9 <= c <= 13 or c == 32),
    "u": _chars(lambda c: 65 <= c <= 90),
    "w": _chars(lambda c: _isalpha(c) or _isdigit(c)),
    "x": _chars(lambda c: _isdigit(c) or 97 <= c <= 102 or 65 <= c <= 70),
    "z": frozenset("\0"),  # deprecated, still in Lua 5.4
}
#: class letter after '%' -> the chars it matches (C locale); other chars
#: after '%' match themselves
CLASS = dict(_BASE)
CLASS.update({k.upper(): ALL - v for k, v in _BASE.items()})


def class_chars(cl: str) -> frozenset:
    r = CLASS.get(cl)
    return r if r is not None else frozenset(cl)


def class_end(p: str, pi: int) -> int:
    """Index just after the single-char class starting at p[pi] (classEnd)."""
    pend = len(p)
    c = p[pi]
    pi += 1
    if c == "%":
        if pi >= pend:
            error("malformed pattern (ends with '%')")
        return pi + 1
    if c == "[":
        if pi < pend and p[pi] == "^":
            pi += 1
        while True:  # look for a ']' (the first char is always a member)
            if pi >= pend:
                error("malformed pattern (missing ']')")
            cc = p[pi]
            pi += 1
            if cc == "%" and pi < pend:
                pi += 1  # skip escapes (e.g. '%]')
            if pi < pend and p[pi] == "]":
                return pi + 1
    return pi


def bracket_set(p: str, pi: int, ec: int) -> frozenset:
    """The chars matched by the set p[pi] == '[' ... p[ec] == ']'."""
    sig = True
    if p[pi + 1] == "^":
        sig = False
        pi += 1
    members = set()
    pi += 1
    while pi < ec:
        c = p[pi]
        if c == "%":
            pi += 1
            members |= class_chars(p[pi])
        elif p[pi + 1] == "-" and pi + 2 < ec:
            members.update(map(chr, range(ord(c), ord(p[pi + 2]) + 1)))
            pi += 2
        else:
            members.add(c)
        pi += 1
    return frozenset(members) if sig else ALL - members


def item_set(p: str, pi: int, ep: int) -> frozenset:
    c = p[pi]
    if c == ".":
        return ALL
    if c == "%":
        return class_chars(p[pi + 1])
    if c == "[":
        return bracket_set(p, pi, ep - 1)
    return frozenset(c)
