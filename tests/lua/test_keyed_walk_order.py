"""`pairs` and `next` walk a constructor of keyed integer items in Lua's
order (runvil.lua.runtime.tables._keyed_only): Lua keeps such items in its
hash part, whose nodes follow from the keys alone, so a lookup table such
as Tieske/date's `{[0] = "January", [1] = "February", ...}` is walked from
0, and a library that returns the first key whose value matches gets
Lua's answer. Compared with `lua5.4`: a fixed program, and generated
constructors (duplicate keys, nil values, huge and negative keys) with
in-place changes after them."""

from __future__ import annotations

import random

from runvil.lua import LuaState

from .luacli import same_as_lua

WALK = "local o = {} for k, v in pairs(t) do o[#o + 1] = tostring(k) .. '=' .. tostring(v) end " \
       "local p = {} local k = next(t) while k ~= nil do p[#p + 1] = tostring(k) k = next(t, k) end " \
       "print(table.concat(o, ' '), table.concat(p, ' '))"


def walked(table: str, then: str = "") -> str:
    return f"do local t = {table} {then} {WALK} end\n"


FIXED = "".join([
    walked('{[0] = "January", [1] = "February", [2] = "March", [12] = "Jan", [13] = "Feb"}'),
    walked('{[2] = "b", [1] = "a", [3] = "c"}'),
    walked('{[2] = "b", [1] = "a", [3] = "c"}', 't[1] = nil t[1] = "A" t[2] = "B"'),
    walked('{[-1] = "AM", [1] = "PM"}'),
    walked('{[5] = 1, [5] = nil, [9] = 2, [5] = 3}'),
    walked('{[1] = "x", s = "y", [0] = "z"}'),  # a string key: its order is Lua's seed's, not compared
])


def test_the_lookup_tables_of_real_libraries_walk_from_zero():
    st = LuaState()
    st.execute('months = {[0] = "January", [1] = "February", [2] = "March", [12] = "Jan"}')
    [first] = st.execute("for k, v in pairs(months) do if v:sub(1, 3) == 'Jan' then return k end end")
    assert first == 0
    assert st.execute("local o = {} for k in pairs(months) do o[#o + 1] = k end return table.concat(o, ' ')") \
        == ("0 1 2 12",)
    assert st.execute("return #months, months[1], next(months)") == (2, "February", 0, "January")
    # a key added later is walked too (Lua puts it in a free node: runvil, last)
    assert st.execute("local t = {[1] = 1, [2] = 2, [4] = 4} t[3] = 3 t[0] = 0 local o = {} "
                      "for k in pairs(t) do o[#o + 1] = k end table.sort(o) return table.concat(o, ' ')") \
        == ("0 1 2 3 4",)


def test_keyed_constructors_walk_as_lua_s(tmp_path):
    program = FIXED.replace(walked('{[1] = "x", s = "y", [0] = "z"}'), "")
    same_as_lua(tmp_path, {"main.lua": program}, ["main.lua"])


def test_generated_keyed_constructors_walk_as_lua_s(tmp_path):
    rng = random.Random(20261207)
    program = []
    for _ in range(300):
        keys = [rng.choice([rng.randint(-5, 40), rng.randint(0, 12), rng.randint(-2**62, 2**62)])
                for _ in range(rng.randint(1, 30))]
        items = ", ".join(f"[{k}] = {'nil' if rng.random() < 0.1 else i}" for i, k in enumerate(keys))
        then = rng.choice(["", "t[3] = nil", "t[0] = nil", "for k in pairs(t) do t[k] = nil break end",
                           "for k in pairs(t) do t[k] = 'o' end"])
        program.append(walked(f"{{{items}}}", then))
    same_as_lua(tmp_path, {"main.lua": "".join(program)}, ["main.lua"])
