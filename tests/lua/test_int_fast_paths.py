"""Integer trees (compiler/intops.py): nests of integer and bit operators
run on Python ints behind one guard, else their general code. Each program
takes the fast path and the edges around it (64-bit wrap, shifts by 63, 64
and negative amounts, floors, floats, strings, metamethods, the order in
which operands and metamethods run) and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from .harness import ours, real

_VALUES = """
local vals = {0, 1, -1, 2, 3, 7, -7, 31, 32, 63, 64, 65, -63, -64, -65, 0xff, 0x7fffffff, 0xffffffff,
  math.maxinteger, math.mininteger, math.maxinteger - 1, math.mininteger + 1, 3.0, -2.0, 2^53, 1.5, -0.0,
  math.huge, "10", "0x10", "3.0", "x", true}
local function show(ok, ...)
  if not ok then return "error: " .. tostring((...)) end
  local v = ...
  return math.type(v) or type(v), v
end
"""

PROGRAMS = {
    # every pair of edge values through trees of the bitwise operators
    "bitwise pairs": _VALUES + """
for i = 1, #vals do
  for j = 1, #vals, 3 do
    local a, b = vals[i], vals[j]
    print(i, j, show(pcall(function() return (a << b) & 0xffffffff end)),
      show(pcall(function() return (a >> b) | 1 end)),
      show(pcall(function() return a ~ b ~ 5 end)),
      show(pcall(function() return ~a & b end)),
      show(pcall(function() return ((a >> b) | (a << (32 - b))) & 0xffffffff end)),
      show(pcall(function() return -(a | b) end)),
      show(pcall(function() return (a & b) + (a | b) end)))
  end
end
""",
    # arithmetic inside bitwise trees: the wrap happens modulo 2**64 first
    "arithmetic in trees": _VALUES + """
for i = 1, #vals do
  for j = 2, #vals, 4 do
    local a, b = vals[i], vals[j]
    print(i, j, show(pcall(function() return (a + b) & 0xff end)),
      show(pcall(function() return (a * b) >> 1 end)),
      show(pcall(function() return (a - b) // 3 end)),
      show(pcall(function() return (a * b) % 7 end)),
      show(pcall(function() return (a * 4 + b) >> 60 end)),
      show(pcall(function() return (a << 63) >> 63 end)),
      show(pcall(function() return (a + b) // -1 | 0 end)),
      show(pcall(function() return (-a) >> 1 end)))
  end
end
""",
    # constant shift amounts at and past the edges, on every value
    "constant shifts": _VALUES + """
for i = 1, #vals do
  local a = vals[i]
  print(i, show(pcall(function() return (a << 63) | 0 end)), show(pcall(function() return (a << 64) | 0 end)),
    show(pcall(function() return (a >> 63) | 0 end)), show(pcall(function() return (a >> 64) | 0 end)),
    show(pcall(function() return (a << -1) | 0 end)), show(pcall(function() return (a >> -1) | 0 end)),
    show(pcall(function() return (a >> 0) & -1 end)), show(pcall(function() return (a << 0) ~ 0 end)),
    show(pcall(function() return (a >> 1) >> 62 end)), show(pcall(function() return ((a & 0xff) << 56) >> 56 end)))
end
""",
    # floors, remainders and their errors, integer and float
    "division": _VALUES + """
for i = 1, #vals do
  local a = vals[i]
  print(i, show(pcall(function() return (a // 2) & -1 end)), show(pcall(function() return (a % 2) | 0 end)),
    show(pcall(function() return (a // -2) ~ 0 end)), show(pcall(function() return (a % -2) ~ 0 end)),
    show(pcall(function() return (a // -1) | 0 end)), show(pcall(function() return (a % -1) | 0 end)),
    show(pcall(function() return a % math.huge end)), show(pcall(function() return (a & 7) // 0 end)),
    show(pcall(function() return (a & 7) % 0 end)), show(pcall(function() return (a | 0) % a end)),
    show(pcall(function() return (a | 0) // a end)))
end
local x, z, fz = 3, 0, 0.0
print(pcall(function() return x // z end))
print(pcall(function() return (x & 3) % z end))
print(x // fz, -x // fz, x % fz, -7 // 2, -7 % 2, 7 % -2, -7 // 2.0, -7 % 2.0, 7 % -2.0)
print(pcall(function() return 3 // 0 end))
print(3.0 // 0, -3 % math.huge, 3 % -math.huge, math.mininteger // -1, math.mininteger % -1)
""",
    # locals known to hold integers: no guard at all, the wrap kept where needed
    "known integers": """
local h = 0
for i = 1, 200 do h = (h * 31 + i) & 0xffffffff end
print(h)
local m = 9223372036854775807
local n = -9223372036854775807 - 1
print((m + 1) >> 1, (m + m) // 2, (n - 1) % 10, (m * 3) & 0xff, ~m + 1, -n | 0, (n // -1) & 1)
local acc = 0
for i = 1, 70 do acc = acc ~ ((i - 1) << 60) ~ ((i * 4611686018427387904) >> 1) end
print(acc)
for i = 1, 3 do print((i - 1) * 4 + 1 & 7, (i << 62) >> 61, (i - 4) >> 62) end
local s = 1
for k = 0, 66 do s = s ~ (1 << k) ~ (k >> 1) end
print(s)
""",
    # metamethods still run, in Lua's order, from any place in a tree
    "metamethods": """
local log = {}
local mt = {}
for _, e in ipairs({"band", "bor", "bxor", "shl", "shr", "bnot", "add", "sub", "mul", "idiv", "mod", "unm"}) do
  mt["__" .. e] = function(a, b)
    log[#log + 1] = e
    return 6
  end
end
local o = setmetatable({}, mt)
local function f(v) log[#log + 1] = "f" .. tostring(v); return v end
local x = 5
print((o & 1) | x, (x | o) ~ 3, (o << 2) >> 1, ~o & 7, (o + 1) & f(3), f(2) | (o * 2), -o & x, (o // 2) % 3)
print(table.concat(log, " "))
log = {}
local t = setmetatable({}, {__index = function(_, k) log[#log + 1] = "index " .. k; return k end})
print(pcall(function() return (t[1] + x) & t[2] | t[3] end))
print(pcall(function() local u = nil; return (f(1) + u) & t[4] end))
print(pcall(function() return (f(1) ~ f(2)) | f("a") & t[5] end))
print(pcall(function() return (x // 0) | f(9) end))
print(table.concat(log, " "))
""",
    # strings: arithmetic coerces them, bitwise does not
    "strings": """
local s, n, bad = "10", "0x10", "1.5"
print(pcall(function() return (s + 1) & 0xff end))
print(pcall(function() return (s * 2) // 3 % 5 end))
print(pcall(function() return s & 1 end))
print(pcall(function() return (n .. "") | 1 end))
print(pcall(function() return (bad + 0) & 1 end))
print(pcall(function() return 3.0 | 0, 2^53 & 1, -2.0 >> 1, 1.5 & 1 end))
print(pcall(function() local v = 2^63; return v & 1 end))
""",
    # a SHA-256 round function, as hashing libraries write it
    "rotations": """
local function rotr(x, n) return ((x >> n) | (x << (32 - n))) & 0xffffffff end
local acc = 0
for i = 1, 64 do
  local e = (i * 0x9e3779b9) & 0xffffffff
  local S1 = rotr(e, 6) ~ rotr(e, 11) ~ rotr(e, 25)
  local ch = (e & 0x5be0cd19) ~ (~e & 0x1f83d9ab)
  acc = (acc + S1 + ch) & 0xffffffff
end
print(acc, rotr(1, 1), rotr(0xffffffff, 33), rotr(-1, 0), rotr(1, 40), rotr(2.0, 1))
print(pcall(rotr, "8", 1))
print(pcall(rotr, {}, 1))
""",
}


def _balanced(depth: int, k: list) -> str:
    if depth == 0:
        k[0] += 1
        return f"f({k[0]})" if k[0] % 3 else "x"
    op = ["~", "|", "&", "+"][depth % 4]
    return f"({_balanced(depth - 1, k)} {op} {_balanced(depth - 1, k)})"


# wide and long trees of calls: each operand read once, in order, and a
# string among them taking the general code at any place
PROGRAMS["wide trees"] = (
    "local log = {}\nlocal function f(i) log[#log + 1] = i; return i * 7 end\n"
    "for _, x in ipairs({5, 2.0, '3'}) do\n"
    f"  print(pcall(function() return {_balanced(6, [0])} end))\n"
    f"  print(pcall(function() return {' ~ '.join(f'f({i})' if i % 5 else 'x' for i in range(60))} end))\n"
    "  print(table.concat(log, ' ')); log = {}\nend\n"
)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_int_tree_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)
