"""The `string` library (Lua 5.4's lstrlib), minus `string.dump`.

Strings hold one char per byte; every function works on those chars as C
works on bytes (ASCII/C-locale semantics for case and classes).
"""

from __future__ import annotations

import functools
from itertools import count, repeat
from operator import itemgetter
from re import Match

from ..runtime import values
from ..runtime.args import arg_error, check_int, check_str, opt_int, opt_str
from ..errors import builtin
from .patterns.matcher import GMATCH_PATTERNS, PATTERNS, all_captures, compile_pattern, error, find_match, has_specials
from ..runtime.helpers import adjust
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, Multi
from . import lib_table
from .limits import BIG_WORK, BYTES_PER_STEP, TINY_RESULT, reserve_result
from ..runtime.calldepth import CCall
from .strformat import str_format
from .strgsub import str_gsub
from .strpack import str_pack, str_packsize, str_unpack

MAXSIZE = 2**31 - 1  # lstrlib's MAXSIZE (INT_MAX)
MAXSTACK = 1000000  # LUAI_MAXSTACK: limit of values a builtin may return


def _ret(vals):
    if len(vals) == 1:
        return vals[0]
    return Multi(vals)


def posrelat_start(pos: int, n: int) -> int:
    """posrelatI: a 1-based start position clipped to [1, inf)."""
    if pos > 0:
        return pos
    if pos == 0 or pos < -n:
        return 1
    return n + pos + 1


def posrelat_end(pos: int, n: int) -> int:
    """getendpos: a 1-based end position clipped to [0, n]."""
    if pos > n:
        return n
    if pos >= 0:
        return pos
    if pos < -n:
        return 0
    return n + pos + 1


# ---------------------------------------------------------------- basics


# s:len(), s:reverse(), s:lower(), s:upper(): a string receiver is taken at
# once (extra arguments are ignored, as in Lua); any other takes check_str


def str_len(*args):
    if args and type(s := args[0]) is str:
        return len(s)
    return len(check_str(args, 1, "len"))


def str_sub(*args):
    # the common shapes, s:sub(i[, j]) with positive positions, s:sub(-k)
    n = len(args)
    if n == 3:
        s, i, j = args
        if type(s) is str and type(i) is int and type(j) is int:
            if i > 0:
                if j >= 0:
                    return s[i - 1:j]
                if j == -1:
                    return s[i - 1:]
            elif i < 0 and j == -1:  # the last -i chars (all of them when -i > #s, as posrelat)
                return s[i:]
    elif n == 2:
        s, i = args
        if type(s) is str and type(i) is int:
            if i > 0:
                return s[i - 1:]
            if i < 0:
                return s[i:]
    s = check_str(args, 1, "sub")
    n = len(s)
    i = posrelat_start(check_int(args, 2, "sub"), n)
    j = posrelat_end(opt_int(args, 3, "sub", -1), n)
    if i > j:
        return ""
    return s[i - 1:j]


def str_reverse(*args):
    s = args[0] if args and type(args[0]) is str else check_str(args, 1, "reverse")
    if len(s) > BIG_WORK:  # its work grows with the string: steps in proportion
        values.charge_steps(len(s) >> BYTES_PER_STEP)
    return s[::-1]


_LOWER = {c: c + 32 for c in range(65, 91)}
_UPPER = {c: c - 32 for c in range(97, 123)}


def str_lower(*args):
    s = args[0] if args and type(args[0]) is str else check_str(args, 1, "lower")
    if len(s) > BIG_WORK:
        values.charge_steps(len(s) >> BYTES_PER_STEP)
    return s.lower() if s.isascii() else s.translate(_LOWER)


def str_upper(*args):
    s = args[0] if args and type(args[0]) is str else check_str(args, 1, "upper")
    if len(s) > BIG_WORK:
        values.charge_steps(len(s) >> BYTES_PER_STEP)
    return s.upper() if s.isascii() else s.translate(_UPPER)


def str_rep(*args):
    s = check_str(args, 1, "rep")
    n = check_int(args, 2, "rep")
    sep = opt_str(args, 3, "rep", "")
    if n <= 0:
        return ""
    ls = len(s) + len(sep)
    if ls > MAXSIZE // n:
        error("resulting string too large")
    if ls == 0:
        return ""
    if ls * n > TINY_RESULT:  # a tiny result goes uncounted, as a new table does
        reserve_result(ls * n - len(sep))
        if ls * n > BIG_WORK:
            values.charge_steps((ls * n) >> (BYTES_PER_STEP + 1))  # copying is about twice as fast
    if sep:  # no list of n items: only the result is built
        return (s + sep) * (n - 1) + s
    return s * n


def str_byte(*args):
    if len(args) == 2:  # the common shape, s:byte(i) with i within the string (or past its end)
        s, i = args
        if type(s) is str and type(i) is int:
            if i > 0:
                return ord(s[i - 1]) if i <= len(s) else EMPTY
            if i < 0 and -i <= len(s):  # counted from the end, as posrelat
                return ord(s[i])
    s = check_str(args, 1, "byte")
    n = len(s)
    pi = opt_int(args, 2, "byte", 1)
    pose = posrelat_end(opt_int(args, 3, "byte", pi), n)
    posi = posrelat_start(pi, n)
    if posi > pose:
        return EMPTY
    cnt = pose - posi + 1
    if cnt >= MAXSTACK - 40:
        error("stack overflow (string slice too long)")
    if cnt == 1:
        return ord(s[posi - 1])
    return Multi(map(ord, s[posi - 1:pose]))


def str_char(*args):
    out = []
    for i in range(1, len(args) + 1):
        c = check_int(args, i, "char")
        if not 0 <= c <= 255:
            arg_error(i, "char", "value out of range")
        out.append(c)
    return "".join(map(chr, out))


# -------------------------------------------------------------- patterns


def _find_aux(args, find: bool):
    fname = "find" if find else "match"
    s = check_str(args, 1, fname)
    p = check_str(args, 2, fname)
    ls = len(s)
    init = posrelat_start(opt_int(args, 3, fname, 1), ls) - 1
    if init > ls:
        return None
    return _find_from(s, p, init, find, len(args) >= 4 and args[3] is not None and args[3] is not False)


def _find_from(s: str, p: str, init: int, find: bool, plain: bool):
    """find/match from the 0-based `init` (at most #s)."""
    if find and (plain or not has_specials(p)):
        k = s.find(p, init)
        if k < 0:
            return None
        return Multi((k + 1, k + len(p)))
    pat = compile_pattern(p)
    if not pat.anchor and (rx := pat.regex_for(s)) is not None:
        # find_match's regex search, without its layers
        m = rx.search(s, init)
        if m is None:
            return None
        st, e = m.start(), m.end()
        if find:
            return Multi((st + 1, e) + all_captures(pat.caps_of(m), s, st, e, False))
        return _ret(all_captures(pat.caps_of(m), s, st, e))
    r = find_match(s, p, init)
    if r is None:
        return None
    st, e, caps = r
    if find:
        return Multi((st + 1, e) + all_captures(caps, s, st, e, False))
    return _ret(all_captures(caps, s, st, e))


def str_find(*args):
    # the common shape: s:find(p[, init]) with a positive init within the
    # subject, on a plain pattern or on a regex safe on this subject with
    # text captures only; anything else (and every error) takes _find_aux
    n = len(args)
    if n == 2:
        s, p = args
        init = 0
    elif n == 3:
        s, p, init = args
        init = init - 1 if type(init) is int and init > 0 else -1
    elif n == 4 and args[3] is not None and args[3] is not False:  # s:find(text, init, true)
        s, p, init, _ = args
        if type(init) is int and type(s) is str and type(p) is str and 0 < init <= len(s) + 1:
            k = s.find(p, init - 1)
            return None if k < 0 else Multi((k + 1, k + len(p)))
        init = -1
    else:
        init = -1
    if init >= 0 and type(s) is str and type(p) is str and init <= len(s):
        pat = PATTERNS.get(p)
        if pat is None and not has_specials(p) or pat is not None and pat.plain:
            # no specials: plain text, as lmemfind (a new text is not compiled)
            k = s.find(p, init)
            return None if k < 0 else Multi((k + 1, k + len(p)))
        if pat is None:
            pat = compile_pattern(p)
        rx = pat.find_rx
        if rx is not None or (pat.textcaps and pat.regex is not None and (rx := pat.regex_for(s)) is not None):
            if (single := pat.single) is not None and init < len(s) and s[init] in single:
                return Multi((init + 1, init + 1))  # a one-char pattern matching at init: no search
            m = rx.match(s, init) if pat.anchor else rx.search(s, init)
            if m is None:
                return None
            if pat.poscaps:
                return Multi((m.start() + 1, m.end(), *m.groups()))
            return Multi((m.start() + 1, m.end()))
    return _find_aux(args, True)


def str_match(*args):
    # the common shape, as str_find's
    n = len(args)
    if n == 2:
        s, p = args
        init = 0
    elif n == 3:
        s, p, init = args
        init = init - 1 if type(init) is int and init > 0 else -1
    else:
        init = -1
    if init >= 0 and type(s) is str and type(p) is str and init <= len(s):
        pat = PATTERNS.get(p) or compile_pattern(p)
        rx = pat.find_rx
        if rx is not None or (pat.textcaps and pat.regex is not None and (rx := pat.regex_for(s)) is not None):
            if (single := pat.single) is not None and init < len(s) and (c := s[init]) in single:
                return c  # a one-char pattern matching at init: no search
            m = rx.match(s, init) if pat.anchor else rx.search(s, init)
            if m is None:
                return None
            ncaps = len(pat.poscaps)
            if ncaps == 0:
                return m.group()
            if ncaps == 1:
                return m.group(1)
            return Multi(m.groups())
    return _find_aux(args, False)


def str_gmatch(*args):
    if len(args) == 2:  # the common shape, s:gmatch(p) on a regex safe on s
        s, p = args
        if type(s) is str and type(p) is str:
            pat = GMATCH_PATTERNS.get(p) or compile_pattern(p, gmatch=True)
            if pat.nonempty and (rx := pat.any_rx or pat.regex_for(s)) is not None:
                return builtin(_gmatch_by_regex(pat, rx.finditer(s)))
    s = check_str(args, 1, "gmatch")
    p = check_str(args, 2, "gmatch")
    ls = len(s)
    init = posrelat_start(opt_int(args, 3, "gmatch", 1), ls) - 1
    if init > ls:
        init = ls + 1
    pat = compile_pattern(p, gmatch=True)
    if pat.nonempty and init <= ls and (rx := pat.regex_for(s)) is not None:
        # no empty match can occur, so re's scan is Lua's (the rule against
        # an empty match at the end of the last one never applies)
        return builtin(_gmatch_by_regex(pat, rx.finditer(s, init)))
    state = [init, -1]  # next position, end of the last match

    def gmatch_iter(*_):
        src, last = state
        if src > ls:
            return EMPTY
        r = pat.search(s, src, last)
        if r is None:
            state[0] = ls + 1
            return EMPTY
        st, e, caps = r
        state[0] = state[1] = e
        return _ret(all_captures(caps, s, st, e))

    builtin(gmatch_iter)
    return gmatch_iter


def _gmatch_by_regex(pat, matches):
    """gmatch's iterator over re's matches (each call the next one, then
    nothing ever after), its values as push_captures makes them; a generic
    for walks the same matches without calling it (_walk_matches)."""
    fn = _gmatch_iter(pat, matches)
    fn.lua_walk_calls = lambda s, c, n, steps, tick: _walk_matches(pat, matches, n, steps, tick)
    return fn


class _MatchWalk(map):
    """A generic for's walk over gmatch's matches on re at C speed: its
    items are mapped from re's matches and counted as they go; their
    steps (one an item, as runtime._charged charges) are charged when the
    loop ends (the loop's body charges as it goes, so the budget still
    stops a long loop)."""

    __slots__ = ("counted", "steps")

    def close(self):
        steps, self.steps = self.steps, None
        if steps is not None:
            steps[0] -= next(self.counted)

    def throw(self, e):
        self.close()
        raise e


_FIRST = itemgetter(0)


def _walk_matches(pat, matches, n: int, steps: list, tick):
    """A generic for over gmatch's iterator (runtime.make_giter), natively:
    each item the next of re's matches (taken from the iterator's own
    matches, so a loop left early leaves the rest to the next call), as
    n loop values."""
    ncaps = len(pat.poscaps)
    if pat.textcaps and (n == 1 and ncaps <= 1 or n == ncaps):
        if n == ncaps and ncaps > 1:
            items = map(Match.groups, matches)
        else:
            items = map(Match.group, matches, repeat(ncaps))  # group(1), or group(0): the whole match
        counted = count()
        walk = _MatchWalk(_FIRST, zip(items, counted))
        walk.counted = counted
        walk.steps = steps
        return walk
    return _walk_values(pat, matches, n, ncaps, steps, tick)


def _walk_values(pat, matches, n: int, ncaps: int, steps: list, tick):
    """_walk_matches for position captures or a count of loop variables
    other than the captures': each item made from a match in Python."""
    k = 64  # 64 - the items not charged yet (as runtime._charged counts them)
    try:
        for m in matches:
            k -= 1
            if not k:
                k = 64
                steps[0] -= 64
                if steps[0] < 0:
                    tick()
            vals = (m.group(),) if not ncaps else tuple(pat.caps_of(m))
            yield vals[0] if n == 1 else adjust(vals, n)
    finally:
        steps[0] -= 64 - k


def _gmatch_iter(pat, matches):
    ncaps = len(pat.poscaps)
    if ncaps == 0:
        def gmatch_iter(*_):
            m = next(matches, None)
            return EMPTY if m is None else m.group()
    elif ncaps == 1 and pat.textcaps:
        def gmatch_iter(*_):
            m = next(matches, None)
            return EMPTY if m is None else m.group(1)
    elif pat.textcaps:
        def gmatch_iter(*_):
            m = next(matches, None)
            return EMPTY if m is None else Multi(m.groups())
    else:
        def gmatch_iter(*_):
            m = next(matches, None)
            return EMPTY if m is None else _ret(pat.caps_of(m))
    return gmatch_iter


# ---------------------------------------------------------------- opening


def open_lib(state) -> None:
    lib = lib_table({
        "byte": str_byte,
        "char": str_char,
        "find": str_find,
        "format": str_format,
        "gmatch": str_gmatch,
        "gsub": str_gsub,
        "len": str_len,
        "lower": str_lower,
        "match": str_match,
        "pack": str_pack,
        "packsize": str_packsize,
        "rep": str_rep,
        "reverse": str_reverse,
        "sub": str_sub,
        "unpack": str_unpack,
        "upper": str_upper,
    }, "string.")
    state.G.set_str("string", lib)
    meta = LuaTable()
    meta.set_str("__index", lib)
    for event, arith in _arith_metamethods().items():
        meta.set_str(event, arith)
    try:
        state.string_meta = meta
        state.ns["_SMh"] = meta.hash  # s:m() in compiled code looks here first
    except AttributeError:
        pass


@functools.cache
def _arith_metamethods() -> dict:
    """The string metatable's arithmetic metamethods, made once: they hold
    nothing of a state, so every state's metatable shares them."""
    return {event: builtin(_arith_metamethod(event))
            for event in ("__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm", "__idiv")}


def _arith_metamethod(event: str):
    """lstrlib's `arith`: numeric strings are converted; otherwise the
    second operand's metamethod, else luaL_error (positioned at the Lua
    code doing the arithmetic, which values.string_arith cannot see from
    inside a builtin)."""

    def arith(a=None, b=None, *_):
        if values.tonumber(a) is not None and values.tonumber(b) is not None:
            return values.string_arith(event, a, b)
        if type(b) is str or (h := values.getmetamethod(b, event)) is None:
            error(f"attempt to {event[2:]} a '{values.type_name(a)}' with a '{values.type_name(b)}'")
        with CCall():  # trymt's lua_call: a nested C call, where the metamethod may not yield
            return values.call1(h, a, b)

    return arith
