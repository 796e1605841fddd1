"""A function's `_ENV` upvalue as Lua has it (runvil.lua.runtime.envslots):
Lua 5.1's setfenv and getfenv as libraries emulate them on 5.4 (Penlight's
compat, Sergey Rozhenko's version: a loop over debug.getupvalue until
`_ENV`, debug.upvaluejoin to make it private, debug.setupvalue) give one
function, and the closures it makes from then on, a table of its own as
its globals; compared with `lua5.4` byte for byte, on every backend (the
tiers run the file with RUNVIL_CONTEXTS=inline and threads)."""

from __future__ import annotations

import pytest

from runvil.lua import LuaError, LuaState
from runvil.lua.stdlib import LIBRARIES

WITH_DEBUG = (*LIBRARIES, "debug")

from .luacli import same_as_lua

FENV = """
local function setfenv(f, t)
  f = type(f) == 'function' and f or debug.getinfo(f + 1, 'f').func
  local up, name = 0
  repeat up = up + 1; name = debug.getupvalue(f, up) until name == '_ENV' or name == nil
  if name then
    debug.upvaluejoin(f, up, function() return name end, 1)
    debug.setupvalue(f, up, t)
  end
  return f
end
local function getfenv(f)
  f = type(f) == 'function' and f or debug.getinfo(f + 1, 'f').func
  local up, name, val = 0
  repeat up = up + 1; name, val = debug.getupvalue(f, up) until name == '_ENV' or name == nil
  return val
end
"""

PROGRAMS = {
    "reads and writes go to the new table, other functions keep the globals": """
        x = "global"
        local function show() return x end
        local env = {x = "sandboxed"}
        print(show(), getfenv(show) == _G)
        setfenv(show, env)
        print(show(), getfenv(show) == env, getfenv(show) == _G)
        env.x = "changed"
        print(show())
        local function other() return x end
        print(other())
        local function put(v) y = v end
        setfenv(put, env); put(5); print(env.y, y)
        setfenv(show, _G); print(show())
    """,
    "closures made afterwards share it, made before keep theirs": """
        x = "global"
        local function maker() return function() return x end end
        print((debug.getupvalue(maker, 1)))
        local early = maker()
        setfenv(maker, setmetatable({}, {__index = function(_, k) return "meta " .. k end}))
        print(maker()(), early())
        local function deeper() return function() return function() z = 1; return x end end end
        local env = {x = "deep"}
        setfenv(deeper, env)
        print(deeper()()(), env.z, z)
    """,
    "a loaded chunk, before it runs": """
        x = "global"
        local env = {x = "env"}
        local f = load("z = 1; return x")
        setfenv(f, env); print(f(), env.z, z)
        local c = load("local function inner() return x end return inner(), x")
        debug.setupvalue(c, 1, {x = "direct"})
        print(c())
    """,
    "an _ENV that is no table": """
        x = "global"
        local function g() return x end
        setfenv(g, 42)
        print(pcall(g))
        local function h(v) w = v end
        setfenv(h, "s")
        print(pcall(h, 1))
    """,
    "upvalue ids, names and counts": """
        x = 1
        local function a() return x end
        local function b() return x end
        local function none() return 1 end
        local function outer() return function() return x end end
        print(debug.upvalueid(a, 1) == debug.upvalueid(b, 1), debug.getupvalue(none, 1))
        print(debug.getupvalue(outer, 1) == "_ENV", debug.getinfo(outer, "u").nups)
        setfenv(a, {x = 2})
        print(debug.upvalueid(a, 1) == debug.upvalueid(b, 1), a(), b())
    """,
    "coroutines and protected calls in a function given an _ENV": """
        local env = setmetatable({x = "co"}, {__index = _G})
        local co = coroutine.wrap(setfenv(function()
          coroutine.yield(x)
          local ok, e = pcall(function() return x .. "!" end)
          return e
        end, env))
        print(co(), co())
        local function fails() error("in " .. x) end
        print(pcall(setfenv(fails, env)))
    """,
    "a running function gives itself a table, setfenv(1, t), as Penlight's tests do": """
        x = "global"
        local utils = {setfenv = setfenv}
        local function test2()
          local env = {x = 2, print = print}
          print(x)
          setfenv(1, env)
          print(getfenv(1) == env, x)
          y = "written"
          local function later() return x end
          print(env.y == "written", later())
        end
        test2()
        print(x, y)
        local function again()
          local before = x
          utils.setfenv(1, {x = "by field", tostring = tostring})
          return before, x, tostring(z)
        end
        print(again())
        print(again())
        local function loop()
          local seen = {}
          for i = 1, 3 do
            seen[#seen + 1] = tostring(x)
            if i == 2 then setfenv(1, {x = "switched", tostring = tostring}) end
          end
          return seen[1], seen[2], seen[3]
        end
        print(loop())
        local co = coroutine.wrap(function()
          setfenv(1, {x = "in co", coroutine = coroutine})
          coroutine.yield(x)
          return x
        end)
        print(co(), co())
    """,
    "a chunk that gives itself a module table, as Lua 5.1's module idiom": """
        local M = {print = print}
        local function module_body()
          setfenv(1, M)
          function greet() return "hi " .. tostring(name) end
          name = "M"
        end
        module_body()
        print(M.greet and "greet in M", rawget(_G, "greet"), M.name)
        M.tostring = tostring
        print(M.greet())
        local body = function()
          local me = debug.getinfo(1, 'f').func
          setfenv(1, {x = "in a coroutine", coroutine = coroutine})
          coroutine.yield(x)
          return x
        end
        local co = coroutine.wrap(body)
        print(co(), co())
    """,
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_setfenv_emulations_as_lua(tmp_path, name):
    same_as_lua(tmp_path, {"main.lua": FENV + PROGRAMS[name]}, ["main.lua"])


def test_a_function_given_a_table_reads_it_without_lua54():
    st = LuaState(libs=WITH_DEBUG, allow_load=True)
    st.execute("x = 'global'")
    [f] = st.execute("local function f() y = x return x end return f")
    [env] = st.execute("return {x = 'mine'}")
    st.execute(FENV + "local f, env = ... setfenv(f, env)", "=t", f, env)
    assert st.call(f) == ("mine",)
    assert env.hash["y"] == "mine" and st.get_global("y") is None
    [g] = st.execute("return function() return x end")
    assert st.call(g) == ("global",)


def test_an_env_that_is_no_table_is_lua_s_error():
    st = LuaState(libs=WITH_DEBUG, allow_load=True)
    [f] = st.execute("return function() return x end")
    st.execute(FENV + "setfenv(..., true)", "=t", f)
    with pytest.raises(LuaError, match=r"attempt to index a boolean value \(upvalue '_ENV'\)"):
        st.call(f)
