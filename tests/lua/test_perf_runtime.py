"""The runtime helpers' shortcuts of issue 13, round 2 (tail calls told
apart without hashing code objects, metamethods called with fixed operands,
constructors, concatenation, table access) must behave exactly as the
general paths: each program takes a shortcut and then the edges around it,
and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua.runtime import values as V
from runvil.lua.runtime import calls as LC

from .harness import ours, real

#: a class: its own __index, an instance of its parent's (the programs of
#: method calls below begin with it)
CLASS = """
local function class(parent)
  local c = {}
  c.__index = c
  return parent and setmetatable(c, parent) or c
end
"""

PROGRAMS = {
    # tail calls: Lua functions stay pending (no stack growth), builtins,
    # __call and callable userdata run at once; errors name what Lua names
    "tail calls": """
local function count(n) if n == 0 then return "done" end return count(n - 1) end
print(count(100000))
local function via_builtin(x) return tostring(x) end
print(via_builtin(12), via_builtin(nil))
local function select2(...) return select(2, ...) end
print(select2("a", "b", "c"))
local callable = setmetatable({}, {__call = function(self, a, b) return a + b end})
local function via_call(a, b) return callable(a, b) end
print(via_call(2, 3))
local chained = setmetatable({}, {__call = callable})
local function via_chain(a) return chained(a) end
print(pcall(via_chain, 1))
local function bad() local x return x() end
print(pcall(bad))
local function bad_field() local t = {} return t.missing(1) end
print(pcall(bad_field))
local function raise() return error("boom") end
print(pcall(raise))
local function raise_level() return error("lvl", 2) end
local function caller() raise_level() end
print(pcall(caller))
print(select("#", (function() return select(1) end)()))
""",
    # a builtin tail call already seen runs in place (values.TAIL_NOW): the
    # second round takes that path, with the same names, levels and results
    "tail calls of seen builtins": """
local sm = setmetatable
local Class = {}
for round = 1, 2 do
  local function new(v) return setmetatable({v = v}, Class) end
  local function new_local(v) return sm({v = v}, Class) end
  print(getmetatable(new(1)) == Class, new_local(2).v)
  print(pcall(function() return sm(1) end))
  print(pcall(function() return setmetatable({}, 5) end))
  local function rep(s, n) return s:rep(n) end
  print(rep("ab", 3), pcall(rep, "ab", {}))
  print(pcall(function() return string.rep() end))
  local function up(s) return s:upper() end
  print(up("x"), pcall(up, 7))
  local function raise(m) return error(m, 2) end
  local function mid() raise("two") end
  print(pcall(mid), pcall(function() return error("one") end))
  local function prot(f, ...) return pcall(f, ...) end
  print(prot(function(a) return a * 2 end, 21), prot(error, "e"))
  local function sel(...) return select("#", ...) end
  print(sel(nil, nil), sel())
  local co = coroutine.wrap(function(a)
    local function pass(...) return coroutine.yield(...) end
    local b, c = pass(a, "y")
    return pass(b .. c)
  end)
  print(co("x"))
  print(co("p", "q"))
  print(co("end"))
end
""",
    # metamethods of arithmetic and comparisons: the first operand's, else
    # the second's; several results cut to one; builtins and non-callables
    # as metamethods; recursion through them ends in C stack overflow
    "operator metamethods": """
local M = {}
M.__index = M
M.__add = function(a, b) return setmetatable({c = (tonumber(a) or a.c) + (tonumber(b) or b.c)}, M) end
M.__sub = function(a, b) return 1, 2, 3 end
M.__lt = function(a, b) return a.c < b.c, "extra" end
M.__le = function(a, b) return nil end
M.__eq = function(a, b) return a.c == b.c end
local function new(c) return setmetatable({c = c}, M) end
local x, y = new(1), new(2)
print((x + y).c, (x + 5).c, (5 + y).c, x - y, select("#", x - y))
print(x < y, y < x, x <= y, x == new(1), x == y, x ~= new(1))
local plain = {}
print(pcall(function() return x < plain end), pcall(function() return plain < x end))
print(pcall(function() return plain < {} end))
print(pcall(function() return plain + 1 end))
print(pcall(function() return 1 < plain end))
local B = {__add = string.rep, __lt = rawequal, __concat = 3}
local s = setmetatable({}, B)
print(pcall(function() return s + 2 end))
print(pcall(function() return s < s end))
print(pcall(function() return s .. "x" end))
local R = {}
R.__add = function(a, b) return a + b end
R.__lt = function(a, b) return a < b end
local r = setmetatable({}, R)
print(pcall(function() return r + 1 end))
print(pcall(function() return r < r end))
print(select(2, pcall(function() return r + 1 end)) == select(2, pcall(function() return r + 1 end)))
""",
    # named-field constructors: a nil field is no key, for every walk and read
    "named constructors": """
local none
local t = {x = none, y = 1, z = none}
local keys = {}
for k, v in pairs(t) do keys[#keys + 1] = k .. "=" .. tostring(v) end
print(#keys, keys[1], t.x, rawget(t, "z"), next(t))
local e = {a = none, b = none}
print(next(e), #e, rawlen(e))
e.a = 5
print(next(e))
e.a = nil
print(next(e))
e.b = 7
for k, v in pairs(e) do print(k, v) end
local obj = setmetatable({name = none}, {__index = function(_, k) return "dflt " .. k end})
print(obj.name, obj.other)
print(pcall(next, {x = none, y = 1}, "x"))
local n = 0
for i = 1, 100 do local u = {p = (i % 2 == 0) and i or nil, q = i} u.p = nil u.r = i if u.p == nil then n = n + 1 end end
print(n)
""",
    # setmetatable's common shape and everything around it
    "setmetatable": """
local C = {__index = {hello = "hi"}}
local o = {}
print(setmetatable(o, C) == o, o.hello, getmetatable(o) == C)
print(setmetatable(o, C) == o, setmetatable(o, nil) == o, getmetatable(o))
local P = {__metatable = "locked"}
local p = setmetatable({}, P)
print(getmetatable(p), pcall(setmetatable, p, C))
print(pcall(setmetatable, p, nil))
print(pcall(setmetatable, {}, 1))
print(pcall(setmetatable, 1, C))
print(pcall(setmetatable, {}))
print(pcall(setmetatable))
print(select("#", setmetatable({}, C)), setmetatable({}, C, "extra").hello)
""",
    # a .. b .. c: strings, numbers, __concat from the right, Lua's errors
    "concatenation chains": """
local a, b, i, f = "ab", "cd", 42, 2.5
print(a .. "#" .. b, a .. i .. b, i .. f .. 3, 1e100 .. "|" .. -0.0 .. "|" .. 2^63)
local C = setmetatable({}, {__concat = function(x, y)
  return "[" .. (type(x) == "table" and "T" or x) .. "+" .. (type(y) == "table" and "T" or y) .. "]" end})
print(a .. b .. C, C .. a .. b, a .. C .. b, i .. C .. f)
local t = {}
print(pcall(function() return a .. t .. b end))
print(pcall(function() return a .. b .. t end))
print(pcall(function() return t.x .. a .. b end))
print(pcall(function() local n return a .. b .. n end))
print(pcall(function() return a .. true .. b end))
print(#(string.rep("x", 40000) .. a .. string.rep("y", 40000)))
""",
    # pairs: its common case and the keys that need more than a read
    "pairs walks": """
local function walk(t)
  local out = {}
  for k, v in pairs(t) do out[#out + 1] = tostring(k) .. "=" .. tostring(v) end
  table.sort(out)
  return table.concat(out, " ")
end
print(walk({10, 20, nil, 40, x = 1, [true] = "t", [false] = "f", [2.5] = "h"}))
local holes = {1, 2, 3, 4}
holes[2] = nil
print(walk(holes), walk({}), walk({nil, nil, 3}))
local t = {a = 1, b = 2, c = 3}
for k in pairs(t) do t[k] = nil end
print(next(t), walk(t))
local f, s, c = pairs({7})
print(type(f), s ~= nil, c, f(s, c))
local P = setmetatable({}, {__pairs = function(t) return function(_, k) if not k then return 1, "one" end end, t, nil end})
print(walk(P))
local Q = setmetatable({z = 26}, {__index = function() return "no" end})
print(walk(Q))
local ok, fn = pcall(pairs, nil)
print(ok, type(fn), pcall(fn, nil))
print(pcall(pairs))
for k, v in pairs({5, 6}) do print(k, v) break end
""",
    # next from nil (an emptiness test), then a walk going on from its key
    "next walks": """
local t = {a = 1, b = 2, c = 3, 10, 20}
t[1], t[2] = nil, nil
t.a = nil
print(next({}), next({}, nil), next(t) ~= nil)
local n, sum = 0, 0
local k, v = next(t)
while k do n = n + 1 sum = sum + v k, v = next(t, k) end
print(n, sum)
local u = {x = 1, y = 2, z = 3}
for key in next, u do u[key] = nil end
print(next(u))
local w = {p = 1, q = 2}
local first = next(w)
w[first] = nil
print(next(w) ~= first, pcall(next, w, "nope"))
local arr = {1, 2, h = "x"}
local seen = {}
for key, val in next, arr do seen[#seen + 1] = tostring(key) end
table.sort(seen)
print(table.concat(seen, ","))
""",
    # o:m() through chains of classes: short and long, with a non-function,
    # an __index function, a loop, and nothing at the end
    "method chains": CLASS + """\
local levels = {class()}
for i = 2, 12 do levels[i] = class(levels[i - 1]) end
function levels[1].who(self) return "base " .. self.id end
levels[5].val = 42
local near, far = setmetatable({id = "n"}, levels[3]), setmetatable({id = "f"}, levels[12])
print(near:who(), far:who())
print(pcall(function() return far:val() end))
print(pcall(function() return far:missing() end))
local byfn = setmetatable({}, {__index = function(t, k) return function(self, x) return k .. x end end})
local above = setmetatable({}, {__index = byfn})
print(byfn:hello("!"), above:there("?"))
local loop = {}
loop.__index = loop
setmetatable(loop, loop)
print(pcall(function() return loop:nothing() end))
local callable = setmetatable({}, {__call = function(self, o, x) return "called " .. x end})
local holder = setmetatable({}, {__index = {m = callable}})
print(holder:m(5))
local own = {m = function(self) return "own" end}
print(own:m(), ("str"):upper(), pcall(function() local n return n:m() end))
""",
    # o:m() found past the class's class (values.method_from goes on from
    # there): at each depth, a non-function there, an __index function
    # further on, nothing at all, and chains around Lua's 2000 hops
    "methods past the class's class": CLASS + """\
local A = class() local B = class(A) local C = class(B) local D = class(C) local E = class(D)
function A.at(self) return "A " .. self.id end
function B.at_b(self) return "B " .. self.id end
D.own = function(self) return "D" end
local o = setmetatable({id = 1}, E)
for round = 1, 2 do
  print(o:at(), o:at_b(), o:own(), pcall(function() return o:none() end))
  B.field = round
  print(pcall(function() return o:field() end))
  B.field = nil
  A.at_call = setmetatable({}, {__call = function(self, me, x) return "called " .. x end})
  print(o:at_call("y"))
  setmetatable(A, {__index = function(t, k) return function(self) return "fn " .. k end end})
  print(o:dynamic(), o:at())
  setmetatable(A, nil)
  local function tail_at(x) return x:at() end
  print(tail_at(o), pcall(tail_at, setmetatable({}, E)))
end
local function chain(n)
  local c = {}
  c.__index = c
  function c.hit() return "hit" end
  for i = 2, n do local up = c c = {} c.__index = c setmetatable(c, up) end
  return setmetatable({}, c)
end
for _, n in ipairs({1996, 1997, 1998, 1999, 2000, 2001}) do
  print(n, pcall(function() local x = chain(n) return x:hit() end))
end
""",
    # string to number: plain digits at once, everything else as Lua reads it
    "numerals": """
local cases = {"123", "007", "0", "", " ", "123456789012345678", "1234567890123456789",
  "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999",
  " 42 ", "\\t7\\n", "+5", "-5", "--5", "1e5", "-12.5e3", ".5", "5.", "1e", "e1", "0x1F", "0X1p4",
  "1_000", "12a", "inf", "nan", "0x", "1.5e+3", "1.5E-3", "\\xb2", "1\\xb2", "\\xd9\\xa3"}
for _, s in ipairs(cases) do
  local n = tonumber(s)
  print(string.format("%q", s), n, math.type(n))
end
print("10" + 1, "3" * "4", "2" ^ 2, pcall(function() return "x" + 1 end))
local seq = {} for i = "1", "3" do seq[#seq + 1] = i end print(table.concat(seq, " "))
print(tonumber("z", 36), tonumber("ff", 16), tonumber("777", 8), tonumber("8", 8))
print(type(nil), type(1), type(1.5), type("s"), type({}), type(print), type(true), type(coroutine.create(print)))
print(pcall(type), type(nil, 1), select("#", type(nil)))
""",
    # tostring: strings and numbers at once, then metamethods and errors
    "tostring": """
print(tostring("s"), tostring(12), tostring(-0), tostring(math.mininteger), tostring(2^53))
print(tostring(1.5), tostring(-0.0), tostring(1/0), tostring(-1/0), tostring(1e100), tostring(3.0))
print(tostring(0/0) == tostring(0/0), tostring(nil), tostring(true), tostring(false))
print(tostring(setmetatable({}, {__tostring = function() return "T!" end})))
print(tostring(setmetatable({}, {__tostring = function() return 42 end})))
print(pcall(tostring, setmetatable({}, {__tostring = function() return {} end})))
print((tostring(setmetatable({}, {__name = "MyType"})):gsub("0x%x+", "ADDR")))
print(pcall(tostring))
print(tostring(7, "extra"), select("#", tostring(nil)))
local s = setmetatable({}, {__index = string})
print(("x"):rep(3), tostring("x"):upper())
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_runtime_shortcut_matches_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)


def test_tail_call_of_a_builtin_runs_at_once_and_of_lua_function_is_pending():
    st = LuaState()
    try:
        st.execute("function f(x) return x end", "=t")
        lua_f = st.G.get("f")
        pending = LC.tail(lua_f, (1,))
        assert type(pending) is V.Multi and pending[0] is V.TAILCALL
        assert V.first(pending) == 1
        tostring = st.G.get("tostring")
        assert LC.tail(tostring, (2,)) == "2"
        assert LC.tail(tostring, (3,)) == "3"  # the second time through the id cache
    finally:
        st.close()


def test_a_builtin_tail_call_seen_once_skips_the_trampoline():
    # the first `return tostring(x)` goes through values.tail, which notes
    # the builtin; the next ones call it in place, without tail's frame
    import sys

    st = LuaState()
    try:
        st.execute("function f(x) return tostring(x) end", "=t")
        f = st.G.get("f")
        assert f(1) == "1" and st.G.get("tostring") in LC.TAIL_NOW
        called = []
        sys.setprofile(lambda frame, event, arg: event == "call" and called.append(frame.f_code.co_name))
        try:
            assert f(2) == "2"
        finally:
            sys.setprofile(None)
        assert "tostring" in called and "tail" not in called
    finally:
        st.close()


def test_several_results_are_a_plain_tuple_and_a_python_tuple_is_never_a_value():
    # Multi is tuple itself: `return a, b` and `return ...` give tuples, and
    # a tuple from Python reaches Lua as a table (one value), never as results
    from runvil.lua.convert import python_function, to_lua

    st = LuaState()
    try:
        st.execute("function two(a) return a, a + 1 end function va(...) return ... end", "=t")
        assert type(st.G.get("two")(1)) is tuple and st.G.get("two")(1) == (1, 2)
        assert st.G.get("va")() == () and st.G.get("va")(None, 3) == (None, 3)
        st.G.set("pair", python_function(lambda: (1, (2, 3))))
        st.G.set("nested", to_lua((4, 5)))
        assert st.execute("local a, b = pair() return select('#', pair()), a, type(b), #b, b[2], #nested", "=u") == (
            2, 1, "table", 2, 3, 2)
    finally:
        st.close()


def _steps_of(st: LuaState, code: str) -> int:
    fn = st.load(code)
    st.call(fn)  # a host call starts a new budget (LuaState.reset_limits)
    return st.steps_used + st._armed - st._steps[0]


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 200])
def test_native_walks_charge_their_items_exactly(n):
    # next, ipairs and the sandbox pairs charge their own items (no _charged
    # layer): each item NEXT_ITEM_COST or IPAIRS_ITEM_COST steps, whatever n
    from runvil.lua.compiler.costs import IPAIRS_ITEM_COST, NEXT_ITEM_COST

    st = LuaState()
    try:
        st.execute(f"T = {{}} for i = 1, {n} do T[i] = i end", "=setup")
        body = "local s = 0 for k, v in {} do s = s + v end"
        spent = {kind: _steps_of(st, body.format(it)) for kind, it in
                 [("pairs", "pairs(T)"), ("next", "next, T"), ("ipairs", "ipairs(T)")]}
        assert spent["pairs"] - spent["ipairs"] == n * (NEXT_ITEM_COST - IPAIRS_ITEM_COST)
        assert spent["next"] - spent["pairs"] == _steps_of(st, "local f = next") - _steps_of(st, "local f = pairs(T)")
    finally:
        st.close()
