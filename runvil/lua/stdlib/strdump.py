"""`string.dump` and the binary chunks `load` takes back.

runvil compiles Lua to Python, so it has no bytecode of Lua's to dump, and
a binary chunk must never carry Python code (loading one would run
anything). A binary chunk of runvil's is Lua 5.4's own header (so a program
that checks it, or cuts or corrupts it, finds what Lua's chunk gives), then
where Lua has the main function's source string: the chunk name its
messages use and Lua text, the function's own text after a line of locals
that stand for its upvalues, placed so that it starts on the line it
started on. A number lundump.c refuses follows, so Lua never reads runvil's
chunk as bytecode. `load` compiles the text as a text chunk of that name,
so errors in the loaded function read as the dumped one's, and each load
makes fresh upvalues: nil, except the first, which is the environment
`load` gives (Lua's lua_load), whatever its name.

The text comes from the source a chunk was compiled from (ChunkInfo's
`lua_source`); a function is found in it by its line and, among the
functions on that line, by the order the compiler numbered them.
"""

from __future__ import annotations

import re
import struct
from types import FunctionType

from ..debuginfo import chunk_info, is_lua_code

#: lundump.c's header of Lua 5.4 on x86-64, each part as checkHeader reads
#: it and what it says when one differs
_HEADER_PARTS = (
    ("\x1bLua", "not a binary chunk"),
    ("\x54", "version mismatch"),
    ("\x00", "format mismatch"),
    ("\x19\x93\r\n\x1a\n", "corrupted chunk"),
    ("\x04", "Instruction size mismatch"),
    ("\x08", "lua_Integer size mismatch"),
    ("\x08", "lua_Number size mismatch"),
    (struct.pack("<q", 0x5678).decode("latin-1"), "integer format mismatch"),
    (struct.pack("<d", 370.5).decode("latin-1"), "float format mismatch"),
)
HEADER = "".join(part for part, _why in _HEADER_PARTS)
#: what starts runvil's text in the place of the main function's source
_MARK = "runvil\x00"
#: after the text: where Lua reads the function's first line, a number too
#: large for it, so lundump.c stops at "integer overflow" and never reads
#: runvil's chunk as bytecode
_GUARD = "\x7f" * 10
TRUNCATED = "truncated chunk"
FOREIGN = "Lua bytecode: runvil loads only the chunks of its own string.dump"

_FACTORY = re.compile(r"def _mk_c\d+_(\d+)\(")
_OPENS = frozenset(("FUNCTION", "DO", "IF", "REPEAT"))
_CLOSES = frozenset(("END", "UNTIL"))


def dump_function(fn) -> str | None:
    """The binary chunk of a Lua function, or None when it cannot be
    dumped (a builtin, or a chunk whose source is not known)."""
    if type(fn) is not FunctionType or not is_lua_code(fn.__code__):
        return None
    code = fn.__code__
    info = chunk_info(code)
    source = getattr(info, "lua_source", None)
    if source is None:
        return None
    line = info.lines[code.co_firstlineno] if code.co_firstlineno < len(info.lines) else 0
    if line == 0:  # the main chunk: its only upvalue is _ENV, as the text has it
        return _packed("m", info.name, source)
    text = _function_text(source, info, code, line)
    return None if text is None else _packed("f", info.name, text)


def undump(chunk: str) -> tuple[str, str, bool] | str:
    """(chunk name, text, whether the text is a main chunk's) of a binary
    chunk of runvil's (a function's text is a chunk that returns it), or
    why it is none, in lundump.c's words where it has them."""
    pos = 0
    for part, why in _HEADER_PARTS:
        if pos + len(part) > len(chunk):
            return TRUNCATED
        if chunk[pos : pos + len(part)] != part:
            return why
        pos += len(part)
    pos += 1  # Lua's count of the main function's upvalues
    size = 0
    while True:  # the source's size as lundump.c's loadSize reads it, plus one
        if pos >= len(chunk):
            return TRUNCATED
        b = ord(chunk[pos])
        pos += 1
        size = (size << 7) | (b & 0x7F)
        if b & 0x80 or size > len(chunk):
            break
    end = pos + size - 1
    body = chunk[pos:end]
    if body[: len(_MARK)] != _MARK[: len(body)]:
        return FOREIGN
    if end + len(_GUARD) > len(chunk):
        return TRUNCATED
    fields = _fields(body[len(_MARK) + 1 :])
    if fields is None or body[len(_MARK)] not in "mf" or chunk[end:] != _GUARD:
        return FOREIGN
    return fields[0], fields[1], body[len(_MARK)] == "m"


def _fields(text: str) -> list | None:
    """The two length-prefixed fields (`5:hello`) that make up `text`."""
    fields, pos = [], 0
    for _ in range(2):
        colon = text.find(":", pos, pos + 12)
        if colon < 0 or not text[pos:colon].isdigit():
            return None
        end = colon + 1 + int(text[pos:colon])
        fields.append(text[colon + 1 : end])
        pos = end
    return fields if pos == len(text) else None


def _packed(kind: str, name: str, text: str) -> str:
    """The binary chunk: the header, then the text where Lua has the main
    function's source (a string whose size lundump.c reads first)."""
    body = f"{_MARK}{kind}{len(name)}:{name}{len(text)}:{text}"
    n = len(body) + 1
    digits = [chr(0x80 | (n & 0x7F))]
    n >>= 7
    while n:
        digits.append(chr(n & 0x7F))
        n >>= 7
    return HEADER + "\x01" + "".join(reversed(digits)) + body + _GUARD


def _function_text(source: str, info, code, line: int) -> str | None:
    """The text that makes `code`'s function again: a header of locals for
    its upvalues, blank lines, then the function as an expression."""
    from ..syntax import ast as A
    from ..syntax.lexer import COL, END, LINE, START, TYPE, tokenize
    from ..syntax.parser import parse
    from ..compiler.resolve import resolve
    from ..runtime.pieces import compile_meter

    # read again as `load` reads a chunk: a long one is charged to the limits as it goes
    tree = parse(source, info.name, compile_meter(len(source)))
    resolve(tree)
    on_line = sorted((n for n in _functions(tree, A) if n.line == line), key=lambda n: n.col)
    rank = _rank(info, code, line)
    if rank is None or rank >= len(on_line):
        return None
    node = on_line[rank]
    if len(node.params) != code.co_argcount:
        return None
    tokens = list(tokenize(source))
    start = None
    for i, t in enumerate(tokens):
        if t[LINE] > line:
            break
        if t[TYPE] == "FUNCTION" and t[COL] == node.col:
            start = i
    if start is None:
        return None
    paren = start + 1
    while paren < len(tokens) and tokens[paren][TYPE] != "LPAREN":
        paren += 1
    method = any(t[TYPE] == "COLON" for t in tokens[start:paren])
    end, depth = paren, 1
    while depth and end + 1 < len(tokens):
        end += 1
        kind = tokens[end][TYPE]
        depth += (kind in _OPENS) - (kind in _CLOSES)
    if depth or paren >= len(tokens):
        return None
    first = "(self" + ("" if tokens[paren + 1][TYPE] == "RPAREN" else ", ") if method else "("
    body = source[tokens[paren][END] : tokens[end][END]]
    newlines = tokens[paren][LINE] - 1
    return _upvalue_locals(node.scope.upvals) + "return" + "\n" * newlines + " function" + first + body


def _functions(tree, A) -> list:
    """Every function node of a tree (a stack, not recursion: a chunk may
    nest deeper than Python's stack)."""
    found, stack = [], [tree]
    while stack:
        n = stack.pop()
        if type(n) is A.Function:
            found.append(n)
        stack.extend(A.children(n))
    return found


def _rank(info, code, line: int) -> int | None:
    """Which of the functions the compiler made on Lua line `line` is
    `code`'s, in the order it numbered them (the order they appear): each
    is defined inside a factory `_mk_c7_N`, on the factory's first `def`."""
    src = info.rename.text(info.source) if info.rename is not None else info.source
    lines = info.lines
    numbers, own, factory = [], None, None
    for pyline, text in enumerate(src.split("\n"), 1):
        m = _FACTORY.match(text)
        if m is not None:
            factory = int(m.group(1))
        elif factory is not None and text.lstrip().startswith("def "):
            if pyline < len(lines) and lines[pyline] == line:
                numbers.append(factory)
            if pyline == code.co_firstlineno:
                own = factory
            factory = None
    return sorted(numbers).index(own) if own in numbers else None


def _upvalue_locals(upvals: list) -> str:
    """The locals a loaded function's upvalues are: Lua's order is the
    resolver's (first use); the first is the chunk's _ENV, the rest nil. A
    `<const>` local with a literal value is no upvalue in Lua (its value is
    folded in): it is declared with its value."""
    parts, ups = [], []
    for v in upvals:
        literal = _literal(v.const_init) if v.attrib == "const" else None
        if literal is not None:
            parts.append(f"local {v.name} <const> = {literal}; ")
        else:
            ups.append(v.name)
    if ups and ups[0] != "_ENV":
        parts.append(f"local {ups[0]} = _ENV; ")
    if ups[1:]:
        parts.append(f"local {', '.join(ups[1:])}; ")
    return "".join(parts)


def _literal(node) -> str | None:
    """Lua text for a literal node's value, or None for any other node."""
    from ..syntax import ast as A

    t = type(node)
    if t is A.Nil:
        return "nil"
    if t is A.TrueLit:
        return "true"
    if t is A.FalseLit:
        return "false"
    if t is A.Number:
        v = node.value
        if type(v) is int:
            return str(v) if v >= 0 else f"({v})"
        return "1e9999" if v == float("inf") else repr(v)
    if t is A.String:
        return '"' + "".join(c if " " <= c <= "~" and c not in '"\\' else f"\\{ord(c):03d}" for c in node.value) + '"'
    return None
