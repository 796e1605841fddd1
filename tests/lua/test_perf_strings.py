"""The string library's fast paths (issue 13: builtins that do less) must
behave exactly as the general ones: each program takes a fast path and
then the edges around it, and prints what real Lua 5.4 prints."""

from __future__ import annotations


import pytest

from runvil.lua.runtime import machine, values
from runvil.lua.errors import LimitExceeded
from runvil.lua.stdlib.patterns.matcher import compile_pattern
from runvil.lua.state import LuaState
from runvil.lua.stdlib import limits as budget

from .harness import ours, real

PROGRAMS = {
    # s:find(p[, init]) and s:match(p[, init]) on a compiled pattern's regex
    "find and match": r"""
local s = "hello world, hello moon"
print(s:find("hello"), s:find("hello", 2), s:find("hello", 24), s:find("", 24), s:find("", 25))
print(s:find("o", -3), s:find("o", 0), s:find("l", 3.0), s:find("xyz"))
print(s:find("[^ ]", 6), s:find("(h)(e)", 2), s:find("()o"), s:find("%s(%a+)$"))
print(s:find("o", 6, true), s:find("o", 100, true), s:find("", 24, true), s:find("", 25, true), s:find("(", 1, 1), s:find("l", -3, true), s:find("l", 0, true))
print(s:find("wor", 1, true), s:find("w.r", 1, true), s:find("w.r"), s:find("^hello", 2))
print(s:match("^(%a+)"), s:match("^%a+"), s:match("(%a+), (%a+)"), s:match("moon$"))
print(s:match("^-?%d+"), ("  -123x"):match("^-?%d+", 3), ("  -123x"):match("-?%d+", 7))
print(s:match("()ll()"), s:match("o", 100), s:match("x*"), s:match("%f[%a]%a+", 2))
print(pcall(string.find, s, "(%a"))
print(pcall(string.match, s, "[a"))
print(pcall(string.find, s))
print(pcall(string.find, s, "x", "y"))
print(pcall(string.match, nil, "x"))
print(pcall(string.find, s, {}))
print(string.find(123, 2), string.match(1.5, "%d"), ("x"):find("x", 1, false))
-- one-char patterns: the char at init is tested before any search
local t = "a [b]\t%c."
print(t:find("[^ \t]", 2), t:find("[^ \t]", 3), t:find("%s", 1), t:find("%s", 2), t:find(".", 9), t:find(".", 10), t:find(".", 11))
print(t:find("[%]]", 4), t:find("%]", 5), t:find("%%", 7), t:find("%.", 8), t:find("[%a]", 6), t:find("^%a", 1), t:find("^%a", 2))
print(t:match("[^ \t]", 2), t:match("[^ \t]", 3), t:match("%s", 2), t:match(".", 9), t:match(".", 10), t:match("^[%[]", 3), t:match("^[%[]", 4))
print(t:find("[^%w%s]", 1), t:find("[b-c]", 1), t:find("[b-c]", 4), t:find("%W", -2), t:match("%W", -1), ("\0"):find("%z"), ("\0"):find("[%z]"))
print(pcall(string.find, t, "%"))
print(pcall(string.find, t, "[a"))
print(pcall(string.match, t, "[^"))
print(pcall(string.find, t, "%b"))
print(pcall(string.find, t, "%f"))
print(t:find("%f[%a]"), t:find("%bab"), t:find("%b[]"), t:find("$"), t:find("^"))
""",
    # gsub with a string replacement as one re.subn
    "gsub strings": r"""
print(("987654321"):reverse():gsub("(%d%d%d)", "%1,"))
print(("hello world"):gsub("o", "0"), ("hello"):gsub("l", "%%"), ("hello"):gsub("l", "\\1"))
print(("hello world"):gsub("%w+", "<%0>"), ("hello world"):gsub("%w+", "<%1>"))
print(("hello world"):gsub("(%w+) (%w+)", "%2 %1 %0 %%2"), ("abc"):gsub("b", "%%%%"))
print(("abc"):gsub("", "-"), ("abc"):gsub("^a", "A"), ("abc"):gsub("b*", "-"), ("abc"):gsub("x", "%"))
print(pcall(string.gsub, "abc", "b", "%2"))
print(pcall(string.gsub, "abc", "(b)", "%2"))
print(pcall(string.gsub, "abc", "b", "%x"))
print(pcall(string.gsub, "abc", "b", "x%"))
print(("abc"):gsub("()b", "%1"), ("abcb"):gsub("(b)()", "[%2%1]"), ("aaa"):gsub("a", "b", 2))
print(("aaa"):gsub("a", "b", 0), ("aaa"):gsub("a", "b", -1), ("aaa"):gsub("a", "b", 2.0))
print(("a.b.c"):gsub("%.", "%%"), ("x y"):gsub("%s", 5), ("x y"):gsub(" ", 2.5))
print(pcall(string.gsub, "abc", "b", "x", 1.5))
print(pcall(string.gsub, "abc", "b", true))
print(("\0a\0"):gsub("%z", "0"), ("a\nb"):gsub("\n", "\\n"), ("tab\there"):gsub("%c", "%0%0"))
print(("aaaa"):gsub("aa", "b"), ("aaa"):gsub("aa", "b"), ("abab"):gsub("ab", ""), (""):gsub("a", "b"), ("a\\b"):gsub("\\", "\\\\"))
print(("x,y,,z"):gsub(",", ", "), ("x,y"):gsub(",", "%%"), ("a b"):gsub(" ", "\0"), ("aXbXc"):gsub("X", "X"), ("abc"):gsub("abcd", "-"))
""",
    # gsub with a function replacement, called by re.subn
    "gsub functions": r"""
local function up(w) return w:upper() end
print(("hello world"):gsub("%a+", up), ("hello world"):gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))
print(("a1b2"):gsub("%d", function(d) return d * 2 end), ("a1b2"):gsub("%d", function() return nil end))
print(("a1b2"):gsub("%d", function() return false end), ("a1b2"):gsub("%a", function(c) if c == "b" then return "B" end end))
print(pcall(string.gsub, "abc", "b", function() return {} end))
print(pcall(string.gsub, "abc", "b", function() return true end))
print(pcall(string.gsub, "abc", "b", function() error("inside") end))
print(("abc"):gsub("()", function(p) return p end), ("abc"):gsub("b", function(...) return select("#", ...) end))
print(("hello"):gsub("l+", {ll = "LL"}), ("hello"):gsub("(h)(e)", {h = 1}), ("x"):gsub("x", function() return 1.5 end))
local n = 0
print(("aaaa"):gsub("a", function() n = n + 1; return n end, 3), n)
print(coroutine.resume(coroutine.create(function() return ("ab"):gsub("a", function() coroutine.yield(1) end) end)))
print(coroutine.resume(coroutine.create(function() return ("ab"):gsub("a", {a = "x"}) end)))
""",
    # string.format by Python's % operator for ints, finite floats and strings
    "format": r"""
print(string.format("%d %s %5.2f", 7, "item", 7 / 3), string.format("%s.%02d", "1,234", 5))
print(string.format("%2d. %-10s %8d %16s %6.1f%%", 3, "pears", 42, "1,234.56", 12.345))
print(string.format("%5d|%-5d|%05d|%+d|% d|%+ d|%-+5d|%i", 42, 42, -42, 5, 5, 5, 5, -7))
print(string.format("%d", math.mininteger), string.format("%d", math.maxinteger), string.format("%5.d|%.0d|%.3d", 0, 0, 7))
print(string.format("%e|%E|%g|%G|%.3g|%#g|%+.2e|%10.4f|%-10.1f|", 12345.678, 0.5, 1e20, 1e-5, 2 / 3, 1.0, -3.0, math.pi, 2.25))
print(string.format("%5.2f|%5.2f|%f|%e", 1 / 0, -1 / 0, 0 / 0, -(0 / 0)))
print(string.format("%.2f|%d|%5.1f|%s", 3, 3.0, 7, 12), string.format("%g", 2^63), string.format("%.1f", 0.05))
print(string.format("%s|%.3s|%10.3s|%-6s|", "a\0b", "abcdef", "abcdef", "ab"), #string.format("%s", "a\0b"))
print(string.format("no conversions"), string.format("100%%"), string.format("%s %s", "a", "b", "extra"))
print(pcall(string.format, "%5s", "a\0b"))
print(pcall(string.format, "%d %d", 1))
print(pcall(string.format, "%d", 3.5))
print(pcall(string.format, "%d", "x"))
print(pcall(string.format, "%123d", 1))
print(pcall(string.format, "%.123f", 1))
print(pcall(string.format, "%#d", 1))
print(pcall(string.format, "%5.2f", "x"))
print(pcall(string.format, "%s"))
print(pcall(string.format, "%y", 1))
print(string.format("%x|%X|%o|%c|%q", 255, 255, 8, 65, "a\n"), string.format("%-5c|", 66))
""",
    # receivers taken at once, and table.concat of a list of strings
    "receivers and concat": r"""
local s = "hello"
print(s:byte(-1), s:byte(-5), s:byte(-6), s:byte(0), s:byte(6), s:byte(1), string.byte(12, -1), s:byte(-1.0))
print(s:sub(-3), s:sub(-5), s:sub(-6), s:sub(-100), s:sub(-2, -1), s:sub(-3, 4), s:sub(0), s:sub(2), s:sub(2, 3), s:sub(4, 2))
print(s:sub(math.mininteger), s:sub(-1, math.maxinteger), s:sub(6), s:sub(3, -2), s:sub(-3, -3))
print(("abc"):len(1), string.len(12), string.reverse(1.5), ("abc"):reverse(), ("aBc\200"):upper(), string.lower(10))
print(pcall(string.len))
print(pcall(string.reverse, {}))
print(pcall(string.upper, nil))
print(table.concat({"a", "b", "c"}), table.concat({"a", "b"}, ", "), table.concat({}), table.concat({"x"}, 5))
print(table.concat({"a", 1, 2.5}, "-"), table.concat({"a", "b", "c"}, "", 2), table.concat({1, 2, 3}, ",", 2, 3))
print(table.concat({"only"}), table.concat({"only"}, ", "), table.concat({1}), table.concat({2.5}, "-"), table.concat({"a"}, "", 1, 1), table.concat({"a"}, "", 2))
print(pcall(table.concat, {{}}))
print(pcall(table.concat, {"a"}, "", 1, 2))
print(pcall(table.concat, {"a", {}, "c"}))
print(pcall(table.concat, {"a", nil, "c"}))
print(pcall(table.concat, {"a", true}))
print(pcall(table.concat, {"a"}, {}))
local t = setmetatable({}, {__index = function(_, i) return "v" .. i end, __len = function() return 3 end})
print(table.concat(t, "|"))
""",
    # gmatch over re's matches; anchored matches judged safe per start
    "gmatch": r"""
local text = "alpha1=10 beta22=20 gamma333=30"
local out = {}
local function w_(...) for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end end
local function flush() print(table.concat(out, " ")); out = {} end
for k, v in text:gmatch("(%a+)%d+=(%d+)") do w_(k, v) end flush()
for w in text:gmatch("%a+") do w_(w) end flush()
for w in text:gmatch("(%d)") do w_(w) end flush()
for a, p in text:gmatch("(%a)()") do w_(a, p) end flush()
for w in text:gmatch("%d*") do w_("[" .. w .. "]") end flush()
for w in text:gmatch("%a+", 10) do w_(w) end flush()
for w in text:gmatch("%a+", -5) do w_(w) end flush()
for w in text:gmatch("%a+", 100) do w_(w) end flush()
for w in ("^a^b"):gmatch("^.") do w_(w) end flush()
local it = ("ab"):gmatch(".")
print(it(), it(), it(), it())
print((pcall(string.gmatch, "x", "(%a")))
for w in ("a(b"):gmatch("(%a") do w_(w) end
""",
    # a for over gmatch takes its first matches one by one, then the rest by
    # one findall (on a subject over 1 KB): the iterator itself still goes on where the loop stopped,
    # called in the loop's body it takes the next match, and a loop over the
    # same iterator inside the loop shares its matches
    "gmatch walks": r"""
local s = "one two three four five six seven eight nine ten eleven twelve" .. string.rep(".", 1100)
local out = {}
local function w_(...) for i = 1, select("#", ...) do out[#out + 1] = tostring((select(i, ...))) end end
local function flush() print(table.concat(out, " ")); out = {} end
local it = s:gmatch("%a+")
for w in it do w_(w) if w == "two" then break end end flush()
for w in it do w_(w) if w == "seven" then break end end flush()
print(it(), it())
for w in it do w_(w) end flush()
print(it())
it = s:gmatch("%a+")
for w in it do w_(w, it()) end flush()
it = s:gmatch("(%a)(%a+)")
for a, b in it do w_(a, b, "[") for c, d in it do w_(c, d) if c == "n" then break end end w_("]") end flush()
it = s:gmatch("%a+")
for w in it do w_(w, "[") for v in it do w_(v) if v == "two" or v == "nine" then break end end w_("]") end flush()
for a, b in s:gmatch("(%a)(%a*)") do w_(a:upper() .. b) end flush()
for w in s:gmatch("(%a+)") do w_(w) if w == "nine" then break end end flush()
local n, k = 0, 0
for w in s:rep(1000, " "):gmatch("%a+") do n = n + #w k = k + 1 if k == 11000 then break end end print(n, k)
it = s:rep(3, " "):gmatch("%a+")
for w in it do if w == "six" then break end end
for w in it do if w == "five" then break end end
print(it(), it())
print(pcall(function() for w in it do w_(w) if w == "ten" then error("stop") end end end)) flush()
print(it())
""",
    # match, sub, byte, upper, lower, len and reverse take their arguments as
    # parameters: absent ones, nil ones and extra ones as Lua tells them apart
    "arguments as parameters": r"""
local s = "key: value  "
print(s:match("^(%a+):%s*(.*)$"), s:match("%a+", 3), s:match("%a+", 0), s:match("%a+", -3), s:match("%a+", 13), s:match("%a+", 14), s:match("", 13), s:match("x", 100))
print(pcall(string.match), pcall(string.match, s), pcall(string.match, s, "%a", {}), pcall(string.match, s, "%a", nil), s:match("%a", 2.0), s:match("(%a)", 1, 2))
print(string.match(123, "%d"), pcall(string.match, s, "(%a"), s:match("()e()"), s:match(" *$"))
local s = "hello world"
print(s:sub(2), s:sub(-3), s:sub(0), s:sub(2, 4), s:sub(2, -1), s:sub(-3, -1), s:sub(-30, -1), s:sub(3, -2), s:sub(0, 0), s:sub(5, 2), s:sub(2.0, 3), s:sub(2, nil))
print(pcall(string.sub), pcall(string.sub, s))
print(pcall(string.sub, s, {}), pcall(string.sub, s, 1, {}), pcall(string.sub, s, 1.5))
print(string.sub(12345, 2, 3), s:sub(2, 3, 4), s:sub(100), s:sub(-100))
print(s:byte(1), s:byte(-1), s:byte(100), s:byte(), s:byte(1, 3), s:byte(0), s:byte(1, nil), s:byte(2.0))
print(pcall(string.byte), pcall(string.byte, s, {}), pcall(string.byte, s, 1, {}), string.byte(12, 1))
print(select("#", s:byte(100)), select("#", s:byte(3, 2)))
print(pcall(string.upper))
print(pcall(string.upper, nil))
print(pcall(string.lower, {}))
print(pcall(string.len))
print(pcall(string.reverse))
print(pcall(string.reverse, nil, 1))
print(string.upper(12), string.lower(1.5), string.len(123), string.reverse(12))
print(("aBc\xe9\xc9"):upper() == "ABC\xe9\xc9", ("aBc\xe9\xc9"):lower() == "abc\xe9\xc9", ("abc"):upper(1, 2), ("x"):len(3))
print(#string.rep("aé", 5000):upper(), string.rep("ab", 3000):upper():sub(1, 4))
print(pcall(("x").upper, true))
""",
    "anchored": r"""
local line = "  " .. string.rep("word ", 40) .. ". (12)  "
print(#line:match("^%s*(.-)%s*$"), line:match("%((%d+)%)$"), line:match("^%s*(%a+)"))
print(("  x  "):match("^%s*(.-)%s*$"), ("ab"):match("^(a-)b"), (""):match("^%s*(.-)%s*$"))
""",
    # table.sort tests a comparator's result inline (True/False at once)
    "sort": r"""
local function show(t) print(table.concat(t, " ")) end
local t = {5, 3, 8, 1, 9, 2, 7}
table.sort(t, function(a, b) return a > b end) show(t)
t = {5, 3, 8, 1, 9, 2, 7}
table.sort(t, function(a, b) if a < b then return 1 end return nil end) show(t)
t = {5, 3, 8, 1, 9, 2, 7}
table.sort(t, function(a, b) return a < b, "extra" end) show(t)
t = {5, 3, 8, 1, 9, 2, 7}
table.sort(t, function(a, b) if a < b then return 0 end return false end) show(t)
t = {5, 3, 8, 1, 9, 2, 7}
local function lt(a, b) return a < b end
table.sort(t, function(a, b) return lt(a, b) end) show(t)
t = {"b", "a", "c"}
table.sort(t) show(t)
t = {3, 1.5, 2}
table.sort(t) show(t)
local calls = 0
t = {5, 3, 8, 1, 9, 2, 7, 4, 6, 0}
table.sort(t, function(a, b) calls = calls + 1; return a < b end) show(t) print(calls)
print(pcall(table.sort, {3, 1, 2}, function(a, b) return true end))
print(pcall(table.sort, {1, "x"}))
print(pcall(table.sort, {3, 2, 1}, function(a, b) error("cmp") end))
""",
    # a format's generated fast path (built at its second use, so each
    # format runs twice): its arguments unpacked at once when there are
    # exactly as many as conversions, sliced when there are more
    "format fast path": r"""
for round = 1, 2 do
  print(round, string.format("%d %s %5.2f", 7, "item", 7 / 3), string.format("%d %s %5.2f", 7, "item", 7 / 3, "extra", nil))
  print(pcall(string.format, "%d %s %5.2f", 7, "item"))
  print(pcall(string.format, "%d %s %5.2f", 7))
  print(pcall(string.format, "%d %s %5.2f", "7", "item", 1))
  print(pcall(string.format, "%d %s %5.2f", 7.5, "item", 1.0))
  print(string.format("%d %s %5.2f", 7.0, 12, 1 // 1), string.format("%d %s %5.2f", 2^53, {1} and "t", 1 / 0))
  print(string.format("%s", "x"), string.format("%s", 1), string.format("%s", nil), string.format("%s", "x", "y"))
  print(pcall(string.format, "%s"))
  print(string.format("plain"), string.format("plain", 1, 2), string.format("%%"))
end
""",
    # table.sort without a comparator over tables of one metatable: __lt
    # found once for the sort, called as the < operator would call it
    "sort by __lt": r"""
local M = {__lt = function(a, b) return a.v < b.v end}
local function obj(v) return setmetatable({v = v}, M) end
local function vals(t) local o = {} for i = 1, #t do o[i] = t[i].v end return table.concat(o, " ") end
local t = {obj(5), obj(3), obj(8), obj(1), obj(9), obj(2), obj(7), obj(4), obj(6), obj(0)}
table.sort(t) print(vals(t))
local calls = 0
M.__lt = function(a, b) calls = calls + 1; if a.v < b.v then return 1 end return nil end
t = {obj(5), obj(3), obj(8), obj(1), obj(9), obj(2), obj(7)}
table.sort(t) print(vals(t), calls)
M.__lt = function(a, b) return a.v < b.v, "extra" end
t = {obj(3), obj(1), obj(2)} table.sort(t) print(vals(t))
local function lt(a, b) return a.v > b.v end
M.__lt = function(a, b) return lt(a, b) end
t = {obj(3), obj(1), obj(2), obj(5), obj(4)} table.sort(t) print(vals(t))
-- the comparator changes the metatable (or its __lt) while the sort runs
local N = {__lt = function(a, b) return a.v > b.v end}
M.__lt = function(a, b) calls = calls + 1; if calls == 3 then setmetatable(a, N) end return a.v < b.v end
calls = 0 t = {obj(5), obj(3), obj(8), obj(1), obj(9), obj(2), obj(7)} table.sort(t) print(vals(t), calls)
M.__lt = function(a, b) M.__lt = N.__lt return a.v < b.v end
t = {obj(5), obj(3), obj(8), obj(1), obj(9), obj(2), obj(7)} table.sort(t) print(vals(t))
M.__lt = function(a, b) M.__lt = nil return a.v < b.v end
t = {obj(5), obj(3), obj(8)} print(pcall(table.sort, t))
-- errors: an inconsistent order, a comparison raising, no __lt, mixed metatables
M.__lt = function(a, b) return true end
print(pcall(table.sort, {obj(3), obj(1), obj(2), obj(5), obj(4)}))
M.__lt = function(a, b) error("cmp " .. a.v) end
print(pcall(table.sort, {obj(3), obj(1), obj(2)}))
M.__lt = function(a, b) error({}) end
print(select("#", pcall(table.sort, {obj(3), obj(1)})))
M.__lt = nil
print(pcall(table.sort, {obj(3), obj(1), obj(2)}))
M.__lt = function(a, b) return a.v < b.v end
print(pcall(table.sort, {obj(3), setmetatable({v = 1}, {}), obj(2)}))
print(pcall(table.sort, {obj(3), setmetatable({v = 1}, N), obj(2)}))
print(pcall(table.sort, {obj(3), 1, obj(2)}))
-- a callable table as __lt, and a builtin
M.__lt = setmetatable({}, {__call = function(_, a, b) return a.v < b.v end})
t = {obj(3), obj(1), obj(2)} table.sort(t) print(vals(t))
M.__lt = rawequal
t = {obj(3), obj(1), obj(2)} table.sort(t) print(#t)
-- a comparison that yields inside a coroutine: sort is a C call
M.__lt = function(a, b) coroutine.yield() return a.v < b.v end
print(coroutine.resume(coroutine.create(function() table.sort({obj(2), obj(1)}) end)))
-- deep C calls: each comparison is one more nested C call
M.__lt = function(a, b) return a.v < b.v end
local function nest(k) if k == 0 then local t = {obj(2), obj(1)} table.sort(t) return vals(t) end
  return select(2, pcall(nest, k - 1)) end
print(nest(150), nest(197), nest(198), nest(250))
""",
}


# the same programs run twice over: paths taken from a call's second use
# on (a format's generated function, a gsub replacement's every-match run)
for _name in ("find and match", "gsub strings", "gsub functions", "format"):
    PROGRAMS[_name + ", twice"] = "for round = 1, 2 do\n" + PROGRAMS[_name] + "\nend\n"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fast_path_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)


def test_gsub_template_result_over_the_string_limit_is_refused():
    st = LuaState()
    st.machine.max_string = 10_000  # (a state sets it from its memory limit)
    try:
        fn = st.load('local s = ("x"):rep(100) return (s:gsub("(x)", "%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1%1"))')
        with pytest.raises(LimitExceeded):
            st.call(fn)
    finally:
        st.machine.max_string = 1 << 40


def test_gsub_template_result_is_reserved_against_the_memory_limit():
    st = LuaState()
    seen = []
    guard = st.guard
    st.limits.memory = 1 << 40
    guard.pending = 0
    real_call = type(guard).__call__
    try:
        type(guard).__call__ = lambda self, n: seen.append(n) or real_call(self, n)
        st.call(st.load('local s = ("ab"):rep(50000) return (s:gsub("(a)", "%1-"))'))
    finally:
        type(guard).__call__ = real_call
    assert max(seen) >= 150_000  # the bound of the result, reserved before re.subn builds it


def test_a_closed_state_is_held_by_no_machine():
    """A closed state's machine accounts to none, and neither the running
    machine nor the idle one holds it (no registry of states is left)."""
    st = LuaState()
    st.call(st.load('return ("x"):rep(10)'))
    st.close()
    assert st.machine.state is None and st.machine.guard is not st.guard
    assert machine.running().state is not st and machine.IDLE.state is not st


def test_plain_and_safe_patterns_are_flagged():
    assert compile_pattern("hello world").plain
    assert not compile_pattern("a.b").plain
    assert compile_pattern("[^ ]").any_rx is not None
    assert compile_pattern("^-?%d+").any_rx is not None  # '-?' takes one char at most, possessively
    assert compile_pattern("^%d-%d").any_rx is None  # '%d-' may backtrack: regex_for decides per subject
    assert not compile_pattern("()x").textcaps
    assert compile_pattern("[^ \t]").single == frozenset(map(chr, range(256))) - {" ", "\t"}
    assert compile_pattern("%a").single is not None and compile_pattern("^.").single is not None
    assert all(compile_pattern(p).single is None for p in ("%a+", "[ab]c", "(%a)", "%bxy", "%f[%a]", "x", "$"))


def test_format_of_a_long_string_is_reserved():
    st = LuaState()
    st.machine.max_string = 50_000  # (a state sets it from its memory limit)
    try:
        fn = st.load('local s = ("x"):rep(40000) return string.format("%s!", s), string.format("%s%s", s, s)')
        with pytest.raises(LimitExceeded):
            st.call(fn)
        assert len(st.call(st.load('return string.format("%s!", ("x"):rep(40000))'))[0]) == 40001
    finally:
        st.machine.max_string = 1 << 40


@pytest.mark.parametrize("expr", [
    '("x"):rep(1000)',
    'string.format("%s|%d", s, i)',
    'table.concat({s, s}, ",")',
    's:gsub("x", "yy")',
    's:gsub("(x)", "%1")',
])
def test_small_results_still_reach_the_memory_guard(expr):
    """Results up to 64 KB are built without reserving each one, but
    counted: the guard sees (nearly) all of them, in 256 KB batches."""
    st, seen = _guarded_state(f'local s = ("x"):rep(500) for i = 1, 4000 do local r = {expr} end')
    assert sum(seen) >= 4000 * 500 - budget.UNRESERVED_STEP


def _guarded_state(code: str):
    """A state with a memory limit that never stops it, after running
    `code`, and the sizes its memory guard was asked to reserve."""
    st = LuaState()
    st.limits.memory = 1 << 40
    guard = st.guard
    seen = []
    real_call = type(guard).__call__
    try:
        type(guard).__call__ = lambda self, n: seen.append(n) or real_call(self, n)
        st.call(st.load(code))
    finally:
        type(guard).__call__ = real_call
    return st, seen


def test_risk_of_a_regex_is_judged_by_the_subjects_runs():
    """regex_for finds the longest run of a pattern's risky chars in one
    pass: a subject with a run of more than the bound goes to the metered
    matcher, one without stays on re (newlines count as '.' chars)."""
    pat = compile_pattern("(.-)x(.-)y")  # two runs of any char
    short_runs = "ab\n" * 20_000
    assert pat.regex_for(short_runs) is None  # '.' spans the newlines: one run of 60,000
    words = compile_pattern("(%a+)%d+=(%d+)")
    text = " ".join(f"w{i}={i}" for i in range(30_000))
    assert words.regex_for(text) is not None
    assert words.regex_for("a" * 20_000 + " " + text) is None
    assert words.regex_for("\u0100" * 20_000 + text) is not None  # not a byte: breaks a run


def test_format_fast_path_is_built_at_a_second_use():
    """A format made anew for each call (text joined into it) never pays
    for building its fast path; one used again gets it."""
    fmt = "once only %d: a format string no other test uses"
    st = LuaState()
    st.execute(f'assert(string.format("{fmt}", 1) == "once only 1: a format string no other test uses")')
    assert fmt in st.formats.seen and fmt not in st.formats.fast
    st.execute(f'assert(string.format("{fmt}", 2) == "once only 2: a format string no other test uses")')
    assert callable(st.formats.fast[fmt])


def test_each_state_keeps_its_own_formats():
    """What string.format made of a format belongs to the state that was
    given it, and is bounded: another state starts with none."""
    one, two = LuaState(), LuaState()
    one.execute('for i = 1, 3 do string.format("%5.1f|%x", i / 2, i) end')
    two.execute('string.format("%d", 1)')
    formats_one, formats_two = one.formats, two.formats
    assert "%5.1f|%x" in formats_one.fast and "%5.1f|%x" not in formats_two.fast
    one.execute('for i = 1, 1000 do string.format("%d" .. i, i) end')
    assert max(len(formats_one.items), len(formats_one.seen), len(formats_one.fast)) <= formats_one.LIMIT


def test_sort_by_one_class_lt_counts_c_calls_as_the_operator_does():
    """Sorting tables of one metatable calls its __lt without operators.lt,
    as one nested C call each: the depth where `C stack overflow` starts is
    the one of a sort that takes the generic path (two metatables)."""
    code = """
local M = {__lt = function(a, b) return a.v < b.v end}
local N = {__lt = M.__lt}
local function obj(v, mt) return setmetatable({v = v}, mt or M) end
local function nest(k, mixed)
  if k == 0 then local t = {obj(2), obj(1, mixed and N)} table.sort(t) return t[1].v end
  return select(2, pcall(nest, k - 1, mixed))
end
local one, two = {}, {}
for k = 185, 200 do one[#one + 1] = tostring(nest(k)) two[#two + 1] = tostring(nest(k, true)) end
print(table.concat(one, " ")) print(table.concat(two, " "))
"""
    one, two = ours(code).splitlines()
    assert one == two
    assert "C stack overflow" in one and one.startswith("1 ")


def test_sort_by_one_class_lt_charges_the_operators_steps():
    """Each comparison by __lt is charged as a metamethod call: the sort
    costs the same steps on the fast path as on the generic one (one
    element of another metatable with the same __lt)."""

    def steps_of_sort(mixed: bool) -> int:
        st = LuaState()
        st.call(st.load(f"""
local M = {{__lt = function(a, b) return a.v < b.v end}}
local N = {{__lt = M.__lt}}
t = {{}}
for i = 1, 300 do t[i] = setmetatable({{v = (i * 7919) % 300}}, ({str(mixed).lower()} and i == 1) and N or M) end
"""))
        fn = st.load("table.sort(t)")
        st.reset_limits()
        st.call(fn)
        return st.steps_used + st._armed - st._steps[0]

    fast, generic = steps_of_sort(False), steps_of_sort(True)
    assert fast == generic > 300 * 6


def test_gsub_function_replacements_are_reserved_as_they_grow():
    """A function's replacements are reserved in 64 KB steps while re.subn
    runs, and the result once at the end; past the string limit at once."""
    st, seen = _guarded_state('local big = ("x"):rep(1000) return (("a"):rep(200):gsub("a", function() return big end))')
    steps = [n for n in seen if 65536 <= n < 66536]
    assert len(steps) == 3 and 200_000 in seen
    st.machine.max_string = 10_000
    try:
        fn = st.load('return (("a"):rep(200):gsub("a", function() return ("y"):rep(100) end))')
        with pytest.raises(LimitExceeded):
            st.call(fn)
    finally:
        st.machine.max_string = 1 << 40
