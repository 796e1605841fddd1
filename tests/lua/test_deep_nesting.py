"""Deep nesting (issue 10): programs nested past CPython's limits (20 nested
loops, 100 indentation levels, its recursion limit) compile and run as in
Lua 5.4, or fail with Lua's own message; control flow leaving a hoisted
block (break, goto, return, errors) behaves as if nothing were hoisted."""

from __future__ import annotations

import pytest

from .harness import ours, real


def nest(opener: str, closer: str, n: int, body: str) -> str:
    return "".join(opener.format(k=k) + "\n" for k in range(n)) + body + "\n" + (closer + "\n") * n


CASES = {
    # issue 10's examples
    "21 nested loops": "local s = 0\n" + nest("for i{k} = 1, 1 do", "end", 21, "s = s + 1") + "print(s)",
    "100 nested ifs": "local s = 0\n" + nest("if true then", "end", 100, "s = s + 1") + "print(s)",
    "90 nested functions": "local f = " + "function() return " * 90 + "1" + " end" * 90 + "\nprint(type(f), type(f()))",
    "1000-term sum": "local x = 1\nprint(" + " + ".join(["x"] * 1000) + ")",
    "1000 chained fields": "local t = setmetatable({}, {__index = function(t) return t end})\nprint(t" + ".a" * 1000 + " == t)",
    "1000 chained calls": "local function f() return f end\nprint(f" + "()" * 1000 + " == f)",
    # every kind of block, deep
    "150 whiles": "local s = 0\n" + nest("while s < 1 do", "end", 150, "s = s + 1") + "print(s)",
    "150 repeats": "local s = 0\n" + nest("repeat", "until true", 150, "s = s + 1") + "print(s)",
    "45 numeric fors": "local s = 0\n" + nest("for i{k} = 1, 1 do", "end", 45, "s = s + 1") + "print(s)",
    "35 generic fors": "local s = 0\n" + nest("for k{k} in ipairs({{1}}) do", "end", 35, "s = s + k0") + "print(s)",
    "60 closes": "local log = {}\nlocal mt = {__close = function(o) log[#log + 1] = o.n end}\n"
    + nest("do local c{k} <close> = setmetatable({{n = {k}}}, mt)", "end", 60, "log[#log + 1] = 'body'")
    + "print(table.concat(log, ' '))",
    "150 dos with locals": nest("do local v{k} = {k}", "end", 150, "print(v0 + v149)"),
    # leaving hoisted blocks
    "break from deep": "local s = 0\nfor i = 1, 10 do\n" + nest("if i > 0 then", "end", 40, "s = s + i\nif i == 3 then break end")
    + "end\nprint(s)",
    "break from deep whiles": "local n = 0\nwhile true do\n" + nest("while true do", "break end", 30, "n = n + 1\nbreak")
    + "n = n + 100\nbreak\nend\nprint(n)",
    "return from deep": "local function f(x)\n" + nest("if x then", "end", 60, "do return x * 2, 'deep' end") + "return 'no'\nend\n"
    "print(f(21)) print(f(false))",
    "tail call from deep": "local function g(n) if n == 0 then return 'done' end\n"
    + nest("if n then", "end", 40, "return g(n - 1)") + "end\nprint(g(100000))",
    "goto continue from deep": "local s = {}\nfor i = 1, 5 do\n" + nest("if true then", "end", 40, "if i % 2 == 0 then goto continue end")
    + "s[#s + 1] = i\n::continue::\nend\nprint(table.concat(s, ','))",
    "goto backwards from deep": "local n = 0\n::again::\nn = n + 1\n" + nest("if true then", "end", 50, "if n < 5 then goto again end")
    + "print(n)",
    "goto forwards from deep": "do\n" + nest("if true then", "end", 50, "goto out") + "print('skipped')\nend\n::out::\nprint('out')",
    "closures of deep loop variables": "local fs = {}\n" + nest("for i{k} = 1, {k} < 2 and 2 or 1 do", "end", 25, "fs[#fs + 1] = function() return i0 + i24 end")
    + "print(#fs, fs[1](), fs[#fs]())",
    "assigning outer locals from deep": "local a, b = 1, 2\n" + nest("while a < 100 do", "end", 30, "a = a + 1000\nb = b * 3")
    + "print(a, b)",
    "locals declared deep, read deeper": nest("for j{k} = 1, 1 do local w{k} = {k}", "end", 30, "print(w0, w14, w29, j29)"),
    "error position from deep": "local t = nil\n" + nest("if true then", "end", 50, "local v = t.x") + "print('no')",
    "error level 2 from deep": "local function f()\n" + nest("while true do", "end", 30, "error('lvl', 2)") + "end\n"
    "print(pcall(f))\nlocal ok, e = pcall(function()\nf()\nend)\nprint(e)",
    "deep close error value": "local mt = {__close = function(_, e) print('closing with', e) end}\n"
    + nest("do local c{k} <close> = setmetatable({{}}, mt)", "end", 25, "error('boom')"),
    "deep varargs": "local function f(...)\n" + nest("if true then", "end", 40, "return select('#', ...), ...") + "end\nprint(f(1, nil, 3))",
    "repeat until sees deep local": "local n = 0\nrepeat\n" + nest("if true then", "end", 40, "n = n + 1") + "local done = n >= 3\nuntil done\nprint(n)",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_deep_program_runs_as_in_lua(name):
    code = CASES[name] + "\n"
    assert ours(code) == real(code)


def test_nesting_past_lua_limit_is_lua_error():
    # Lua stops at its own limit of nested levels; so do we, with its message
    code = nest("if true then", "end", 250, "print(1)")
    got = ours(code)
    assert got.startswith("syntax: ") and "overflow" in got and "internal" not in got
