"""The generated code's fast paths (issue 13: generated code that does less)
must behave exactly as the general ones: each program here takes a fast
path and then the edges around it, and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from .harness import ours, real

PROGRAMS = {
    # comparisons with a constant 0 or 1 (a Lua boolean is no number), and
    # order with a float constant (an integer compares exactly)
    "constant comparisons": """
local vals = {false, true, 0, 0.0, 1, 1.0, -0.0, "0", "1", 2, 0.5, 2^53, 2^53 + 1, math.huge, -math.huge, {}}
for i = 1, #vals + 1 do
  local x = vals[i]
  print(i, x == 0, x ~= 0, x == 1, x ~= 1, x == 0.0, x ~= 1.0)
end
local nums = {0, 1, 2, -3, 1.5, 1.49, 1.51, 2^53, 9007199254740993, math.huge, -math.huge, 0/0}
for i = 1, #nums do
  local x = nums[i]
  print(i, x < 1.5, x <= 1.5, x > 1.5, x >= 1.5, x < 9007199254740992.0, x >= -0.5, x > 1e308)
end
print(pcall(function() return "1" < 1.5 end))
print(pcall(function() local t = {} return t >= 2.5 end))
local mt = {__lt = function(a, b) return true end, __le = function(a, b) return false end}
local o = setmetatable({}, mt)
print(o < 1.5, o <= 1.5, o > 1.5, o >= 1.5)
""",
    # t[#t + 1] = v appends; the value's evaluation may change the table
    "append": """
local t = {}
for i = 1, 5 do t[#t + 1] = i * 2 end
print(#t, t[1], t[5])
local u = {}
local function grow() u[#u + 1] = "inner"; return "outer" end
u[#u + 1] = grow()
print(#u, u[1], u[2])
local h = {}
h[2] = "two"
h[#h + 1] = "one"
print(#h, h[1], h[2])
local m = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v .. "!") end})
m[#m + 1] = "a"
print(#m, m[1])
local l = setmetatable({}, {__len = function() return 10 end})
l[#l + 1] = "x"
print(rawget(l, 11), rawlen(l))
local f = setmetatable({}, {__len = function() return 1.5 end})
f[#f + 1] = "y"
print(rawget(f, 2.5))
local n = nil
print(pcall(function() n[#n + 1] = 1 end))
local s = "abc"
print(pcall(function() s[#s + 1] = 1 end))
local x = {}
x[#x - 0 + 1] = 1
print(#x - 1, #x + 0, #"abcd" + 1)
""",
    # a new field on an object with a metatable: raw when no __newindex
    "field writes": """
local Class = {}
Class.__index = Class
local o = setmetatable({}, Class)
o.name = "obj"
print(o.name, rawget(o, "name"), rawget(Class, "name"))
local logged = {}
local P = setmetatable({}, {__newindex = function(t, k, v) logged[#logged + 1] = k; rawset(t, k, v) end})
P.a = 1
P.a = 2
P.b = nil
print(P.a, #logged, logged[1], logged[2])
local Q = setmetatable({}, {__newindex = Class})
Q.z = 3
print(rawget(Q, "z"), Class.z)
""",
    # __index chains of tables (classes), with functions and loops at the end
    "index chains": """
local A = {x = "a"}
local B = setmetatable({}, {__index = A})
local C = setmetatable({}, {__index = B})
local D = setmetatable({}, {__index = function(t, k) return k .. "?" end})
local E = setmetatable({}, {__index = D})
print(C.x, C.y, E.w, E[1], C[1])
local loop = {}
setmetatable(loop, {__index = loop})
print(pcall(function() return loop.nothing end))
local str = setmetatable({}, {__index = "text"})
print(type(str.len), pcall(function() return setmetatable({}, {__index = 5}).k end))
""",
    # constant integer keys on any expression: pair[1]
    "constant keys": """
local heap = {{3, "c"}, {1, "a"}}
print(heap[1][1], heap[2][2], heap[1][3])
local holes = {}
holes[1] = {nil, "b"}
print(holes[1][1], holes[1][2])
local mt = setmetatable({}, {__index = function(t, k) return k * 10 end})
local wrap = {mt}
print(wrap[1][1], wrap[1][2])
print(pcall(function() local w = {1} return w[1][1] end))
print(("abc")[1])
""",
    # string methods through the string metatable, then a changed one
    "string methods": """
local s = "hello world"
print(s:byte(1), s:byte(11), s:byte(12), s:byte(0), s:byte(-1), s:byte(1, 3))
print(s:sub(7), s:sub(1, 5), s:sub(3, 2), s:sub(0), s:sub(-5), s:sub(5, 100), s:sub(2, -2), s:sub(20))
print(s:find("o"), s:find("o", 6), s:find("o", 100), s:find("o", -3), s:find("l+", 1), s:find(".", 1, true))
print(s:match("(%w+) (%w+)"), s:match("o", 12), s:find("", 12), s:find("", 13))
print(pcall(string.sub), pcall(string.byte, s, {}), pcall(string.find, s, "[", 1))
print(("x"):rep(3), (12):type())
""",
    "string methods replaced": """
local mt = getmetatable("")
local old = mt.__index
mt.__index = function(s, k) return function() return k end end
print(("x"):anything())
mt.__index = old
local byte = string.byte
string.byte = function() return "replaced" end
print(("x"):byte(1))
string.byte = byte  -- the reference Lua state is shared by the tests
""",
    # .. joins numbers and strings at once, as Lua converts them
    "concat": """
local i, f = 12, 2.5
print("a" .. i .. "b" .. f .. 1e100 .. -0.0 .. 2^63 .. math.mininteger)
local C = setmetatable({}, {__concat = function(a, b) return "C" end})
print("x" .. 1 .. C, C .. 1 .. "y", pcall(function() return "x" .. 1 .. {} end))
print(pcall(function() return 1 .. nil .. "z" end))
""",
    # string.upper of one char from a table, of anything else as before
    "upper of one char": """
local t, all, codes = {}, {}, {}
for c = 0, 255 do t[#t + 1] = string.char(c):upper() all[#all + 1] = string.char(c) end
print(table.concat(t) == table.concat(all):upper(), #table.concat(t))
for c = 0, 255, 5 do codes[#codes + 1] = string.char(c):upper():byte() end print(table.concat(codes, " "))
print(("ab"):upper(), (""):upper(), string.upper(7), string.upper(2.5), pcall(string.upper, {}))
print(pcall(string.upper), pcall(string.upper, nil), pcall(string.upper, true))
""",
    # one or two operands that are not constants: two strings first, then
    # strings and integers, then the rest (and a result past 256 bytes)
    "concat of one or two operands": """
local C = setmetatable({}, {__concat = function(a, b) return type(a) .. "|" .. type(b) end})
local vals = {"ab", "", 7, -0, 2.5, -0.0, 2^63, math.mininteger, "12", string.rep("x", 200), string.rep("y", 57), C}
for i = 1, #vals do
  for j = 1, #vals do
    local a, b = vals[i], vals[j]
    local r = a .. b
    local s = "<" .. a .. ">"
    print(i, j, #r, r == tostring(a) .. tostring(b) or r, s)
  end
end
local calls = {}
local function f(x) calls[#calls + 1] = type(x) return x end
print(pcall(function() return f({}) .. f("b") end), table.concat(calls, ","))
print(pcall(function() local t = nil return t .. "x" end))
print(pcall(function() local t = {} return "x" .. t end))
print(pcall(function() local a, b = "x", true return a .. b end))
""",
    # local a, b = f() with any number of results, tail calls included
    "fixed results": """
local function none() end
local function one() return 1 end
local function three() return 1, 2, 3 end
local function tail() return three() end
local a, b = none(); print(a, b)
a, b = one(); print(a, b)
a, b = three(); print(a, b)
a, b = tail(); print(a, b)
local c, d, e, g = tail(); print(c, d, e, g)
""",
    # gsub reserves its replacements' memory in steps
    "gsub": """
local s = string.rep("ab", 50000)
local r, n = s:gsub("a", "xyz")
print(#r, n)
r, n = s:gsub("(a)(b)", "%2%1")
print(#r, n, r:sub(1, 6))
r, n = s:gsub("b", function(c) return c .. c end)
print(#r, n)
r, n = ("abc"):gsub("", "-")
print(r, n)
print(("abc"):gsub("x", function() error("never") end), ("abc"):gsub("x", "%9"), ("abc"):gsub("[xy]", {}))
print(pcall(string.gsub, "abc", "x", true), pcall(string.gsub, "abc", "x"), ("abc"):gsub("b", "", 0))
""",
    # pairs while the loop changes the table
    "pairs": """
local t = {1, 2, 3, x = 1, y = 2} for k in pairs(t) do t[k] = nil end print(next(t))
local u = {a = 1, b = 2, c = 3} local n = 0 for k, v in pairs(u) do n = n + v; u[k] = v * 2 end print(n, u.a, u.b, u.c)
local w = {[true] = 1, [false] = 2, [1.5] = 3, 10, 20} local s = {}
for k, v in pairs(w) do s[#s + 1] = tostring(k) .. "=" .. v end table.sort(s) print(table.concat(s, " "))
local nested = {a = 1, b = 2} local c = 0 for k in pairs(nested) do for k2 in pairs(nested) do c = c + 1 end end print(c)
local m = {1, 2, 3} for k in pairs(m) do if k == 1 then m[3] = nil end end print(#m)
local q = {x = 1, y = 2} for k, v, extra in pairs(q) do q[k] = nil; print(extra) end print(next(q))
""",
    # table.concat of a plain list of strings joins it at once
    "table.concat": """
print(table.concat({}), table.concat({"a", "b", "c"}), table.concat({"a", "b"}, ", "))
print(table.concat({1, 2.5, "x"}, "-"), table.concat({"a", "b"}, 3))
local holes = {"a"}
holes[3] = "c"
print(pcall(table.concat, holes), table.concat({[1] = "h"}))
print(pcall(table.concat, {"a", {}, "c"}), pcall(table.concat, {"a"}, {}))
local proxy = setmetatable({}, {__index = function(t, i) return "p" .. i end, __len = function() return 3 end})
print(table.concat(proxy, "+"), table.concat({"a", "b", "c"}, "", 2), table.concat({"a", "b"}, nil))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_fast_path_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)
