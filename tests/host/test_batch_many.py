"""The harness's many-runs driver (runvil/harness/many.py) that `runvil
batch` stands on: one thread steps every run; blocking effects go to
shared I/O threads; one run's exception ends that run only."""

from __future__ import annotations

import threading
import time

import runvil
from runvil.engine.effects import ModelRound
from runvil.engine.run import ModelBinding, Run
from runvil.harness.echo import echo_reply
from runvil.harness.many import Job, drive_many

PROMPT = runvil.parse_text("""---
name: twice
description: Two rounds a run.
runvil: 0
models:
  writer: {}
---

# Twice

```lua
models.default('writer')
messages:user('one ' .. input)
models.loop()
messages:user('two')
models.loop()
return messages[#messages - 2].content
```
""")
BINDINGS = {"writer": ModelBinding("echo", 8192, name="echo")}


class Blocking:
    """An answerer that waits on the outside world: counts the rounds in
    flight at once and the threads that answered."""

    concurrent = True

    def __init__(self, wait: float = 0.05, fail_on: str | None = None):
        self.wait, self.fail_on = wait, fail_on
        self.lock = threading.Lock()
        self.in_flight = self.peak = 0
        self.threads: set = set()

    def __call__(self, effect):
        with self.lock:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            self.threads.add(threading.get_ident())
        try:
            time.sleep(self.wait)
            if self.fail_on and any(self.fail_on in (m.get("content") or "") for m in effect.messages):
                raise RuntimeError("the answerer broke")
            return echo_reply(effect)
        finally:
            with self.lock:
                self.in_flight -= 1


def jobs(n: int, answer):
    for i in range(n):
        yield Job(Run(PROMPT, input=f"r{i}", bindings=BINDINGS), answer, tag=i)


def test_at_most_concurrency_runs_at_once_and_every_run_ends():
    answer = Blocking()
    ended = list(drive_many(jobs(12, answer), concurrency=4))
    assert sorted(j.tag for j in ended) == list(range(12))
    assert all(j.error is None and j.run.outcome.ok for j in ended)
    assert {j.run.outcome.result for j in ended} == {f"echo: one r{i}" for i in range(12)}
    assert answer.peak == 4
    assert len(answer.threads) <= 8  # shared I/O threads, not one per run
    assert threading.get_ident() not in answer.threads


def test_an_answerer_that_does_not_block_is_called_on_the_driving_thread():
    seen = set()

    def answer(effect):
        seen.add(threading.get_ident())
        assert isinstance(effect, ModelRound)
        return echo_reply(effect)

    ended = list(drive_many(jobs(5, answer), concurrency=3))
    assert len(ended) == 5 and all(j.run.outcome.ok for j in ended)
    assert seen == {threading.get_ident()}


def test_an_answerer_that_raises_ends_its_run_only():
    answer = Blocking(wait=0.01, fail_on="r3")
    ended = {j.tag: j for j in drive_many(jobs(6, answer), concurrency=6)}
    assert isinstance(ended[3].error, RuntimeError) and str(ended[3].error) == "the answerer broke"
    assert all(ended[i].error is None and ended[i].run.outcome.ok for i in (0, 1, 2, 4, 5))


def test_runs_are_taken_from_the_source_only_as_slots_free_up():
    taken = []

    def source():
        for i in range(10):
            taken.append(i)
            yield Job(Run(PROMPT, input=str(i), bindings=BINDINGS), Blocking(wait=0.01), tag=i)

    driver = drive_many(source(), concurrency=2)
    first = next(driver)
    assert first.tag in (0, 1) and len(taken) <= 3
    driver.close()  # stops at once: the runs still going are dropped


class GatedStep:
    """A run whose every step lasts until `gate` opens (a long Lua step),
    or at most 30 s; `waited_out` counts the steps that reached that end."""

    def __init__(self, run, gate: threading.Event):
        self.run, self.gate, self.waited_out = run, gate, 0

    def step(self):
        if not self.gate.wait(30):
            self.waited_out += 1
        return self.run.step()

    def __getattr__(self, name):
        return getattr(self.run, name)


def test_a_run_s_request_goes_out_without_waiting_for_the_other_runs_steps():
    """Four runs stepped in one hand-over; the steps of the last three last
    until the first run's round has reached the provider. A driver that
    sent the round only after all four steps would wait each of them out;
    no clock is read, so no load on the machine can fail it."""
    first_round = threading.Event()
    answer = Blocking(wait=0.01)

    def told(effect):
        first_round.set()
        return answer(effect)

    told.concurrent = True
    first = Job(Run(PROMPT, input="r0", bindings=BINDINGS), told, tag=0)
    gated = [GatedStep(Run(PROMPT, input=f"r{i}", bindings=BINDINGS), first_round) for i in range(1, 4)]
    ended = list(drive_many([first, *(Job(run, told, tag=i) for i, run in enumerate(gated, 1))], concurrency=4))
    assert sorted(j.tag for j in ended) == [0, 1, 2, 3] and all(j.run.outcome.ok for j in ended)
    assert [run.waited_out for run in gated] == [0, 0, 0]  # the first round went out after one step, not four


def test_on_pass_follows_the_runs_that_ended_in_one_hand_over():
    """A batch's worker sends the rows that ended together in one write
    (and its process stores them in one transaction): `on_pass` comes after
    every run of a hand-over was yielded, before the driver waits."""
    seen: list = []
    passes: list = []

    def answer(effect):
        return echo_reply(effect)

    for job in drive_many(jobs(12, answer), concurrency=6, on_pass=lambda: passes.append(len(seen))):
        seen.append(job.tag)
    assert sorted(seen) == list(range(12))
    assert passes and passes[-1] == 12  # the last runs are followed by a pass's end
    assert len(set(passes)) < 12  # runs that ended in one hand-over came together


def test_the_lua_thread_ends_between_jobs_and_starts_again():
    """Before it forks its workers, a batch ends the Lua thread (its
    process then runs one thread); the next call into Lua starts one."""
    from runvil.lua.api import run_lua, stop_lua_thread

    assert run_lua(lambda: threading.current_thread().name) == "runvil Lua thread"
    before = threading.active_count()
    assert stop_lua_thread()
    assert threading.active_count() == before - 1
    assert stop_lua_thread()  # none running: nothing to end
    assert run_lua(lambda: 6 * 7) == 42
    ended = list(drive_many(jobs(3, echo_reply), concurrency=3))
    assert all(j.run.outcome.ok for j in ended)
