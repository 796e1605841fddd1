"""string.format, as Lua 5.4's str_format over C's printf (glibc output)."""

from __future__ import annotations

import math
from types import FunctionType

from ..runtime import values
from ..runtime import indexing as LI
from ..runtime.args import arg_error, check_int, check_number, check_str
from .patterns.matcher import error
from ..runtime.values import MINI
from .limits import INLINE_RESULT, TINY_RESULT, UNRESERVED_STEP, reserve_result, reserve_unreserved
from ..runtime.machine import RUNNING
from ..runtime.pieces import PIECE_BYTES, charge

#: steps a char of %q costs (a loop in Python: about 100 ns)
STEPS_PER_BYTE = 2

MAX_FORMAT = 32  # lstrlib's buffer for one conversion specification
_SPAN = frozenset("-+ #0123456789.")  # L_FMTFLAGSF "123456789." (strspn)
FLAGS_F = "-+ #0"  # a A e E f g G
FLAGS_X = "-#0"  # o x X
FLAGS_I = "-+ 0"  # d i
FLAGS_U = "-0"  # u
FLAGS_C = "-"  # c p s
_MASK64 = 0xFFFFFFFFFFFFFFFF


def _isdigit(c: str) -> bool:
    return "0" <= c <= "9"


_CHECKED: set = set()


def checkformat(form: str, flags: str, precision: bool) -> None:
    """Lua's checkformat: only `flags`, a width and (if allowed) a precision
    of at most 2 digits each may come between '%' and the conversion."""
    if form in _CHECKED:  # the conversion letter implies flags and precision
        return
    if not valid_form(form, flags, precision):
        error(f"invalid conversion specification: '{form}'")
    if len(_CHECKED) >= 1024:
        _CHECKED.clear()
    _CHECKED.add(form)


def valid_form(form: str, flags: str, precision: bool) -> bool:
    """Whether checkformat accepts `form`."""
    i = 1
    while form[i] in flags:
        i += 1
    if form[i] != "0":
        if _isdigit(form[i]):
            i += 1
            if _isdigit(form[i]):
                i += 1
        if form[i] == "." and precision:
            i += 1
            if _isdigit(form[i]):
                i += 1
                if _isdigit(form[i]):
                    i += 1
    c = form[i]
    return "a" <= c <= "z" or "A" <= c <= "Z"


def _parse(form: str):
    """(flags, width, precision or None) of a checked specification."""
    r = _PARSED_FORMS.get(form)
    if r is None:
        if len(_PARSED_FORMS) >= 1024:
            _PARSED_FORMS.clear()
        r = _PARSED_FORMS[form] = _parse1(form)
    return r


_PARSED_FORMS: dict = {}


def _parse1(form: str):
    i = 1
    while form[i] in FLAGS_F:
        i += 1
    flags = form[1:i]
    j = i
    while _isdigit(form[j]):
        j += 1
    width = int(form[i:j]) if j > i else 0
    prec = None
    if form[j] == ".":
        k = j + 1
        while _isdigit(form[k]):
            k += 1
        prec = int(form[j + 1:k]) if k > j + 1 else 0
    return flags, width, prec


def _pad(flags: str, width: int, prefix: str, body: str, zero: bool) -> str:
    """Pads sign/prefix + body to width as printf does ('-' left-justifies,
    '0' inserts zeros after the prefix when `zero` allows it)."""
    n = len(prefix) + len(body)
    if n >= width:
        return prefix + body
    if "-" in flags:
        return prefix + body + " " * (width - n)
    if zero and "0" in flags:
        return prefix + "0" * (width - n) + body
    return " " * (width - n) + prefix + body


def _sign(neg: bool, flags: str) -> str:
    if neg:
        return "-"
    if "+" in flags:
        return "+"
    if " " in flags:
        return " "
    return ""


def fmt_int(form: str, conv: str, n: int) -> str:
    flags, width, prec = _parse(form)
    prefix = ""
    if conv == "d" or conv == "i":
        prefix = _sign(n < 0, flags)
        digits = str(abs(n))
    else:
        u = n & _MASK64
        if conv == "u":
            digits = str(u)
        elif conv == "o":
            digits = f"{u:o}"
        elif conv == "x":
            digits = f"{u:x}"
        else:
            digits = f"{u:X}"
    if prec is not None:
        if prec == 0 and n == 0:
            digits = ""
        digits = digits.rjust(prec, "0")
    if "#" in flags:
        if conv == "o":
            if not digits.startswith("0"):
                digits = "0" + digits
        elif n != 0:
            prefix = "0x" if conv == "x" else "0X"
    return _pad(flags, width, prefix, digits, prec is None)


def _nonfinite(flags: str, width: int, x: float, upper: bool) -> str:
    body = "nan" if x != x else "inf"
    if upper:
        body = body.upper()
    return _pad(flags, width, _sign(math.copysign(1.0, x) < 0, flags), body, False)


def fmt_float(form: str, conv: str, x: float) -> str:
    if x != x or x in (math.inf, -math.inf):
        flags, width, _prec = _parse(form)
        return _nonfinite(flags, width, x, conv in "EG")
    # Python's printf-style float formatting is C's, correctly rounded
    return form % x


def fmt_hexfloat(form: str, upper: bool, x: float) -> str:
    """C99 `%a` as glibc prints it (subnormals as 0x0.xxxp-1022; rounding
    to a precision is round-half-even and may give a leading 2)."""
    flags, width, prec = _parse(form)
    if x != x or x in (math.inf, -math.inf):
        return _nonfinite(flags, width, x, upper)
    sign = _sign(math.copysign(1.0, x) < 0, flags)
    x = abs(x)
    if x == 0.0:
        full, exp = 0, 0
    elif x < 2.2250738585072014e-308:  # subnormal
        full, exp = int(math.ldexp(x, 1074)), -1022
    else:
        m, e = math.frexp(x)  # x = m * 2^e, 0.5 <= m < 1
        full, exp = int(math.ldexp(m, 53)), e - 1  # 53 bits: 1.xxx
    # full = lead digit (0 or 1) followed by 52 fraction bits
    if prec is None:
        lead = full >> 52
        digits = f"{full & ((1 << 52) - 1):013x}".rstrip("0")
    elif prec >= 13:
        lead = full >> 52
        digits = f"{full & ((1 << 52) - 1):013x}" + "0" * (prec - 13)
    else:
        shift = 4 * (13 - prec)
        q, r = divmod(full, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        lead = q >> (4 * prec)
        digits = f"{q & ((1 << (4 * prec)) - 1):0{prec}x}" if prec else ""
    body = str(lead)
    if digits or "#" in flags:
        body += "." + digits
    body += f"p{exp:+d}"
    prefix = sign + "0x"
    if upper:
        body = body.upper()
        prefix = prefix.upper()
    return _pad(flags, width, prefix, body, True)


# ------------------------------------------------------------------- %q


def _quote_char(c: str, nxt: str) -> str:
    if c == '"' or c == "\\" or c == "\n":
        return "\\" + c
    o = ord(c)
    if o < 32 or o == 127:
        if _isdigit(nxt):
            return f"\\{o:03d}"
        return f"\\{o}"
    return c


def quote_string(s: str) -> str:
    out = ['"']
    start = 0
    n = len(s)
    for piece in range(0, n, PIECE_BYTES):  # a long string: the limits checked as it goes
        if piece:
            charge(PIECE_BYTES * STEPS_PER_BYTE)
        for i in range(piece, min(n, piece + PIECE_BYTES)):
            c = s[i]
            o = ord(c)
            if o < 32 or o == 127 or c == '"' or c == "\\":
                out.append(s[start:i])
                out.append(_quote_char(c, s[i + 1] if i + 1 < n else ""))
                start = i + 1
    out.append(s[start:])
    out.append('"')
    return "".join(out)


def quote_literal(args, n: int) -> str:
    v = args[n - 1]
    t = type(v)
    if t is str:
        return quote_string(v)
    if t is int:
        return "0x8000000000000000" if v == MINI else str(v)
    if t is float:
        if v == math.inf:
            return "1e9999"
        if v == -math.inf:
            return "-1e9999"
        if v != v:
            return "(0/0)"
        return fmt_hexfloat("%a", False, v)
    if v is None or t is bool:
        return values.tostring_basic(v)
    arg_error(n, "format", "value has no literal form")


# ------------------------------------------------------------ the builtin


def _pointer(v) -> str:
    t = type(v)
    if v is None or t is bool or t is int or t is float:
        return "(null)"
    if t is str and len(v) <= SHORT_STRING:
        # Lua interns short strings: equal ones share one address
        return f"0x{0x500000000000 | (hash(v) & 0xFFFFFFFFFFF):014x}"
    return f"0x{id(v):014x}"


#: LUAI_MAXSHORTLEN: the longest string Lua interns
SHORT_STRING = 40


def parse_format(fmt: str) -> tuple:
    """A format string as literal strs and (form, conv) items (form None
    for a specification too long); cached, as formats are usually constant."""
    items = _PARSED.get(fmt)
    if items is not None:
        return items
    items = []
    n = len(fmt)
    i = 0
    while i < n:
        j = fmt.find("%", i)
        if j < 0:
            items.append(fmt[i:])
            break
        if j > i:
            items.append(fmt[i:j])
        i = j + 1
        if i < n and fmt[i] == "%":
            items.append("%")
            i += 1
            continue
        k = i
        while k < n and fmt[k] in _SPAN:
            k += 1
        conv = fmt[k] if k < n else "\0"
        form = None if k - i + 1 >= MAX_FORMAT - 10 else "%" + fmt[i:k] + conv
        items.append((form, conv))
        i = k + 1
    items = tuple(items)
    if len(_PARSED) >= 256:
        _PARSED.clear()
    _PARSED[fmt] = items
    return items


_PARSED: dict = {}


def str_format(*args):
    if args and type(fmt := args[0]) is str:
        fast = _FAST.get(fmt)
        if type(fast) is FunctionType:
            if (r := fast(args)) is not None:
                return r
        elif fast is None:  # built at its second use: a format made anew for each call never pays for a build
            if len(_FAST) >= 256:
                _FAST.clear()
            _FAST[fmt] = _SEEN
        elif fast is _SEEN:
            fast = _FAST[fmt] = _fast_format(fmt)
            if type(fast) is FunctionType and (r := fast(args)) is not None:
                return r
    items = parse_format(check_str(args, 1, "format"))
    top = len(args)
    arg = 1
    out = []
    for item in items:
        if type(item) is str:
            out.append(item)
            continue
        arg += 1
        if arg > top:
            arg_error(arg, "format", "no value")
        form, conv = item
        if form is None:
            error("invalid format (too long)")
        if form == "%d":
            v = args[arg - 1]
            out.append(str(v) if type(v) is int else str(check_int(args, arg, "format")))
        elif form == "%s":
            v = args[arg - 1]
            out.append(v if type(v) is str else LI.tostring(v))
        else:
            out.append(_format_item(args, arg, form, conv))
    if len(out) == 1:
        return out[0]
    reserve_result(sum(map(len, out)))
    return "".join(out)


#: format string -> its fast form (see _fast_format), False, or _SEEN once
#: it was used once
_FAST: dict = {}
_SEEN = object()


def _fast_format(fmt: str):
    """A format whose conversions Python's % operator prints exactly as
    glibc's printf (ints by %d/%i without a precision, finite floats by
    %e %f %g, strings by %s) as a function of str_format's arguments that
    returns the result, or None unless each argument has exactly the
    expected type and prints as printf prints it: finite floats (C prints
    a negative NaN as "-nan"), strings short enough together to be built
    without reserving them (the general path reserves a longer result) and
    without a zero byte under a modified %s (Lua's error). False for a
    format with any other conversion; a format Lua refuses is never fast:
    its error comes from the general path.

    The function is generated (one test per argument, inline), as each
    test is a few nanoseconds and a loop over a description costs more
    than all of them."""
    py = []
    tests = []
    strings = []
    for item in parse_format(fmt):
        if type(item) is str:
            py.append(item.replace("%", "%%"))
            continue
        form, conv = item
        a = f"a{len(tests) + 1}"
        if form is None:
            return False
        if conv == "d" or conv == "i":
            # Python prints a zero with precision 0 as "0" (C prints nothing)
            if "." in form or not valid_form(form, FLAGS_I, True):
                return False
            tests.append(f"type({a}) is int")
        elif conv in "efgEG":
            if not valid_form(form, FLAGS_F, True):
                return False
            tests.append(f"type({a}) is float and {a} - {a} == 0.0")  # not inf or nan
        elif conv == "s":
            if len(form) > 2:
                if not valid_form(form, FLAGS_C, True):
                    return False
                tests.append(f"type({a}) is str and '\\0' not in {a}")
            else:
                tests.append(f"type({a}) is str")
            strings.append(a)
        else:
            return False
        py.append(form)
    n = len(tests)
    names = [f"a{i}" for i in range(1, n + 1)]
    if strings:
        tests.append(" + ".join(f"len({a})" for a in strings) + " <= INLINE")
    src = ["def fast(args):"]
    if n:
        src.append(f"    if len(args) == {n + 1}:")  # the common call: no extra argument, unpacked without a slice
        src.append(f"        _, {', '.join(names)}, = args")
        src.append(f"    elif len(args) > {n + 1}:")
        src.append(f"        {', '.join(names)}, = args[1:{n + 1}]")
        src.append("    else:")
        src.append("        return None")
        src.append(f"    if {' and '.join(tests)}:")
        src.append(f"        r = FORMAT % ({', '.join(names)},)")
        src.append("        if len(r) > TINY:")  # not tiny: counted, as reserve_result counts it
        src.append("            m = RUNNING[0]")  # the running machine's count (runtime/operators.py)
        src.append("            m.unreserved += len(r)")
        src.append("            if m.unreserved > STEP:")
        src.append("                reserve_unreserved()")
        src.append("        return r")
    else:
        src.append("    return FORMAT % ()")
    ns = {"FORMAT": "".join(py), "INLINE": INLINE_RESULT, "RUNNING": RUNNING, "STEP": UNRESERVED_STEP, "TINY": TINY_RESULT,
          "reserve_unreserved": reserve_unreserved}
    exec("\n".join(src), ns)
    return ns["fast"]


def _format_item(args, arg: int, form: str, conv: str) -> str:
    if conv in "diuoxX":
        v = check_int(args, arg, "format")
        checkformat(form, FLAGS_I if conv in "di" else FLAGS_U if conv == "u" else FLAGS_X, True)
        return fmt_int(form, conv, v)
    if conv in "efgEG":
        x = float(check_number(args, arg, "format"))
        checkformat(form, FLAGS_F, True)
        return fmt_float(form, conv, x)
    if conv == "a" or conv == "A":
        checkformat(form, FLAGS_F, True)
        x = float(check_number(args, arg, "format"))
        return fmt_hexfloat(form, conv == "A", x)
    if conv == "c":
        checkformat(form, FLAGS_C, False)
        c = chr(check_int(args, arg, "format") & 0xFF)
        flags, width, _ = _parse(form)
        return _pad(flags, width, "", c, False)
    if conv == "s":
        s = LI.tostring(args[arg - 1])
        if len(form) == 2:
            return s
        if "\0" in s:
            arg_error(arg, "format", "string contains zeros")
        checkformat(form, FLAGS_C, True)
        flags, width, prec = _parse(form)
        if prec is not None:
            s = s[:prec]
        return _pad(flags, width, "", s, False)
    if conv == "q":
        if len(form) > 2:
            error("specifier '%q' cannot have modifiers")
        return quote_literal(args, arg)
    if conv == "p":
        checkformat(form, FLAGS_C, False)
        flags, width, _ = _parse(form)
        return _pad(flags, width, "", _pointer(args[arg - 1]), False)
    form = form.split("\0", 1)[0]  # C prints the form up to a zero byte
    error(f"invalid conversion '{form}' to 'format'")
