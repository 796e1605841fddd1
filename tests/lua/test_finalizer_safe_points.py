"""Finalizers found by an automatic collection run at the next safe point
(the step check compiled code calls), on every backend: each program
allocates in a loop and never calls `collectgarbage`, and prints (and
warns) byte for byte what `lua5.4` does. Run the file with RUNVIL_CONTEXTS
set to `inline` or `threads`, and with RUNVIL_TWINS=0, for the others."""

from __future__ import annotations

import pytest

from runvil.lua.errors import LimitExceeded
from runvil.lua.state import Limits, LuaState

from .luacli import same_as_lua

#: every loop is bounded (`limit`, 30 s of CPU: a collection waits for
#: ten times the last one's cost, a CPU second at most), so that a finalizer
#: that never runs ends it too
PROGRAMS = {
    "finalized during the loop, newest first in each collection": """
        local seen, order = 0, {}
        local mt = {__gc = function(o) seen = seen + 1; order[#order + 1] = o.i end}
        local during
        for i = 1, 200000 do
          setmetatable({i = i}, mt)
          if seen > 0 and not during then during = i end
        end
        print("finalized during the loop", during ~= nil)
        -- each collection finalizes in the reverse order of marking: the
        -- order is descending runs, each one's objects made after the last's
        local ok, last_max, j = true, 0, 1
        while j <= #order do
          local k = j
          while k < #order and order[k + 1] < order[k] do k = k + 1 end
          if order[k] <= last_max then ok = false end
          last_max = order[j]
          j = k + 1
        end
        print("descending runs, in order", ok, #order > 0)
    """,
    "a finalizer that yields in a coroutine": """
        warn("@on")
        local ran, tried = 0, false
        local mt = {__gc = function(o)
          ran = ran + 1
          if not tried then
            tried = true
            print("in __gc: yieldable", coroutine.isyieldable(), "main", select(2, coroutine.running()))
            print("in __gc:", pcall(coroutine.yield, "from __gc"))
            coroutine.yield("from __gc, not caught")
          end
        end}
        local co = coroutine.wrap(function()
          while ran == 0 and os.clock() < limit do setmetatable({}, mt) end
          coroutine.yield("after the loop", ran > 0)
          return "done"
        end)
        print(co())
        print(co())
    """,
    "a finalizer that yields outside any coroutine": """
        warn("@on")
        local ran = 0
        local mt = {__gc = function(o)
          ran = ran + 1
          if ran == 1 then coroutine.yield("x") end
        end}
        while ran == 0 and os.clock() < limit do setmetatable({}, mt) end
        print("after the loop", ran > 0)
    """,
    "a finalizer that fails in a coroutine": """
        warn("@on")
        local ran = 0
        local mt = {__gc = function(o)
          ran = ran + 1
          if ran == 1 then error("boom in __gc") end
          if ran == 2 then error({}) end
        end}
        local co = coroutine.wrap(function()
          while ran < 3 and os.clock() < limit do setmetatable({}, mt) end
          return "loop ended", ran >= 3
        end)
        print(co())
    """,
    "resurrected by an automatic collection, once": """
        saved = {}
        local calls, i = {}, 0
        local mt = {__gc = function(o)
          calls[o.i] = (calls[o.i] or 0) + 1
          if #saved < 10 then saved[#saved + 1] = o end
        end}
        while #saved < 10 and os.clock() < limit do
          i = i + 1
          setmetatable({i = i, name = "obj" .. i}, mt)
        end
        local intact = true
        for _, o in ipairs(saved) do intact = intact and o.name == "obj" .. o.i end
        print("resurrected", #saved, intact)
        saved = nil
        local more = 0
        local mt2 = {__gc = function() more = more + 1 end}
        while more < 5000 and os.clock() < limit do setmetatable({}, mt2) end
        local twice = false
        for k, c in pairs(calls) do if c > 1 then twice = true end end
        print("finalized twice", twice, more >= 5000)
    """,
    "made in a coroutine, finalized while the main loop runs": """
        local seen = {}
        local co = coroutine.create(function()
          for i = 1, 3 do
            setmetatable({}, {__gc = function() seen[#seen + 1] = i end})
            coroutine.yield(i)
          end
        end)
        while coroutine.resume(co) do end
        print(coroutine.status(co))
        co = nil
        local mt = {__gc = function() end}
        while #seen < 3 and os.clock() < limit do setmetatable({}, mt) end
        table.sort(seen)
        print("seen", table.concat(seen, " "))
    """,
    "what is left runs when the state closes, newest first": """
        local mt = {__gc = function(o) print("closing", o.name) end}
        keep = {}
        for i = 1, 3 do keep[i] = setmetatable({name = "kept" .. i}, mt) end
        local n = 0
        local silent = {__gc = function() n = n + 1 end}
        while n == 0 and os.clock() < limit do setmetatable({}, silent) end
        print("the loop saw", n > 0)
    """,
}


BOUND = "local limit = os.clock() + 30\n"


@pytest.mark.parametrize("name", PROGRAMS)
def test_as_lua_finalizes_by_itself(tmp_path, name):
    same_as_lua(tmp_path, {"main.lua": BOUND + PROGRAMS[name]}, ["main.lua"])


@pytest.mark.tier
def test_without_threads_as_lua_finalizes_by_itself(tmp_path):
    """Where no thread can start (Pyodide, played by CPython), a chunk runs
    as a generator twin and its countdown is armed in pieces: the same
    programs print the same."""
    import json

    from ..engine.test_inline import on_a_platform_without_threads
    from .luacli import comparable, lua54, write_tree

    files = {f"p{i}.lua": BOUND + text for i, text in enumerate(PROGRAMS.values())}
    write_tree(tmp_path, files)
    out = on_a_platform_without_threads(f"""\
        import json
        from tests.lua.luacli import runvil_lua
        from pathlib import Path
        results = {{name: runvil_lua(["--allow", "all", "--cpu", "off", name], Path({str(tmp_path)!r}))
                   for name in {sorted(files)!r}}}
        print(json.dumps({{name: (code, out.decode("latin-1"), err) for name, (code, out, err) in results.items()}}))
        """, timeout=600)
    assert out.returncode == 0, out.stderr
    for name, (code, text, err) in json.loads(out.stdout).items():
        ours = comparable((code, text.encode("latin-1"), err))
        assert ours == comparable(lua54([name], tmp_path)), name


#: a loop that makes garbage until a finalizer ran (or its bound)
GARBAGE = "local i = 0 while not stop and i < 400000 do setmetatable({}, silent) i = i + 1 end"


@pytest.mark.parametrize("limit", ["steps", "cpu"])
def test_a_limit_that_stops_a_finalizer_leaves_the_others_pending(limit):
    """A sandbox limit inside a finalizer is no Lua error: it ends the
    chunk, and the finalizers after it wait for the next safe point (here
    the next chunk's, with its own budget) or the close."""
    out = []
    limits = Limits(steps=2_000_000) if limit == "steps" else Limits(steps=None, cpu_seconds=0.5)
    st = LuaState(stdout=out.append, limits=limits)
    st.execute("silent = {__gc = function() end}")
    st.execute("for i = 1, 3 do setmetatable({}, {__gc = function() print('after', i) stop = true end}) end\n"
               "setmetatable({}, {__gc = function() print('endless') while true do end end})")
    name = "step limit exceeded" if limit == "steps" else "CPU time limit exceeded"
    with pytest.raises(LimitExceeded, match=name):
        st.execute(GARBAGE)
    assert "".join(out) == "endless\n"
    assert len(st.collector.pending) >= 3
    st.execute("local x = 0 for i = 1, 100000 do x = x + i end")
    assert "".join(out) == "endless\nafter\t3\nafter\t2\nafter\t1\n"
    st.close()


def test_a_builtins_charge_runs_no_finalizer():
    """The check a builtin calls while charging its work (StepMeter) may
    be inside Python code that no Lua may interrupt: the finalizers wait
    for the next check compiled code calls."""
    out = []
    st = LuaState(stdout=out.append)
    st.execute("setmetatable({}, {__gc = function() print('finalized') end})")
    st.collector.sweep()
    assert st.collector.pending and out == []
    st.meter(st._steps[0] + 1)  # (a builtin's charge that runs the check)
    assert st.collector.pending and out == []
    st.execute("for i = 1, 300000 do end")
    assert "".join(out) == "finalized\n" and not st.collector.pending
    st.close()


def test_a_finalizer_that_waits_in_a_prompt_suspends_nothing_it_interrupted():
    """A finalizer that calls the model, found while a coroutine's loop
    runs (a generator twin, where twins are on): with greenlets or threads
    its context waits there, as for any Lua the Engine runs; inline, where
    only a generator may suspend, the wait is refused as a yield across a C
    call. Either way the coroutine goes on where it was and the run ends."""
    from runvil.engine.effects import ModelReply
    from runvil.engine.run import ModelBinding, Run
    from runvil.lua.runtime.contexts import INLINE
    from runvil.prompt import parse_text

    from ..engine.prompts import source

    prompt = source(("A", """
        models.use('writer')
        local asked, said = false, nil
        local mt = {__gc = function()
          if not asked then asked = true; said = select(2, pcall(models.infer, 'from __gc')) end
        end}
        local co = coroutine.wrap(function()
          local i = 0
          while said == nil and i < 400000 do setmetatable({}, mt) i = i + 1 end
          coroutine.yield('looped')
          return 'ended'
        end)
        return co() .. '/' .. co() .. '/' .. tostring(said)
    """))
    run = Run(parse_text(prompt, path="t.md"), bindings={"writer": ModelBinding("w")})
    effects = run.step()
    if INLINE:
        assert effects == []
        assert run.outcome.ok and run.outcome.result == "looped/ended/attempt to yield across a C-call boundary"
    else:
        (effect,) = effects
        assert run.outcome is None
        run.resume({effect.id: ModelReply(text="R", finish_reason="stop")})
        assert run.step() == []
        assert run.outcome.ok and run.outcome.result == "looped/ended/R", run.outcome


#: the pace test's program, run in a process of its own: a collection's
#: cost grows with Python's whole heap, so in a process that earlier tests
#: filled, its pace is not the one this test is about
PACE = r'''
import sys
from runvil.lua import state as state_module
from runvil.lua.runtime import collector
from runvil.lua.state import Limits, LuaState

state_module.COLLECT_SECONDS = 0.05
collector.COST_RATIO = 10**9
st = LuaState(stdout=sys.stdout.write, limits=Limits(steps=None, cpu_seconds=None))
st.execute("""
    local batches, last = 0, 0
    local mt = {__gc = function(o) if o.i > last then batches = batches + 1 end last = o.i end}
    local i, limit = 0, os.clock() + 60
    while batches < 3 and os.clock() < limit do i = i + 1 setmetatable({i = i}, mt) end
    print(batches)
""")
st.close()
'''


@pytest.mark.tier
def test_a_loop_that_makes_garbage_fast_is_collected_each_cpu_second_at_least():
    """A collection's cost grows with the garbage it finds; once enough
    objects were marked, it waits COLLECT_SECONDS at most (here 50 ms),
    however costly the last one was (here played by a huge COST_RATIO)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", PACE], capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, "3\n"), done.stderr[-2000:]
