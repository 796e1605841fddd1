"""The runtime helpers' shortcuts of issue 13, round 2 (tail calls told
apart without hashing code objects, metamethods called with fixed operands,
constructors, concatenation, table access) must behave exactly as the
general paths: each program takes a shortcut and then the edges around it,
and prints what real Lua 5.4 prints."""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua import values as V

from .harness import ours, real

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
        pending = V.tail(lua_f, (1,))
        assert type(pending) is V.Multi and pending[0] is V.TAILCALL
        assert V.first(pending) == 1
        tostring = st.G.get("tostring")
        assert V.tail(tostring, (2,)) == "2"
        assert V.tail(tostring, (3,)) == "3"  # the second time through the id cache
    finally:
        st.close()
