"""The `string` library (Lua 5.4's lstrlib), minus `string.dump`.

Strings hold one char per byte; every function works on those chars as C
works on bytes (ASCII/C-locale semantics for case and classes).
"""

from __future__ import annotations

from types import FunctionType

from .. import values
from ..args import arg_error, check_int, check_str, opt_int, opt_str, type_error
from ..errors import builtin
from ..lpattern import (
    PATTERNS,
    all_captures,
    capture,
    compile_pattern,
    error,
    find_match,
    has_specials,
)
from ..table import LuaTable
from ..values import EMPTY, Multi, reserve_memory
from . import lib_table
from .budget import INLINE_RESULT, reserve_result
from .coroutine import CCall
from .strformat import str_format, str_pack, str_packsize, str_unpack

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
    if len(args) <= 3:  # the common shapes, s:sub(i[, j]) with positive positions, s:sub(-k)
        if len(args) == 3:
            s, i, j = args
        elif len(args) == 2:
            (s, i), j = args, -1
        else:
            s = i = j = None
        if type(s) is str and type(i) is int and type(j) is int:
            if i > 0:
                if j >= 0:
                    return s[i - 1:j]
                if j == -1:
                    return s[i - 1:]
            elif i < 0 and j == -1:  # the last -i chars (all of them when -i > #s, as posrelat)
                return s[i:]
    s = check_str(args, 1, "sub")
    n = len(s)
    i = posrelat_start(check_int(args, 2, "sub"), n)
    j = posrelat_end(opt_int(args, 3, "sub", -1), n)
    if i > j:
        return ""
    return s[i - 1:j]


def str_reverse(*args):
    if args and type(s := args[0]) is str:
        return s[::-1]
    return check_str(args, 1, "reverse")[::-1]


_LOWER = {c: c + 32 for c in range(65, 91)}
_UPPER = {c: c - 32 for c in range(97, 123)}


def str_lower(*args):
    s = args[0] if args and type(args[0]) is str else check_str(args, 1, "lower")
    return s.lower() if s.isascii() else s.translate(_LOWER)


def str_upper(*args):
    s = args[0] if args and type(args[0]) is str else check_str(args, 1, "upper")
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
    reserve_result(ls * n - len(sep))
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
        pat = PATTERNS.get(p) or compile_pattern(p)
        if pat.plain:  # no specials: plain text, as lmemfind
            k = s.find(p, init)
            return None if k < 0 else Multi((k + 1, k + len(p)))
        rx = pat.find_rx
        if rx is not None or (pat.textcaps and pat.regex is not None and (rx := pat.regex_for(s)) is not None):
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
    nothing ever after), its values as push_captures makes them."""
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


def _parse_repl(repl: str) -> list:
    """A replacement string as pieces: str literals, ints (capture digit
    0-9) and None for an invalid '%' (an error when reached, as in add_s)."""
    pieces = []
    i = 0
    n = len(repl)
    while True:
        j = repl.find("%", i)
        if j < 0:
            if i < n:
                pieces.append(repl[i:])
            return pieces
        if j > i:
            pieces.append(repl[i:j])
        c = repl[j + 1] if j + 1 < n else "\0"
        if c == "%":
            pieces.append("%")
        elif "0" <= c <= "9":
            pieces.append(ord(c) - 48)
        else:
            pieces.append(None)
            return pieces
        i = j + 2


def _add_s(pieces: list, s: str, st: int, e: int, caps: list) -> str:
    out = []
    for piece in pieces:
        if type(piece) is str:
            out.append(piece)
        elif piece is None:
            error("invalid use of '%' in replacement string")
        elif piece == 0:
            out.append(s[st:e])
        else:
            v = capture(caps, piece - 1, s, st, e)
            out.append(str(v) if type(v) is int else v)
    return "".join(out)


def _replacer(repl, tr, src: str):
    """add_value as fn(start, end, caps) -> (text, changed)."""
    if tr is str:
        pieces = []

        def by_string(st, e, caps):
            if not pieces:
                pieces.append(_parse_repl(repl))
            ps = pieces[0]
            if len(ps) == 1 and type(ps[0]) is str:
                return ps[0], True
            return _add_s(ps, src, st, e, caps), True

        return by_string

    def by_call(st, e, caps):
        if tr is FunctionType:
            v = values.call1(repl, *all_captures(caps, src, st, e))
        else:
            v = values.index(repl, capture(caps, 0, src, st, e))
        if v is None or v is False:
            return src[st:e], False
        tv = type(v)
        if tv is int or tv is float:
            return values.fmt_number(v), True
        if tv is not str:
            error(f"invalid replacement value (a {values.type_name(v)})")
        return v, True

    return by_call


def _template(pat, repl: str):
    """A replacement string as (what re.subn takes, its literal length,
    its capture references), or False where that could differ from
    add_s: an invalid '%', a capture index the pattern lacks or a position
    capture (Lua's errors and numbers stay on its own path). Without
    references it is the literal text (re copies it at C speed); with
    them a function filling a %-format with the groups (re's own
    templates expand in Python on 3.11, slower)."""
    fmt = []
    groups = []
    literal = []
    ncaps = len(pat.poscaps)
    for piece in _parse_repl(repl):
        if type(piece) is str:
            fmt.append(piece.replace("%", "%%"))
            literal.append(piece)
            continue
        if piece is None:
            return False
        if piece == 0 or (piece == 1 and ncaps == 0):  # %1 without captures is the whole match
            groups.append(0)
        elif piece <= ncaps and not pat.poscaps[piece - 1]:
            groups.append(piece)
        else:
            return False
        fmt.append("%s")
    text = "".join(fmt)
    lit = sum(map(len, literal))
    if not groups:
        return "".join(literal).replace("\\", "\\\\"), lit, 0
    if len(groups) == 1:
        g = groups[0]
        return (lambda m: text % m.group(g)), lit, 1
    return (lambda m: text % m.group(*groups)), lit, len(groups)


def _gsub_by_template(pat, src: str, repl: str, max_s: int):
    """gsub with a string replacement as one re.subn, or None where that
    is not Lua's result (the pattern may match empty or is anchored, its
    regex is not safe on src, the replacement has no template) or the
    result could pass the string limit (the general path refuses it
    exactly where Lua's buffer would)."""
    if not pat.nonempty or pat.anchor or max_s <= 0:
        return None
    rx = pat.any_rx
    if rx is None and (pat.regex is None or (rx := pat.regex_for(src)) is None):
        return None
    t = pat.subs.get(repl)
    if t is None:
        if len(pat.subs) >= 64:
            pat.subs.clear()
        t = pat.subs[repl] = _template(pat, repl)
    if t is False:
        return None
    template, lit, refs = t
    srcl = len(src)
    count = min(max_s, srcl)  # matches are not empty: at most one per char
    # each match's text is replaced by the literals and at most `refs`
    # copies of it, so this bounds the result
    bound = srcl * max(1, refs) + count * lit
    if bound > values.MAX_STRING[0]:
        return None
    if bound > INLINE_RESULT:
        reserve_memory(bound)
        return Multi(rx.subn(template, src, count))
    r = rx.subn(template, src, count)
    reserve_result(len(r[0]))  # a small result: built at once, then counted
    return Multi(r)


def str_gsub(*args):
    if len(args) == 3:  # the common shape: s:gsub(p, repl) with string arguments
        src, p, repl = args
        if type(src) is str and type(p) is str:
            tr = type(repl)
            pat = PATTERNS.get(p) or compile_pattern(p)
            if tr is str:
                r = _gsub_by_template(pat, src, repl, len(src) + 1)
                if r is not None:
                    return r
            elif (tr is FunctionType or tr is LuaTable) and (rx := pat.any_rx) is not None:
                if rx.search(src) is None:
                    return Multi((src, 0))  # nothing to replace (escaping text that needs none): repl is never called
                if tr is FunctionType and pat.nonempty and not pat.anchor and pat.textcaps:
                    with CCall():  # a function is called (a C call), not yieldable
                        return _gsub_by_function(pat, src, repl, len(src), values.MAX_STRING[0])
    repl = args[2] if len(args) >= 3 else None
    if type(repl) is FunctionType or type(repl) is LuaTable:
        # a function is called (a C call); a table's __index counts as its own
        with CCall(calls=type(repl) is FunctionType):  # not yieldable either way
            return _gsub(args)
    return _gsub(args)


#: gsub reserves the memory of its replacements in steps of this many bytes
_RESERVE_STEP = 64 * 1024


def _gsub(args):
    src = check_str(args, 1, "gsub")
    p = check_str(args, 2, "gsub")
    srcl = len(src)
    repl = args[2] if len(args) >= 3 else None
    max_s = opt_int(args, 4, "gsub", srcl + 1)
    tr = type(repl)
    if tr is int or tr is float:
        repl = values.fmt_number(repl)
        tr = str
    elif tr is not str and tr is not FunctionType and tr is not LuaTable:
        type_error(args, 3, "gsub", "string/function/table")
    pat = compile_pattern(p)
    if tr is str and (r := _gsub_by_template(pat, src, repl, max_s)) is not None:
        return r
    fast = pat.nonempty and not pat.anchor and max_s > 0 and (rx := pat.regex_for(src)) is not None
    if fast and rx.search(src) is None:  # nothing to replace (escaping text that needs none)
        return Multi((src, 0))
    limit = values.MAX_STRING[0]
    if fast and tr is FunctionType and pat.textcaps:
        return _gsub_by_function(pat, src, repl, min(max_s, srcl), limit)
    value = _replacer(repl, tr, src)
    state = [0, False, 0]  # size of the replacements, changed, size reserved so far
    if fast:
        count = min(max_s, srcl)
        # no empty match can occur, so re.subn scans exactly as Lua's loop
        def sub(m):
            text, ch = value(m.start(), m.end(), pat.caps_of(m))
            if ch:
                state[1] = True
            state[0] += len(text)
            if state[0] - state[2] >= _RESERVE_STEP:  # reserved in steps: the result is reserved whole at the end
                reserve_memory(state[0] - state[2])
                state[2] = state[0]
            if state[0] > limit:
                reserve_memory(state[0])
            return text

        res, n = pat.regex.subn(sub, src, count)
        if not state[1]:
            return Multi((src, n))
        reserve_result(len(res))
        return Multi((res, n))
    out = []
    size = 0
    pos = 0
    last = -1
    n = 0
    changed = False
    reserved = 0
    while n < max_s:
        if pat.anchor:
            r = pat.match_at(src, pos) if pos == 0 else None
        else:
            r = pat.search(src, pos, last)
        if r is None:
            break
        st, e, caps = r
        if st > pos:
            out.append(src[pos:st])
            size += st - pos
        n += 1
        text, ch = value(st, e, caps)
        changed = changed or ch
        out.append(text)
        size += len(text)
        if size - reserved >= _RESERVE_STEP:
            reserve_memory(size - reserved)
            reserved = size
        if size > limit:
            reserve_memory(size)
        pos = last = e
        if pat.anchor:
            break
    if not changed:
        return Multi((src, n))
    out.append(src[pos:])
    reserve_result(size + srcl - pos)
    return Multi(("".join(out), n))



def _gsub_by_function(pat, src: str, repl, count: int, limit: int):
    """gsub with a function replacement on a regex with text captures
    only: re.subn calls it with the captures (or the whole match) as Lua's
    add_value does; the sizes are reserved as _gsub's loop reserves them."""
    state = [0, False, 0]  # size of the replacements, changed, size reserved so far
    first = values.first
    whole = not pat.poscaps

    def sub(m):
        v = first(repl(m.group())) if whole else first(repl(*m.groups()))
        if v is None or v is False:
            text = m.group()
        else:
            tv = type(v)
            if tv is str:
                text = v
            elif tv is int or tv is float:
                text = values.fmt_number(v)
            else:
                error(f"invalid replacement value (a {values.type_name(v)})")
            state[1] = True
        size = state[0] = state[0] + len(text)
        if size - state[2] >= _RESERVE_STEP:  # reserved in steps: the result is reserved whole at the end
            reserve_memory(size - state[2])
            state[2] = size
        if size > limit:
            reserve_memory(size)
        return text

    res, n = pat.regex.subn(sub, src, count)
    if not state[1]:
        return Multi((src, n))
    reserve_result(len(res))
    return Multi((res, n))


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
    for event in ("__add", "__sub", "__mul", "__div", "__mod", "__pow", "__unm", "__idiv"):
        meta.set_str(event, builtin(_arith_metamethod(event)))
    try:
        state.string_meta = meta
        state.ns["_SMh"] = meta.hash  # s:m() in compiled code looks here first
    except AttributeError:
        pass
    values.set_string_meta(meta, default=True)


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
        return values.call1(h, a, b)

    return arith
