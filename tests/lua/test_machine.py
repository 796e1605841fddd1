"""One state object (issue 23, item 2): everything a running Lua program
needs is on its machine (runvil.lua.runtime.machine), so two states with
different limits live in one process, each keeping its own, however their
calls and coroutines interleave."""

from __future__ import annotations

import pytest

from runvil.lua import Limits, LuaError, LuaState
from runvil.lua.runtime import machine
from runvil.lua.runtime.calldepth import HOST_CCALLS

#: a limit the resident size keeps under (it is measured from the state's
#: making), and a string one operation may not build under it
LIMIT = 32 * 1024 * 1024
BIG = 'return #("x"):rep(40000000)'
#: 1 MB through `upper`: charged one step per 32 bytes (stdlib/limits.py)
UPPER = 'local s = ("x"):rep(1000000) return #s:upper()'


def small_and_large():
    """A state whose memory limit refuses a 40 MB string, then one made
    after it (which used to set the string limit for the whole process)."""
    small = LuaState(limits=Limits(memory=LIMIT))
    large = LuaState()
    return small, large


def test_each_state_keeps_its_own_string_limit_whichever_was_made_last():
    small, large = small_and_large()
    for _ in range(2):  # interleaved calls
        with pytest.raises(LuaError, match=r"memory limit exceeded \(string of 40000000 bytes\)"):
            small.execute(BIG)
        assert large.execute(BIG) == (40000000,)
    big_last = LuaState()
    small_last = LuaState(limits=Limits(memory=LIMIT))
    assert big_last.execute(BIG) == (40000000,)
    with pytest.raises(LuaError, match="memory limit exceeded"):
        small_last.execute(BIG)


def test_a_builtin_charges_steps_to_the_state_that_runs_it():
    tight = LuaState(limits=Limits(steps=20_000))
    free = LuaState(limits=Limits(steps=None))
    for _ in range(2):
        assert free.execute(UPPER) == (1000000,)
        assert free.steps_used >= 1000000 >> 5  # `upper`'s charge, to the state that ran it
        with pytest.raises(LuaError, match=r"step limit exceeded \(20000 steps\)"):
            tight.execute(UPPER)


def test_coroutines_of_two_states_interleaved_keep_their_states_limits():
    small, large = small_and_large()
    code = (
        "local co = coroutine.create(function()\n"
        "  coroutine.yield(coroutine.isyieldable())\n"
        "  local ok, e = pcall(function() return #('x'):rep(40000000) end)\n"
        "  coroutine.yield(ok and e or e:match('memory limit exceeded %b()'))\n"
        "end)\n"
        "return function() return select(2, coroutine.resume(co)) end\n"
    )
    step_small, = small.execute(code)
    step_large, = large.execute(code)
    assert small.call(step_small) == (True,)
    assert large.call(step_large) == (True,)
    assert large.call(step_large) == (40000000,)
    assert small.call(step_small) == ("memory limit exceeded (string of 40000000 bytes)",)


def test_a_coroutine_resumed_across_the_other_states_calls_keeps_its_depth_and_identity():
    small, large = small_and_large()
    code = (
        "local main = coroutine.running()\n"
        "local co = coroutine.wrap(function()\n"
        "  local me = coroutine.running()\n"
        "  for i = 1, 3 do coroutine.yield(me ~= main and coroutine.isyieldable()) end\n"
        "end)\n"
        "return co\n"
    )
    a, = small.execute(code)
    b, = large.execute(code)
    for _ in range(3):
        assert small.call(a) == (True,)
        assert large.call(b) == (True,)
    # every call from the host starts at lua.c's count and leaves none behind
    assert small.machine.depth == large.machine.depth == 0
    assert small.machine.co is None and large.machine.co is None


def test_a_call_from_the_host_runs_under_its_states_machine_and_puts_the_running_one_back():
    small, large = small_and_large()
    before = machine.running()
    seen = []

    def probe(*_args):
        m = machine.running()
        seen.append((m, m.state, m.depth, m.max_string))

    small.set_global("probe", probe)
    large.set_global("probe", probe)
    small.execute("probe()")
    large.execute("probe()")
    # (the chunk itself is one nested C call above the host's count, as lua_pcall makes it)
    assert seen == [(small.machine, small, HOST_CCALLS + 1, LIMIT), (large.machine, large, HOST_CCALLS + 1, 1024**3)]
    assert machine.running() is before


def test_a_closed_state_accounts_to_nothing():
    st = LuaState(limits=Limits(memory=LIMIT))
    st.close()
    assert st.machine.state is None
