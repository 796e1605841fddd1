"""The Engine's contexts each run under a machine of their own
(runvil.lua.runtime.machine; issue 23, item 2): two runs with different
limits, and the tasks of one run, interleave their waits and each keeps
its own limits, its own running coroutine and its own C-call count."""

from __future__ import annotations

from runvil.engine.effects import ModelReply
from runvil.engine.run import ModelBinding, Run
from runvil.lua import Limits
from runvil.lua.runtime import machine
from runvil.prompt import parse_text

from .prompts import source

LIMIT = 32 * 1024 * 1024

#: waits on a round inside a coroutine inside a pcall, then builds a 40 MB string
WAIT_THEN_BUILD = """
models.use('writer')
local main = coroutine.running()
local co = coroutine.wrap(function()
  local me = coroutine.running()
  local reply = models.infer('q')
  local ok, e = pcall(string.rep, 'x', 40000000)
  coroutine.yield(reply .. ' ' .. tostring(me == coroutine.running() and me ~= main)
                  .. ' ' .. (ok and #e or e:match('memory limit exceeded %b()')))
end)
local got
local ok, e = pcall(function() got = co() end)
return got
"""


def start(limits=None) -> Run:
    prompt = source(("A", WAIT_THEN_BUILD))
    return Run(parse_text(prompt, path="t.md"), bindings={"writer": ModelBinding("w")}, limits=limits)


def test_two_runs_with_different_limits_interleave_their_waits():
    before = machine.running()
    small = start(Limits(memory=LIMIT))
    large = start()
    waits = {run: run.step() for run in (small, large)}
    assert all(len(effects) == 1 for effects in waits.values())
    assert machine.running() is before  # no context's machine is left running between steps
    for run in (large, small):  # answered the other way round
        run.resume({e.id: ModelReply(text="r") for e in waits[run]})
        assert run.step() == []
        assert run.done and run.outcome.ok, run.outcome.error
    assert large.outcome.result == "r true 40000000"
    # refused before it is built, by its own state's string limit
    assert small.outcome.result == "r true memory limit exceeded (string of 40000000 bytes)"


def test_tasks_of_one_run_wait_inside_their_coroutines_and_keep_their_own():
    prompt = source(
        ("Main", "var.out = table.concat(tasks.fanout('Arm', {'a', 'b', 'c'}), ',')\njump('End')"),
        ("Arm", "models.use('writer')\n"
                "local co = coroutine.wrap(function()\n"
                "  local me = coroutine.running()\n"
                "  for i = 1, 2 do\n"
                "    local ok, reply = pcall(models.infer, input .. i)\n"  # a wait inside a pcall (a C call)
                "    coroutine.yield(reply .. tostring(me == coroutine.running()))\n"
                "  end\n"
                "end)\n"
                "return co() .. co() .. tostring(coroutine.running() ~= nil and not coroutine.isyieldable())"),
        ("End", "return var.out"),
    )
    run = Run(parse_text(prompt, path="t.md"), bindings={"writer": ModelBinding("w")})
    effects = run.step()
    while not run.done:
        # the arms' rounds answered in reverse order: their contexts resume out of turn
        for e in reversed(effects):
            run.resume({e.id: ModelReply(text=e.messages[-1]["content"].upper())})
            effects = [x for x in effects if x.id != e.id]
        effects = run.step()
    assert run.outcome.ok, run.outcome.error
    assert run.outcome.result == "A1trueA2truetrue,B1trueB2truetrue,C1trueC2truetrue"
