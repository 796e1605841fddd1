"""Coroutines on execution contexts (issue 13 item 2, issue 10 "Threads
and stacks" and "Leaks", issue 12 "Coroutines"): Lua 5.4's semantics on
either backend, deep recursion inside coroutines, closing, and many
suspended coroutines at once. tests/engine/test_contexts.py runs this file
again on the threads backend."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from runvil.lua import LuaState
from runvil.lua.runtime import contexts

from .harness import ours

LUA54 = shutil.which("lua5.4")

CASES = {
    # issue 12: "coroutine.close of the main coroutine from inside a coroutine says normal"
    "close main from a coroutine": (
        """
        local main = coroutine.running()
        print(coroutine.wrap(function() return pcall(coroutine.close, main) end)())
        print(pcall(coroutine.close, main))
        """,
        "false\tcannot close a normal coroutine\nfalse\tcannot close a running coroutine\n",
    ),
    # issue 12: "a second close after an error in __close returns true"
    "second close after an error in __close": (
        """
        local co = coroutine.create(function()
          local x <close> = setmetatable({}, {__close = function() error("boom") end})
          coroutine.yield()
        end)
        coroutine.resume(co)
        print(coroutine.close(co))
        print(coroutine.close(co))
        print(coroutine.status(co))
        """,
        "false\tinput:2: boom\ntrue\ndead\n",
    ),
    "close after the coroutine failed": (
        """
        local co = coroutine.create(function() error("bad") end)
        print(coroutine.resume(co))
        print(coroutine.close(co))
        print(coroutine.close(co))
        """,
        "false\tinput:1: bad\nfalse\tinput:1: bad\ntrue\n",
    ),
    # issue 10: "a coroutine whose __close yields ... coroutine.close wrongly returns true"
    "a __close that yields while closing": (
        """
        local co = coroutine.create(function()
          local x <close> = setmetatable({}, {__close = function() coroutine.yield() end})
          coroutine.yield()
        end)
        coroutine.resume(co)
        print(pcall(coroutine.close, co))
        print(coroutine.status(co))
        """,
        "true\tfalse\tattempt to yield across a C-call boundary\ndead\n",
    ),
    "statuses": (
        """
        local main = coroutine.running()
        local co
        co = coroutine.create(function()
          print(coroutine.status(main), coroutine.status(co), coroutine.isyieldable())
          local inner = coroutine.wrap(function() print(coroutine.status(co)) end)
          inner()
          coroutine.yield(1)
        end)
        print(coroutine.status(co), coroutine.resume(co))
        print(coroutine.status(co), coroutine.resume(co))
        print(coroutine.status(co), coroutine.resume(co))
        print(coroutine.isyieldable(), select(2, coroutine.running()))
        """,
        "normal\trunning\ttrue\nnormal\nsuspended\ttrue\t1\nsuspended\ttrue\ndead\tfalse\tcannot resume dead coroutine\n"
        "false\ttrue\n",
    ),
    "yield across pcall and metamethods": (
        """
        local t = setmetatable({}, {__index = function(t, k) return coroutine.yield(k) end})
        local co = coroutine.wrap(function()
          local ok, v = pcall(function() return t.x end)
          return "got", ok, v
        end)
        print(co())
        print(co(42))
        """,
        "x\ngot\ttrue\t42\n",
    ),
    "generator pipeline": (
        """
        local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
        local function filter(g) return coroutine.wrap(function()
          for v in g do if v % 3 == 0 then coroutine.yield(v) end end end) end
        local s = 0
        for v in filter(gen(3000)) do s = s + v end
        print(s)
        """,
        f"{sum(v for v in range(1, 3001) if v % 3 == 0)}\n",
    ),
    # issue 13: "8,000 non-tail levels; infinite recursion ends in stack overflow,
    # and the program can recurse deeply again after it", inside coroutines too
    "deep recursion inside coroutines": (
        """
        local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
        local function inf() return 1 + inf() end
        local co = coroutine.wrap(function()
          print(depth(8000))
          print(pcall(inf))
          print(depth(8000))
          local inner = coroutine.wrap(function() print(depth(8000)); coroutine.yield() end)
          inner()
          print(depth(8000))
        end)
        co()
        print(depth(8000))
        """,
        "8000\nfalse\tinput:2: stack overflow\n8000\n8000\n8000\n8000\n",
    ),
    "a coroutine resumed from deep inside a recursion": (
        """
        local co = coroutine.wrap(function(n) while true do n = coroutine.yield(n + 1) end end)
        local function down(n) if n == 0 then return co(0) end return down(n - 1) + 0 end
        print(down(5000), down(10), down(3000))
        """,
        "1\t1\t1\n",
    ),
}


def lua54(code: str, tmp_path) -> str:
    path = tmp_path / "input"
    path.write_text(code, encoding="latin-1")
    return subprocess.run([LUA54, "input"], cwd=tmp_path, capture_output=True, timeout=60).stdout.decode("latin-1")


def program(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).strip("\n")


@pytest.mark.parametrize("name", list(CASES))
def test_coroutines_behave_as_in_lua(name):
    code, expected = CASES[name]
    assert ours(program(code), "=input") == expected


@pytest.mark.skipif(LUA54 is None, reason="lua5.4 is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_the_expected_outputs_are_lua_5_4s(name, tmp_path):
    code, expected = CASES[name]
    assert lua54(program(code), tmp_path) == expected


def test_a_state_closes_its_suspended_coroutines_running_their_close_handlers():
    out = []
    st = LuaState(stdout=out.append)
    st.execute(
        """
        cos = {}
        for i = 1, 3 do
          cos[i] = coroutine.create(function()
            local x <close> = setmetatable({}, {__close = function() print("closed " .. i) end})
            coroutine.yield()
          end)
          coroutine.resume(cos[i])
        end
        """
    )
    assert len(st.coroutines) == 3
    st.close()
    assert sorted(out) == ["closed 1\n", "closed 2\n", "closed 3\n"]
    assert not st.coroutines


def test_a_close_handler_that_yields_leaves_no_context_behind():
    # issue 10: "a coroutine whose __close yields leaks its thread"
    st = LuaState(stdout=lambda s: None)
    (ok, err) = st.execute(
        """
        local co = coroutine.create(function()
          local x <close> = setmetatable({}, {__close = function() coroutine.yield() end})
          coroutine.yield()
        end)
        coroutine.resume(co)
        return coroutine.close(co)
        """
    )
    assert (ok, err) == (False, "attempt to yield across a C-call boundary")
    assert not st.coroutines


def test_finished_coroutines_leave_nothing_behind():
    st = LuaState(stdout=lambda s: None)
    st.execute("for i = 1, 500 do local f = coroutine.wrap(function(a) coroutine.yield(a) return a end); f(1); f() end")
    assert not st.coroutines


@pytest.mark.skipif(contexts.BACKEND != "greenlet", reason="100,000 threads do not fit in a process")
def test_a_hundred_thousand_suspended_coroutines():
    # issue 10: "100,000 coroutines (can't start new thread at ~32,000)"
    st = LuaState(stdout=lambda s: None)
    start = time.process_time()  # CPU time, which a loaded machine does not stretch
    (n,) = st.execute(
        """
        local cos = {}
        for i = 1, 100000 do
          local co = coroutine.create(function(x) coroutine.yield(x) return x end)
          coroutine.resume(co, i)
          cos[i] = co
        end
        local s = 0
        for i = 1, #cos, 1000 do s = s + select(2, coroutine.resume(cos[i])) end
        return #cos
        """
    )
    assert n == 100000
    st.close()
    assert time.process_time() - start < 120


def test_resume_yield_pair_is_cheap():
    # issue 13 target: ≤ 3 µs a pair on greenlet (a benchmark, not a timed
    # test: the bound here only catches a backend that fell back by mistake)
    st = LuaState(stdout=lambda s: None)
    (seconds,) = st.execute(
        """
        local co = coroutine.wrap(function() while true do coroutine.yield() end end)
        local t = os.clock()
        for i = 1, 20000 do co() end
        return os.clock() - t
        """
    )
    per_pair = seconds / 20000
    assert per_pair < (100e-6 if contexts.BACKEND == "greenlet" else 2e-3)
