"""Weak tables and finalizers as Lua 5.4 has them (runtime/collector.py):
each program runs here and under the real `lua5.4` binary (skipped where
it is missing), and prints the same lines."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from runvil.lua.debuginfo import builtin
from runvil.lua.state import LuaState

LUA = shutil.which("lua5.4")

PROGRAMS = {
    "weak keys, values and both": """
        weak = setmetatable({}, {__mode = "k"})
        vals = setmetatable({}, {__mode = "v"})
        both = setmetatable({}, {__mode = "kv"})
        keep = {}
        weak[keep] = 1; weak[{}] = 2; weak.s = {}
        vals[1] = {}; vals[2] = keep; vals[3] = {}; vals.x = "str"; vals.f = function() end; vals.n = 42
        both[keep] = {}; both[{}] = keep; both[keep] = keep
        local function c(t) local n = 0 for k in pairs(t) do n = n + 1 end return n end
        collectgarbage()
        print("after", c(weak), c(vals), c(both), #vals, vals[2] == keep, vals.x, vals.n, weak.s ~= nil)
    """,
    "an entry stays until a collection runs": """
        local cache = setmetatable({}, {__mode = "v"})
        cache.a = {}
        local n = 0 for k in pairs(cache) do n = n + 1 end
        print(n)
        collectgarbage()
        n = 0 for k in pairs(cache) do n = n + 1 end
        print(n)
    """,
    "finalizers run in the reverse order of marking": """
        order = {}
        for i = 1, 5 do setmetatable({}, {__gc = function() order[#order + 1] = i end}) end
        collectgarbage()
        print(table.concat(order, " "))
    """,
    "a finalizer resurrects its object, once": """
        local count = 0
        local t = setmetatable({name = "r"}, {__gc = function(o) count = count + 1; saved = o end})
        t = nil
        collectgarbage()
        print(saved and saved.name, count)
        saved = nil
        collectgarbage()
        collectgarbage()
        print(saved, count)
    """,
    "__gc must be there when the metatable is set": """
        local mt = {}
        local t = setmetatable({}, mt)
        mt.__gc = function() print("never") end
        t = nil
        collectgarbage()
        local u = setmetatable({}, {__gc = true})  -- marked; not callable: nothing runs
        u = nil
        collectgarbage()
        print("done")
    """,
    "weak keys of an object being finalized stay one more cycle": """
        wk = setmetatable({}, {__mode = "k"})
        wv = setmetatable({}, {__mode = "v"})
        local t = setmetatable({}, {__gc = function(o) end})
        wk[t] = 1; wv[1] = t
        t = nil
        local function c(x) local n = 0 for k in pairs(x) do n = n + 1 end return n end
        collectgarbage()
        print(c(wk), c(wv))
        collectgarbage()
        print(c(wk), c(wv))
    """,
    "an error in a finalizer is dropped": """
        setmetatable({}, {__gc = function() error("boom") end})
        setmetatable({}, {__gc = function() print("second runs") end})
        collectgarbage()
        print("alive")
    """,
    "tables made in a coroutine": """
        local weak = setmetatable({}, {__mode = "k"})
        local co = coroutine.wrap(function()
          for i = 1, 3 do
            local t = setmetatable({}, {__gc = function() print("gc", i) end})
            weak[t] = i
            coroutine.yield()
          end
        end)
        co(); co(); co()
        collectgarbage()
        local n = 0 for k in pairs(weak) do n = n + 1 end
        print("left", n)
    """,
    "a collection inside a traversal": """
        local weak = setmetatable({}, {__mode = "v"})
        local keep = {}
        for i = 1, 10 do weak["k" .. i] = (i % 2 == 0) and keep or {} end
        local n = 0
        for k, v in pairs(weak) do n = n + 1 end
        collectgarbage()
        local m = 0 for k in pairs(weak) do m = m + 1 end
        print(n, m)
    """,
    "a key set to nil keeps nothing alive": """
        local weak = setmetatable({}, {__mode = "v"})
        local set = {}
        local function add_and_remove()
          local cell = {}
          weak[1] = cell
          set[cell] = true
          set.other = 1
          set[cell] = nil
        end
        add_and_remove()
        collectgarbage()
        print(#weak, next(set))
        local t = {}
        for i = 1, 5 do t[{}] = i end
        local n = 0
        for k, v in pairs(t) do t[k] = nil; collectgarbage(); n = n + v end
        print(n, next(t))
    """,
    "locals out of scope hold nothing at a collection": """
        local w = setmetatable({}, {__mode = "k"})
        w[{}] = true
        local n = 0
        for k in pairs(w) do n = n + 1 end
        for i, k in ipairs({{}}) do w[k] = i end
        do
          local cell = {}
          w[cell] = 3
        end
        while true do
          local inner = {}
          w[inner] = 4
          break
        end
        collectgarbage()
        n = 0
        for k in pairs(w) do n = n + 1 end
        print(n)
        local keep = {}
        w[keep] = 5
        local function again()
          for k in pairs(w) do local x = k end
          collectgarbage()
          return next(w) == keep
        end
        print(again())
    """,
    "a class cache with weak keys": """
        local Class = {}
        Class.__index = Class
        local instances = setmetatable({}, {__mode = "k"})
        function Class.new(name) local o = setmetatable({name = name}, Class) instances[o] = true return o end
        local a, b, c = Class.new("a"), Class.new("b"), Class.new("c")
        b = nil
        collectgarbage()
        local names = {}
        for o in pairs(instances) do names[#names + 1] = o.name end
        table.sort(names)
        print(table.concat(names, ","))
    """,
}


def ours(source: str) -> str:
    out = []
    st = LuaState(stdout=out.append)
    st.set_global("collectgarbage", builtin(lambda *a: st.collector.collect()))
    st.execute(source)
    st.close()
    return "".join(out)


def real(source: str) -> str:
    done = subprocess.run([LUA, "-"], input=source, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(LUA is None, reason="the lua5.4 binary is not installed (apt-get install lua5.4)")
@pytest.mark.parametrize("name", PROGRAMS)
def test_as_lua_collects(name):
    assert ours(PROGRAMS[name]) == real(PROGRAMS[name])


def test_pending_finalizers_run_when_the_state_closes():
    out = []
    st = LuaState(stdout=out.append)
    st.execute("keep = setmetatable({}, {__gc = function() print('first') end})\n"
               "keep2 = setmetatable({}, {__gc = function() print('second') end})")
    assert out == []
    st.close()
    assert "".join(out) == "second\nfirst\n"


def test_a_collection_runs_by_itself_at_a_safe_point(monkeypatch):
    """Without collectgarbage: the step meter's check collects once a weak
    table or a marked object waits (here every 20 ms of CPU): the weak
    entry goes at once, and the finalizer it finds runs there, a safe point
    (tests/lua/test_finalizer_safe_points.py has more). What a running
    function's temporaries hold is kept then: only a `collectgarbage()`
    statement clears them."""
    from runvil.lua import state as state_module

    monkeypatch.setattr(state_module, "COLLECT_SECONDS", 0.02)
    out = []
    st = LuaState(stdout=out.append)
    st.execute("""
        local weak = setmetatable({}, {__mode = "v"})
        local function fill()
          weak[1] = {}
          setmetatable({}, {__gc = function() print("finalized") end})
        end
        fill()
        local x = 0
        for i = 1, 1000000 do x = x + i end
        print(#weak)
    """)
    assert "".join(out) == "finalized\n0\n"
    st.close()
    assert "".join(out) == "finalized\n0\n"


def test_a_limit_inside_a_finalizer_is_not_a_warning():
    from runvil.lua.errors import LimitExceeded
    from runvil.lua.state import Limits

    st = LuaState(limits=Limits(steps=1_000_000))
    st.execute("setmetatable({}, {__gc = function() while true do end end})")
    st.collector.sweep()
    with pytest.raises(LimitExceeded, match="step limit exceeded"):
        st.collector.finish()  # (as `collectgarbage()` runs them)
