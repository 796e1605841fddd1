"""Table flags (codegen.flag_tables): a local never assigned again, used as
a table often enough, is tested once, where it gets its value, and each
use tests the flag. Every program here gives such locals values that are
no tables (numbers, strings, nil, tables with metatables) and compares
what it prints with real Lua 5.4."""

from __future__ import annotations

import pytest

from .harness import ours, real
from .test_deep_nesting import nest

PROGRAMS = {
    # parameters: tables, then strings and numbers, with Lua's messages
    "parameters": """
local function fields(t) return t.x, t.y, #t, t[1] end
print(fields({1, 2, x = "x", y = "y"}))
print(pcall(fields, 5))
print(pcall(fields, nil))
print(pcall(fields, "str"))
local function methods(s) return s:upper(), s:len(), s:rep(2) end
print(methods("ab"))
print(pcall(methods, {}))
local function store(t, k) t[k] = 1; t.n = 2; t[#t + 1] = 3; return t end
local r = store({}, "k")
print(r.k, r.n, r[1])
print(pcall(store, 7, "k"))
print(pcall(store, "s", 1))
""",
    # metatables: __index, __newindex and __len still run on a flagged local
    "metatables": """
local log = {}
local mt = {__index = function(t, k) return "idx:" .. tostring(k) end,
            __newindex = function(t, k, v) log[#log + 1] = tostring(k) .. "=" .. tostring(v) end,
            __len = function() return 42 end}
local function use(o)
  o.a = 1
  o[5] = 2
  return o.b, o[3], #o, rawget(o, "a")
end
print(use(setmetatable({}, mt)))
print(table.concat(log, " "))
local Class = {}
Class.__index = Class
function Class.get(self) return self.v end
local function twice(o) return o:get(), o:get(), o.v end
print(twice(setmetatable({v = 9}, Class)))
print(pcall(twice, setmetatable({}, {})))
""",
    # loop variables and locals declared in loops, of changing types
    "loops": """
local list = {{a = 1, b = 2}, "text", {a = 3, b = 4}, 5}
for i, v in ipairs(list) do
  print(i, pcall(function() return v end), type(v) == "table" and v.a + v.b or #tostring(v))
end
for i = 1, #list do
  local item = list[i]
  local ok, e = pcall(function() return item.a end)
  if type(item) == "table" then
    item.a = item.a + 10
    print(item.a, item.b, #item)
  else
    print(i, ok, e)
  end
end
local total = 0
for _, v in ipairs(list) do
  if type(v) == "table" then
    for k = 1, 3 do total = total + v.a + k end
  end
end
print(total)
print(pcall(function()
  for _, v in ipairs({{x = 1}, 3}) do local y = v.x + v.x end
end))
""",
    # a flagged local declared again by a backward goto, and in repeat
    "goto and repeat": """
local n = 0
::again::
local t = n < 2 and {n = n} or "s"
n = n + 1
if type(t) == "table" then
  print(t.n, #t)
  goto again
end
print(#t, t:upper())
local k = 0
repeat
  local cell = k < 2 and {k} or false
  k = k + 1
until not cell or cell[1] > 5 or #cell > 1
print(k)
""",
    # flagged locals declared in hoisted (deeply nested) blocks
    "deep blocks": "local src = {{v = 1}, {v = 2}}\n"
    + nest("for j{k} = 1, 1 do", "end", 25, "local t = src[j0 + 1]\nlocal u = src[1]\nprint(t.v, t.v + u.v, #u, u.v)")
    + nest("if true then", "end", 40, "local w = src[2]\nprint(w.v, w.v * 2)\nlocal z = 5\nprint(pcall(function() return z end), z)"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_table_flags_match_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)


def test_flags_are_made_where_they_pay():
    """A local used as a table twice gets a flag; once, or assigned again,
    or captured by a closure, none."""
    from runvil.lua.compiler.codegen import compile_chunk

    src = compile_chunk(
        "local function f(a, b, c, d)\n"
        "  local e = a.x + a.y\n"
        "  c = {}\n"
        "  local g = function() return d.x + d.y end\n"
        "  return b.x, c.x + c.y, e\n"
        "end\n",
        "=t",
    ).source
    assert "_kL_a_" in src
    assert "_kL_b_" not in src and "_kL_c_" not in src and "_kL_d_" not in src
