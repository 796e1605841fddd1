"""What a result costs in memory, as runtime code and builtins reach the
running machine's limits: the string limit (`max_string`), the memory
guard, the count of small results built without reserving them first, and
the step charge of a long copy. Beneath values and operators, so both and
the standard library reach it downward."""

from __future__ import annotations

from ..compiler.contract import TINY_RESULT  # noqa: F401  (read from here by the runtime)
from ..debuginfo import current_where
from ..errors import LimitExceeded
from .machine import RUNNING

#: the longest result of `..` built inline; a longer one is reserved first
INLINE_CONCAT = 65536
#: bytes of strings built without reserving them first (`..` results and
#: builtins' results of up to INLINE_CONCAT bytes) are counted in the running
#: machine's `unreserved` and reserved together once past UNRESERVED_STEP: a
#: loop that keeps them still reaches the memory guard
UNRESERVED_STEP = 256 * 1024
#: a result this short goes uncounted on hot paths, as a new table does: the
#: step counter's periodic read of the resident size is what sees those
#: (compiler/contract.py: the code generator emits such concatenations inline)


def count_unreserved(n: int) -> None:
    """Counts a result of n bytes built without reserving it first."""
    m = RUNNING[0]
    m.unreserved += n
    if m.unreserved > UNRESERVED_STEP:
        reserve_unreserved()


def reserve_unreserved() -> None:
    """Reserves the results counted in the machine's `unreserved` (the
    guard alone: no one string is that long)."""
    m = RUNNING[0]
    n = m.unreserved
    m.unreserved = 0
    m.guard(n)


def check_string_size(n: int) -> None:
    """Refuses a string longer than the running machine's `max_string`
    (its state's memory limit)."""
    if n > RUNNING[0].max_string:
        raise LimitExceeded(f"{current_where()}memory limit exceeded (string of {n} bytes)")


def reserve_memory(n: int) -> None:
    """Called before a string or table part of about n bytes is built, so a
    runaway result stops with `memory limit exceeded` before it is made:
    the running machine's string limit, then its guard (the running
    state's memory limit: runvil.lua.stdlib.limits)."""
    check_string_size(n)
    RUNNING[0].guard(n)


def charge_steps(n: int) -> None:
    """Charges steps a builtin's own loop takes (a pattern match's
    backtracking) to the running state's step budget."""
    RUNNING[0].meter(n)


def reserve_long(n: int) -> None:
    """reserve_memory for a copy of n bytes past INLINE_CONCAT; a shorter
    one goes uncounted, as `..` builds one inline (the Engine's copies of
    Lua strings and JSON text)."""
    if n > INLINE_CONCAT:
        reserve_memory(n)
