"""Lua 5.4's `utf8` library (lutf8lib.c), on strings of one char per byte.

Strict mode (the default) accepts code points up to 0x10FFFF and no
surrogates; `lax` accepts Lua's extended sequences up to 0x7FFFFFFF (six
bytes). Overlong encodings are always invalid. Behaviour follows Lua 5.4.8
(`utf8.codes` also rejects a character followed by a stray continuation
byte, as 5.4.6+ do).
"""

from __future__ import annotations

from ..runtime import values as V
from ..runtime.args import arg_error, check_int, check_str, opt_int
from ..errors import lua_error as _error
from ..runtime.values import EMPTY, Multi
from . import lib_table
from .limits import reserve_slots
from ..runtime.pieces import PIECE_ITEMS, charge_items



MAXUNICODE = 0x10FFFF
MAXUTF = 0x7FFFFFFF
_LIMITS = (~0 & 0xFFFFFFFF, 0x80, 0x800, 0x10000, 0x200000, 0x4000000)
MSG_INVALID = "invalid UTF-8 code"
#: most values a call may return (Lua's stack limit, LUAI_MAXSTACK)
MAX_RESULTS = 999_980

CHARPATTERN = "[\x00-\x7F\xC2-\xFD][\x80-\xBF]*"


def _posrelat(pos: int, length: int) -> int:
    if pos >= 0:
        return pos
    if -pos > length:
        return 0
    return length + pos + 1


def _iscont(s: str, i: int) -> bool:
    """Whether byte i of s is a continuation byte (the C string's final
    NUL, at i == len(s), is not)."""
    return i < len(s) and (ord(s[i]) & 0xC0) == 0x80


def decode(s: str, i: int, strict: bool):
    """utf8_decode at 0-based index i: (code, next index) or None."""
    n = len(s)
    c = ord(s[i]) if i < n else 0
    if c < 0x80:
        res = c
    else:
        res = 0
        count = 0
        while c & 0x40:
            count += 1
            cc = ord(s[i + count]) if i + count < n else 0
            if (cc & 0xC0) != 0x80:
                return None
            res = (res << 6) | (cc & 0x3F)
            c <<= 1
        if count > 5:
            return None
        res |= (c & 0x7F) << (count * 5)
        if res > MAXUTF or res < _LIMITS[count]:
            return None
        i += count
    if strict and (res > MAXUNICODE or 0xD800 <= res <= 0xDFFF):
        return None
    return res, i + 1


def encode(x: int) -> str:
    """Lua's luaO_utf8esc: x (<= 0x7FFFFFFF) as up to six bytes."""
    if x < 0x80:
        return chr(x)
    out = []
    mfb = 0x3F  # largest value that fits in the first byte
    while True:
        out.append(chr(0x80 | (x & 0x3F)))
        x >>= 6
        mfb >>= 1
        if x <= mfb:
            break
    out.append(chr(((~mfb << 1) | x) & 0xFF))
    out.reverse()
    return "".join(out)


# ------------------------------------------------------------ functions


def u_char(*args):
    n = len(args)
    parts = []
    for k in range(1, n + 1):
        if not k % PIECE_ITEMS:  # up to a million values: the limits checked as it goes
            charge_items(PIECE_ITEMS)
        code = check_int(args, k, "char") & 0xFFFFFFFFFFFFFFFF
        if code > MAXUTF:
            arg_error(k, "char", "value out of range")
        parts.append(encode(code))
    return "".join(parts)


def u_len(*args):
    s = check_str(args, 1, "len")
    n = len(s)
    posi = _posrelat(opt_int(args, 2, "len", 1), n)
    posj = _posrelat(opt_int(args, 3, "len", -1), n)
    lax = len(args) >= 4 and args[3] is not None and args[3] is not False
    if not (1 <= posi and posi - 1 <= n):
        arg_error(2, "len", "initial position out of bounds")
    posi -= 1
    posj -= 1
    if posj >= n:
        arg_error(3, "len", "final position out of bounds")
    if posi <= posj and s.isascii():
        return posj - posi + 1
    strict = not lax
    count = 0
    while posi <= posj:
        r = decode(s, posi, strict)
        if r is None:
            return Multi((None, posi + 1))
        posi = r[1]
        count += 1
        if not count % PIECE_ITEMS:  # a long string: the limits checked as it goes
            charge_items(PIECE_ITEMS)
    return count


def u_codepoint(*args):
    s = check_str(args, 1, "codepoint")
    n = len(s)
    posi = _posrelat(opt_int(args, 2, "codepoint", 1), n)
    pose = _posrelat(opt_int(args, 3, "codepoint", posi), n)
    lax = len(args) >= 4 and args[3] is not None and args[3] is not False
    if posi < 1:
        arg_error(2, "codepoint", "out of bounds")
    if pose > n:
        arg_error(3, "codepoint", "out of bounds")
    if posi > pose:
        return EMPTY
    if pose - posi >= 2**31 - 1:
        _error("string slice too long")
    if pose - posi + 1 > MAX_RESULTS:
        _error("stack overflow (string slice too long)")
    reserve_slots(pose - posi + 1)  # at most one value a byte
    strict = not lax
    out = []
    i = posi - 1
    while i < pose:
        r = decode(s, i, strict)
        if r is None:
            _error(MSG_INVALID)
        out.append(r[0])
        i = r[1]
        if not len(out) % PIECE_ITEMS:  # up to a million values: the limits checked as it goes
            charge_items(PIECE_ITEMS)
    if len(out) == 1:
        return out[0]
    return Multi(out)


def u_offset(*args):
    s = check_str(args, 1, "offset")
    length = len(s)
    n = check_int(args, 2, "offset")
    posi = 1 if n >= 0 else length + 1
    posi = _posrelat(opt_int(args, 3, "offset", posi), length)
    if not (1 <= posi and posi - 1 <= length):
        arg_error(3, "offset", "position out of bounds")
    posi -= 1
    if n == 0:
        # find the beginning of the current byte sequence
        while posi > 0 and _iscont(s, posi):
            posi -= 1
        return posi + 1
    if _iscont(s, posi):
        _error("initial position is a continuation byte")
    if n < 0:
        while n < 0 and posi > 0:  # move back
            posi -= 1
            while posi > 0 and _iscont(s, posi):
                posi -= 1
            n += 1
            if not n % PIECE_ITEMS:  # a long way: the limits checked as it goes
                charge_items(PIECE_ITEMS)
    else:
        n -= 1  # do not move for the first character
        while n > 0 and posi < length:
            posi += 1
            while _iscont(s, posi):
                posi += 1
            n -= 1
            if not n % PIECE_ITEMS:
                charge_items(PIECE_ITEMS)
    if n == 0:
        return posi + 1
    return None


def _make_iter(strict: bool):
    def iter_aux(*args):
        s = check_str(args, 1, "for iterator")
        length = len(s)
        n = V.tointeger(args[1]) if len(args) >= 2 else None
        n = (n or 0) & 0xFFFFFFFFFFFFFFFF
        if n < length:
            while _iscont(s, n):
                n += 1  # go to the next character
        if n >= length:
            return EMPTY
        r = decode(s, n, strict)
        if r is None or _iscont(s, r[1]):
            _error(MSG_INVALID)
        return Multi((n + 1, r[0]))

    return iter_aux


_iter_strict = _make_iter(True)
_iter_lax = _make_iter(False)


def u_codes(*args):
    lax = len(args) >= 2 and args[1] is not None and args[1] is not False
    s = check_str(args, 1, "codes")
    if _iscont(s, 0):
        arg_error(1, "codes", MSG_INVALID)
    return Multi((_iter_lax if lax else _iter_strict, s, 0))


# ------------------------------------------------------------- opening


def open_lib(state) -> None:
    from ..debuginfo import builtin

    builtin(_iter_strict)  # one code object for both iterators
    lib = lib_table(
        {
            "offset": u_offset,
            "codepoint": u_codepoint,
            "char": u_char,
            "len": u_len,
            "codes": u_codes,
        },
        "utf8.",
    )
    lib.set_str("charpattern", CHARPATTERN)
    state.G.set_str("utf8", lib)
