"""Execution contexts (runvil.lua.runtime.contexts; issue 13 item 2, issue 10
"Threads and stacks"): one backend for coroutines and the Engine's
sections, tasks and fan-out arms, exactly one context running at a time,
Lua only on large stacks, and the threads backend run by the suite too."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from runvil.engine.effects import ModelReply, ModelRound
from runvil.engine.run import ModelBinding, Run
from runvil.lua import LuaState
from runvil.lua.runtime import contexts
from runvil.prompt import parse_text

from .prompts import head, source

ROOT = Path(__file__).resolve().parents[2]


def env_without_backend() -> dict:
    """The environment less RUNVIL_CONTEXTS (the suite may run on any backend)."""
    return {k: v for k, v in os.environ.items() if k != "RUNVIL_CONTEXTS"}


def backend_in_subprocess(env_value: str | None) -> str:
    env = env_without_backend()
    if env_value is not None:
        env["RUNVIL_CONTEXTS"] = env_value
    out = subprocess.run([sys.executable, "-c", "from runvil.lua.runtime import contexts; print(contexts.BACKEND)"],
                         env=env, capture_output=True, text=True, timeout=60, cwd=ROOT)
    return out.stdout.strip()


def test_greenlet_is_chosen_where_it_imports_and_threads_when_forced():
    pytest.importorskip("greenlet")
    assert backend_in_subprocess(None) == "greenlet"
    assert backend_in_subprocess("threads") == "threads"


def test_without_greenlet_the_threads_backend_stands_in():
    code = "import sys; sys.modules['greenlet'] = None\nfrom runvil.lua import LuaState\nfrom runvil.lua.runtime import contexts\n" \
           "print(contexts.BACKEND, LuaState().execute('return coroutine.wrap(function() coroutine.yield(3) end)()')[0])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                         env=env_without_backend())
    assert out.stdout.split() == ["threads", "3"], out.stderr


def test_on_threads_a_coroutine_without_a_thread_is_a_lua_error():
    # issue 10: "100,000 coroutines (can't start new thread at ~32,000)" ended in an internal error;
    # under a 4 GiB address-space bound a handful of 512 MB stacks fit
    import resource

    code = (
        "local cos = {}\n"
        "print(pcall(function() for i = 1, 100 do cos[i] = coroutine.wrap(function() coroutine.yield() end); cos[i]() end end))\n"
        "print(#cos < 100)\n"
    )
    env = dict(os.environ, RUNVIL_CONTEXTS="threads", RUNVIL_TWINS="0")  # twins need no thread
    limit = 4 * 1024**3
    out = subprocess.run([sys.executable, "-c", "from runvil.host.cli import main; raise SystemExit(main())", "lua",
                          "-e", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT,
                         preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "false\tnot enough memory\ntrue\n"


switching = pytest.mark.skipif(contexts.INLINE, reason="the inline backend has no contexts to switch")


@switching
def test_resume_suspend_and_transfer_run_one_context_at_a_time():
    log = []

    def inner_body():
        log.append("inner starts")
        contexts.suspend()
        log.append("inner again")

    def outer_body():
        log.append("outer starts")
        contexts.resume(inner)  # runs until inner suspends
        log.append("outer after inner")
        contexts.suspend()
        log.append("outer again")

    inner = contexts.Context(inner_body, "inner")
    outer = contexts.Context(outer_body, "outer")

    def main():
        contexts.resume(outer)
        log.append("main")
        contexts.transfer(inner)  # where it stopped; it returns to outer, its resumer
        log.append("main again")

    # transfer to inner lets it end, which goes back to outer (its resumer), which ends too
    contexts.run_lua(main)
    assert log == ["outer starts", "inner starts", "outer after inner", "main", "inner again", "outer again",
                   "main again"]
    assert inner.finished and outer.finished


@switching
def test_an_exception_escaping_a_context_is_raised_in_its_resumer():
    def body():
        raise KeyError("k")

    ctx = contexts.Context(body)
    with pytest.raises(KeyError):
        contexts.run_lua(lambda: contexts.resume(ctx))
    assert ctx.finished


def test_lua_runs_on_the_lua_thread_and_the_recursion_limit_is_raised_only_there():
    # issue 10: "no sys.setrecursionlimit without a matching stack"
    seen = {}

    def job():
        seen["lua"] = contexts.on_lua_thread()
        seen["limit"] = sys.getrecursionlimit()
        return 7

    results = []
    t = threading.Thread(target=lambda: results.append(contexts.run_lua(job)))
    t.start()
    t.join()
    assert results == [7]
    assert seen == {"lua": True, "limit": contexts.LUA_RECURSION_LIMIT}
    assert not contexts.on_lua_thread()


def test_host_code_after_lua_keeps_the_default_recursion_limit():
    # issue 10: a prompt "nested 50,000 deep, parsed in a process that already ran Lua" segfaulted
    code = (
        "import json, sys\n"
        "from runvil.lua import LuaState\n"
        "LuaState().execute('local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end return f(8000)')\n"
        "try:\n"
        "    json.loads('[' * 150000 + ']' * 150000)\n"
        "except RecursionError:\n"
        "    print('RecursionError', sys.getrecursionlimit())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("RecursionError ")


def test_an_uncaught_error_whose_tostring_recurses_is_a_message_not_a_crash():
    # issue 10: "an uncaught error whose __tostring recurses" ended in exit 139
    code = (
        "local function deep(n) if n == 0 then return 'deep' end return deep(n - 1) .. '' end\n"
        "error(setmetatable({}, {__tostring = function(e) return deep(50000) end}))\n"
    )
    out = subprocess.run([sys.executable, "-c", "from runvil.host.cli import main; raise SystemExit(main())", "lua", "-e", code],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 1, out.stderr
    assert "deep" in out.stderr and "internal error" not in out.stderr


# ------------------------------------------------------------------ the Engine

HEAD = head(models=("writer",))


def run_prompt(body: str, reply=lambda e: ModelReply(text="ok")) -> tuple:
    """Runs a prompt, answering every model round; returns (outcome, the most
    effects one step posted)."""
    run = Run(parse_text(HEAD + body, path="t.md"), bindings={"writer": ModelBinding("w")})
    widest = 0
    while True:
        effects = run.step()
        if run.done:
            return run.outcome, widest
        widest = max(widest, len(effects))
        assert all(isinstance(e, ModelRound) for e in effects)
        run.resume({e.id: reply(e) for e in effects})


def test_a_coroutine_may_wait_on_a_model_round():
    # the context that waits is the coroutine's: the scheduler switches back into it
    body = (
        "## A\n\n```lua\nmodels.use('writer')\n"
        "local gen = coroutine.wrap(function()\n"
        "  for i = 1, 3 do coroutine.yield(models.infer('q' .. i)) end\n"
        "end)\n"
        "return gen() .. gen() .. gen()\n```\n"
    )
    outcome, _ = run_prompt(body, lambda e: ModelReply(text=e.messages[-1]["content"].upper()))
    assert outcome.ok, outcome.error
    assert outcome.result == "Q1Q2Q3"


def test_thousands_of_contexts_wait_at_once():
    # "a process can hold thousands of suspended contexts": three runs whose
    # fan-out arms all wait on their rounds together (a run may enter 1,000 sections)
    n = 900 if contexts.BACKEND == "greenlet" else 20
    prompt = source(
        ("Main", f"local inputs = {{}}\nfor i = 1, {n} do inputs[i] = tostring(i) end\n"
                 "local r = tasks.fanout('Arm', inputs)\nvar.out = #r .. ' ' .. r[1] .. ' ' .. r[#r]\njump('End')"),
        ("Arm", "models.use('writer')\nreturn models.infer('q') .. ':x'"),
        ("End", "return var.out"),
    )
    runs = [Run(parse_text(prompt, path="t.md"), bindings={"writer": ModelBinding("w")}) for _ in range(3)]
    waiting = [run.step() for run in runs]
    assert [len(effects) for effects in waiting] == [n, n, n]
    for run, effects in zip(runs, waiting):
        while not run.done:
            run.resume({e.id: ModelReply(text="x") for e in effects})
            effects = run.step()
        assert run.outcome.ok, run.outcome.error
        assert run.outcome.result == f"{n} x:x x:x"


def test_deep_recursion_in_a_section_and_in_its_coroutines():
    body = (
        "## A\n\n```lua\n"
        "local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end\n"
        "local function inf() return 1 + inf() end\n"
        "local ok, e = pcall(inf)\n"
        "local co = coroutine.wrap(function() return depth(8000) end)\n"
        "return depth(8000) .. ' ' .. e:match('stack overflow$') .. ' ' .. co()\n```\n"
    )
    outcome, _ = run_prompt(body)
    assert outcome.ok, outcome.error
    assert outcome.result == "8000 stack overflow 8000"


def test_a_cancelled_run_unwinds_a_coroutine_waiting_on_a_round():
    body = (
        "## A\n\n```lua\nmodels.use('writer')\n"
        "local co = coroutine.wrap(function() return models.infer('x') end)\nreturn co()\n```\n"
    )
    run = Run(parse_text(HEAD + body, path="t.md"), bindings={"writer": ModelBinding("w")})
    assert len(run.step()) == 1
    run.cancel()
    assert run.outcome.error.kind == "Cancelled"


# ------------------------------------------------------- the threads backend


# The tests that exercise contexts run again on the threads backend and with
# twins off in CI's slow tiers (.ci/tiers), not in the default suite.


@pytest.mark.tier
def test_on_threads_100000_coroutines_run_as_twins_without_a_thread_each():
    code = ("local cos, s = {}, 0\n"
            "for i = 1, 100000 do cos[i] = coroutine.wrap(function(a) local b = coroutine.yield(a) return a + b end) end\n"
            "for i = 1, #cos do s = s + cos[i](i) end\n"
            "for i = 1, #cos do s = s + cos[i](1) end\n"
            "print(s)\n")
    env = dict(os.environ, RUNVIL_CONTEXTS="threads")
    out = subprocess.run([sys.executable, "-m", "runvil.host.cli", "lua", "-e", code], env=env,
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout == f"{2 * sum(range(1, 100001)) + 100000}\n"


def test_a_state_made_on_another_thread_runs_on_the_lua_thread():
    st = LuaState(stdout=lambda s: None)
    box = []
    t = threading.Thread(target=lambda: box.append(st.execute(
        "local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)\n"
        "return co(1), co(5)")))
    t.start()
    t.join()
    assert box == [(2, 10)]
