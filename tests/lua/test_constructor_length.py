"""`#` of tables fresh from a constructor or `table.pack`, compared byte for
byte with Debian's lua5.4: Lua sizes the array part by the positional
items, nils included, and its border search (ltable.c's luaH_getn) need
not find the last non-nil item."""

from __future__ import annotations

from .luacli import same_as_lua

LENGTHS = r"""
local function f(...) return ... end
print(#{nil, nil, 3, ["x"] = 1})
print(#{1, nil, 3, [10] = 5, nil, nil})
print(#{nil, nil, 3}, #{1, nil, 3, nil, nil}, #{1, nil, nil}, #{nil}, #{nil, nil, nil, 4, nil})
print(#{f(nil, nil, 3)}, #{f(1, nil, 3, nil, nil)}, #{f()}, #{f(nil)}, #{1, f(nil, nil)}, #{nil, f(nil, 2)})
print(#table.pack(nil, nil, 3), #table.pack(1, nil, 3, nil, nil), #table.pack(1, nil, nil), #table.pack())
print(table.pack(nil, nil).n, select('#', table.unpack(table.pack(1, nil, 3, nil, nil))))
print(#{[1] = 1, [2] = 2, [4] = 4}, #{1, 2, [3] = 3, [4] = 4, [6] = 6}, #{[3] = 5, 1, nil})
print(#{nil, nil, [2] = 7}, ({nil, nil, [2] = 7})[2], ({[1] = 5, 2})[1], ({[2.0] = 'k', 1, nil})[2])
print(#{n = 1, 1, nil, 3}, #{nil, 2, nil, x = 1}, #{nil, nil, nil, 4, x = 1}, #{x = 1, y = nil, [1] = nil, [2] = 3})
local t = {1, nil, 3, nil, nil}
t[2] = 2
print(#t)
local function args(...) return {...} end
print(#args(nil, nil, 3), #args(1, nil, 3, nil, nil), #args(nil, 'a', nil, nil))
for k, v in pairs({1, nil, 3, [10] = 5, nil, nil}) do io.write(k, '=', v, ' ') end
print()
-- more than one batch of positional items: a keyed item after a batch
-- was stored wins over it, one before it loses
local items = {}
for i = 1, 120 do items[#items + 1] = (i % 7 == 0) and 'nil' or tostring(i) end
local list = table.concat(items, ', ')
local a = load('return {' .. list .. ', [3] = 99, [60] = 98, [110] = 97}')()
print(#a, a[3], a[60], a[110])
local b = load('return {[3] = 99, ' .. list .. ', nil, nil, nil, [60] = 98, x = 1}')()
print(#b, b[3], b[60])
local c = load('return {' .. list .. ', nil, nil, nil, nil, nil, nil, nil, nil, nil}')()
print(#c)
print(pcall(function() return {1, [nil] = 2} end))
print(pcall(function() return {1, [0/0] = 2} end))
"""


def test_constructor_lengths_match_lua(tmp_path):
    same_as_lua(tmp_path, {"lengths.lua": LENGTHS}, ["lengths.lua"])


# ------------------------------------------------- generated, against lupa

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from .harness import ours, real  # noqa: E402

_VALUE = st.sampled_from(["nil", "nil", "1", "'s'", "true"])
_ITEM = st.one_of(
    _VALUE,  # positional
    st.tuples(st.integers(-1, 12), _VALUE).map(lambda kv: f"[{kv[0]}] = {kv[1]}"),
    st.tuples(st.sampled_from("xy"), _VALUE).map(lambda kv: f"{kv[0]} = {kv[1]}"),
)
_TAIL = st.one_of(st.just(""), st.lists(_VALUE, max_size=5).map(lambda vs: f"f({', '.join(vs)})"))


def _constructor(items: list, tail: str) -> str:
    return "{" + ", ".join([*items, tail] if tail else items) + "}"


@settings(max_examples=150, deadline=None)
@given(st.lists(_ITEM, max_size=12), _TAIL)
def test_generated_constructors_have_lua_s_length_and_contents(items, tail):
    code = ("local function f(...) return ... end\n"
            f"local t = {_constructor(items, tail)}\n"
            "local keys = {}\n"
            "for k, v in pairs(t) do keys[#keys + 1] = tostring(k) .. '=' .. tostring(v) end\n"
            "table.sort(keys)\n"
            "print(#t, table.concat(keys, ' '))\n")
    assert ours(code) == real(code), code
