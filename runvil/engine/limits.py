"""The run's own budget (the specification: "A run also has a budget of its
own across all its blocks (steps, wall time, section entries), so `jump`
loops end with a `lua` error that names it").

Each block gets the sandbox's per-block limits afresh (`runvil.lua.Limits`);
these bound the run as a whole, so that no loop of blocks — `jump` between
sections or to itself, a task that spawns itself — runs forever:

- `steps`: Lua steps summed over every block of the run;
- `seconds`: wall time from the run's start, model and tool waits included;
- `section_entries`: sections entered (walk, `jump`, tasks, fan-out arms);
- `memory`: bytes the run may add to the process's resident size, from
  its start: every state it makes (sections, tasks, arms, compactors,
  tools) and the Engine's own copies of their values count against one
  budget (`runvil.lua.MemoryBudget`), `memory limit exceeded (N bytes)`.

Each is a catchable `lua` error naming the limit. Once spent, a budget
stays spent: a `pcall` that catches the error cannot buy more.
"""

from __future__ import annotations

import time

from ..lua.api import LuaState, MemoryBudget
from ..lua.api import LimitExceeded, current_where
from ..structs import Struct

RUN_STEPS = "run step limit exceeded ({limit} steps across the run's blocks)"
RUN_TIME = "run time limit exceeded ({limit:g} s)"
SECTION_ENTRIES = "section entry limit exceeded ({limit} section entries)"


class RunLimits(Struct, frozen=True):
    """The run's budget; None switches one off. The defaults are far above
    what a prompt needs (a block's own budget is 20M steps, about two
    seconds) and low enough that a runaway run ends on its own."""

    steps: int | None = 200_000_000  # ten blocks' worth of steps
    seconds: float | None = 1800.0  # half an hour, waits on models included
    section_entries: int | None = 1_000  # a jump loop ends in about two seconds
    memory: int | None = 1024 * 1024 * 1024  # bytes the whole run may add (as one block may)


class RunBudget:
    """What a run has spent of its `RunLimits`."""

    def __init__(self, limits: RunLimits):
        self.limits = limits
        self.started = time.monotonic()
        self.steps = 0  # steps of finished blocks
        self.entries = 0
        self.memory = MemoryBudget(limits.memory)  # the base: the resident size now

    def overrun(self, block_steps: int = 0) -> str | None:
        """The message of the first limit the run has passed (counting the
        running block's `block_steps`), or None."""
        lim = self.limits
        if lim.steps is not None and self.steps + block_steps >= lim.steps:
            return RUN_STEPS.format(limit=lim.steps)
        if lim.seconds is not None and time.monotonic() - self.started > lim.seconds:
            return RUN_TIME.format(limit=lim.seconds)
        return None

    def enter_section(self) -> str | None:
        """Counts a section entry; the message when it is one too many (or
        another limit has passed), else None."""
        lim = self.limits
        if lim.section_entries is not None and self.entries >= lim.section_entries:
            return SECTION_ENTRIES.format(limit=lim.section_entries)
        self.entries += 1
        return self.overrun()


class BudgetedState(LuaState):
    """A section VM's Lua state: it reserves memory from the run's budget,
    and at each of the sandbox's periodic checks (every 100,000 steps) it
    also checks the run's other limits. It extends the
    state's own check (`LuaState._tick`) and reads its step countdown
    (`_armed`, `_steps`): tests/engine/test_run.py fails if those change."""

    def __init__(self, budget: RunBudget, **kwargs):
        self.budget = budget
        super().__init__(memory_budget=budget.memory, **kwargs)

    def block_steps(self) -> int:
        """Steps the block under way has taken (the countdown's part too)."""
        return self.steps_used + self._armed - self._steps[0]

    def _tick(self):
        super()._tick()  # accounts this block's steps, checks its own limits
        message = self.budget.overrun(self.steps_used)
        if message is not None:
            raise LimitExceeded(f"{current_where()}{message}")
