"""The `string` library (Lua 5.4's lstrlib); `string.dump` only where a host
grants it (open_dump).

Strings hold one char per byte; every function works on those chars as C
works on bytes (ASCII/C-locale semantics for case and classes).
"""

from __future__ import annotations

import functools
from types import FunctionType

from ..runtime import values
from ..runtime import calls as LC
from ..runtime import operators as LO
from ..runtime.args import arg_error, check_int, check_str, opt_int, opt_str, type_error
from ..debuginfo import builtin
from .patterns.matcher import PATTERNS, LPattern, all_captures, compile_pattern, error, find_match, has_specials
from .patterns.matcher import inline_pattern
from ..compiler.contract import INLINE_STRING_CALLS, INLINE_STRING_METHODS
from ..runtime.tables import LuaTable, watch
from ..runtime.values import EMPTY, Multi
from . import lib_table
from .limits import BIG_WORK, BYTES_PER_STEP, TINY_RESULT, reserve_result, reserve_slots
from ..runtime.calldepth import CCall
from .strargs import posrelat_end, posrelat_start, ret_values
from .strformat import str_format
from .strgmatch import str_gmatch
from .strgsub import str_gsub
from .strpack import str_pack, str_packsize, str_unpack
from ..runtime.pieces import by_pieces, reversed_by_pieces

MAXSIZE = 2**31 - 1  # lstrlib's MAXSIZE (INT_MAX)
MAXSTACK = 1000000  # LUAI_MAXSTACK: limit of values a builtin may return


# ---------------------------------------------------------------- basics


# s:len(), s:reverse(), s:lower(), s:upper(): a string receiver is taken at
# once by a function of one parameter and the rest (extra arguments are
# ignored, as in Lua; Python binds a parameter faster than it packs *args);
# any other, or none (_NO_VALUE), takes check_str


class _NoValue:
    """The default of a builtin's first parameter: no argument at all
    (Lua's 'no value', where a nil argument is 'nil')."""


_NO_VALUE = _NoValue()


def _args(first, rest: tuple) -> tuple:
    """The arguments of a call as received: none when `first` is absent."""
    return () if first is _NO_VALUE else (first, *rest)


def _given(a, b, c, rest: tuple) -> tuple:
    """The arguments of a call of a builtin with three parameters and the
    rest, as received: those before the first absent one."""
    if a is _NO_VALUE:
        return ()
    if b is _NO_VALUE:
        return (a,)
    if c is _NO_VALUE:
        return (a, b)
    return (a, b, c, *rest)


def str_len(s=_NO_VALUE, *rest):
    if type(s) is str:
        return len(s)
    return len(check_str(_args(s, rest), 1, "len"))


def str_sub(s=_NO_VALUE, i=_NO_VALUE, j=_NO_VALUE, *rest):
    # the common shapes, s:sub(i[, j]) with positive positions, s:sub(-k),
    # when the result is short (a longer one is reserved first, below)
    if type(s) is str and type(i) is int:
        if j is _NO_VALUE:
            if i > 0:
                if len(s) - i < TINY_RESULT:
                    return s[i - 1:]
            elif i < 0 and i >= -TINY_RESULT:
                return s[i:]
        elif type(j) is int:
            if i > 0:
                if j >= 0:
                    if j - i < TINY_RESULT:
                        return s[i - 1:j]
                elif j == -1 and len(s) - i < TINY_RESULT:
                    return s[i - 1:]
            elif i < 0 and j == -1 and i >= -TINY_RESULT:  # the last -i chars (all of them when -i > #s, as posrelat)
                return s[i:]
    args = _given(s, i, j, rest)
    s = check_str(args, 1, "sub")
    n = len(s)
    i = posrelat_start(check_int(args, 2, "sub"), n)
    j = posrelat_end(opt_int(args, 3, "sub", -1), n)
    if i > j:
        return ""
    size = j - i + 1
    if size > TINY_RESULT and size < n:  # (the whole string is the string itself: nothing is built)
        reserve_result(size)
        if size > BIG_WORK:
            values.charge_steps(size >> (BYTES_PER_STEP + 1))  # a copy, as rep's
    return s[i - 1:j]


def str_reverse(s=_NO_VALUE, *rest):
    if type(s) is not str:
        s = check_str(_args(s, rest), 1, "reverse")
    if len(s) > TINY_RESULT:  # a new string: reserved (or counted) first
        reserve_result(len(s))
        if len(s) > BIG_WORK:  # its work grows with the string: steps in proportion
            return reversed_by_pieces(s)  # its steps as it goes
    return s[::-1]


_LOWER = {c: c + 32 for c in range(65, 91)}
_UPPER = {c: c - 32 for c in range(97, 123)}


#: each one-char string in lower case, as the C locale's tolower
_LOWER_CHAR = {chr(c): chr(c + 32 if 65 <= c <= 90 else c) for c in range(256)}


def str_lower(s=_NO_VALUE, *rest):
    if (one := _LOWER_CHAR.get(s)) is not None:
        return one
    if type(s) is str and len(s) <= TINY_RESULT and s.isascii():  # the common case: a short ASCII string
        return s.lower()
    return _recase(_args(s, rest), "lower", str.lower, _LOWER)


#: each one-char string in upper case (`s:sub(1, 1):upper()`, gsub's
#: `(%a)(%a*)`: a word's first letter), as the C locale's toupper
_UPPER_CHAR = {chr(c): chr(c - 32 if 97 <= c <= 122 else c) for c in range(256)}


def str_upper(s=_NO_VALUE, *rest):
    if (one := _UPPER_CHAR.get(s)) is not None:
        return one
    if type(s) is str and len(s) <= TINY_RESULT and s.isascii():
        return s.upper()
    return _recase(_args(s, rest), "upper", str.upper, _UPPER)


def _recase(args: tuple, fname: str, ascii_case, table: dict) -> str:
    """lower/upper in general: the C locale's case of A-Z only (Python's
    would change chars above 127), the result reserved (or counted) first,
    steps in proportion on a long string."""
    s = check_str(args, 1, fname)
    if len(s) > TINY_RESULT:
        reserve_result(len(s))
        if len(s) > BIG_WORK:  # its steps as it goes, a piece at a time
            return by_pieces(ascii_case if s.isascii() else (lambda piece: piece.translate(table)), s)
    return ascii_case(s) if s.isascii() else s.translate(table)


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


def str_byte(s=_NO_VALUE, i=_NO_VALUE, *rest):
    if type(s) is str and type(i) is int and not rest:  # s:byte(i) within the string (or past its end)
        if i > 0:
            return ord(s[i - 1]) if i <= len(s) else EMPTY
        if i < 0 and -i <= len(s):  # counted from the end, as posrelat
            return ord(s[i])
    args = _given(s, i, rest[0], rest[1:]) if rest else _given(s, i, _NO_VALUE, ())
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
    reserve_slots(cnt)
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
        return ret_values(all_captures(pat.caps_of(m), s, st, e))
    r = find_match(s, p, init)
    if r is None:
        return None
    st, e, caps = r
    if find:
        return Multi((st + 1, e) + all_captures(caps, s, st, e, False))
    return ret_values(all_captures(caps, s, st, e))


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


def str_match(s=_NO_VALUE, p=_NO_VALUE, init=_NO_VALUE, *rest):
    # the common shape, as str_find's (its arguments bound as parameters)
    if type(s) is str and type(p) is str:
        if init is _NO_VALUE:
            i = 0
        elif type(init) is int and 0 < init <= len(s) + 1:
            i = init - 1
        else:
            i = -1
        if i >= 0:
            pat = PATTERNS.get(p) or compile_pattern(p)
            # (the fields compiled `s:match(p)` reads too: compiler/strcalls.py)
            if pat.match_values and ((rx := pat.find_rx) is not None or (rx := pat.regex_for(s)) is not None):
                if (single := pat.single) is not None and i < len(s) and (c := s[i]) in single:
                    return c  # a one-char pattern matching at init: no search
                m = rx.match(s, i) if pat.anchor else rx.search(s, i)
                if m is None:
                    return None
                return Multi(m.groups()) if pat.match_values > 1 else m.group(pat.first_group)
    return _find_aux(_given(s, p, init, rest), False)


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
        ns = state.ns
    except AttributeError:
        return
    for method, (_ok, chars) in INLINE_STRING_METHODS.items():  # what `s:upper()` answers inline
        ns[chars] = _ONE_CHAR[method]
    # the compiled patterns of inline `s:find(p)` and `s:match(p)` (compiler/strcalls.py)
    ns["_MP"], ns["_mpat"], ns["_rxfor"] = PATTERNS, inline_pattern, LPattern.regex_for
    _watch_index(state, ns, meta, lib)


#: the one-char tables of INLINE_STRING_METHODS
_ONE_CHAR = {"upper": _UPPER_CHAR, "lower": _LOWER_CHAR}


def _watch_index(state, ns: dict, meta: LuaTable, lib: LuaTable) -> None:
    """`s:m()` in compiled code looks in `_SIh` at once: the hash of the
    string metatable's __index table (an empty dict when __index is no
    table), kept true by set_str, which calls `watched` after each write
    of `__index` in the metatable (runtime/tables.watch); the library's
    other fields need no watching, `_SIh` being its live hash. The flags of
    INLINE_STRING_METHODS (`_SUPOK`: `s:upper()` of one char answered
    inline) hold while __index is the library and its method the one it
    opened with: `watched` runs after each write of one of them in the
    library too."""
    own = {method: lib.hash[method] for method in (*INLINE_STRING_METHODS, *INLINE_STRING_CALLS)}

    def watched():
        index = meta.hash.get("__index")
        ns["_SIh"] = index.hash if type(index) is LuaTable else {}
        for method, (ok, _chars) in INLINE_STRING_METHODS.items():
            ns[ok] = index is lib and lib.hash.get(method) is own[method]
        for method, ok in INLINE_STRING_CALLS.items():
            ns[ok] = index is lib and lib.hash.get(method) is own[method]

    state.index_watcher = watched  # (the tables hold it weakly: the state keeps it)
    watch(meta, watched)
    watch(lib, watched)
    watched()


def open_dump(state) -> None:
    """`string.dump`, and `load` of the binary chunks it makes, for a host
    that grants them (the sandbox has neither)."""
    from .strdump import dump_function

    def str_dump(*args):
        fn = args[0] if args else None
        if type(fn) is not FunctionType:
            type_error(args, 1, "dump", "function")
        # `strip` (args[1]) is accepted; the chunk keeps its lines and names
        chunk = dump_function(fn)
        if chunk is None:
            error("unable to dump given function")
        if len(chunk) > TINY_RESULT:
            reserve_result(len(chunk))
        return chunk

    lib = state.G.get("string")
    if type(lib) is LuaTable:
        lib_table({"dump": str_dump}, "string.")
        lib.set_str("dump", str_dump)
    state.binary_chunks = True


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
            return LO.string_arith(event, a, b)
        if type(b) is str or (h := values.getmetamethod(b, event)) is None:
            error(f"attempt to {event[2:]} a '{values.type_name(a)}' with a '{values.type_name(b)}'")
        with CCall():  # trymt's lua_call: a nested C call, where the metamethod may not yield
            return LC.call1(h, a, b)

    return arith
