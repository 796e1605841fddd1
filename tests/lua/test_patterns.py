"""Lua patterns (runvil.lua.stdlib.patterns.matcher) through string.find/match/gmatch/gsub:
exact unit tests, the regex translation against the backtracking matcher,
and differential tests against real Lua 5.4 (lupa)."""

from __future__ import annotations

from runvil.lua.runtime.machine import running


import pytest
from hypothesis import given
from hypothesis import strategies as st

from runvil.lua.stdlib.patterns import matcher as lpattern
from runvil.lua.runtime import values
from runvil.lua.runtime import indexing as LI
from runvil.lua.runtime import operators as LO
from runvil.lua.errors import LuaError
from runvil.lua.stdlib.patterns.matcher import LPattern, compile_pattern
from runvil.lua.runtime.tables import LuaTable

lupa = pytest.importorskip("lupa")

from .string_support import BOUNDED, LIB, _STATE, FakeState, _lua_args, _norm, _unpack_real, call, err, real  # noqa: E402,F401





def lua(name, *args):
    return call(name, *args)[1]




# ---------------------------------------------------------------- real Lua

_L = lupa.lua54.LuaRuntime(encoding=None)
_REAL_GMATCH = _L.eval(rb"""
function(s, p, ...)
  local ok, it = pcall(string.gmatch, s, p, ...)
  if not ok then return false, it end
  local flat = {}
  for i = 1, 40 do
    local r = table.pack(pcall(it))
    if not r[1] then return false, r[2] end
    if r.n == 1 then break end
    flat[#flat + 1] = r.n - 1
    for j = 2, r.n do flat[#flat + 1] = r[j] end
  end
  return true, #flat, table.unpack(flat)
end
""")
_REAL_GSUB_F = _L.eval(rb"""
function(s, p, mode, ...)
  local f
  if mode == 1 then f = function(...) return "<" .. table.concat({...}, ",") .. ">" end
  elseif mode == 2 then f = function(a) if a == "a" then return false end return nil end
  elseif mode == 3 then f = function(a) return 1.5 end
  elseif mode == 4 then f = function(a) if a == "b" then return {} end return a .. a end
  else f = {a = "A", b = 7, c = false, ["1"] = "one", [1] = "int1"} end
  local ok, r, n = pcall(string.gsub, s, p, f, ...)
  if not ok then return false, r end
  return true, 2, r, n
end
""")


def real_gmatch(*args):
    return _unpack_real(_REAL_GMATCH(*_lua_args(args)))


def ours_gmatch(s, p, *init):
    try:
        it = LIB.get("gmatch")(s, p, *init)
        flat = []
        for _ in range(40):
            r = values.expand(it())
            if not r:
                break
            flat.append(len(r))
            flat.extend(_norm(v) for v in r)
        return "ok", tuple(flat)
    except LuaError as e:
        return "err", str(e.value)


def _ours_repl(mode):
    if mode == 1:
        return lambda *a: "<" + ",".join(LI.tostring(x) for x in a) + ">"
    if mode == 2:
        return lambda a=None, *_: False if a == "a" else None
    if mode == 3:
        return lambda *a: 1.5
    if mode == 4:
        return lambda a=None, *_: LuaTable() if a == "b" else LO.concat(a, a)
    t = LuaTable()
    for k, v in (("a", "A"), ("b", 7), ("c", False), ("1", "one"), (1, "int1")):
        t.set(k, v)
    return t


def ours_gsub_f(s, p, mode, *n):
    return call("gsub", s, p, _ours_repl(mode), *n)


def real_gsub_f(s, p, mode, *n):
    return _unpack_real(_REAL_GSUB_F(*_lua_args((s, p, mode) + n)))


# ------------------------------------------------------------- unit tests


def test_find_basic():
    assert lua("find", "hello world", "o w") == (5, 7)
    assert lua("find", "hello", "l+") == (3, 4)
    assert lua("find", "hello", "xyz") == (None,)
    assert lua("find", "a.b", ".", 1, True) == (2, 2)
    assert lua("find", "abc", "", 10) == (None,)
    assert lua("find", "abc", "", 4) == (4, 3)
    assert lua("find", "abc", "", -1) == (3, 2)
    assert lua("find", "abc", "b", -100) == (2, 2)
    assert lua("find", "THE (quick) fox", "%((%a+)%)") == (5, 11, "quick")
    assert lua("find", "a+b", "+", 1) == (2, 2)
    assert lua("find", "a\0b", "%z") == (2, 2)
    assert lua("find", "\0b", "%Z") == (2, 2)
    assert lua("find", "a\0b", "\0") == (2, 2)
    assert lua("find", "a\0b", "[\0]") == (2, 2)
    assert lua("find", "a\0b", "%\0") == (2, 2)
    assert lua("find", 12345, 34) == (3, 4)


def test_match_captures():
    assert lua("match", "key = value", "(%w+)%s*=%s*(%w+)") == ("key", "value")
    assert lua("match", "  x", "()x()") == (3, 4)
    assert lua("match", "hello", ".-(l+)(.*)") == ("ll", "o")
    assert lua("match", "abcabc", "(abc)%1") == ("abc",)
    assert lua("match", "[[x]]", "%[(=*)%[(.-)%]%1%]") == ("", "x")
    assert lua("match", "hello", "^h") == ("h",)
    assert lua("match", "hello", "^e") == (None,)
    assert lua("match", "hello", "o$") == ("o",)
    assert lua("match", "a$b", "a$b") == ("a$b",)
    assert lua("match", "^a", "^^a") == ("^a",)
    assert lua("match", "f(a(b)c)d", "%b()") == ("(a(b)c)",)
    assert lua("match", "THE (quick) fox", "%f[%a]%a+", 5) == ("quick",)
    assert lua("match", "hello", "()ll()") == (3, 5)
    assert lua("match", "aaa", "a-b") == (None,)
    assert lua("match", "aaab", "a-b") == ("aaab",)
    assert lua("match", "x", "[]]") == (None,)
    assert lua("match", "]", "[]]") == ("]",)
    assert lua("match", "^", "[^^]") == (None,)
    assert lua("match", "-", "[a-]") == ("-",)
    assert lua("match", "%", "[%%]") == ("%",)


def test_classes_are_c_locale():
    s = "".join(map(chr, range(256)))
    assert lua("gsub", s, "%a", "")[1] == 52
    assert lua("gsub", s, "%A", "")[1] == 204
    assert lua("gsub", s, "%c", "")[1] == 33
    assert lua("gsub", s, "%g", "")[1] == 94
    assert lua("gsub", s, "%p", "")[1] == 32
    assert lua("gsub", s, "%s", "")[1] == 6
    assert lua("gsub", s, "%w", "")[1] == 62
    assert lua("gsub", s, "%x", "")[1] == 22
    assert lua("gsub", s, ".", "")[1] == 256
    assert lua("upper", "\xe9a") == ("\xe9A",)


def test_gmatch():
    assert ours_gmatch("one two three", "%a+") == ("ok", (1, "one", 1, "two", 1, "three"))
    assert ours_gmatch("a=1, b=2", "(%w+)=(%w+)") == ("ok", (2, "a", "1", 2, "b", "2"))
    assert ours_gmatch("abc", "", 2) == ("ok", (1, "", 1, "", 1, ""))
    assert ours_gmatch("abc", ".", 10) == ("ok", ())
    assert ours_gmatch("^a^a", "^a") == ("ok", (1, "^a", 1, "^a"))
    assert ours_gmatch("abc", "()") == ("ok", (1, 1, 1, 2, 1, 3, 1, 4))


def test_gsub_basic():
    assert lua("gsub", "hello world", "o", "0") == ("hell0 w0rld", 2)
    assert lua("gsub", "hello world", "o", "0", 1) == ("hell0 world", 1)
    assert lua("gsub", "hello world", "o", "0", -1) == ("hello world", 0)
    assert lua("gsub", "abc", "", "-") == ("-a-b-c-", 4)
    assert lua("gsub", "abxd", "x*", "-") == ("-a-b-d-", 4)
    assert lua("gsub", "abc", "(b)()", "%2%1%0%%") == ("a3bb%c", 1)
    assert lua("gsub", "abc", "%w", "%1") == ("abc", 3)
    assert lua("gsub", "abc", "()", "%1") == ("1a2b3c4", 4)
    assert lua("gsub", "hello", "^h", "H") == ("Hello", 1)
    assert lua("gsub", "hello", "^l", "L") == ("hello", 0)
    assert lua("gsub", "abc", "x", "%z") == ("abc", 0)
    assert lua("gsub", 123, "x", "y") == ("123", 0)  # issue 12: string.gsub(12, ...) returns a string
    assert lua("gsub", 123, "2", 9) == ("193", 1)
    assert lua("gsub", "abc", "(", "x") == ("xaxbxcx", 4)


def test_gsub_function_and_table():
    t = LuaTable()
    t.set("a", 1)
    t.set("b", 2.5)
    assert lua("gsub", "abc", ".", t) == ("12.5c", 3)
    assert lua("gsub", "abc", "b", lambda *a: None) == ("abc", 1)
    assert lua("gsub", "abc", "(b)(c)", lambda *a: "|".join(a)) == ("ab|c", 1)
    assert lua("gsub", "abc", "b", lambda *a: 1.0) == ("a1.0c", 1)
    meta = LuaTable()
    meta.set_str("__index", lambda t, k: k.upper())
    t2 = LuaTable()
    t2.meta = meta
    assert lua("gsub", "abc", "%w", t2) == ("ABC", 3)


def test_pattern_errors():
    assert err("find", "abc", "%") == "malformed pattern (ends with '%')"
    assert err("find", "abc", "[a") == "malformed pattern (missing ']')"
    assert err("find", "abc", "[]") == "malformed pattern (missing ']')"
    assert err("find", "x", "[%]") == "malformed pattern (missing ']')"
    assert err("find", "abc", "%f") == "missing '[' after '%f' in pattern"
    assert err("find", "abc", "%fa") == "missing '[' after '%f' in pattern"
    assert err("find", "abc", "%ba") == "malformed pattern (missing arguments to '%b')"
    assert err("find", "abc", "%1") == "invalid capture index %1"
    assert err("find", "abc", "(a)%2") == "invalid capture index %2"
    assert err("find", "abc", "(a%1)") == "invalid capture index %1"
    assert err("find", "abc", "%0") == "invalid capture index %0"
    assert err("find", "abc", "(a") == "unfinished capture"
    assert err("match", "abc", "b)") == "invalid pattern capture"
    assert lua("find", "abc", "a)") == (None,)  # errors only where reached
    assert lua("find", "abc", "x%") == (None,)
    assert err("find", "a" * 40, "(a)" * 33) == "too many captures"
    assert err("find", "a" * 300, "a?" * 200) == "pattern too complex"
    assert lua("find", "a" * 300, "a?" * 199) == (1, 199)
    assert lua("find", "a" * 300, "a*" * 300) == (1, 300)


def test_gsub_errors():
    assert err("gsub", "abc", "b", "%") == "invalid use of '%' in replacement string"
    assert err("gsub", "abc", "b", "%x") == "invalid use of '%' in replacement string"
    assert err("gsub", "abc", "b", "%2%x") == "invalid capture index %2"
    assert err("gsub", "abc", "(b)", "%2") == "invalid capture index %2"
    t = LuaTable()
    t.set("b", True)
    assert err("gsub", "abc", "b", t) == "invalid replacement value (a boolean)"
    assert err("gsub", "abc", "b", lambda *a: LuaTable()) == "invalid replacement value (a table)"
    assert err("gsub", "abc", "x") == "bad argument #3 to 'string.gsub' (string/function/table expected, got no value)"
    assert err("gsub", "abc", "x", True) == "bad argument #3 to 'string.gsub' (string/function/table expected, got boolean)"
    assert err("gsub", "abc", "x", "y", "a") == "bad argument #4 to 'string.gsub' (number expected, got string)"
    assert err("gsub", "abc", "x", None, 1.5) == "bad argument #4 to 'string.gsub' (number has no integer representation)"
    assert err("find", "abc") == "bad argument #2 to 'string.find' (string expected, got no value)"
    assert err("find", None, "x") == "bad argument #1 to 'string.find' (string expected, got nil)"
    assert err("match", "abc", "x", "y") == "bad argument #3 to 'string.match' (number expected, got string)"
    assert err("gmatch", "abc", {}) == "bad argument #2 to 'string.gmatch' (string expected, got userdata)"


def test_gsub_memory_limit():
    old = running().max_string
    running().max_string = 10_000
    try:
        r = call("gsub", "x" * 200, "x", "y" * 100)
        assert r[0] == "err" and "memory limit exceeded" in r[1]
    finally:
        running().max_string = old


def test_translation_used_for_common_patterns():
    assert compile_pattern("(%w+)%s*=%s*(%w+)").regex is not None
    assert compile_pattern("^[%a_][%w_]*$").regex is not None
    assert compile_pattern(".-()x").regex is not None
    assert compile_pattern("%f[%w]%w+").regex is not None
    assert compile_pattern("(['\"])(.-)%1").regex is not None
    assert compile_pattern("()%1").regex is not None  # a back reference to a position capture never matches
    for p in ("%b()", "(a%1)", "%0", "%f", "%fa", "(a", "a)", "%", "[a", "a?" * 200, "()" * 33):
        assert compile_pattern(p).regex is None, p


# ------------------------------------------- regex engine vs backtracking

_LIT = st.sampled_from(list("abcAB1 \0\xff\n-^$"))
_CLASS = st.sampled_from(["%" + c for c in "acdglpsuwxACDGLPSUWXz.%()[]-*+?^$"] + ["."])
_SETITEM = st.one_of(
    st.sampled_from(list("ab1-.]^()$ \0")),
    st.sampled_from(["%a", "%d", "%s", "%]", "%%", "%-", "%W"]),
    st.sampled_from(["a-c", "0-9", "b-a", "A-Z", "\0-a", "a-\xff"]),
)
_SET = st.builds(lambda neg, items: "[" + ("^" if neg else "") + "".join(items) + "]",
                 st.booleans(), st.lists(_SETITEM, min_size=1, max_size=4))
_SINGLE = st.one_of(_LIT, _CLASS, _SET)
_ITEM = st.builds(lambda a, q: a + q, _SINGLE, st.sampled_from(["", "", "*", "+", "-", "?"]))
_SPECIAL = st.sampled_from(["%b()", "%bab", "%f[%a]", "%f[%s]", "%f[^a]", "%1", "%2", "()"])


def _seq(children):
    return st.lists(children, max_size=4).map("".join)


_ELEMS = st.recursive(
    st.one_of(_ITEM, _ITEM, _SPECIAL),
    lambda inner: st.one_of(inner, st.builds(lambda s: "(" + s + ")", _seq(inner))),
    max_leaves=6,
)
PATTERNS = st.builds(lambda a, body, d: a + body + d,
                     st.sampled_from(["", "", "^"]), _seq(_ELEMS), st.sampled_from(["", "", "$"]))
RAW_PATTERNS = st.text(alphabet="ab%()[]^$-*+?.fb1", max_size=8)
SUBJECTS = st.text(alphabet="abcAB1 .-()%[]^$\0\n\xff", max_size=12)
INITS = st.one_of(st.just(()), st.integers(-15, 15).map(lambda i: (i,)))


def _both_engines(p, s, gmatch):
    fast = LPattern(p, gmatch)
    slow = LPattern(p, gmatch)
    slow.regex = None
    return fast, slow


def _run(fn):
    try:
        return "ok", fn()
    except LuaError as e:
        return "err", str(e.value)


@BOUNDED
@given(PATTERNS, SUBJECTS)
def test_regex_translation_matches_backtracking(p, s):
    fast, slow = _both_engines(p, s, False)
    if fast.regex is None:
        return
    for i in range(len(s) + 1):
        assert _run(lambda: fast.search(s, i)) == _run(lambda: slow.search(s, i)), (p, s, i)
        assert _run(lambda: fast.match_at(s, i)) == _run(lambda: slow.match_at(s, i)), (p, s, i)
        assert _run(lambda: fast.search(s, i, i)) == _run(lambda: slow.search(s, i, i)), (p, s, i)


# ------------------------------------------------------- against real Lua


@BOUNDED
@given(SUBJECTS, st.one_of(PATTERNS, RAW_PATTERNS), INITS)
def test_find_match_vs_lua(s, p, init):
    assert call("find", s, p, *init) == real("find", s, p, *init), (s, p, init)
    assert call("match", s, p, *init) == real("match", s, p, *init), (s, p, init)


@BOUNDED
@given(SUBJECTS, st.one_of(PATTERNS, RAW_PATTERNS), INITS, st.booleans())
def test_find_plain_vs_lua(s, p, init, plain):
    args = (s, p) + (init or (None,)) + (plain,)
    assert call("find", *args) == real("find", *args), args


@BOUNDED
@given(SUBJECTS, st.one_of(PATTERNS, RAW_PATTERNS), INITS)
def test_gmatch_vs_lua(s, p, init):
    assert ours_gmatch(s, p, *init) == real_gmatch(s, p, *init), (s, p, init)


REPLS = st.text(alphabet="x%0129a", max_size=6)
MAXN = st.one_of(st.just(()), st.integers(-1, 5).map(lambda i: (i,)))


@BOUNDED
@given(SUBJECTS, st.one_of(PATTERNS, RAW_PATTERNS), REPLS, MAXN)
def test_gsub_string_vs_lua(s, p, repl, n):
    assert call("gsub", s, p, repl, *n) == real("gsub", s, p, repl, *n), (s, p, repl, n)


@BOUNDED
@given(SUBJECTS, st.one_of(PATTERNS, RAW_PATTERNS), st.integers(1, 5), MAXN)
def test_gsub_function_table_vs_lua(s, p, mode, n):
    assert ours_gsub_f(s, p, mode, *n) == real_gsub_f(s, p, mode, *n), (s, p, mode, n)


def test_error_message_helper_has_no_position_outside_lua():
    with pytest.raises(LuaError) as e:
        lpattern.error("boom")
    assert e.value.value == "boom"
