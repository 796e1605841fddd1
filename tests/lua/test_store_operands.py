"""Stores and multiple assignments that use a plain local or a constant
where it is, with no temporary (compiler/stores.py `place`,
codegen.assign_targets): the edges where a temporary would matter, each
compared with what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from .harness import ours, real

PROGRAMS = {
    # a local that is both a target and a table or key of another target:
    # the table and key are the ones before the statement
    "targets that are keys": """
local t = {10, 20, 30}
local i = 1
i, t[i] = i + 1, "a"
print(i, t[1], t[2])
t[i], i = "b", i + 1
print(i, t[1], t[2], t[3])
local u = {}
u, u[1] = {}, "old"
print(u[1], #u)
local w = {}
local w0 = w
w[1], w = "old", {}
print(w[1], w0[1])
local a, b = 1, 2
a, b = b, a
print(a, b)
local x, y, z = 1, 2, 3
x, y, z = z, x, y
print(x, y, z)
""",
    # a __newindex that assigns a captured local the statement also reads
    "newindex changes a cell": """
local seen = {}
local k, v = 1, "first"
local p = setmetatable({}, {__newindex = function(t, key, val)
  seen[#seen + 1] = tostring(key) .. "=" .. tostring(val)
  k, v = 99, "changed"
  rawset(t, key, val)
end})
p[k], p[k + 1] = v, v
print(table.concat(seen, " "), k, v, rawget(p, 1), rawget(p, 2))
local function f() k = 5; v = "late" return 3 end
local q = {}
q[f()] = v
print(q[3], k, v)
k, v = 1, "again"
q[k] = f() and v
print(q[1], q[5])
""",
    # nil stores: removals from the array part and the hash part, and nil
    # given to a __newindex for a key the table lacks
    "nil stores": """
local t = {1, 2, 3, x = 1}
t[3] = nil
t.x = nil
t[1] = nil
print(t[1], t[2], t[3], t.x, #t == 3 or #t == 2 or #t == 0)
local log = {}
local p = setmetatable({}, {__newindex = function(_, k, v) log[#log + 1] = tostring(k) .. ":" .. tostring(v) end})
p[1] = nil
p.name = nil
local key = "dyn"
p[key] = nil
print(table.concat(log, ","))
local n = nil
print(pcall(function() local s = 5; s[1] = nil end))
print(pcall(function() local s = "str"; s.x = nil end))
print(pcall(function() local z; z[1], z[2] = 1, 2 end))
print(pcall(function() local t2 = {}; t2[nil] = 1 end))
print(pcall(function() local t2 = {}; t2[0/0] = 1 end))
""",
    # constant keys and values in stores and multiple assignments
    "constants": """
local t = {}
t[1], t[2], t["k"], t[2.0], t[-1] = true, false, "v", "two", "neg"
print(t[1], t[2], t.k, t[-1], #t)
t[1.5] = 1
t[3] = 3
print(t[1.5], t[3], #t)
local s = {}
s.a, s.b = 1
print(s.a, s.b)
local a, b, c = (function() return 1, 2, 3 end)()
print(a, b, c)
local d, e, f = 1, (function() return 2, 3 end)()
print(d, e, f)
print(pcall(function() local g, h = 1, nil + 1 end))
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_store_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)
