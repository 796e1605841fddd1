"""What the compiler must keep of Lua's semantics (issue 12): numeric for as
Lua's forprep, to-be-closed values of generic fors, tail calls through
__call, __len's operands, and variable info in messages — each compared
with real Lua 5.4 (lupa), with the issue's example quoted."""

from __future__ import annotations

import warnings

import pytest

from runvil.lua.compiler.codegen import compile_chunk

from .harness import ours, real

CLOSING_ITER = (
    "local mt = {__close = function(_, e) print('closed', e) end}\n"
    "local function it() return function(s, i) if i < 3 then return i + 1 end end, nil, 0, setmetatable({}, mt) end\n"
)

CASES = {
    # numeric for: forprep exactly
    "string limit coerced": "for i = 1, '3' do print(i) end",
    "string start makes a float loop": "for i = '1', 3 do print(i) end",
    "string step": "for i = 1, 3, '1' do print(i) end",
    "bad string limit": "print(pcall(function() for i = 1, 'x' do end end))",
    "zero step, NaN limit": "print(pcall(function() for i = 1, 0/0, 0 do print(i) end end))",
    "zero step, huge limit": "print(pcall(function() for i = 1, math.huge, 0 do print(i) end end))",
    "zero float step": "print(pcall(function() for i = 1, 1, 0.0 do print(i) end end))",
    "float loop, NaN limit": "for i = 1.0, 0/0 do print(i) end",
    "float loop, NaN limit, negative step": "for i = 1.0, 0/0, -1 do print(i) end",
    "integer loop, NaN limit, negative step": "local n = 0 for i = 1, 0/0, -1 do n = n + 1 print(i) if n > 3 then break end end",
    "integer loop, NaN limit": "for i = 1, 0/0 do print(i) end",
    "integer loop, -inf limit": "local n = 0 for i = 3, -math.huge, -1 do n = n + 1 if n > 4 then break end print(i) end",
    "float limit rounds toward the loop": "for i = 1, 3.7 do print(i) end for i = 3, 0.5, -1 do print(i) end",
    "order of for errors": "print(pcall(function() for i = {}, nil, false do end end))",
    "for errors use __name": "local t = setmetatable({}, {__name = 'MyType'})\n"
    "print(pcall(function() for i = t, 2 do end end)) print(pcall(function() for i = 1, t do end end))",
    # division and bitwise fast paths
    "integer division converts first": "print(9007199254740993 / 3, 9007199254740993 / 1, 7 // 2, 7 / 2)",
    "integer division of locals converts each operand first": "local function div(a, b) return a / b end\n"
    "print(string.format('%.17g %.17g %.17g', div(9007199254740993, math.maxinteger), div(2^53 + 1, 3),"
    " div(math.mininteger + 1, -9007199254740993)))",
    "a numeric for's variable indexed in its body": "print(pcall(function() for i = -1, 5.5 do print(i) i[-0.0] = i end end))\n"
    "print(pcall(function() for i = 1, 2 do print(i[1]) end end))",
    "bitwise on floats": "print(3.0 | 0, pcall(function() return 1.5 & 1 end)) print(pcall(function() return 2^63 | 0 end))",
    "NaN signs": "print(0/0, -(0/0), math.huge - math.huge, string.format('%f', 0/0))",
    # to-be-closed values
    "__close removed after declaring": "print(pcall(function()\n"
    "local t = setmetatable({}, {__close = function() print('c') end})\n"
    "local x <close> = t\ngetmetatable(t).__close = nil\nend))",
    "generic for left by break": CLOSING_ITER + "for i in it() do if i == 2 then break end end print('after')",
    "generic for left by goto": CLOSING_ITER + "for i in it() do if i == 2 then goto out end end ::out:: print('out')",
    "generic for left by return": CLOSING_ITER + "local function f() for i in it() do return i end end print(f())",
    "generic for left by an error": CLOSING_ITER + "print(pcall(function() for i in it() do error('boom') end end))",
    "return f() in a generic for is not a tail call": CLOSING_ITER
    + "local function f() print('in f') return 'f' end\nlocal function g() for i in it() do return f() end end print(g())",
    # calls
    "tail call through __call": "local obj = setmetatable({}, {__call = function(self, k)\n"
    "if k == 0 then return 'done' end return self(k - 1) end})\nprint(obj(300000))",
    "tail call through a chain of __call": "local c2 = setmetatable({}, {__call = function(self, o, k)\n"
    "if k == 0 then return 'done', select('#', self, o) end return o(k - 1) end})\n"
    "local obj = setmetatable({}, {__call = c2})\nprint(obj(300000))",
    "__len gets its operand twice": "local t = setmetatable({}, {__len = function(a, b) return rawequal(a, b) end}) print(#t)",
    # variable info in messages
    "calling a local number": "local t = 5; print(pcall(function() t() end)) print(pcall(function() local t = 5; t() end))",
    "constant operand of a bitwise error": "print(pcall(function() return (0 & ('10' or 0)) end))\n"
    "print(pcall(function() return 'a' | 1 end)) print(pcall(function() return 1 | '1.5' end))\n"
    "print(pcall(function() return (nil or 'x') | 1 end)) print(pcall(function() return (1 and 'y') | 1 end))",
    "local _ENV = nil": "print(pcall(load('local _ENV = nil; return z')))\n"
    "print(pcall(load('local _ENV <const> = nil; return z')))\nprint(pcall(load('local _ENV = nil; z = 1')))",
    "errors inside metamethods": "local t = setmetatable({}, {__add = function(a, b) return a.x + b end,\n"
    "__lt = function(a, b) return a.x < b end})\nprint(pcall(function() return t + 1 end))\n"
    "print(pcall(function() return t < 1 end))",
    "builtins called as metamethods are named after the event": "local t = setmetatable({}, {__add = math.floor,\n"
    "__lt = string.rep, __index = string.rep, __concat = string.byte, __unm = math.abs, __len = string.len,\n"
    "__eq = string.rep, __call = string.rep})\n"
    "print(pcall(function() return t + 1 end)) print(pcall(function() return t < t end))\n"
    "print(pcall(function() return t.x end)) print(pcall(function() return t .. 'a' end))\n"
    "print(pcall(function() return -t end)) print(pcall(function() return #t end))\n"
    "print(pcall(function() return t == setmetatable({}, getmetatable(t)) end)) print(pcall(function() return t() end))\n"
    "print(pcall(function() local a <close> = setmetatable({}, {__close = string.rep}) end))",
    "__call = 7 keeps the name": "local a = setmetatable({}, {__call = 7})\n"
    "print(pcall(function() a() end)) print(pcall(function() return a() end))",
    "multi-line call": "print(pcall(function()\n  local x = nil\n  return math.max(1,\n    2,\n    x.y)\nend))\n"
    "print(pcall(function()\n  local f = nil\n  f(1,\n  2,\n  3)\nend))",
    "comparisons with nil literals": "local x = 1\nprint(1 == nil, nil == 'a', true == 1, 2 ~= nil, nil == nil, x == nil, 's' == true)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_in_lua(name):
    code = CASES[name] + "\n"
    assert ours(code) == real(code)


def test_the_issue_examples():
    # issue 12, quoted: "attempt to call a number value (local 't')",
    # "(metamethod 'close')", "'for' step is zero"
    assert "attempt to call a number value (local 't')" in ours("local t = 5; t()")
    assert "attempt to call a nil value (metamethod 'close')" in ours(
        "local t = setmetatable({}, {__close = print}); local x <close> = t; getmetatable(t).__close = nil"
    )
    assert "'for' step is zero" in ours("for i = 1, 0/0, 0 do end")
    assert "(constant '10')" not in ours("return (0 & ('10' or 0))")


def test_generated_code_compiles_without_warnings():
    code = "local x = 1\nprint(1 == nil, nil == 'a', true == 1, x == nil, 'a' ~= false)\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled = compile_chunk(code, "=w")
        compile(compiled.source, "<check>", "exec")
