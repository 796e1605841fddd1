"""`s:sub(i, j)`, `s:byte(i)`, `s:find(p, i, true)`, `s:find(p, i)` and
`s:match(p)` done inline (compiler/strcalls.py) must behave exactly as the
library's functions:
each program calls them in the inline shape and around its edges, with the
library's method replaced, the string metatable changed, and arguments of
every type, and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from .harness import ours, real

PROGRAMS = {
    "sub": """
local s = "hello, world"
local out = {}
for i = -3, #s + 2 do
  for j = -2, #s + 2, 3 do out[#out + 1] = s:sub(i, j) .. "|" .. s:sub(i) .. "|" .. s:sub(i, i + 1) .. s:sub(i, i) end
end
print(table.concat(out, ","))
local big = string.rep("ab", 300)
print(#big:sub(2), #big:sub(1, 500), big:sub(599, 700), #big:sub(3, 2), ("x"):sub(1, 1))
local i, j, f, str = 2, 4, 2.0, "3"
for _, v in ipairs({-1, 0, 1, 12, 13, 2.0, "2", math.mininteger, math.maxinteger}) do
  print(pcall(function() return s:sub(v, v), s:sub(v, v + 3), s:byte(v), s:find("o", v, true) end))
end
print(s:sub(f, j), s:sub(i, 4.0), s:sub(str, j), pcall(function() return s:sub(i, "z") end))
print(pcall(function() return s:sub(1.5) end))
print(pcall(function() local t = nil; return t:sub(1, 2) end))
local n = 12345
print(pcall(function() return n:sub(1, 2) end))
local obj = {sub = function(self, a, b) return "obj " .. a .. b end}
print(obj:sub(i, j))
""",
    "byte": """
local s = "\\0\\1abc\\255"
local out = {}
for i = -8, 9 do out[#out + 1] = tostring(s:byte(i)) end
print(table.concat(out, " "))
local k, f, str = 3, 3.0, "3"
print(s:byte(k), s:byte(f), s:byte(str), s:byte(k + 1), select("#", s:byte(100)))
print(pcall(function() return s:byte(1.5) end))
print(pcall(function() return s:byte({}) end))
local sum = 0
for i = 1, #s do sum = sum + s:byte(i) end
print(sum)
for i = -2, #s + 1 do
  local a, b, c, d = s:byte(i, i + 3)
  local e, f = s:byte(i, i + 1)
  local g, h, m = s:byte(i, i + 1)
  local n1, n2, n3, n4 = s:byte(3, 6)
  print(i, a, b, c, d, e, f, g, h, m, n1, n2, n3, n4)
end
local x, y = 2, "3"
local a, b, c = s:byte(x, 4)
local p, q, r = s:byte(x, y)
print(a, b, c, p, q, r, pcall(function() local u, v = s:byte(x, {}) return u, v end))
""",
    "find": """
local s = "one engine, two engines; engine"
local i, n, pos = 1, 0, {}
while true do
  local a, b = s:find("engine", i, true)
  if not a then break end
  n = n + 1
  pos[#pos + 1] = a .. "-" .. b
  i = b + 1
end
print(n, table.concat(pos, " "))
for init = -3, #s + 3, 4 do print(init, s:find("e", init, true), s:find("", init, true), s:find("engine", init)) end
local p, q, num = "n", "e.", 5
print(s:find(p, 1, true), s:find(q, 1, true), s:find("e.", 1), s:find("two"), s:find(num, 1, true))
print(pcall(function() return s:find({}, 1, true) end))
print(pcall(function() return s:find(p, "x", true) end))
print(s:find(p, 2.0, true), s:find(p, "3", true), (s:find("engine", 5, true)))
local t = {find = function(self, x, y, z) return "table find", x, y, z end}
print(t:find("a", 1, true))
""",
    # a constant pattern: its captures or its span, on re, in each shape of call
    "pattern find": """
local s = "  key = value # note\n\tx=1"
for init = -4, #s + 3, 3 do
  print(init, s:find("%S", init), s:find("[^ \t\r\n]", init), (s:find("%a+", init)), s:find("^%s", init))
  local a, b = s:find("=%s*", init)
  print(a, b, select("#", s:find("%d", init)), s:find("x*", init))
end
local i, n = 1, 0
while true do
  local a, b = s:find("%a+", i)
  if not a then break end
  n, i = n + b - a + 1, b + 1
end
print(n, s:find("(%a+)"), s:find("()e"), s:find("%b()"), s:find("%f[%a]%a+", 4))
local f, str = 2.0, "2"
print(s:find("%a", f), s:find("%a", str), pcall(function() return s:find("%a", {}) end))
print(pcall(function() return s:find("%") end), pcall(function() return s:find("[a") end))
print(pcall(function() local t = nil; return t:find("%a") end))
local big = string.rep("a", 5000) .. "b"
print(big:find("a*b"), big:find("^a-b"), (big:find("(a*)%1b")))
""",
    "pattern match": """
local lines = {"  alpha beta", "gamma\tdelta epsilon", "one", "", "   ", "x y", "\255\0 z"}
for _, line in ipairs(lines) do
  local a, b = line:match("^%s*([^ \t]+)%s+([^ \t]+)")
  local c = line:match("^%s*(.-)%s*$")
  local d, e, g = line:match("(%a)(%a)(%a)")
  print(a, b, "[" .. tostring(c) .. "]", d, e, g, line:match("%a+"), (line:match("(%a)(%a)")), line:match("(%a)(%a)"))
  print(select("#", line:match("(%a)(%a)")), select("#", line:match("zz")), line:match("()%a"), line:match("^(%s*)$"))
end
local s = "key=value"
local k, v, extra = s:match("(%w+)=(%w+)")
print(k, v, extra, s:match("(%w+)=(%w+)"), (s:match("=")))
print(pcall(function() return s:match("(") end), pcall(function() return s:match("%") end))
print(pcall(function() return s:match("%b") end), pcall(function() return ("x"):match("[%a") end))
local n = 42
print(n:match("%d"), pcall(function() local t = {}; return t:match("x") end))
local big = string.rep("ab", 4000)
print(#big:match("^(.*)b$"), big:match("(a)b$"), #big:match("(.-)$"))
""",
    # the library's method replaced, the string metatable changed: the inline path steps aside
    "replaced": """
local s = "abcdef"
local function calls()
  local m1, m2 = s:match("(b)(c)")
  return s:sub(2, 3), s:byte(2), s:find("cd", 1, true), (s:find("c.", 2)), s:match("c(.)"), m1, m2
end
print(calls())
local sub, byte, find, match = string.sub, string.byte, string.find, string.match
string.sub = function(...) return "my sub" end
string.byte = function(...) return "my byte" end
string.find = function(...) return "my find" end
string.match = function(...) return "my match", "second" end
print(calls())
string.sub, string.byte, string.find, string.match = sub, byte, find, match
print(calls())
local mt = getmetatable("")
local index = mt.__index
mt.__index = {sub = function() return "other sub" end, byte = byte, find = function() return "other find" end,
              match = function() return "other match" end}
print(calls())
mt.__index = function(str, k) return function() return "function " .. k end end
print(calls())
mt.__index = index
print(calls())
rawset(string, "find", function() return "raw find" end)
print(calls())
string.find = find
print(calls())
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_string_call_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)
