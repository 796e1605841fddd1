"""string.gsub (lstrlib's str_gsub): a string replacement as one re.subn
where the pattern's regex reproduces Lua's scan, a function or table one
on re.split's pieces (strgsubsplit) or called from re.subn, and Lua's own
loop for the rest; the result is reserved against the memory limit as it
grows."""

from __future__ import annotations

from types import FunctionType

from ..runtime import values
from ..runtime import calls as LC
from ..runtime import indexing as LI
from ..runtime.args import check_str, opt_int, type_error
from .patterns.matcher import PATTERNS, all_captures, capture, compile_pattern, error
from ..runtime.tables import LuaTable
from ..runtime.machine import RUNNING
from ..runtime.values import EMPTY, Multi, reserve_memory
from .limits import INLINE_RESULT, TINY_RESULT, reserve_result
from ..runtime.calldepth import CCall
from . import strgsubsplit
from .strgsubsplit import RESERVE_STEP as _RESERVE_STEP, reserve_grown as _reserve_grown, reserve_to, value_text
from ..runtime.pieces import PIECE_ITEMS, charge_items, counted, counted_template


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
            v = LC.call1(repl, *all_captures(caps, src, st, e))
        else:
            v = LI.index(repl, capture(caps, 0, src, st, e))
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
    its capture references, _every_match's function), or False where that could differ from
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
        template = "".join(literal).replace("\\", "\\\\")
    elif len(groups) == 1:
        g = groups[0]
        template = lambda m: text % m.group(g)  # noqa: E731
    else:
        template = lambda m: text % m.group(*groups)  # noqa: E731
    return template, lit, len(groups), _every_match(pat, repl, template, lit, len(groups))


def _every_match(pat, repl: str, template, lit: int, refs: int):
    """gsub(s, p, repl) of every match where the pattern's regex is safe on
    any subject, as a function of the subject: _gsub_by_template's path
    with what depends on the pattern and replacement alone worked out
    once. None for a subject whose result may be long (its bound passes
    INLINE_RESULT or the string limit): _gsub_by_template reserves it
    first or refuses it. A text replaced by a text knows its result's
    length before building it: reserved, or None past the string limit."""
    if pat.any_rx is None or not pat.nonempty or pat.anchor:
        return None
    subn = pat.any_rx.subn
    per_char = max(1, refs) + lit  # as _gsub_by_template's bound, with a match at every char
    running = RUNNING  # its machine's max_string, read at each call
    if pat.plain and not refs:  # a text replaced by a text: str's count and replace scan as Lua does
        old = pat.body
        new = "".join(piece for piece in _parse_repl(repl) if type(piece) is str)

        def every_text(src: str):
            n = src.count(old)
            if not n:
                return Multi((src, 0))
            size = len(src) + n * (len(new) - len(old))  # the result's length, known before it is built
            if size > running[0].max_string:
                return None
            if size > TINY_RESULT:  # (a long one reserved first, a small one counted)
                reserve_result(size)
            return Multi((src.replace(old, new), n))

        return every_text

    def every_match(src: str):
        bound = len(src) * per_char
        if bound > INLINE_RESULT or bound > running[0].max_string:
            return None
        r = subn(template, src)  # every match: they are not empty, so at most one per char
        if len(r[0]) > TINY_RESULT:  # a small result: built at once, then counted (a tiny one is not)
            reserve_result(len(r[0]))
        return Multi(r)

    return every_match


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
    template, lit, refs, _ = t
    srcl = len(src)
    count = min(max_s, srcl)  # matches are not empty: at most one per char
    # each match's text is replaced by the literals and at most `refs`
    # copies of it, so this bounds the result
    bound = srcl * max(1, refs) + count * lit
    if bound > RUNNING[0].max_string:
        return None
    if bound > INLINE_RESULT:
        reserve_memory(bound)
        return Multi(rx.subn(counted_template(template, srcl), src, count))
    r = rx.subn(template, src, count)
    if len(r[0]) > TINY_RESULT:  # a small result: built at once, then counted (a tiny one is not)
        reserve_result(len(r[0]))
    return Multi(r)


def str_gsub(*args):
    if len(args) == 3:  # the common shape: s:gsub(p, repl) with string arguments
        src, p, repl = args
        if type(src) is str and type(p) is str:
            tr = type(repl)
            pat = PATTERNS.get(p) or compile_pattern(p)
            if tr is str:
                if (t := pat.subs.get(repl)) and (every := t[3]) is not None and (r := every(src)) is not None:
                    return r
                r = _gsub_by_template(pat, src, repl, len(src) + 1)
                if r is not None:
                    return r
            elif (tr is FunctionType or tr is LuaTable) and (rx := pat.any_rx or pat.regex_for(src)) is not None:
                if rx.search(src) is None:
                    return Multi((src, 0))  # nothing to replace (escaping text that needs none): repl is never called
                if pat.nonempty and not pat.anchor and pat.textcaps:
                    if tr is LuaTable and repl.meta is None:  # plain lookups: nothing is called
                        return _gsub_by_function(pat, src, repl, len(src), RUNNING[0].max_string)
                    with CCall(calls=tr is FunctionType):  # as _gsub's: not yieldable
                        return _gsub_by_function(pat, src, repl, len(src), RUNNING[0].max_string)
    repl = args[2] if len(args) >= 3 else None
    if type(repl) is FunctionType or type(repl) is LuaTable:
        # a function is called (a C call); a table's __index counts as its own
        with CCall(calls=type(repl) is FunctionType):  # not yieldable either way
            return _gsub(args)
    return _gsub(args)


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
    limit = RUNNING[0].max_string
    if fast and tr is not str and pat.textcaps:
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
            if state[0] - state[2] >= _RESERVE_STEP or state[0] > limit:
                _reserve_grown(state, limit)
            return text

        return _subn(pat, src, sub, count, lambda: state[1])
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
        if not n % PIECE_ITEMS:  # Lua's own scan of a long subject: the limits checked as it goes
            charge_items(PIECE_ITEMS)
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
    """gsub with a function or table replacement on a regex with text
    captures only: re.subn calls the function with the captures (or the
    whole match), or indexes the table with the first, as Lua's add_value
    does; the sizes are reserved as _gsub's loop reserves them (each match
    adds its text's size and tests one bound: the size where
    _reserve_grown has work, a step past what is reserved or past the
    string limit). A text below that bound is the common result, taken
    at once; `settle` takes every other. A subject of up to SPLIT_MAX
    chars is split at once instead (strgsubsplit: no match object, no
    call from re)."""
    if len(src) <= strgsubsplit.SPLIT_MAX:
        return strgsubsplit.gsub_by_split(pat, src, repl, count, limit)
    size = 0  # of the replacements
    kept = 0  # matches left as they are (nil or false): none changed the subject if all were
    grown = [0, True, 0]  # _reserve_grown's state: the size, changed, the size reserved so far
    check_at = min(_RESERVE_STEP, limit + 1)
    ncaps = len(pat.poscaps)

    def settle(m, v) -> str:
        nonlocal size, kept, check_at
        text = v if type(v) is str else value_text(v)
        if text is None:
            text = m.group()
            kept += 1
        size += len(text)
        if size >= check_at:
            check_at = reserve_to(grown, size, limit)
        return text

    # each sub below takes its common results at once: a text, or the match
    # kept (nil, or a function's no value), below the next size check
    if type(repl) is LuaTable:  # a string key: the first capture, or the whole match
        g = 1 if ncaps else 0
        if repl.meta is None:  # the hash part
            get = repl.hash.get

            def sub(m):
                nonlocal size, kept
                v = get(m[g])
                if type(v) is str:
                    if (k := size + len(v)) < check_at:
                        size = k
                        return v
                elif v is None and (k := size + len(text := m[0])) < check_at:
                    size = k
                    kept += 1
                    return text
                return settle(m, v)
        else:  # through __index
            index = LI.index

            def sub(m):
                return settle(m, index(repl, m[g]))
    elif ncaps == 0:
        def sub(m):
            nonlocal size, kept
            v = repl(text := m[0])
            if type(v) is str:
                if (k := size + len(v)) < check_at:
                    size = k
                    return v
            elif (v is EMPTY or v is None) and (k := size + len(text)) < check_at:
                size = k
                kept += 1
                return text
            return settle(m, v)
    else:
        def sub(m):
            nonlocal size, kept
            v = repl(*m.groups())
            if type(v) is str:
                if (k := size + len(v)) < check_at:
                    size = k
                    return v
            elif (v is EMPTY or v is None) and (k := size + len(text := m[0])) < check_at:
                size = k
                kept += 1
                return text
            return settle(m, v)

    res, n = pat.regex.subn(counted(sub), src, count)
    if kept == n:  # no replacement changed it: the subject itself
        return Multi((src, n))
    reserve_result(len(res))
    return Multi((res, n))


def _subn(pat, src: str, sub, count: int, changed) -> tuple:
    """gsub's result of re.subn with `sub`: the subject itself when no
    replacement changed it (`changed()`, asked after the matches), else the
    new text, reserved."""
    res, n = pat.regex.subn(counted(sub) if len(src) > PIECE_ITEMS else sub, src, count)
    if not changed():
        return Multi((src, n))
    reserve_result(len(res))
    return Multi((res, n))
