"""gsub with a function or table replacement on re.split's pieces
(stdlib/strgsubsplit.py), and on re.subn for a subject past SPLIT_MAX:
each case prints the same as real Lua 5.4 on both paths — the values a
callback may return, the captures it gets (a pattern whose captures make
up the match, or not; back references), the count limit, the order of
calls and Lua's errors; then the limits: memory, steps, yields."""

from __future__ import annotations

import pytest

from runvil.lua import LuaError, LuaState
from runvil.lua.stdlib import strgsubsplit

from .harness import ours, real

CASES = {
    "title case": 'print(("hello big world, a b"):gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))',
    "nil, false, no value keep the match (captures make it up)":
        'print(("one two three four"):gsub("(%a)(%a*)", function(a, b)'
        ' if a == "o" then return nil elseif a == "t" then return false elseif b == "our" then return end'
        ' return b .. a end))',
    "kept matches, one capture between frontiers":
        'print(("the fox and the dog"):gsub("%f[%w](%w+)%f[%W]", function(w) if w == "fox" then return "{fox}" end end))',
    "kept matches, no capture": 'print(("abc 12 de"):gsub("%a+", function(w) if w == "de" then return "D" end end))',
    "kept matches, text around the captures": 'print(("x=1, y=22"):gsub("(%a)=(%d+)", function(k, v) if k == "y" then return v end end))',
    "numbers": 'print(("a b c d e"):gsub("%a", function(c) if c == "a" then return 1 elseif c == "b" then return 1.5'
               ' elseif c == "c" then return 2^53 elseif c == "d" then return -0.0 else return 1e100 end end))',
    "several values: the first": 'print(("ab"):gsub("(%a)", function(c) return c .. c, "ignored" end))',
    "several values, the first nil": 'print(("ab"):gsub("(%a)", function(c) return nil, "x" end))',
    "a tail call of a builtin": 'print(("abc"):gsub("%a", function(c) return string.upper(c) end))',
    "a tail call of a Lua function":
        'local function g(c) return "<" .. c .. ">" end print(("abc"):gsub("(%a)", function(c) return g(c) end))',
    "a back reference": 'print(("abab cdcd xyxz"):gsub("(%a)(%a)%1%2", function(a, b) return b .. a end))',
    "a back reference inside text": 'print(("aXa bYc"):gsub("(%a)X%1", function(a) return a:upper() end))',
    "nested captures": 'print(("abcd"):gsub("((%a)(%a))", function(w, a, b) return b .. a .. "|" .. w end))',
    "nested captures kept": 'print(("abcd"):gsub("((%a)(%a))", function(w, a, b) if a == "c" then return nil end return "-" end))',
    "three captures": 'print(("abcdef"):gsub("(%a)(%a)(%a)", function(a, b, c) return c .. b .. a end))',
    "three captures kept": 'print(("abcdef"):gsub("(%a)(%a)(%a)", function(a, b, c) if a == "d" then return false end'
                           ' return c end))',
    "the count": 'print(("a b c d e"):gsub("%a", function(c) return c:upper() end, 3))',
    "a count of 1 with captures": 'print(("ab cd"):gsub("(%a)(%a)", function(a, b) return b .. a end, 1))',
    "the end anchor": 'print(("ab cd"):gsub("(%a+)$", function(w) return w:upper() end))',
    "the calls' order": 'local seen = {} local r = ("a1b2c3"):gsub("(%a)(%d)", function(a, d) seen[#seen + 1] = a .. d'
                        ' return d end) print(r, table.concat(seen, ","))',
    "nothing replaced": 'print(("abc"):gsub("(%a)(%a*)", function() end))',
    "no match": 'print(("123"):gsub("(%a)(%a*)", function() return "x" end))',
    "a table": 'print(("one two three"):gsub("%a+", {one = 1, two = "2", three = false}))',
    "a table keyed by the first capture": 'print(("k=v a=b"):gsub("(%a)=(%a)", {k = "K", a = 2.5}))',
    "a table with __index": 'print(("a b c"):gsub("%a", setmetatable({}, {__index = function(t, k) return k .. k end})))',
    "a table with an __index table": 'print(("a b c"):gsub("%a", setmetatable({b = "B"}, {__index = {c = "C"}})))',
    "a table value that is a table": 'print(pcall(string.gsub, "a b", "%a", {b = {}}))',
    "an invalid replacement value": 'print(pcall(string.gsub, "hello world", "(%a)(%a*)", function(a, b)'
                                    ' if a == "w" then return {} end return a end))',
    "true is invalid": 'print(pcall(string.gsub, "ab", "%a", function() return true end))',
    "a function value is invalid": 'print(pcall(string.gsub, "ab", "(%a)", function() return print end))',
    "an error in the callback": 'local n = 0 print(pcall(string.gsub, "abcdef", "(%a)", function(c) n = n + 1'
                                ' if c == "c" then error("stop at " .. c) end return c end)) print(n)',
    "an error object": 'print(type(select(2, pcall(string.gsub, "ab", "(%a)", function(c) error({c}) end)))) print(select(2, pcall(string.gsub, "ab", "(%a)", function(c) error({c}) end))[1])',
    "a yield inside": 'print(coroutine.wrap(function() return pcall(string.gsub, "ab", "%a",'
                      ' function(c) coroutine.yield(c) end) end)())',
    "a gsub inside the callback": 'print(("ab cd"):gsub("(%a)(%a)", function(a, b) return (a .. b):gsub("%a", "%0%0") end))',
    "a percent in a capture": 'print(("50% 20%"):gsub("(%d+)(%%)", function(d, p) return p .. d end))',
    "high bytes": 'print(("caf\\233 na\\239ve"):gsub("([\\128-\\255])", function(c) return "<" .. c:byte() .. ">" end))',
}


@pytest.fixture(params=["split", "subn"])
def path(request, monkeypatch):
    """Each case on re.split's path, and on re.subn's (no subject is short enough)."""
    if request.param == "subn":
        monkeypatch.setattr(strgsubsplit, "SPLIT_MAX", -1)
    return request.param


@pytest.mark.parametrize("name", list(CASES))
def test_as_in_lua(name, path):
    code = CASES[name]
    assert ours(code) == real(code)


def test_the_split_path_is_taken_below_split_max(monkeypatch):
    calls = []
    real_split = strgsubsplit.gsub_by_split

    def counted(*a):
        calls.append(a[1])
        return real_split(*a)

    monkeypatch.setattr(strgsubsplit, "gsub_by_split", counted)
    code = 'print(("hello world"):gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end))'
    assert ours(code) == "Hello World\t2\n"
    assert calls == ["hello world"]


def _state(**limits) -> LuaState:
    from runvil.lua.state import Limits

    return LuaState(limits=Limits(**limits))


@pytest.mark.parametrize("subject", [10_000, strgsubsplit.SPLIT_MAX + 10])
def test_a_runaway_result_stops_at_the_memory_limit_before_the_next_calls(subject):
    """Each value is a long string: the result passes the memory limit
    after a few matches, and no match after that one is called."""
    st = _state(memory=64 * 1024 * 1024)
    st.execute("big = string.rep('x', 4 * 1024 * 1024)")
    st.execute(f"s = string.rep('ab ', {subject // 3})")
    st.execute("n = 0; f = function(a, b) n = n + 1; return big end")
    with pytest.raises(LuaError, match="memory limit exceeded"):
        st.execute("return (s:gsub('(%a)(%a)', f))")
    n = st.G.get("n")
    assert 1 <= n <= 40


@pytest.mark.parametrize("subject", [10_000, strgsubsplit.SPLIT_MAX + 10])
def test_a_runaway_callback_stops_at_the_step_limit(subject):
    st = _state(steps=200_000)
    st.execute(f"s = string.rep('ab ', {subject // 3})")
    with pytest.raises(LuaError, match="step"):
        st.execute("return (s:gsub('(%a)(%a)', function(a, b) while true do end end))")


def test_a_recursing_callback_ends_in_a_stack_overflow():
    out = ours("local function f(s) return (s:gsub('(%a)(%a*)', function(a, b) return f(a .. b) end)) end\n"
               "print(pcall(f, 'ab'))")
    assert out.startswith("false\t") and "stack overflow" in out
