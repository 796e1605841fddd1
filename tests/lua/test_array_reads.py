"""Array reads in loops (compiler/arrays.py): inside a loop, `t[i]` of a
local table the loop never assigns reads the table's array part, held from
the loop's entry, behind one test of the key's range, else the general
read. Each program takes the fast path and the edges around it (the body
shrinking, growing or replacing the array's contents, a metatable set or
taken away inside the loop, holes, float loops, negative and zero steps,
keys past either end, nested loops, upvalues, a local that is no table)
and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from runvil.lua.compiler.codegen import compile_chunk

from .harness import ours, real

#: `io.write` without the io library: its text goes out with the next print
_PRELUDE = """
local buf, rawprint = {}, print
local function put(...) for k = 1, select("#", ...) do buf[#buf + 1] = tostring((select(k, ...))) end end
local function print(...) if #buf > 0 then rawprint(table.concat(buf)); buf = {} end rawprint(...) end
"""

PROGRAMS = {
    # the plain sum, forwards, backwards, by steps, from a local start
    "sums": """
local t = {}
for i = 1, 100 do t[i] = i * i end
local s = 0
for i = 1, #t do s = s + t[i] end
print(s)
s = 0
for i = #t, 1, -1 do s = s + t[i] end
print(s)
s = 0
for i = 1, #t, 7 do s = s + t[i] end
print(s)
s = 0
for i = 100, 1, -3 do s = s + t[i] end
print(s)
local lo, hi = 10, 20
s = 0
for i = lo, hi do s = s + t[i] end
print(s)
s = 0
for i = hi, lo, -1 do s = s + t[i] + t[i - 1] + t[i + 1] end
print(s)
local step = 4
s = 0
for i = lo, hi, step do s = s + t[i] end
for i = hi, lo, -step do s = s + t[i] end
print(s)
local z, top = {"a", "b", "c"}, 6
z[0] = "zero"; z[5] = "five"
for i = top, 1, -1 do put(tostring(z[i]), tostring(z[i - 1]), " ") end
for i = top, 1.5, -2 do put(tostring(z[i]), " ") end
for i = 3, 1, -1 do put(z[i]) end
print()
""",
    # keys past either end: zero, negative, past the length, in the hash part
    "out of range": """
local t = {10, 20, 30}
t[0] = "zero"; t[-1] = "minus one"; t[5] = "five"
for i = -2, 7 do print(i, t[i]) end
for i = 7, -2, -1 do put(t[i], " ") end
print()
local lo = -3
for i = lo, 4 do put(t[i], " ") end
print()
for i = 0, 4 do put(t[i + 1], tostring(t[i - 1]), " ") end
print()
print(pcall(function() for i = 1, math.maxinteger, math.maxinteger // 2 do put(t[i], " ") end end))
print(pcall(function() for i = math.mininteger, math.mininteger + 2 do put(t[i], " ") end end))
""",
    # holes in the array part, and nil values read from it
    "holes": """
local t = {1, 2, nil, 4, nil, 6}
t[3] = nil
for i = 1, 8 do put(t[i], " ") end
print()
local u = {}
for i = 1, 10 do u[i] = i end
for i = 2, 9, 2 do u[i] = nil end
for i = 1, 10 do put(u[i], " ") end
print(#u == 10 or #u == 9 or #u == 1)
""",
    # the body shrinks the table under the loop
    "shrinking": """
local t = {}
for i = 1, 10 do t[i] = i end
for i = 1, 10 do
  put(t[i], " ")
  t[#t] = nil
end
print(#t)
local u = {}
for i = 1, 10 do u[i] = i end
for i = 1, 10 do
  put(u[i], " ")
  table.remove(u, 1)
end
print(#u)
local w = {1, 2, 3, 4, 5, 6}
local function clear() for k = #w, 1, -1 do w[k] = nil end end
for i = 1, 6 do
  put(w[i], " ")
  if i == 3 then clear() end
end
print(#w)
""",
    # the body grows the table, appends and writes t[i] in the same loop
    "growing": """
local t = {1}
for i = 1, 10 do
  t[#t + 1] = t[i] * 2
end
print(table.concat(t, " "))
local u = {}
for i = 1, 10 do
  u[i] = i
  u[i] = u[i] + (u[i - 1] or 0)
end
print(table.concat(u, " "))
local w = {}
w[3] = "c"; w[2] = "b"
for i = 1, 4 do
  put(w[i], " ")
  if i == 1 then w[1] = "a" end
end
print(#w)
local v = {1, 2, 3}
for i = 1, 3 do table.insert(v, 1, 0); put(v[i], " ") end
print(table.concat(v, " "))
""",
    # a metatable set or taken away inside the loop: __index for missing keys only
    "metatables": """
local t = {1, 2, nil, 4}
local calls = 0
for i = 1, 6 do
  put(t[i], " ")
  if i == 2 then setmetatable(t, {__index = function(_, k) calls = calls + 1; return "m" .. k end}) end
end
print(calls)
for i = 1, 6 do
  put(t[i], " ")
  if i == 4 then setmetatable(t, nil) end
end
print(calls)
local base = {10, 20, 30, 40}
local d = setmetatable({1}, {__index = base})
for i = 1, 5 do put(d[i], " ") end
print()
local e = setmetatable({}, {__index = function(_, k) return k * 100 end})
local s = 0
for i = 1, 5 do s = s + e[i] end
print(s)
""",
    # a local that is no table: strings, nil, numbers, by their own errors
    "not tables": """
local s = "abc"
print(pcall(function() for i = 1, 3 do put(s[i], " ") end end))
local n = nil
print(pcall(function() for i = 1, 3 do put(n[i], " ") end end))
local x = 5
print(pcall(function() for i = 1, 3 do put(x[i], " ") end end))
local function f(t) local r = 0; for i = 1, 3 do r = r + t[i] end; return r end
print(pcall(f, {1, 2, 3}))
print(pcall(f, {1, 2}))
print(pcall(f, "xyz"))
print(pcall(f, setmetatable({}, {__index = function(_, k) return k end})))
""",
    # float loops: the key is a float, read as its integer
    "float loops": """
local t = {10, 20, 30, 40}
for i = 1.0, 4 do put(t[i], " ") end
print()
for i = 1, 4, 1.0 do put(t[i], " ") end
print()
for i = 0.5, 4, 0.5 do put(t[i], " ") end
print()
for i = 4.0, 1, -1 do put(t[i], " ") end
print()
print(pcall(function() for i = 1, 4, 0 do put(t[i]) end end))
""",
    # nested loops: a row taken in the outer loop, read in the inner one
    "nested loops": """
local m = {}
for i = 1, 5 do
  local row = {}
  for j = 1, 5 do row[j] = i * j end
  m[i] = row
end
local s = 0
for i = 1, #m do
  local row = m[i]
  for j = 1, #row do s = s + row[j] + m[j][i] end
end
print(s)
local grid = {{1, 2}, {3, 4}}
local r = grid[1]
for i = 1, 2 do
  for j = 1, 2 do put(r[j], " ") end
  r = grid[2]
end
print()
local t = {1, 2, 3}
for i = 1, 3 do
  for j = 1, 3 do
    put(t[j], " ")
    if j == 3 then t = {t[1] * 10, t[2] * 10, t[3] * 10} end
  end
end
print()
""",
    # a table replaced in the loop: the new one is read
    "replaced": """
local t = {1, 2, 3}
local u = {7, 8, 9}
for i = 1, 3 do
  put(t[i], " ")
  t = u
end
print()
local w = {1, 2, 3}
local function swap() w = {4, 5, 6} end
for i = 1, 3 do
  put(w[i], " ")
  swap()
end
print()
""",
    # upvalues, captured loop variables, and a closure per iteration
    "upvalues": """
local t = {5, 6, 7, 8}
local function sum(n) local s = 0; for i = 1, n do s = s + t[i] end; return s end
print(sum(4), sum(2), sum(6) == nil)
print(pcall(sum, 6))
local fs = {}
for i = 1, 4 do fs[i] = function() return t[i] end end
for i = 1, 4 do put(fs[i](), " ") end
print()
local keep = {}
for i = 1, 3 do
  local row = {i, i + 1}
  keep[i] = function() return row[1] + row[2] end
  put(row[2], " ")
end
print(keep[1](), keep[3]())
""",
    # other keys in the loop: constants, other locals, computed, non-integers
    "other keys": """
local t = {10, 20, 30, 40}
t.x = "x"; t[2.5] = "f"; t[true] = "b"
local j, k = 2, 3
for i = 1, 3 do
  put(t[1], t[j], t[k + 1], tostring(t[i * 2]), " ")
  put(t[i + 0.5], tostring(t[i / 1]), tostring(t[true]), t.x, " ")
end
print()
local e, h = {}, setmetatable({}, {__index = function(_, k) return "i" .. k end})
for i = 1, 3 do put(tostring(e[1]), h[1], " "); e[1] = i; if i == 2 then e[1] = nil; h[1] = i end end
print(e[1], h[1], ({})[1], ({5})[1], setmetatable({}, {__index = {7}})[1])
""",
    # error messages name the table as Lua does
    "messages": """
local t = {1, 2}
print(pcall(function() for i = 1, 3 do local v = t[i] + 1 end end))
local n
print(pcall(function() for i = 1, 3 do local v = n[i] end end))
local r = {{1}, {2}}
print(pcall(function() for i = 1, 3 do local v = r[i][1] end end))
""",
    # stores into a held array part: existing slots in place, the rest as before
    "stores": """
local log = {}
local t = setmetatable({1, 2, 3}, {__newindex = function(tt, k, v) log[#log + 1] = k; rawset(tt, k, v) end})
for i = 1, 5 do t[i] = t[i] and t[i] * 10 or i end
print(table.concat(t, " "), table.concat(log, " "))
local u = {1, nil, 3}
for i = 1, 4 do u[i] = (u[i] or 0) + 1 end
print(u[1], u[2], u[3], u[4])
local w = {1, 2, 3, 4}
for i = 4, 1, -1 do w[i] = nil; put(#w, " ") end
print()
local x = {}
for i = 1, 3 do x[i + 0.0] = i; x["k" .. i] = x[i] * 2; x[i] = x[i] + 1 end
print(x[1], x[2], x[3], x.k1, x.k3, #x)
local s = "abc"
print(pcall(function() for i = 1, 2 do local c = s[i]; s[i] = 1 end end))
local r = {}
for i = 1, 6 do r[i] = i; r[i] = r[i] * r[i]; if i % 2 == 0 then r[i - 1] = nil end end
for i = 1, 6 do put(tostring(r[i]), " ") end
print()
""",
    # a captured loop variable assigned by a closure, a goto back before
    # the loop after the table changed, loops nested past Python's limits
    "cells, goto, deep nests": """
local t = {10, 20, 30, 40}
for i = 1, 3 do
  local bump = function() i = i + 1 end
  local a = t[i]
  bump()
  print(a, t[i])
end
local n = 0
local u = {1, 2}
::again::
n = n + 1
for i = 1, #u do print(n, u[i]) end
if n == 1 then u = {5, 6, 7}; goto again end
local deep = {1, 2, 3}
local s = 0
for a = 1, 2 do for b = 1, 2 do for c = 1, 2 do for d = 1, 2 do for e = 1, 2 do for f = 1, 2 do for g = 1, 2 do
for h = 1, 2 do for i = 1, 2 do for j = 1, 2 do for k = 1, 2 do for l = 1, 2 do for m = 1, 2 do for o = 1, 3 do
  s = s + deep[o] + deep[a]
  if o == 3 and m == 2 and l == 2 then deep[o] = deep[o] + 1 end
end end end end end end end end end end end end end end
print(s, deep[3])
""",
    # while and repeat loops read the same way
    "while loops": """
local t = {}
for i = 1, 20 do t[i] = i end
local i, s = 1, 0
while i <= #t do s = s + t[i]; i = i + 1 end
print(s)
i, s = 20, 0
repeat s = s + t[i]; t[i] = nil; i = i - 2 until i < 1
print(s, #t)
local heap = {3, 1, 2}
local n = 1
while true do
  local l = 2 * n
  if l > #heap or heap[l] > heap[n] then break end
  heap[l], heap[n] = heap[n], heap[l]
  n = l
end
print(table.concat(heap, " "))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_array_read_matches_lua(name):
    code = _PRELUDE + PROGRAMS[name]
    assert ours(code) == real(code)


def test_loop_reads_the_held_array():
    """The sum's read is the held array's, not a lookup of `arr`."""
    src = compile_chunk("local t = {1, 2}\nlocal s = 0\nfor i = 1, #t do s = s + t[i] end\nreturn s", "=x").source
    head = src.index("for L_i")
    body = src[src.index(":\n", head):]
    assert ".arr" in src[:head] and ".arr" not in body
