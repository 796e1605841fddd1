"""Lua pattern items: the character classes and sets of Lua 5.4 patterns
(C locale), and the translation of the common subset of patterns to Python
regexes (runvil.lua.lpattern runs the rest on its own matcher)."""

from __future__ import annotations

import re

from .errors import LuaError
from .errors import lua_error as error  # luaL_error: positioned at the caller

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


# ------------------------------------------------- translation to regexes


def _set_regex(cs: frozenset) -> str:
    if len(cs) == 256:
        return "."
    if len(cs) == 1:
        return re.escape(next(iter(cs)))
    codes = sorted(ord(c) for c in cs)
    if not codes:
        return "[^\\x00-\\xff]"
    parts = []
    i = 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        a, b = codes[i], codes[j]
        parts.append(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}")
        i = j + 1
    return "[" + "".join(parts) + "]"


def _frontier(cs: frozenset) -> str:
    """%f[set]: the previous char (NUL at the start) is not in the set and
    the current one (NUL at the end) is."""
    setrx = _set_regex(cs)
    if "\0" in cs:
        return f"(?<={_set_regex(ALL - cs)})(?:(?={setrx})|\\Z)"
    return f"(?<!{setrx})(?={setrx})"


_QUANT = {"*": "*", "+": "+", "?": "?", "-": "*?"}


def translate(p: str):
    """(regex source, position-capture flags, least match length, risk), or
    None when `p` is outside the subset that a regex reproduces exactly.
    The risk says how long a failing match may backtrack: (runs, refs,
    chars) where each of `runs` quantified items followed by more items
    multiplies the work by the longest run of `chars` (the union of their
    sets, as a bytes.translate table: 1 for a member, 0 for any other) in
    the subject, and each of `refs` back references by its length."""
    out = []
    open_quants = []  # sets of quantified items no later item follows yet
    risky: set = set()
    runs = refs = 0
    poscaps = []
    stack = []  # indices of the captures still open
    minlen = 0  # chars every match consumes at least
    depth = 1  # upper bound of nested match() calls, as Lua counts them
    pend = len(p)
    i = 0
    try:
        while i < pend:
            c = p[i]
            if c == "(":
                depth += 1
                if i + 1 < pend and p[i + 1] == ")":
                    poscaps.append(True)
                    out.append("()")
                    i += 2
                else:
                    stack.append(len(poscaps))
                    poscaps.append(False)
                    out.append("(")
                    i += 1
                continue
            if c == ")":
                if not stack:
                    return None
                stack.pop()
                depth += 1
                out.append(")")
                i += 1
                continue
            if c == "$" and i + 1 == pend:
                out.append("\\Z")
                runs += len(open_quants)
                risky.update(*open_quants)
                break
            runs += len(open_quants)
            risky.update(*open_quants)
            open_quants = []
            if c == "%" and i + 1 < pend and p[i + 1] in "bf0123456789":
                d = p[i + 1]
                if d == "b":
                    return None
                if d == "f":  # a frontier is a pair of one-char lookarounds
                    if i + 2 >= pend or p[i + 2] != "[":
                        return None
                    ep = class_end(p, i + 2)
                    out.append(_frontier(item_set(p, i + 2, ep)))
                    i = ep
                    continue
                lvl = ord(d) - 49  # a back reference to a closed text capture
                if lvl < 0 or lvl >= len(poscaps) or poscaps[lvl] or lvl in stack:
                    return None
                out.append(f"(?:\\{lvl + 1})")
                refs += 1
                i += 2
                continue
            ep = class_end(p, i)
            cs = item_set(p, i, ep)
            out.append(_set_regex(cs))
            if ep < pend and p[ep] in _QUANT:
                out.append(_QUANT[p[ep]])
                open_quants.append(cs)
                depth += 1
                if p[ep] == "+":
                    minlen += 1
                ep += 1
            else:
                minlen += 1
            i = ep
    except LuaError:
        return None
    if stack or len(poscaps) > MAXCAPTURES or depth > MAXCCALLS:
        return None
    risk = (runs, refs, bytes(c in risky for c in ALL_CHARS) if risky else None)
    return "".join(out), tuple(poscaps), minlen, risk
