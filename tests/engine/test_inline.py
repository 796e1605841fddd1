"""The inline backend (docs/DECISIONS.md "The inline backend"): where no
thread can start, everything runs on the calling thread.

A process that plays Pyodide here is CPython with greenlet hidden, thread
starts refused (`can't start new thread`, as Pyodide says) and
`sys.platform` set to emscripten before runvil is imported. In it: Lua with
coroutines of every shape, an Engine run with a wait inside a coroutine,
tasks and fan-out, `jump`, a compactor that calls `models.infer`, deep
recursion ending in Lua's `stack overflow`, and the sans-IO API keeping its
shape (a block waiting on a model round is suspended, not answered). The
whole suite also runs on this backend in CI (`RUNVIL_CONTEXTS=inline`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.engine.run import ModelBinding, Run
from runvil.lua.runtime import contexts
from runvil.lua.state import SMALL_STACK_STEPS
from runvil.prompt import parse_text

from ..lua.deep_callbacks import LUA_SAYS, outcome
from .prompts import source

ROOT = Path(__file__).resolve().parents[2]

#: what a no-thread platform is, played by CPython before runvil loads
NO_THREADS = textwrap.dedent("""\
    import sys, threading, _thread
    def refuse(*args, **kwargs):
        raise RuntimeError("can't start new thread")
    threading.Thread.start = refuse
    _thread.start_new_thread = refuse
    sys.modules["greenlet"] = None
    sys.platform = "emscripten"
    """)


def on_a_platform_without_threads(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RUNVIL_CONTEXTS"}
    return subprocess.run([sys.executable, "-c", NO_THREADS + textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


def test_without_threads_the_inline_backend_is_chosen_and_lua_runs_on_the_calling_thread():
    out = on_a_platform_without_threads("""\
        import threading
        from runvil.lua import LuaState
        from runvil.lua.runtime import contexts
        st = LuaState()
        r = st.execute('''
          local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
          local s = 0
          for v in gen(5) do s = s + v end
          -- a yield across pcall, a metamethod and a nested coroutine
          local co = coroutine.create(function(a)
            local ok, b = pcall(function() return coroutine.yield(a + 1) end)
            local t = setmetatable({}, {__index = function(_, k) return coroutine.yield(k) end})
            local c = t.key
            local inner = coroutine.wrap(function() coroutine.yield('in') end)
            return b, c, inner()
          end)
          local _, x = coroutine.resume(co, 1)
          local _, y = coroutine.resume(co, 'b')
          local _, b, c, i = coroutine.resume(co, 'c')
          -- a sort comparator may not yield, as in Lua
          local ok, err = pcall(coroutine.wrap(function() table.sort({3, 1, 2}, function(p, q) coroutine.yield() return p < q end) end))
          return s, x, y, b, c, i, err
        ''')
        print(contexts.BACKEND, threading.active_count(), *r)
        """)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "inline 1 15 2 key b c in attempt to yield across a C-call boundary\n"


def test_without_threads_deep_recursion_ends_in_lua_stack_overflow():
    out = on_a_platform_without_threads("""\
        from runvil.lua import LuaState
        print(LuaState().execute('''
          local function f(n) return 1 + f(n + 1) end
          local ok, err = pcall(f, 1)
          local function g(n) if n == 0 then return 0 end return 1 + g(n - 1) end
          return ok, err, g(500)
        ''', '=deep'))
        """)
    assert out.returncode == 0, out.stderr
    ok, err, depth = eval(out.stdout)
    assert ok is False and err.endswith("stack overflow") and err.startswith("deep:"), err
    assert depth == 500


def test_without_threads_a_runaway_inside_every_kind_of_callback_ends_in_lua_s_error():
    """Lua run directly by a builtin or an operator (a gsub function, a sort
    comparator, metamethods, __tostring, xpcall's handler, load's reader):
    a runaway recursion there ends as in Lua, a little past the recursion
    limit that the platform's stack holds (Python 3.13 lets plain calls run
    past it until the next step check: runvil.lua.state), and the state
    runs on."""
    out = on_a_platform_without_threads("""\
        import json
        from runvil.lua import LuaState
        from runvil.lua.stack import inline_recursion_limit
        from tests.lua.deep_callbacks import KINDS, chunk
        printed = {}
        for kind in KINDS:
            lines = []
            state = LuaState(stdout=lines.append, allow_load=True)
            state.call(state.load(chunk(kind), "=(command line)"))
            printed[kind] = "".join(lines)
        print(json.dumps({"limit": inline_recursion_limit(), "printed": printed}))
        """)
    assert out.returncode == 0, out.stderr
    runs = json.loads(out.stdout)
    for kind, printed in runs["printed"].items():
        first, depth, last = outcome(printed)
        assert (first, last) == (LUA_SAYS[kind], "alive"), kind
        assert 1000 < depth <= runs["limit"] + SMALL_STACK_STEPS // 2, (kind, depth)


def test_without_threads_a_prompt_runs_through_the_cli_with_tasks_fanout_and_jump(tmp_path):
    prompt = tmp_path / "p.md"
    prompt.write_text(source(
        ("Start", """
            local id = tasks.spawn('Child', 'one')
            local arms = tasks.fanout('Child', {'a', 'b'})
            local first = tasks.await(id)
            var.seen = first .. ',' .. arms[1] .. ',' .. arms[2]
            jump('End')
        """),
        ("Child", """
            models.use('writer')
            messages:user(input)
            models.loop()
            return messages[#messages].content
        """),
        ("End", """
            models.use('writer')
            local co = coroutine.wrap(function() return models.infer('x') end)
            return var.seen .. '|' .. co()
        """),
    ))
    out = on_a_platform_without_threads(f"""\
        from runvil.host.cli import main
        raise SystemExit(main(["run", {str(prompt)!r}]))
        """)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "echo: one,echo: a,echo: b|echo: x\n"


# ------------------------------------------------ the backend on this process


def inline_only():
    return pytest.mark.skipif(not contexts.INLINE, reason="runs where the inline backend is the process's own")


def start(body: str) -> Run:
    return Run(parse_text(body, path="t.md"), bindings={"writer": ModelBinding("w")})


def test_a_wait_inside_a_coroutine_suspends_the_run_and_resumes_where_it_was():
    """On every backend: the sans-IO API hands out the effect while the
    coroutine that asked is suspended in the middle of its block."""
    run = start(source(("A", """
        models.use('writer')
        local co = coroutine.create(function(p)
          local r = models.infer(p)
          coroutine.yield(r)
          return 'done'
        end)
        local ok, r = coroutine.resume(co, 'q')
        local ok2, d = coroutine.resume(co)
        return r .. '/' .. d .. '/' .. coroutine.status(co)
    """)))
    (effect,) = run.step()
    assert isinstance(effect, ModelRound) and effect.messages[0]["content"] == "q"
    assert run.outcome is None  # suspended, not answered behind the Engine's back
    run.resume({effect.id: ModelReply(text="R", finish_reason="stop")})
    assert run.step() == []
    assert run.outcome.ok and run.outcome.result == "R/done/dead"


def test_a_compactor_that_calls_models_infer_waits_like_any_block():
    run = start(source(("A", """
        models.use('writer')
        messages:user(string.rep('x', 400))
        models.loop(function(reason)
          local summary = models.infer('summarise: ' .. reason)
          compactors.clear()
          messages:user(summary)
        end)
        return messages[#messages].content
    """)))
    (first,) = run.step()
    run.resume({first.id: __import__("runvil.engine.effects", fromlist=["ModelFailure"]).ModelFailure(
        status=400, body="maximum context length exceeded")})
    (summary,) = run.step()
    assert summary.origin == "infer" and summary.messages[0]["content"] == "summarise: provider"
    run.resume({summary.id: ModelReply(text="short", finish_reason="stop")})
    (again,) = run.step()
    assert [m["content"] for m in again.messages] == ["short"]
    run.resume({again.id: ModelReply(text="fine", finish_reason="stop")})
    assert run.step() == [] and run.outcome.result == "fine"


@inline_only()
def test_inline_a_wait_where_no_generator_can_pass_it_up_is_lua_s_c_call_error():
    run = start(source(("A", """
        models.use('writer')
        local ok, err = pcall(string.gsub, 'a', 'a', function() return models.infer('x') end)
        return err
    """)))
    assert run.step() == []
    assert run.outcome.result.endswith("attempt to yield across a C-call boundary")
    assert json.dumps(run.outcome.result)


@inline_only()
def test_inline_a_wait_inside_a_coroutine_a_generic_for_resumes_is_refused_there():
    # a for in code that no generator runs (a gsub callback) resumes its
    # coroutine natively (coroutine.walk_wrapped), where a wait cannot pass
    # up: it fails where it is, and the coroutine goes on to its next yield;
    # a for in a twin passes it up (the block waits for the model)
    run = start(source(("A", """
        models.use('writer')
        local function gen()
          return coroutine.wrap(function()
            coroutine.yield('a')
            coroutine.yield(select(2, pcall(models.infer, 'x')))
            coroutine.yield('b')
          end)
        end
        local out = {}
        string.gsub('.', '.', function() for v in gen() do out[#out + 1] = v end end)
        for v in gen() do out[#out + 1] = v end
        return table.concat(out, ' | ')
    """)))
    (effect,) = run.step()
    assert isinstance(effect, ModelRound) and effect.messages[0]["content"] == "x"
    run.resume({effect.id: ModelReply(text="R", finish_reason="stop")})
    assert run.step() == []
    said = "attempt to yield across a C-call boundary"
    assert run.outcome.ok and run.outcome.result == " | ".join(["a", said, "b", "a", "R", "b"]), run.outcome
