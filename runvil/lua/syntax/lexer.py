"""The Lua 5.4 scanner: one master regex, tokens for the lark LALR parser.

The source is a str holding one char per byte.  Tokens carry their decoded
value (a Python int/float for numerals, a byte string for string literals)
and their 1-based line and column.  Lexical errors are raised as `LexError`
with Lua's own wording (llex.c); the caller adds the "chunk:line:" prefix.
Scanning is lazy (a generator) so that errors come in the order Lua finds
them: a lexical error surfaces only when the parser asks for that token.
"""

from __future__ import annotations

import re

from lark.lexer import Lexer


class LexError(Exception):
    """A lexical error: `msg` in Lua's words (with its "near ..." part)."""

    def __init__(self, msg: str, line: int):
        super().__init__(msg)
        self.msg = msg
        self.line = line


# A token is a plain tuple (cheap to make): (type, value, line, col, start, end)
# with 1-based line and col, and start/end offsets in the source.  The types
# are the terminals %declare'd in grammar/lua.lark: NAME, NUMBER, STRING,
# the keywords upper-cased (KEYWORDS), the symbols' names (OPS), and OTHER
# for a char that is no token (Lua's parser then says "unexpected symbol").
TYPE, VALUE, LINE, COL, START, END = range(6)


class Tok(tuple):
    """A token tuple with the attributes lark's own parser reads (only used
    when the scanner serves lark as a custom lexer, see LarkLuaLexer)."""

    __slots__ = ()
    type = property(lambda t: t[0])
    value = property(lambda t: t[1])
    line = property(lambda t: t[2])
    column = property(lambda t: t[3])
    start_pos = property(lambda t: t[4])
    end_pos = property(lambda t: t[5])
    end_line = None
    end_column = None


KEYWORDS = {
    w: w.upper()
    for w in (
        "and break do else elseif end false for function goto if in local nil not or "
        "repeat return then true until while"
    ).split()
}

OPS = {
    "+": "PLUS", "-": "MINUS", "*": "STAR", "/": "SLASH", "//": "DSLASH", "%": "PERCENT",
    "^": "CARET", "#": "HASH", "&": "AMP", "~": "TILDE", "|": "PIPE", "<<": "SHL",
    ">>": "SHR", "..": "CONCAT", "==": "EQ", "~=": "NE", "<": "LT", "<=": "LE", ">": "GT",
    ">=": "GE", "=": "ASSIGN", "(": "LPAREN", ")": "RPAREN", "{": "LBRACE", "}": "RBRACE",
    "[": "LBRACK", "]": "RBRACK", "::": "DBCOLON", ";": "SEMI", ":": "COLON", ",": "COMMA",
    ".": "DOT", "...": "DOTS",
}  # fmt: skip

_MASTER = re.compile(
    r"""[ \t\f\v]*(?:
     (?P<name>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<nl>\n\r?|\r\n?)
    |(?P<num>\.?0[xX](?:[pP][+-]?|[0-9a-fA-F.])*[A-Za-z_]?
            |\.?[0-9](?:[eE][+-]?|[0-9a-fA-F.])*[A-Za-z_]?)
    |(?P<str>"[^"\\\r\n]*"|'[^'\\\r\n]*')
    |(?P<lcom>--\[=*\[)
    |(?P<com>--[^\r\n]*)
    |(?P<op>\.\.\.?|==|~=|<=|>=|<<|>>|//|::|[-+*/%^\#&~|<>=(){};:,.\]])
    |(?P<lstr>\[=*\[)
    |(?P<lbr>\[=*)
    |(?P<qs>["'])
    |(?P<eof>\Z)
    |(?P<other>[\s\S])
    )""",
    re.VERBOSE,
)

_NL = re.compile(r"\r\n|\n\r|\r|\n")
_SPACE = " \t\n\v\f\r"


def count_lines(s: str) -> tuple[int, int]:
    """(number of Lua line breaks in s, index just after the last one or -1)."""
    if "\r" not in s:
        n = s.count("\n")
        return n, (s.rindex("\n") + 1 if n else -1)
    last = -1
    n = 0
    for m in _NL.finditer(s):
        n += 1
        last = m.end()
    return n, last


def normalize_newlines(s: str) -> str:
    return _NL.sub("\n", s) if "\r" in s else s


# ------------------------------------------------------------------ numerals

_DEC = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(r"0[xX]([0-9a-fA-F]*)(?:(\.)([0-9a-fA-F]*))?(?:[pP]([+-]?[0-9]+))?")


def convert_number(text: str):
    """Lua's luaO_str2num for a numeral as the scanner reads it, or None."""
    if text.isdigit():  # (isascii: the scanner's regex only takes 0-9 here)
        return _decimal_integer(text)
    m = _HEX.fullmatch(text)
    if m:
        ipart, dot, fpart, exp = m.groups()
        fpart = fpart or ""
        if not ipart and not fpart:
            return None
        if dot is None and exp is None:
            v = int(ipart, 16) & 0xFFFFFFFFFFFFFFFF
            return v - (1 << 64) if v >= 1 << 63 else v
        try:
            return float.fromhex(f"0x{ipart or '0'}.{fpart}p{exp or '0'}")
        except OverflowError:
            return float("inf")
    if _DEC.fullmatch(text):
        if "." in text or "e" in text or "E" in text:
            return float(text)
        return _decimal_integer(text)
    return None


def _decimal_integer(text: str):
    """A decimal integer numeral: an int, or a float when it overflows (as
    l_str2int gives up and the numeral is read as a float). Checked by
    length first: int() of thousands of digits exceeds CPython's limit."""
    digits = text.lstrip("0")
    if len(digits) > 19:
        return float(text)
    v = int(digits or "0")
    return v if v < 1 << 63 else float(text)


# ------------------------------------------------------------------- strings


def utf8esc(x: int) -> str:
    """Lua's luaO_utf8esc: (extended, up to 6 bytes) UTF-8 for x <= 2^31-1."""
    if x < 0x80:
        return chr(x)
    out = []
    mfb = 0x3F
    while True:
        out.append(0x80 | (x & 0x3F))
        x >>= 6
        mfb >>= 1
        if x <= mfb:
            break
    out.append(((~mfb << 1) | x) & 0xFF)
    return "".join(map(chr, reversed(out)))


_SIMPLE_ESC = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
               "\\": "\\", '"': '"', "'": "'"}  # fmt: skip

# A well-formed short string with escapes (values still to be range checked).
_QSTR = {
    q: re.compile(
        q + r"""((?:[^%s\\\r\n]|\\(?:[abfnrtv\\"']|\r\n?|\n\r?|x[0-9a-fA-F]{2}|[0-9]{1,3}"""
        r"""|u\{[0-9a-fA-F]+\}|z[ \t\n\v\f\r]*))*)""" % q + q
    )
    for q in "\"'"
}
_ESC = re.compile(
    r"\\(?:([abfnrtv\\\"'])|(\r\n?|\n\r?)|x([0-9a-fA-F]{2})|([0-9]{1,3})"
    r"|u\{([0-9a-fA-F]+)\}|z[ \t\n\v\f\r]*)"
)


class _BadEscape(Exception):
    pass


def _unescape(m):
    g = m.lastindex
    if g is None:  # \z
        return ""
    s = m.group(g)
    if g == 1:
        return _SIMPLE_ESC[s]
    if g == 2:
        return "\n"
    if g == 3:
        return chr(int(s, 16))
    if g == 4:
        v = int(s)
        if v > 255:
            raise _BadEscape
        return chr(v)
    v = int(s, 16)
    if v > 0x7FFFFFFF:
        raise _BadEscape
    return utf8esc(v)


def read_string(src: str, pos: int, line: int):
    """Reads the short string starting at src[pos] (a quote).

    Returns (value, end position).  Raises LexError as Lua would; `line`
    is the line where the string starts (for the error's line number)."""
    q = src[pos]
    m = _QSTR[q].match(src, pos)
    if m:
        try:
            return _ESC.sub(_unescape, m.group(1)), m.end()
        except _BadEscape:
            pass
    return _read_string_slowly(src, pos, line)


def _read_string_slowly(src: str, pos: int, line: int):
    """llex.c's read_string, char by char: what finds (and words) the errors
    in strings that the regexes above do not take."""
    n = len(src)
    q = src[pos]
    buf = [q]
    i = pos + 1

    def cur():
        return src[i] if i < n else None

    def fail(msg, with_token=True):
        if with_token:  # (C's %s: the text ends at a NUL)
            raise LexError(f"{msg} near '{''.join(buf).split(chr(0))[0]}'", line)
        raise LexError(f"{msg} near <eof>", line)

    def esccheck(ok, msg):
        nonlocal i
        if not ok:
            if i < n:
                buf.append(src[i])
                i += 1
            fail(msg)

    while True:
        c = cur()
        if c == q:
            return "".join(buf[1:]), i + 1
        if c is None:
            fail("unfinished string", False)
        if c in "\n\r":
            fail("unfinished string")
        if c != "\\":
            buf.append(c)
            i += 1
            continue
        buf.append("\\")
        i += 1
        c = cur()
        if c is None:
            continue
        if c in _SIMPLE_ESC:
            buf[-1] = _SIMPLE_ESC[c]
            i += 1
        elif c in "\n\r":
            nxt = src[i + 1 : i + 2]
            i += 2 if nxt and nxt in "\n\r" and nxt != c else 1
            line += 1
            buf[-1] = "\n"
        elif c == "x":
            buf.append("x")
            i += 1
            v = 0
            for _ in range(2):
                esccheck(cur() is not None and cur() in "0123456789abcdefABCDEF", "hexadecimal digit expected")
                buf.append(cur())
                v = v * 16 + int(cur(), 16)
                i += 1
            del buf[-4:]
            buf.append(chr(v))
        elif c == "u":
            buf.append("u")
            i += 1
            esccheck(cur() == "{", "missing '{'")
            buf.append("{")
            i += 1
            esccheck(cur() is not None and cur() in "0123456789abcdefABCDEF", "hexadecimal digit expected")
            r = int(cur(), 16)
            k = 4
            while True:
                buf.append(cur())
                i += 1
                if cur() is None or cur() not in "0123456789abcdefABCDEF":
                    break
                k += 1
                esccheck(r <= (0x7FFFFFFF >> 4), "UTF-8 value too large")
                r = (r << 4) + int(cur(), 16)
            esccheck(cur() == "}", "missing '}'")
            i += 1
            del buf[-k:]
            buf.append(utf8esc(r))
        elif c == "z":
            buf.pop()
            i += 1
            while cur() is not None and cur() in _SPACE:
                if cur() in "\n\r":
                    nxt = src[i + 1 : i + 2]
                    i += 2 if nxt and nxt in "\n\r" and nxt != cur() else 1
                    line += 1
                else:
                    i += 1
        else:
            esccheck(c.isdigit() and c.isascii(), "invalid escape sequence")
            r = 0
            k = 0
            while k < 3 and cur() is not None and cur() in "0123456789":
                r = 10 * r + int(cur())
                buf.append(cur())
                i += 1
                k += 1
            esccheck(r <= 255, "decimal escape too large")
            del buf[-k - 1 :]
            buf.append(chr(r))


# ------------------------------------------------------------------ scanner


def tokenize(src: str):
    """Yields the tokens of `src`; returns (StopIteration.value) the last line."""
    match = _MASTER.match
    kw = KEYWORDS
    ops = OPS
    pos = 0
    line = 1
    ls = 0  # position where the current line starts
    while True:
        m = match(src, pos)
        kind = m.lastgroup
        if kind == "name":
            s, pos = m.span(kind)
            v = src[s:pos]
            yield (kw.get(v, "NAME"), v, line, s - ls + 1, s, pos)
        elif kind == "op":
            s, pos = m.span(kind)
            v = src[s:pos]
            yield (ops[v], v, line, s - ls + 1, s, pos)
        elif kind == "nl":
            pos = m.end()
            line += 1
            ls = pos
        elif kind == "num":
            s, pos = m.span(kind)
            text = src[s:pos]
            v = convert_number(text)
            if v is None:
                raise LexError(f"malformed number near '{text}'", line)
            yield ("NUMBER", v, line, s - ls + 1, s, pos)
        elif kind == "str":
            s, pos = m.span(kind)
            yield ("STRING", src[s + 1 : pos - 1], line, s - ls + 1, s, pos)
        elif kind == "com":
            pos = m.end()
        elif kind == "qs":
            s = m.start(kind)
            v, pos = read_string(src, s, line)
            yield ("STRING", v, line, s - ls + 1, s, pos)
            nl, last = count_lines(src[s:pos])
            if nl:
                line += nl
                ls = s + last
        elif kind == "lstr" or kind == "lcom":
            s, e = m.span(kind)
            level = e - s - (4 if kind == "lcom" else 2)
            close = "]" + "=" * level + "]"
            end = src.find(close, e)
            if end < 0:
                what = "comment" if kind == "lcom" else "string"
                first = line
                line += count_lines(src[s:])[0]
                raise LexError(f"unfinished long {what} (starting at line {first}) near <eof>", line)
            pos = end + len(close)
            if kind == "lstr":
                body = src[e:end]
                if body[:1] in ("\n", "\r"):
                    body = body[2:] if body[:2] in ("\r\n", "\n\r") else body[1:]
                yield ("STRING", normalize_newlines(body), line, s - ls + 1, s, pos)
            nl, last = count_lines(src[s:pos])
            if nl:
                line += nl
                ls = s + last
        elif kind == "lbr":
            s, pos = m.span(kind)
            if pos - s > 1:
                raise LexError(f"invalid long string delimiter near '{src[s:pos]}'", line)
            yield ("LBRACK", "[", line, s - ls + 1, s, pos)
        elif kind == "eof":
            return line
        else:  # a char that is no token: Lua passes it on as a symbol
            s, pos = m.span(kind)
            yield ("OTHER", src[s], line, s - ls + 1, s, pos)


def token_text(tok: tuple | None, src: str) -> str:
    """How Lua's messages show a token ("near ..."): txtToken in llex.c."""
    if tok is None or tok[0] == "EOF":
        return "<eof>"
    t, value, _, _, start, end = tok
    if t in ("NAME", "NUMBER"):
        return f"'{src[start:end]}'"
    if t == "STRING":  # as Lua's buffer holds it, and cut at a NUL like C's %s
        q = src[start]
        if q == "[":
            k = src.index("[", start + 1) - start
            text = f"{src[start : start + k + 1]}{value}]{'=' * (k - 1)}]"
        else:
            text = f"{q}{value}{q}"
        return f"'{text.split(chr(0))[0]}'"
    if t == "OTHER":
        return f"'{value}'" if " " <= value <= "~" else f"'<\\{ord(value)}>'"
    return f"'{value}'"


class LarkLuaLexer(Lexer):
    """The scanner as a lark custom lexer (`lexer=LarkLuaLexer`), making
    `Tok`s.  (runvil.lua.syntax.parser drives lark's parse table itself with the
    plain tuples, which is faster; this serves `Lark.parse`.)"""

    __future_interface__ = 2
    #: set to [False] before a parse; becomes [True] on a deep parse stack
    deep = [False]

    def __init__(self, lexer_conf=None):
        pass

    def lex(self, lexer_state, parser_state):
        text = lexer_state.text
        if not isinstance(text, str):
            text = text.text
        stack = parser_state.state_stack
        for tok in tokenize(text):
            if len(stack) > 60:
                LarkLuaLexer.deep[0] = True
            yield Tok(tok)
