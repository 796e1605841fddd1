"""The Lua 5.4 front end: scanner, grammar, AST, and Lua's syntax errors.

Golden files: tests/lua/golden/NAME.lua -> NAME.ast (ast.dump of the parse);
regenerate them with RUNVIL_UPDATE_GOLDEN=1.  Where lupa is installed the
errors and literal values are also checked against real Lua 5.4.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runvil.lua.syntax import ast
from runvil.lua.errors import LuaSyntaxError
from runvil.lua.files import file_source
from runvil.lua.syntax.lexer import LexError, _read_string_slowly, read_string, utf8esc
from runvil.lua.syntax.parser import _builder, _get_lark, parse

try:
    from lupa import lua54
except ImportError:  # pragma: no cover
    lua54 = None

needs_lua = pytest.mark.skipif(lua54 is None, reason="lupa (real Lua 5.4) not installed")
GOLDEN = Path(__file__).parent / "golden"
_LUA = None


def _lua():
    global _LUA
    if _LUA is None:
        rt = lua54.LuaRuntime(encoding="latin-1")
        load = rt.eval('function(c) local f, e = load(c, "=input") return e end')
        value = rt.eval(
            """function(c) local f, e = load("return " .. c, "=input")
            if not f then return "error", e end
            local ok, v = pcall(f)
            if not ok then return "runtime", v end
            if type(v) == "number" then return math.type(v), v end
            return type(v), v end"""
        )
        _LUA = (load, value)
    return _LUA


def lua_error(code: str) -> str | None:
    """What Lua 5.4's load() says about `code` (None: it compiles)."""
    e = _lua()[0](code)
    if e is not None and "C stack overflow" in e:
        return "C stack overflow"  # lupa's message handler adds a traceback
    return e


def our_error(code: str) -> str | None:
    try:
        parse(code, "input")
    except LuaSyntaxError as e:
        return str(e)
    return None


def expr(code: str):
    """The AST of a Lua expression."""
    return parse(f"return {code}", "input").body.stmts[0].exprs[0]


# -------------------------------------------------------------- golden files


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.lua")))
def test_golden(name):
    source = file_source((GOLDEN / f"{name}.lua").read_bytes())
    got = ast.dump(parse(source, name)) + "\n"
    path = GOLDEN / f"{name}.ast"
    if os.environ.get("RUNVIL_UPDATE_GOLDEN") or not path.exists():
        path.write_text(got, encoding="latin-1")
    assert got == path.read_text(encoding="latin-1")


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.lua")))
def test_lark_frontend_builds_the_same_tree(name):
    """Lark's own parse loop over the custom lexer gives the same AST as the
    trimmed driver that `parse` uses."""
    source = file_source((GOLDEN / f"{name}.lua").read_bytes())
    ours = parse(source, name).body
    _builder.reset()
    theirs = _get_lark().parse(source)
    assert ast.dump(theirs) == ast.dump(ours)


# ---------------------------------------------------------------- structure


def test_precedence_shapes():
    def shape(n):
        if isinstance(n, ast.BinOp):
            return (shape(n.left), n.op, shape(n.right))
        if isinstance(n, ast.UnOp):
            return (n.op, shape(n.operand))
        if isinstance(n, ast.Paren):
            return shape(n.expr)
        return n.value if isinstance(n, ast.Number) else n.name

    assert shape(expr("-2^2")) == ("-", (2, "^", 2))
    assert shape(expr("2^-3^2")) == (2, "^", ("-", (3, "^", 2)))
    assert shape(expr("a..b..c")) == ("a", "..", ("b", "..", "c"))
    assert shape(expr("a-b-c")) == (("a", "-", "b"), "-", "c")
    assert shape(expr("not a == b")) == (("not", "a"), "==", "b")
    assert shape(expr("a or b and c")) == ("a", "or", ("b", "and", "c"))
    assert shape(expr("1 + 2 .. 3")) == ((1, "+", 2), "..", 3)
    assert shape(expr("a | b ~ c & d << 1")) == ("a", "|", ("b", "~", ("c", "&", ("d", "<<", 1))))
    assert shape(expr("#t * -x ^ 2")) == (("#", "t"), "*", ("-", ("x", "^", 2)))


def test_functions_and_methods():
    chunk = parse("function t.a.b:m(x, ...)\n  return self\nend\nlocal function f() end", "input")
    fs, lf = chunk.body.stmts
    assert isinstance(fs, ast.FunctionStat) and fs.method == "m"
    assert isinstance(fs.target, ast.Index) and fs.target.key.value == "b"
    assert fs.target.obj.key.value == "a" and fs.target.obj.obj.name == "t"
    assert fs.func.params == ["self", "x"] and fs.func.is_vararg
    assert fs.func.name == "t.a.b:m" and fs.func.line == 1 and fs.func.end_line == 3
    assert fs.func.body.end_line == 3
    assert lf.name == "f" and lf.func.name == "f" and lf.func.params == [] and not lf.func.is_vararg
    anon = expr("function(a) end")
    assert anon.name == "anonymous" and anon.params == ["a"]
    assert parse("function f() end", "x").body.stmts[0].func.name == "f"
    main = parse("return ...", "x")
    assert main.name == "x" and isinstance(main.body.stmts[0].exprs[0], ast.Vararg)


def test_suffixes_and_calls():
    e = expr('a.b["c"]:m(1)"s"{2}')
    assert isinstance(e, ast.Call) and isinstance(e.args[0], ast.Table)
    e = e.func
    assert isinstance(e, ast.Call) and e.args[0].value == "s"
    e = e.func
    assert isinstance(e, ast.MethodCall) and e.method == "m" and e.args[0].value == 1
    assert isinstance(e.obj, ast.Index) and e.obj.key.value == "c"
    assert e.obj.obj.key.value == "b" and isinstance(e.obj.obj.key, ast.String)
    assert isinstance(expr("(f())"), ast.Paren)
    stat = parse("a = f\n(g)()", "x").body.stmts[0]  # a call, as in Lua
    assert len(parse("a = f\n(g)()", "x").body.stmts) == 1 and isinstance(stat.exprs[0], ast.Call)
    items = expr("{1, x = 2, [3] = 4; 5,}").items
    assert [type(i).__name__ for i in items] == ["ListItem", "NamedItem", "KeyedItem", "ListItem"]


def test_statements():
    b = parse("local a <const>, b <close>, c = 1\nx, y.z = 1, 2\n;;f()", "x").body
    loc, asg, call = b.stmts
    assert loc.names == ["a", "b", "c"] and loc.attribs == ["const", "close", None]
    assert [type(t).__name__ for t in asg.targets] == ["Name", "Index"]
    assert isinstance(call, ast.CallStat) and call.line == 3
    i = parse("if a then elseif b then x() else y() end", "x").body.stmts[0]
    assert len(i.tests) == 2 and len(i.orelse.stmts) == 1
    n = parse("for i = 1, 2 do end for i = 1, 2, 3 do end", "x").body.stmts
    assert n[0].step is None and n[1].step.value == 3 and n[0].var == "i"
    g = parse("for k, v in pairs(t) do end goto l ::l::", "x").body.stmts
    assert g[0].names == ["k", "v"] and g[1].label == "l" and g[2].name == "l"
    r = parse("do return; end return 1, 2;", "x").body.stmts
    assert r[0].body.stmts[0].exprs == [] and len(r[1].exprs) == 2


def test_positions():
    src = "local x = 1 +\n  2\nprint(\n  x\n)\nwhile x do\n  f()\nend\nt\n  :m\n  (1)\n"
    b = parse(src, "x").body
    binop = b.stmts[0].exprs[0]
    assert (binop.line, binop.col) == (1, 13)  # the operator
    assert (binop.right.line, binop.right.col) == (2, 3)
    call = b.stmts[1].call
    assert b.stmts[1].line == 3 and call.line == 3 and call.args[0].line == 4
    w = b.stmts[2]
    assert (w.line, w.col) == (6, 1) and w.body.end_line == 8 and w.body.stmts[0].col == 3
    m = b.stmts[3]
    assert m.line == 9 and m.call.line == 9  # where its chain starts (Lua 5.4.4's line for the call)
    assert b.end_line == 12 and b.line == 1
    assert parse("\n\n", "x").body.end_line == 3
    crlf = parse("a = 1\r\nb = 2\n\rc = 3\rd = [[x\r\ny]]\n e = 'z'", "x").body.stmts
    assert [s.line for s in crlf] == [1, 2, 3, 4, 6]
    assert crlf[3].exprs[0].value == "x\ny"


def test_a_file_skips_its_shebang_line_keeping_line_numbers():
    # lua.c: only files skip a first '#' line (luaL_loadfilex); a chunk does not
    b = parse(file_source(b"#!/usr/bin/lua\nx = 1"), "x").body
    assert b.stmts[0].line == 2
    assert file_source(b"\xef\xbb\xbf#!lua\r\nx = 1") == "\nx = 1"
    assert file_source(b"# only") == ""
    with pytest.raises(LuaSyntaxError, match="unexpected symbol near '#'"):
        parse("#!/usr/bin/lua\nx = 1", "x")


def test_literal_values():
    assert expr('"\\u{E9}"').value == "\xc3\xa9"
    assert expr('"\\u{7FFFFFFF}"').value == "\xfd\xbf\xbf\xbf\xbf\xbf"
    assert expr('"\\65\\x41\\z  \n  b"').value == "AAb"
    assert expr("[==[\n]]]=]]==]").value == "]]]=]"
    assert expr('"caf\xc3\xa9"').value == "caf\xc3\xa9"
    assert expr("9223372036854775807").value == 9223372036854775807
    assert expr("9223372036854775808").value == 9.223372036854775808e18
    assert expr("0xffffffffffffffff").value == -1
    assert expr("0x1p4").value == 16.0 and expr("0x.8").value == 0.5
    assert expr("1e400").value == math.inf and isinstance(expr("3.").value, float)
    assert [utf8esc(c) for c in (0x7F, 0x80, 0x800, 0x10000)] == [
        "\x7f", "\xc2\x80", "\xe0\xa0\x80", "\xf0\x90\x80\x80"]  # fmt: skip


# ------------------------------------------------------------------- errors

ERRORS = [
    ("x = = 1", "input:1: unexpected symbol near '='"),
    ("x", "input:1: syntax error near <eof>"),
    ("a = b c", "input:1: syntax error near <eof>"),
    ("f() = 1", "input:1: syntax error near '='"),
    ("(a) = 1", "input:1: syntax error near '='"),
    ("a, f() = 1", "input:1: syntax error near '='"),
    ("a.b:c = 1", "input:1: function arguments expected near '='"),
    ("x = 1 +", "input:1: unexpected symbol near <eof>"),
    ("x = +1", "input:1: unexpected symbol near '+'"),
    ("x = 1 2", "input:1: unexpected symbol near '2'"),
    ("x = }", "input:1: unexpected symbol near '}'"),
    ("x = @", "input:1: unexpected symbol near '@'"),
    ("a = \x01", "input:1: unexpected symbol near '<\\1>'"),
    ("a = \x80", "input:1: unexpected symbol near '<\\128>'"),
    ('a = "x" "y"', "input:1: unexpected symbol near '\"y\"'"),
    ("a = [==[x]==] [[y]]", "input:1: unexpected symbol near '[[y]]'"),
    ("local t = {}\nt.x.y.z foo", "input:2: syntax error near 'foo'"),
    ("local 1", "input:1: <name> expected near '1'"),
    ("goto 1", "input:1: <name> expected near '1'"),
    ("a.1", "input:1: syntax error near '.1'"),
    ("::a", "input:1: '::' expected near <eof>"),
    ("for x y", "input:1: '=' or 'in' expected near 'y'"),
    ("for i = 1 do end", "input:1: ',' expected near 'do'"),
    ("for i = 1, 2 end", "input:1: 'do' expected near 'end'"),
    ("while 1 x", "input:1: 'do' expected near 'x'"),
    ("if x y", "input:1: 'then' expected near 'y'"),
    ("if x then else elseif", "input:1: 'end' expected near 'elseif'"),
    ("do x = 1", "input:1: 'end' expected near <eof>"),
    ("repeat x = 1", "input:1: 'until' expected near <eof>"),
    ("function f()\n\nreturn 1", "input:3: 'end' expected (to close 'function' at line 1) near <eof>"),
    ("if x then\n\n\nelse", "input:4: 'end' expected (to close 'if' at line 1) near <eof>"),
    ("while x do\n\n", "input:3: 'end' expected (to close 'while' at line 1) near <eof>"),
    ("for i = 1, 2 do\nx = 1\nuntil", "input:3: 'end' expected (to close 'for' at line 1) near 'until'"),
    ("repeat\n\n", "input:3: 'until' expected (to close 'repeat' at line 1) near <eof>"),
    ("f(1", "input:1: ')' expected near <eof>"),
    ("f(1\n\n", "input:3: ')' expected (to close '(' at line 1) near <eof>"),
    ("x = (1\n\n", "input:3: ')' expected (to close '(' at line 1) near <eof>"),
    ("x = {1, 2\n\n", "input:3: '}' expected (to close '{' at line 1) near <eof>"),
    ("x = {[1] 2}", "input:1: '=' expected near '2'"),
    ("x = t[1", "input:1: ']' expected near <eof>"),
    ("a, b", "input:1: '=' expected near <eof>"),
    ("x = a:b", "input:1: function arguments expected near <eof>"),
    ("x = a:b.c", "input:1: function arguments expected near '.'"),
    ("x = function", "input:1: '(' expected near <eof>"),
    ("local function", "input:1: <name> expected near <eof>"),
    ("function f(1) end", "input:1: <name> or '...' expected near '1'"),
    ("function f(a,) end", "input:1: <name> or '...' expected near ')'"),
    ("function f(a, ...,) end", "input:1: ')' expected near ','"),
    ("return return", "input:1: unexpected symbol near 'return'"),
    ("return 1; x = 2", "input:1: <eof> expected near 'x'"),
    ("return ;;", "input:1: <eof> expected near ';'"),
    ("do return end return x() y()", "input:1: <eof> expected near 'y'"),
    ("local x <const", "input:1: '>' expected near <eof>"),
    ("local x <foo> = 1", "input:1: unknown attribute 'foo'"),
    ("local x <foo> +", "input:1: unknown attribute 'foo'"),
    ("local a <close>, b <close> = 1", "input:1: multiple to-be-closed variables in local list"),
    ("local function f() return ... end", "input:1: cannot use '...' outside a vararg function near '...'"),
    ("f(...)\nfunction g(a) x = {...} end", "input:2: cannot use '...' outside a vararg function near '...'"),
    ('a = "abc', "input:1: unfinished string near <eof>"),
    ('a = "abc\nx"', "input:1: unfinished string near '\"abc'"),
    ('x = "a\\', "input:1: unfinished string near <eof>"),
    ("x = [[abc", "input:1: unfinished long string (starting at line 1) near <eof>"),
    ("x = 1\n--[==[ abc\n\n", "input:4: unfinished long comment (starting at line 2) near <eof>"),
    ("a = [=x", "input:1: invalid long string delimiter near '[='"),
    ('a = "abc\\q"', "input:1: invalid escape sequence near '\"abc\\q'"),
    ('a = "a\tb\\x5g"', "input:1: hexadecimal digit expected near '\"a\tb\\x5g'"),
    ('x = "\\256"', "input:1: decimal escape too large near '\"\\256\"'"),
    ('x = "\\u{80000000}"', "input:1: UTF-8 value too large near '\"\\u{80000000'"),
    ('x = "\\u123"', "input:1: missing '{' near '\"\\u1'"),
    ('x = "\\u{12"', "input:1: missing '}' near '\"\\u{12\"'"),
    ("a = 3x", "input:1: malformed number near '3x'"),
    ("a = 0x", "input:1: malformed number near '0x'"),
    ("a = 1e", "input:1: malformed number near '1e'"),
    ("a = 1..2", "input:1: malformed number near '1..2'"),
    ("a = .0x5", "input:1: malformed number near '.0x5'"),
    ("a = 0x1p", "input:1: malformed number near '0x1p'"),
    ("a = 3.4.5", "input:1: malformed number near '3.4.5'"),
    ("x = [[a\nb]] +\n", "input:3: unexpected symbol near <eof>"),
    ("x = [[a\nb]] c", "input:2: syntax error near <eof>"),
    ("x = [[a\nb]] c d", "input:2: syntax error near 'd'"),
    ('x = "a\\0b\\q"', "input:1: invalid escape sequence near '\"a'"),
    ("x = 1 .. 2 (", "input:1: unexpected symbol near <eof>"),
    ("x = " + "(" * 300 + "1" + ")" * 300, "C stack overflow"),
    ("x = " + "..".join(["a"] * 250), "C stack overflow"),
]


@pytest.mark.parametrize("code, message", ERRORS)
def test_error_messages(code, message):
    assert our_error(code) == message


@needs_lua
@pytest.mark.parametrize("code, message", ERRORS)
def test_error_messages_are_lua54s(code, message):
    assert lua_error(code) == message


def test_chunkname_is_the_prefix():
    with pytest.raises(LuaSyntaxError) as e:
        parse("x = = 1", "section `Chat` prologue")
    assert str(e.value) == "section `Chat` prologue:1: unexpected symbol near '='"
    assert our_error('\n\nx = "a\\qb"').startswith("input:3: invalid escape sequence")


@needs_lua
@pytest.mark.parametrize(
    "make",
    [
        lambda n: "x = " + "(" * n + "1" + ")" * n,
        lambda n: "x = " + "..".join(["a"] * n),
        lambda n: "x = " + "^".join(["a"] * n),
        lambda n: "x = " + "not " * n + "1",
        lambda n: "do " * n + "end " * n,
        lambda n: "x = " + "function() return " * (n // 2) + "1" + " end" * (n // 2),
        lambda n: "x = " + "a .. b .. (" * (n // 3) + "1" + ")" * (n // 3),
        lambda n: " ".join(f"::l{i}::" for i in range(n)),
        lambda n: ",".join(["a"] * n) + " = 1",
    ],
)
def test_nesting_limit_as_lua(make):
    """Lua's parser counts C levels and gives up at about 200."""
    for n in (150, 195, 196, 197, 198, 199, 200, 201):
        assert our_error(make(n)) == lua_error(make(n)), n


# --------------------------------------------------- hypothesis: precedence

_BIN = {  # op: (left priority, right priority), from lparser.c
    "or": (1, 1), "and": (2, 2), "<": (3, 3), ">": (3, 3), "<=": (3, 3), ">=": (3, 3),
    "~=": (3, 3), "==": (3, 3), "|": (4, 4), "~": (5, 5), "&": (6, 6), "<<": (7, 7),
    ">>": (7, 7), "..": (9, 8), "+": (10, 10), "-": (10, 10), "*": (11, 11), "/": (11, 11),
    "//": (11, 11), "%": (11, 11), "^": (14, 13),
}  # fmt: skip
_UN = ["-", "not", "#", "~"]

trees = st.recursive(
    st.integers(0, 9) | st.sampled_from(["a", "b", "c"]),
    lambda kids: st.tuples(kids, st.sampled_from(sorted(_BIN)), kids)
    | st.tuples(st.sampled_from(_UN), kids),
    max_leaves=12,
)


def _full(t) -> str:
    if isinstance(t, tuple) and len(t) == 3:
        return f"({_full(t[0])} {t[1]} {_full(t[2])})"
    if isinstance(t, tuple):
        return f"({t[0]} {_full(t[1])})"
    return str(t)


def _minimal(t) -> str:
    """Prints with only the parentheses Lua's priorities require."""
    if not isinstance(t, tuple):
        return str(t)
    if len(t) == 2:
        inner = _minimal(t[1])
        if isinstance(t[1], tuple) and len(t[1]) == 3 and _BIN[t[1][1]][0] <= 12:
            inner = f"({inner})"
        return f"{t[0]} {inner}"
    left, op, right = t
    ls, rs = _minimal(left), _minimal(right)
    if isinstance(left, tuple) and (
        (len(left) == 3 and _BIN[op][0] > _BIN[left[1]][1]) or (len(left) == 2 and _BIN[op][0] > 12)
    ):
        ls = f"({ls})"
    if isinstance(right, tuple) and len(right) == 3 and _BIN[right[1]][0] <= _BIN[op][1]:
        rs = f"({rs})"
    return f"{ls} {op} {rs}"


def _shape(n):
    if isinstance(n, ast.Paren):
        return _shape(n.expr)
    if isinstance(n, ast.BinOp):
        return (_shape(n.left), n.op, _shape(n.right))
    if isinstance(n, ast.UnOp):
        return (n.op, _shape(n.operand))
    return n.value if isinstance(n, ast.Number) else n.name


@given(trees)
def test_precedence_roundtrip(tree):
    assert _shape(expr(_full(tree))) == tree
    assert _shape(expr(_minimal(tree))) == tree


@needs_lua
@settings(max_examples=40)
@given(trees)
def test_minimal_printing_means_the_same_to_lua(tree):
    """The printer itself is checked: Lua evaluates both forms alike."""
    load = _lua()[1]
    consts = "local a, b, c = 5, 3, 2 "
    full, minimal = _full(tree), _minimal(tree)
    got = [load(f"(function() {consts} return {e} end)()") for e in (full, minimal)]
    got = [tuple(g) for g in got]
    if got[0][0] == "runtime":
        assert got[1][0] == "runtime"
    elif got[0][0] == "float" and math.isnan(got[0][1]):
        assert math.isnan(got[1][1])
    else:
        assert got[0] == got[1]


# ------------------------------------------------- literals against Lua 5.4


def _ours_value(code: str):
    try:
        n = expr(code)
    except LuaSyntaxError as e:
        return ("error", str(e))
    if not isinstance(n, (ast.Number, ast.String)):
        return ("expression",)
    v = n.value
    return ("integer" if isinstance(v, int) else "float" if isinstance(v, float) else "string", v)


def _same(a, b) -> bool:
    a = tuple(a)
    if a[0] == "float" == b[0] and math.isnan(a[1]):
        return math.isnan(b[1])
    return a == b


LITERALS = r"""1 0 00012 123 9223372036854775807 9223372036854775808 18446744073709551616
0x7fffffffffffffff 0xffffffffffffffff 0x10000000000000000 0x1ffffffffffffffff 0X1F
1.5 .5 3. 1e10 1E-3 1e+2 1.e5 0x1p4 0x.8 0xA.8p1 0x1P-2 0xa.bp+3 0x.1 0x1. 1e400 1e-400
0x1p99999 0x1p-99999 3.14159265358979323846 2.2250738585072014e-308 4.9e-324
123456789012345678901234567890 0x123456789abcdef0123 0x.0000000000000000000000001p100
0xFFFFFFFFFFFFFFFFF.0 "a\tb\nc" '\a\b\f\v\r\\\"\'' "\x41\x7a\xff" "\65\066\0067\255\0"
"\u{41}\u{E9}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\u{1FFFFF}\u{200000}\u{3FFFFFF}"
"\u{4000000}\u{7FFFFFFF}\u{0000041}" "a\zb" "x\z" "\0123" [[]] [==[a]]b]=]c]==] "" ''"""


@needs_lua
@pytest.mark.parametrize("code", LITERALS.split())
def test_literal_values_as_lua(code):
    assert _same(_lua()[1](code), _ours_value(code))


@needs_lua
@pytest.mark.parametrize(
    "code",
    ["9" * 5000, "0" * 5000 + "17", "9" * 5000 + ".5", "9" * 5000 + "e-4990", "0x" + "f" * 5000, "1" + "0" * 19],
)
def test_numerals_past_cpythons_digit_limit_as_lua(code):
    # issue 10: "5,000-digit numerals ... (CPython's int-string limit)"; Lua
    # reads a decimal integer numeral that overflows as a float
    assert _same(_lua()[1](code), _ours_value(code))


@needs_lua
@pytest.mark.parametrize(
    "code",
    ["'a\\\nb'", "'a\\\r\nb'", "'a\\\n\rb'", "'a\\\rb'", "'a\\z  \n\t  b'", "[[\nabc]]", "[[\r\nabc]]",
     "[[\n\rabc]]", "[[a\r\nb\rc\n\rd]]", "[=[\n]=]", "'\xe9\xff\x01'"],
)  # fmt: skip
def test_newlines_in_literals_as_lua(code):
    assert _same(_lua()[1](code), _ours_value(code))


_PIECES = ["a", " ", "\\n", "\\x4", "\\x4f", "\\u{", "\\u{41}", "\\u{7FFFFFFF}", "\\u{80000000}",
           "\\256", "\\25", "\\z", "\\\n", "\\q", "\\", "\n", '"', "'", '\\"', "\\u{1F600}", "\\xZZ",
           "\\u41", "\\u{41", "\t", "\xe9", "\\u{}", "\\0", "\\9", "\\r\\n"]  # fmt: skip


@needs_lua
@given(st.sampled_from("\"'"), st.lists(st.sampled_from(_PIECES), max_size=6))
def test_string_literals_as_lua(quote, pieces):
    code = quote + "".join(pieces) + quote
    assert _same(_lua()[1](code), _ours_value(code))


@given(st.sampled_from("\"'"), st.lists(st.sampled_from(_PIECES), max_size=6))
def test_string_scanner_paths_agree(quote, pieces):
    """The regex fast path and the char-by-char walk read strings alike."""
    code = quote + "".join(pieces) + quote

    def run(read):
        try:
            return read(code, 0, 1)
        except LexError as e:
            return (e.msg, e.line)

    assert run(read_string) == run(_read_string_slowly)


@needs_lua
@given(st.sampled_from(["", "0x", "0X", "."]), st.text("0123456789abcdefxXpP.eE+-_g", min_size=1, max_size=8))
def test_numerals_as_lua(prefix, text):
    code = prefix + text
    if not code.lstrip(".")[:1].isdigit():
        return
    lua = tuple(_lua()[1](code))
    if lua[0] == "runtime":  # not a lone numeral (e.g. "1-2" is arithmetic)
        return
    ours = _ours_value(code)
    if ours != ("expression",):
        assert _same(lua, ours)


# ------------------------------------------------ token soup against Lua 5.4

_VOCAB = """local function end if then elseif else while do for in repeat until return break goto
:: ; , . .. ... : = == ~= < <= > >= + - * / // % ^ # & ~ | << >> ( ) { } [ ] x y f t 1 2.5 0x1
"s" [[ls]] nil true false not and or @ <const> <close> 3x "open \\q [=""".split()


@needs_lua
@given(st.lists(st.sampled_from(_VOCAB), max_size=14), st.lists(st.sampled_from(["\n", " "]), min_size=14))
def test_random_tokens_fail_as_lua(words, seps):
    code = " " + "".join(w + s for w, s in zip(words, seps))  # " ": no shebang
    lua = lua_error(code)
    if lua and ("label" in lua or "break" in lua or "goto" in lua or "const variable" in lua):
        return  # resolver errors (not the parser's)
    assert our_error(code) == lua


def _golden_tokens() -> list[str]:
    from runvil.lua.syntax.lexer import tokenize

    out = []
    for p in sorted(GOLDEN.glob("*.lua")):
        src = p.read_text(encoding="latin-1").split("\n", 1)[1]  # no shebang
        out += [src[t[4] : t[5]] for t in tokenize(src)]
    return out


_CORPUS = _golden_tokens()


@needs_lua
@given(st.data())
def test_mutated_programs_fail_as_lua(data):
    """Windows of the golden programs with a few tokens dropped, added or
    replaced: Lua and we must accept the same ones and fail the same way."""
    i = data.draw(st.integers(0, len(_CORPUS) - 1))
    seg = _CORPUS[i : i + data.draw(st.integers(1, 60))]
    for _ in range(data.draw(st.integers(1, 3))):
        k = data.draw(st.integers(0, len(seg)))
        how = data.draw(st.sampled_from(["drop", "add", "swap"]))
        if how == "add" or not seg:
            seg.insert(k, data.draw(st.sampled_from(_VOCAB)))
        elif how == "drop":
            del seg[min(k, len(seg) - 1)]
        else:
            seg[min(k, len(seg) - 1)] = data.draw(st.sampled_from(_VOCAB))
    code = " " + " ".join(seg)
    lua = lua_error(code)
    if lua and ("label" in lua or "break" in lua or "goto" in lua or "const variable" in lua):
        return
    assert our_error(code) == lua


@needs_lua
@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.lua")))
def test_golden_sources_are_valid_lua(name):
    source = file_source((GOLDEN / f"{name}.lua").read_bytes())
    assert lua_error(source) is None


def test_syntax_error_is_a_lua_error_with_a_string_value():
    from runvil.lua.errors import LuaError

    with pytest.raises(LuaError) as e:
        parse("x = ", "input")
    assert e.value.value == "input:1: unexpected symbol near <eof>"
