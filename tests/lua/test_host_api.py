"""The host API of the Lua layer: states with chosen libraries and limits,
globals, calls both ways, userdata through one protocol, conversions."""

from __future__ import annotations

import pytest

from runvil.lua import Limits, LuaError, LuaState, LuaTable, Multi, Userdata
from runvil.lua.convert import python_function, to_lua, to_python


class Counter(Userdata):
    lua_type_name = "Counter"

    def __init__(self):
        self.n = 0
        self.fields = {}

    def lua_index(self, key):
        if key == "n":
            return self.n
        return self.fields.get(key)

    def lua_newindex(self, key, value):
        if key == "n":
            raise LuaError("n is read-only")
        self.fields[key] = value

    def lua_len(self):
        return self.n

    def lua_call(self, *args):
        self.n += len(args)
        return self.n

    def lua_pairs(self):
        keys = sorted(self.fields)

        def walk(_s, k):
            i = 0 if k is None else keys.index(k) + 1
            return Multi((keys[i], self.fields[keys[i]])) if i < len(keys) else None

        return python_walk(walk), self, None

    def lua_tostring(self):
        return f"Counter({self.n})"

    def lua_eq(self, other):
        return isinstance(other, Counter) and other.n == self.n


def python_walk(fn):
    from runvil.lua.debuginfo import builtin

    return builtin(fn)


def state(**kw):
    return LuaState(stdout=lambda s: None, **kw)


def test_globals_and_calls_both_ways():
    st = state()
    st.set_global("greet", python_function(lambda name: f"hello {name}"))
    st.set_global("data", to_lua({"xs": [1, 2, 3], "name": "é"}))
    (r,) = st.execute("return greet(data.name) .. ' ' .. #data.xs")
    assert to_python(r) == "hello é 3"
    f = st.execute("return function(a, b) return a + b, a * b end")[0]
    assert st.call(f, 6, 7) == (13, 42)
    assert st.get_global("greet") is not None


def test_chosen_libraries_only():
    st = state(libs=("base", "string"))
    assert st.execute("return table, math, string ~= nil")[0:3] == (None, None, True)


def test_limits_per_state():
    st = state(limits=Limits(steps=10_000))
    with pytest.raises(LuaError, match="step limit exceeded"):
        st.execute("while true do end")


def test_userdata_protocol():
    st = state()
    c, d = Counter(), Counter()
    st.set_global("c", c)
    st.set_global("d", d)
    out = st.execute(
        """
        c(1, 2) ; c.label = 'x' ; c.other = 5
        local keys = {}
        for k, v in pairs(c) do keys[#keys + 1] = k .. '=' .. tostring(v) end
        return c.n, #c, tostring(c), type(c), c == d, table.concat(keys, ','), pcall(function() c.n = 1 end)
        """
    )
    assert out[:7] == (2, 2, "Counter(2)", "userdata", False, "label=x,other=5", False)
    assert str(out[7]) == "n is read-only"
    d.lua_call(1, 1)
    assert st.execute("return c == d")[0] is True


def test_userdata_type_name_in_messages():
    class Opaque(Userdata):
        lua_type_name = "Opaque"

    st = state()
    st.set_global("o", Opaque())
    with pytest.raises(LuaError, match="attempt to index a Opaque value"):
        st.execute("return o.x")


def test_conversions_round_trip():
    value = {"a": [1, 2.5, "x"], "b": {"c": True}, "d": None}
    back = to_python(to_lua(value))
    assert back == {"a": [1, 2.5, "x"], "b": {"c": True}}
    assert isinstance(to_lua([1, 2]), LuaTable)
