"""The sandbox limits as builtins see them.

Memory is one budget per run (`MemoryBudget`): what the run's states, its
tasks and fan-out arms, and the Engine's own copies of their values add
to the process's resident size, measured from the size when the run
started. Every state of a run holds the same budget (a standalone state,
`runvil lua`'s, has one of its own), so a chain of states each holding a
little cannot add up past it. Before a builtin builds a result
it reserves the result's size, and the budget refuses a size that would
take the run past its limit (one `string.rep` must not take 3 GB
between two checks of the step counter).

Python frees strings and tables by reference counting, so the budget
reads what is really in use (the resident size, as the step counter's
check does) rather than summing sizes it could never see freed; it reads
it only once per GUARD_CHUNK bytes reserved (sooner when the last reading
left less room than that), or for any result that large, so small
results cost a subtraction.

Steps: a builtin whose own loop can run away (the pattern matcher's
backtracking) charges the state's step budget as compiled code does, so it
stops with `step limit exceeded` like any loop. So does a builtin whose work
grows with its input (`upper` on 64 MB, `table.insert` at the front of a
million items), in proportion, above BIG_WORK bytes or items only: a call
on a short string pays a comparison. Steps are also what brings the next
check of the CPU time (runvil.lua.state), so none of these runs for long
between two checks.

A state's budget (its `guard`) and meter are on the machines that run its
Lua (runvil.lua.runtime.machine): a builtin reaches the running state's
through the running machine, with no registry of states.
"""

from __future__ import annotations

import os

from ..runtime import values
from ..debuginfo import current_where
from ..errors import LimitExceeded
from ..runtime.machine import RUNNING

#: the size (bytes, items) from which a builtin's work charges steps in proportion
BIG_WORK = 4096
#: bytes a step pays for in a string builtin's pass (a step is about 60 ns,
#: `upper` of 64 MB about 0.15 s), as a shift: one step per 32 bytes
BYTES_PER_STEP = 5
#: items a step pays for in a move of a table's array (list.insert at the front)
MOVED_PER_STEP = 6

_statm = None
#: /proc/self/statm, kept open: read again with one system call, not
#: three (a run reads it as it starts, and a batch starts hundreds a second)
_statm_file = None


def resident_memory() -> int:
    """Resident memory of this process in bytes (0 when unknown)."""
    global _statm, _statm_file
    try:
        if _statm is None:
            _statm = os.sysconf("SC_PAGE_SIZE")
        if _statm_file is None:
            _statm_file = os.open("/proc/self/statm", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return int(os.pread(_statm_file, 128, 0).split()[1]) * _statm
    except (OSError, ValueError, IndexError, AttributeError):
        return 0


def _forget_statm() -> None:
    """A forked child's /proc/self is its own: the file kept open is its parent's."""
    global _statm_file
    if _statm_file is not None:
        try:
            os.close(_statm_file)
        except OSError:
            pass
        _statm_file = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_statm)


#: bytes reserved between two reads of the resident size (at most)
GUARD_CHUNK = 8 * 1024 * 1024

MEMORY_LIMIT = "memory limit exceeded ({limit} bytes)"


class MemoryBudget:
    """One run's memory limit (bytes it may add to the resident size; None:
    no limit), the resident size when the run started (`base`, read once),
    the bytes reserved since the size was last read (`pending`), and the
    bytes charged for what the run keeps outside the size read (`charged`:
    `charge`). Called with n before n bytes are built (a state's `guard`)."""

    __slots__ = ("limit", "base", "pending", "slack", "charged", "rss")

    def __init__(self, limit: int | None):
        self.limit = limit
        self.rss = resident_memory
        self.base = resident_memory()
        self.pending = 0
        self.charged = 0
        # the bytes reserved before the next read: GUARD_CHUNK, or the room
        # the last read left when that is less (never, with no limit)
        self.slack = min(GUARD_CHUNK, limit) if limit is not None else 2**62

    def __call__(self, n: int) -> None:
        self.pending += n
        if self.pending < self.slack:
            return
        if self.over(n):
            raise self.exceeded()

    def charge(self, n: int) -> None:
        """Counts n bytes for good that the resident size does not show
        (the Engine's requests, which `--json` writes out once per round
        that sent them), and checks the limit as a reservation does."""
        self.charged += n
        self.pending += n
        if self.pending >= self.slack and self.over():
            raise self.exceeded()

    def over(self, n: int = 0) -> bool:
        """Reads the resident size: whether n bytes more would take the run
        past its limit."""
        limit = self.limit
        self.pending = 0
        if limit is None:
            return False
        room = limit - self.used() - n
        self.slack = min(GUARD_CHUNK, room)
        return room < 0

    def exceeded(self) -> LimitExceeded:
        """The catchable error of a run past its limit, at the running Lua line."""
        return LimitExceeded(f"{current_where()}{MEMORY_LIMIT.format(limit=self.limit)}")

    def used(self) -> int:
        """What the run has added to the resident size so far, and charged."""
        return self.rss() - self.base + self.charged


def reserve_result(n: int) -> None:
    """reserve_memory for a builtin's result of n bytes, cheaply for a
    small one: a result of up to INLINE_RESULT bytes is built at once and
    only counted in the running machine's `unreserved`, reserved together
    with others once they pass UNRESERVED_STEP (so a loop of small results
    still reaches the guard); a longer one, or one over the string limit,
    is reserved first."""
    if n > INLINE_RESULT or n > RUNNING[0].max_string:
        values.reserve_memory(n)
        return
    values.count_unreserved(n)


#: bytes of one value's slot in a list of results or a table's array part
SLOT = 8
#: the most values a builtin returns, or moves into a table, uncounted
FEW_SLOTS = 32


def reserve_slots(n: int) -> None:
    """Reserves n values' slots (a builtin's n results, n items it moves
    into a table) with the running machine's guard: not a string, so no
    string limit. A few go uncounted, as a new table's do."""
    if n > FEW_SLOTS:
        RUNNING[0].guard(n * SLOT)


#: the longest result built without reserving it first (as `..` builds one)
INLINE_RESULT = values.INLINE_CONCAT
#: what fast paths that count small results inline use (the count is the
#: running machine's `unreserved`, shared with `..`: runtime/operators.py)
UNRESERVED_STEP = values.UNRESERVED_STEP
TINY_RESULT = values.TINY_RESULT
reserve_unreserved = values.reserve_unreserved


class StepMeter:
    """Charges a state's step countdown; runs its check when it runs out."""

    def __init__(self, state):
        self.state = state
        self.steps = state._steps
        self.tick = state._tick

    def __call__(self, n: int) -> None:
        steps = self.steps
        steps[0] -= n
        if steps[0] < 0:
            self.tick()


def install(state) -> None:
    """Gives `state` its guard (its run's memory budget) and meter, and
    binds its machine to them: a builtin accounts to the state of the
    running machine (runvil.lua.runtime.machine), none outside any state's."""
    state.guard = state.memory_budget
    state.meter = StepMeter(state)
    state.machine.bind(state)


def uninstall(state) -> None:
    """A closed state's machine accounts to none from now on (its guard
    and meter hold the state); a call from the host binds it again."""
    state.machine.unbind()
