"""string.format, as Lua 5.4's str_format over C's printf (glibc output).

Each state keeps what string.format made of the formats it was given
(`Formats`): a format's items, its fast form, each specification checked.
Formats are usually constants, used once per assertion or line."""

from __future__ import annotations

import math
import re

from ..runtime import values
from ..runtime import indexing as LI
from ..runtime.args import arg_error, check_int, check_number, check_str
from ..errors import lua_error as error
from ..runtime.values import MINI
from .limits import INLINE_RESULT, TINY_RESULT, UNRESERVED_STEP, reserve_result, reserve_unreserved
from ..runtime.machine import RUNNING
from ..runtime.pieces import PIECE_BYTES, charge

#: steps a char of %q costs (a loop in Python: about 100 ns)
STEPS_PER_BYTE = 2

MAX_FORMAT = 32  # lstrlib's buffer for one conversion specification
#: a '%' and what follows it: a second '%', or the flags, width and
#: precision chars (L_FMTFLAGSF "123456789.", strspn) and the conversion
_ITEM = re.compile(r"%(?:%|([-+ #0-9.]*)(.?))", re.S)
FLAGS_F = "-+ #0"  # a A e E f g G
FLAGS_X = "-#0"  # o x X
FLAGS_I = "-+ 0"  # d i
FLAGS_U = "-0"  # u
FLAGS_C = "-"  # c p s
_MASK64 = 0xFFFFFFFFFFFFFFFF


def _isdigit(c: str) -> bool:
    return "0" <= c <= "9"


class Formats:
    """What one state's string.format made of the formats it was given:
    `items` (format -> its literal strs and (form, conv) items), `fast`
    (format -> its fast form, made at its second use) and `specs`
    (a checked specification -> its flags, width and precision). Each is
    bounded: a program that makes a new format for each call clears them
    now and then."""

    __slots__ = ("items", "fast", "seen", "specs")

    LIMIT = 256

    def __init__(self):
        self.items: dict = {}
        self.fast: dict = {}
        self.seen: set = set()  # formats used once
        self.specs: dict = {}

    def fast_form(self, fmt: str):
        """None at a format's first use (a format made anew for each call
        never pays for a build); at its second, its fast form (_fast_format,
        or one that always leaves the call to the general path), kept."""
        if fmt not in self.seen:
            if len(self.seen) >= self.LIMIT:
                self.seen.clear()
            self.seen.add(fmt)
            return None
        if len(self.fast) >= self.LIMIT:
            self.fast.clear()
        fast = self.fast[fmt] = _fast_format(fmt, self) or _general
        return fast

    def spec(self, form: str, flags: str, precision: bool) -> tuple:
        """Lua's checkformat (only `flags`, a width and, if allowed, a
        precision of at most 2 digits each between '%' and the conversion),
        then (flags, width, precision or None). The conversion letter
        implies `flags` and `precision`, so a form checked once is known."""
        r = self.specs.get(form)
        if r is None:
            if not valid_form(form, flags, precision):
                error(f"invalid conversion specification: '{form}'")
            if len(self.specs) >= self.LIMIT:
                self.specs.clear()
            r = self.specs[form] = _parse1(form)
        return r


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


def _parse1(form: str):
    """(flags, width, precision or None) of a checked specification."""
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


def fmt_int(spec: tuple, conv: str, n: int) -> str:
    flags, width, prec = spec
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


def fmt_float(form: str, spec: tuple, conv: str, x: float) -> str:
    if x != x or x in (math.inf, -math.inf):
        flags, width, _prec = spec
        return _nonfinite(flags, width, x, conv in "EG")
    # Python's printf-style float formatting is C's, correctly rounded
    return form % x


def fmt_hexfloat(spec: tuple, upper: bool, x: float) -> str:
    """C99 `%a` as glibc prints it (subnormals as 0x0.xxxp-1022; rounding
    to a precision is round-half-even and may give a leading 2)."""
    flags, width, prec = spec
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


#: what %q escapes: '"', '\\' and a newline by a backslash, other control
#: chars by their code (three digits when a digit follows)
_QUOTED = re.compile(r'["\\\n]|([\x00-\x1f\x7f])([0-9]?)')


def _quote(m) -> str:
    c = m.group(1)
    if c is None:
        return "\\" + m.group()
    digit = m.group(2)
    return f"\\{ord(c):03d}{digit}" if digit else f"\\{ord(c)}"


#: control chars other than a newline: escaped by their code
_CONTROLS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")
#: the other escapes, as a table for str.translate
_BACKSLASHED = str.maketrans({'"': '\\"', "\\": "\\\\", "\n": "\\\n"})


def quote_string(s: str) -> str:
    """addquoted: s between quotes, escaped so that Lua reads it back.
    A long string is quoted a piece at a time, each piece charged before it
    runs, so the limits stop the call inside (a scan for control chars
    alone is about 8 ms a megabyte)."""
    n = len(s)
    if n <= PIECE_BYTES:
        return '"' + _quote_piece(s, s, n) + '"'
    parts = ['"']
    for start in range(0, n, PIECE_BYTES):
        charge(PIECE_BYTES * STEPS_PER_BYTE)
        parts.append(_quote_piece(s[start : start + PIECE_BYTES], s, start + PIECE_BYTES))
    parts.append('"')
    return "".join(parts)


def _quote_piece(piece: str, s: str, after: int) -> str:
    """One piece of s quoted; `after` is where the piece ends in s (a
    control char at the piece's end looks at the char after it there)."""
    if _CONTROLS.search(piece) is None:  # the usual text: each escape is one char's
        return piece.translate(_BACKSLASHED)
    text = _QUOTED.sub(_quote, piece)
    if after < len(s) and _CONTROLS.match(piece, len(piece) - 1) and "0" <= s[after] <= "9":
        # the last char's code must take three digits: a digit follows
        text = text[: text.rindex("\\")] + f"\\{ord(piece[-1]):03d}"
    return text


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
        return fmt_hexfloat(("", 0, None), False, v)
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


def parse_format(fmt: str, formats: Formats) -> tuple:
    """A format string as literal strs and (form, conv) items (form None
    for a specification too long), kept in `formats`."""
    items = formats.items.get(fmt)
    if items is not None:
        return items
    items = []
    at = 0
    for m in _ITEM.finditer(fmt):
        if m.start() > at:
            items.append(fmt[at:m.start()])
        at = m.end()
        span, conv = m.group(1, 2)
        if span is None:  # "%%"
            items.append("%")
            continue
        conv = conv or "\0"  # (the format ends after its flags)
        items.append((None if len(span) + 1 >= MAX_FORMAT - 10 else "%" + span + conv, conv))
    if at < len(fmt):
        items.append(fmt[at:])
    items = tuple(items)
    if len(formats.items) >= formats.LIMIT:
        formats.items.clear()
    formats.items[fmt] = items
    return items


def str_format(*args):
    state = RUNNING[0].state
    try:
        formats = state.formats
    except AttributeError:
        formats = _new_formats(state)
    if args and type(fmt := args[0]) is str:
        fast = formats.fast.get(fmt)
        if fast is not None:
            if (r := fast(args)) is not None:
                return r
        elif (fast := formats.fast_form(fmt)) is not None and (r := fast(args)) is not None:
            return r
    return format_items(args, formats)


def _new_formats(state) -> Formats:
    """The Formats of the running state, at its first format (None: no
    state runs, a call from the host: nothing is kept). A state's, not a
    closure's per state: a tail call of a module's builtin is called in
    place (runtime/calls.TAIL_NOW)."""
    formats = Formats()
    if state is not None:
        state.formats = formats
    return formats


def format_items(args, formats: Formats) -> str:
    """string.format item by item: what a fast form leaves (any conversion,
    any argument, and every error)."""
    items = parse_format(check_str(args, 1, "format"), formats)
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
            out.append(_format_item(args, arg, form, conv, formats))
    if len(out) == 1:
        return out[0]
    reserve_result(sum(map(len, out)))
    return "".join(out)


def _general(args):
    """The fast form of a format that has none: the general path's."""
    return None


#: the types %s prints without a metamethod (none of theirs counts)
_PLAIN = (int, float, bool, type(None))


def _fast_format(fmt: str, formats: Formats):
    """A format whose conversions Python's % operator prints exactly as
    glibc's printf (ints by %d/%i without a precision, non-negative ints by
    %x/%X/%o without '#' or a precision, bytes by %c, finite floats by
    %e %f %g, strings by %s, strings by a plain %q once quoted) as a
    function of str_format's arguments that returns the result, or None
    unless each argument has exactly the expected type and prints as printf
    prints it: finite floats (C prints a negative NaN as "-nan"), strings
    (%s also takes a number, a boolean or nil, printed as tostring prints
    them) short enough together to be built without reserving them (the
    general path reserves a longer result) and without a zero byte under a
    modified %s (Lua's error). False for a format with any other
    conversion; a format Lua refuses is never fast: its error comes from
    the general path.

    The function is generated (one test per argument, inline), as each
    test is a few nanoseconds and a loop over a description costs more
    than all of them."""
    py = []
    tests = []
    strings = []
    converts = []
    n = 0  # the arguments so far
    for item in parse_format(fmt, formats):
        if type(item) is str:
            py.append(item.replace("%", "%%"))
            continue
        form, conv = item
        n += 1
        a = f"a{n}"
        if form is None:
            return False
        if conv == "d" or conv == "i":
            # Python prints a zero with precision 0 as "0" (C prints nothing)
            if "." in form or not valid_form(form, FLAGS_I, True):
                return False
            tests.append(f"type({a}) is int")
        elif conv in "xXo":
            # C prints a negative one as unsigned, and `#` of a zero without its prefix
            if "." in form or "#" in form or not valid_form(form, FLAGS_X, True):
                return False
            tests.append(f"type({a}) is int and {a} >= 0")
        elif conv == "c":
            if not valid_form(form, FLAGS_C, False):
                return False
            tests.append(f"type({a}) is int and 0 <= {a} < 256")
        elif conv in "efgEG":
            if not valid_form(form, FLAGS_F, True):
                return False
            tests.append(f"type({a}) is float and {a} - {a} == 0.0")  # not inf or nan
        elif conv == "s":
            converts.append(f"    if type({a}) is not str:")
            converts.append(f"        if type({a}) not in PLAIN:")
            converts.append("            return None")
            converts.append(f"        {a} = BASIC({a})")  # (no zero byte in these)
            if len(form) > 2:
                if not valid_form(form, FLAGS_C, True):
                    return False
                tests.append(f"'\\0' not in {a}")
            strings.append(a)
        elif conv == "q" and form == "%q":
            converts.append(f"    if type({a}) is not str or len({a}) > INLINE:")  # (a long one: quoted once, charged)
            converts.append("        return None")
            converts.append(f"    {a} = QUOTE({a})")
            form = "%s"
            strings.append(a)
        else:
            return False
        py.append(form)
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
        src += converts
        src.append(f"    if {' and '.join(tests) or 'True'}:")
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
          "reserve_unreserved": reserve_unreserved, "PLAIN": _PLAIN, "BASIC": values.tostring_basic,
          "QUOTE": quote_string}
    exec("\n".join(src), ns)
    return ns["fast"]


def _format_item(args, arg: int, form: str, conv: str, formats: Formats) -> str:
    if conv in "diuoxX":
        v = check_int(args, arg, "format")
        spec = formats.spec(form, FLAGS_I if conv in "di" else FLAGS_U if conv == "u" else FLAGS_X, True)
        return fmt_int(spec, conv, v)
    if conv in "efgEG":
        x = float(check_number(args, arg, "format"))
        return fmt_float(form, formats.spec(form, FLAGS_F, True), conv, x)
    if conv == "a" or conv == "A":
        spec = formats.spec(form, FLAGS_F, True)
        x = float(check_number(args, arg, "format"))
        return fmt_hexfloat(spec, conv == "A", x)
    if conv == "c":
        flags, width, _ = formats.spec(form, FLAGS_C, False)
        c = chr(check_int(args, arg, "format") & 0xFF)
        return _pad(flags, width, "", c, False)
    if conv == "s":
        s = LI.tostring(args[arg - 1])
        if len(form) == 2:
            return s
        if "\0" in s:
            arg_error(arg, "format", "string contains zeros")
        flags, width, prec = formats.spec(form, FLAGS_C, True)
        if prec is not None:
            s = s[:prec]
        return _pad(flags, width, "", s, False)
    if conv == "q":
        if len(form) > 2:
            error("specifier '%q' cannot have modifiers")
        return quote_literal(args, arg)
    if conv == "p":
        flags, width, _ = formats.spec(form, FLAGS_C, False)
        return _pad(flags, width, "", _pointer(args[arg - 1]), False)
    form = form.split("\0", 1)[0]  # C prints the form up to a zero byte
    error(f"invalid conversion '{form}' to 'format'")
