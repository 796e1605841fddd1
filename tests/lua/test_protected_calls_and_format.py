"""pcall, error, xpcall, select, tostring and string.format against real
Lua 5.4 (lupa), on the shapes their fast paths take and on the edges those
paths must leave to the general one: error levels and values, nested and
failing protected calls, message handlers, tail calls inside a protected
call, and format specifications with every conversion, used three times
each (a format's fast form is built at its second use)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import ours, real


def same(code: str) -> None:
    # the sign C's libm gives a NaN is platform noise: compare without it
    assert ours(code).replace("-nan", "nan") == real(code).replace("-nan", "nan")


PROTECTED = [
    # error levels and values
    'local function f() error("one") end print(pcall(f))',
    'local function f() error("two", 2) end local function g() f() end print(pcall(g))',
    'local function f() error("three", 3) end local function g() f() end local function h() g() end print(pcall(h))',
    'local function f() error("deep", 9) end print(pcall(f))',
    'local function f() error("none", 0) end print(pcall(f))',
    'print(pcall(error, "direct")) print(pcall(error, "direct", 2))',
    'print(pcall(error)) print(pcall(error, nil)) print(select("#", pcall(error)))',
    'print(pcall(error, 42)) print(pcall(error, 4.5, 1)) print(pcall(error, true))',
    'local t = {} local ok, e = pcall(error, t) print(ok, e == t)',
    'local ok, e = pcall(function() error(setmetatable({}, {__tostring = function() return "obj" end})) end)'
    ' print(ok, tostring(e))',
    'print(pcall(function() error("lvl", "2") end)) print(pcall(function() error("lvl", 1.0) end))',
    'print(pcall(function() error("lvl", 1.5) end)) print(pcall(function() error("lvl", {}) end))',
    'print(pcall(function() local t = nil; return t.x end))',
    'print(pcall(function() return 1 + {} end)) print(pcall(function() return #nil end))',
    'local o = {f = error} print(pcall(o.f, "m")) print(pcall(function() o.f("n") end))',
    # what pcall calls and returns
    'print(pcall(pcall)) print(pcall(nil)) print(pcall({})) print(pcall(42, 1))',
    'print(pcall(setmetatable({}, {__call = function(self, a, b) return a, b end}), 5, 6))',
    'print(select("#", pcall(function() return nil, nil end))) print(pcall(function() end))',
    'print(pcall(table.unpack, {1, 2, 3, nil, 5}, 1, 5)) print(pcall(select, 2, "a", "b", "c"))',
    'print(pcall(function() return tostring(5) end)) print(pcall(function() return select(2, "a", "b") end))',
    'local function g() error("in g") end print(pcall(function() return g() end))',
    'local function g(n) if n == 0 then error("bottom") end return g(n - 1) end print(pcall(g, 50))',
    'local function g(...) return ... end print(pcall(function(...) return g(...) end, 1, nil, 3))',
    'print(pcall(pcall, error, "x")) print(pcall(pcall, pcall, error, "y"))',
    'print(pcall(string.rep)) print(pcall(string.format, "%d", "x"))',
    'print(pcall(coroutine.wrap(function() error("co") end)))',
    'print(pcall(coroutine.wrap(function(a) coroutine.yield(a + 1) error("late") end), 1))',
    'local co = coroutine.wrap(function() print(pcall(coroutine.yield, 1)) return 2 end) print(co()) print(co("r"))',
    'for i = 1, 3 do local ok, e = pcall(function(x) if x % 2 == 0 then error({x}) end return x end, i)'
    ' print(ok, type(e) == "table" and e[1] or e) end',
    # xpcall and its message handler
    'print(xpcall(function() return 1, 2 end, print)) print(xpcall(function() error("e") end, function(m) return "H:" .. m end))',
    'print(xpcall(function() error({}) end, function(e) return type(e) end))',
    'print(xpcall(error, function(m) return m end, "direct")) print(xpcall(nil, function(m) return m end))',
    'print(pcall(xpcall, print)) print(pcall(xpcall, print, nil)) print(pcall(xpcall))',
    'print(xpcall(function() error("a") end, function(m) error("b") end))',
    'print(xpcall(function() error("a") end, function(m) return end))',
    'print(xpcall(function(...) return select("#", ...) end, print, nil, nil))',
    'print(xpcall(function() local x = nil; return x.f end, function(m) return "handled: " .. m end))',
    'print(xpcall(function() return xpcall(error, function(m) return "inner " .. tostring(m) end, "z") end, print))',
    'print(xpcall(function() error("e", 2) end, function(m) return m end))',
    # select and tostring
    'print(select("#")) print(select("#", nil)) print(select(-1, 1, 2, 3)) print(select(5, 1, 2))',
    'print(pcall(select, 0)) print(pcall(select, -5, 1)) print(select(2.0, "a", "b")) print(select("2", "a", "b"))',
    'print(pcall(select, "x")) print(pcall(select, 1.5, 1))',
    'print(tostring(nil), tostring(true), tostring(false), tostring(-0.0), tostring(1e100), tostring(2^63))',
    'print(tostring(3), tostring(-7), tostring(1.5), tostring("s"), tostring(math.mininteger), tostring(1/0))',
    'print(pcall(tostring)) print(tostring(setmetatable({}, {__tostring = function() return "T" end})))',
    'print(pcall(tostring, setmetatable({}, {__tostring = function() return {} end})))',
    'print(tostring(setmetatable({}, {__name = "My"})):match("^My: ") ~= nil)',
]


@pytest.mark.parametrize("code", PROTECTED)
def test_protected_calls_match_lua54(code):
    same(code)


FORMATS = [
    ('"%5.2f|%-8.3e|%+d|% d|%05d"', "3.14159, 12345.678, 7, 7, -42"),
    ('"%x|%X|%o"', "255, 255, 8"),
    ('"%x|%X|%o"', "-1, -255, -8"),
    ('"%#x|%#X|%#o|%#x"', "255, 255, 8, 0"),
    ('"%5x|%-5X|%05o|"', "10, 11, 12"),
    ('"%c%c%c|%5c|%-3c|"', "72, 105, 0, 65, 66"),
    ('"%10.4s|%.0s|%-6s|%s"', '"abcdefgh", "xyz", "ab", "plain"'),
    ('"%s|%s|%s|%s|%s|%s"', "nil, true, false, 1.5, 1e100, -0.0"),
    ('"%s|%5s|%-5s|"', "12, 3.5, false"),
    ('"%s"', 'setmetatable({}, {__tostring = function() return "via meta" end})'),
    ('"%q"', r'"tab\there \"quoted\" back\\slash\nnewline"'),
    ('"%q"', r'"ctl\1\0012 \0 \r\n \127 \200\255 end"'),
    ('"%q"', r'"\0009\0319"'),
    ('"%q|%q|%q|%q"', "1, -7, math.mininteger, math.maxinteger"),
    ('"%q|%q|%q|%q|%q"', "1.5, -0.0, 1/0, -1/0, 2^53"),
    ('"%q|%q|%q"', "true, false, nil"),
    ('"%a|%A|%.3a|%10.1a"', "1.0, 255.5, 3.14159, -0.1"),
    ('"%g|%g|%g|%.14g|%5.1g|%G"', "1e20, 1e-5, 100000, 0.1, 123.45, 1e-20"),
    ('"%i|%u|%d"', "3, 4, 5"),
    ('"%d|%x"', '"10", "0x10"'),
    ('"%5.2f|%d"', '"3.14159", 3.0'),
    ('"%.3f|%10.3f|%-10.3f|"', "1/3, -2/3, 2/3"),
    ('"%f|%e|%g"', "1/0, -1/0, 0/0"),
    ('"%099d|%.99f"', "5, 1.5"),
    ('"%5.1s|%.20s|"', '"abc", "short"'),
    ('"%%|%5%%d"', "1"),
    ('"no conversions"', ""),
    ('"%s %s"', '"a", "b", "extra"'),
    ('"%d %s"', "2^31, setmetatable({}, {__tostring = function() return 'T' end})"),
]

FORMAT_ERRORS = [
    ('"%10q"', '"x"'),
    ('"%"', ""),
    ('"%y"', "1"),
    ('"%123d"', "1"),
    ('"%5.123f"', "1.0"),
    ('"%-+#05d"', "1"),
    ('"%#d"', "1"),
    ('"%d"', "1.5"),
    ('"%d"', '"x"'),
    ('"%d"', ""),
    ('"%s %s"', "1"),
    ('"%10s"', '"a\\0b"'),
    ('"%q"', "{}"),
    ('"%c"', '"x"'),
    ('"%5.5c"', "65"),
    ('"%.3p"', "1"),
    ('"%0s"', '"x"'),
    ('"%1234567890123456789012345d"', "1"),
]


@pytest.mark.parametrize("fmt, args", FORMATS + FORMAT_ERRORS)
def test_format_matches_lua54_on_every_use(fmt, args):
    """Each format three times: its general path, then its fast form."""
    call = f"string.format({fmt}{', ' + args if args else ''})"
    same(f"for i = 1, 3 do print(pcall(function() return {call} end)) end")


def test_format_without_arguments_and_of_a_number():
    same('print(pcall(string.format)) print(string.format(12)) print(string.format(1.5))')


def test_format_of_a_long_string_by_q_and_s():
    same('local s = ("ab\\n\\1"):rep(20000) for i = 1, 3 do'
         ' print(#string.format("%q", s), #string.format("%s|%s", s, s)) end')


def test_error_in_format_fast_paths_names_the_caller():
    same('local fmt = string.format\n'
         'for i = 1, 3 do local ok, r = pcall(function() return fmt("%d|%s", i, {}) end)'
         ' print(ok, r:match("^%d|table: ") ~= nil) end\n'
         'for i = 1, 3 do print(pcall(function() return fmt("%d", i + 0.5) end)) end')


SPEC_FLAGS = st.sampled_from(["", "-", "+", " ", "#", "0", "-0", "+0", " #", "-+ #0"])
SPEC_WIDTH = st.sampled_from(["", "1", "5", "12", "99"])
SPEC_PRECISION = st.sampled_from(["", ".", ".0", ".1", ".3", ".12"])
CONVERSIONS = st.sampled_from(list("diuoxXcseEfgGaAq"))
VALUES = st.sampled_from([
    "0", "1", "-1", "7", "65", "255", "256", "-300", "2^53", "math.maxinteger", "math.mininteger", "123456789",
    "0.0", "-0.0", "0.5", "-2.5", "1/3", "1e15", "1e-7", "1e300", "1/0", "-1/0", "3.0",
    '"text"', '""', '"12"', '"a\\0b"', '"tab\\tq\\"uote"', "nil", "true",
    'setmetatable({}, {__tostring = function() return "T" end})',  # (a plain table prints its address)
])


@settings(max_examples=150, deadline=None)
@given(SPEC_FLAGS, SPEC_WIDTH, SPEC_PRECISION, CONVERSIONS, VALUES, VALUES)
def test_format_specifications(flags, width, precision, conv, v1, v2):
    spec = f"%{flags}{width}{precision}{conv}"
    call = f'string.format("<{spec}|{spec}>", {v1}, {v2})'
    same(f"for i = 1, 3 do print(pcall(function() return {call} end)) end")
