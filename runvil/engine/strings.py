"""Text at the Engine boundary: Lua strings are byte strings held as one
char per byte (docs/DECISIONS.md, "Values"); every global and the VM turn
them into Python text and back with these two.

Each makes a copy, which the Engine keeps (a record, an event, a task's
result): a long one is reserved against the running Lua's memory budget
first, as a builtin reserves its result (runvil.lua.MemoryBudget), so the
run's copies count against its `memory` limit where they are made."""

from __future__ import annotations

from ..lua.api import reserve_long


def to_lua_str(s: str) -> str:
    """Python text -> a Lua byte string (one char per UTF-8 byte)."""
    reserve_long(len(s))
    return s.encode("utf-8", "surrogateescape").decode("latin-1")


def from_lua_str(s: str) -> str:
    """A Lua byte string -> Python text."""
    reserve_long(len(s))
    return s.encode("latin-1").decode("utf-8", "surrogateescape")
