"""Compaction (docs/reference/conversations.md "Compactors and context exhaustion"): the
`compactors` global, `models.compact`, and running a compactor under a
snapshot that any failure restores."""

from __future__ import annotations

from types import FunctionType

from ...lua.api import LuaError, LuaTable
from ...lua.api import lib_table
from ...lua.api import tostring_basic
from ..errors import engine_error, message_type, raise_lua
from ..strings import from_lua_str, to_lua_str
from .compose import composed
from .precheck import exhausted_message

COMPACT_TAKES = "models.compact takes (compactor, reason)"
NOT_A_FUNCTION = "compactor must be a function, got {type}"  # models.compact and the loop
REASON_NOT_STRING = "reason must be a string, got {type}"
COMPACT_RUNNING = "models.compact cannot start while a loop or a compactor is running in this section"
CLEAR_OUTSIDE = (
    "compactors.clear works only inside a compactor; empty messages with models.compact(compactors.clear, reason)"
)
COMPACTOR_AT = "defined at {where}"  # a Lua function: where its `function` is


def exhausted(reason: str, facts: dict | None = None) -> LuaError:
    """A context_exhausted error value for a reason (a Python string). Its
    message is the spec's, always: what the Host adds goes in `facts`."""
    return engine_error("context_exhausted", exhausted_message(reason), facts, reason=reason)


def did_not_shrink(reason: str, compactor, before: int, after: int) -> LuaError:
    """context_exhausted for a compacted list whose estimate is not below
    the overflowed one's ("The rules a compaction must pass"); the Host
    names the compactor and the two estimates on a help line."""
    return exhausted(reason, {"compactor": named(compactor), "before": before, "after": after})


def still_overflows(reason: str, compactor) -> LuaError:
    """context_exhausted for a retried round that overflowed again."""
    return exhausted(reason, {"compactor": named(compactor), "overflowed_again": True})


def named(compactor) -> str:
    """A compactor as a message names it: where a Lua function is defined
    (`defined at section `Send` prologue:16`), a library function by its
    global name (`print`)."""
    from ...lua.api import QUALNAMES, lua_position

    code = getattr(compactor, "__code__", None)
    where = lua_position(code.co_filename, code.co_firstlineno, unknown="?") if code is not None else None
    if where is not None:
        return COMPACTOR_AT.format(where=where)
    return QUALNAMES.get(code, "") or getattr(compactor, "__name__", "?")


def open_compactors(vm) -> LuaTable:
    """The `compactors` global: fail (the default) and clear. The loop reads
    the default from this table, whatever the global is rebound to."""
    def fail(*args):
        reason = args[0] if args else None
        raise exhausted(from_lua_str(reason) if type(reason) is str else tostring_basic(reason))

    def clear(*args):
        if not vm.compacting:
            raise_lua(CLEAR_OUTSIDE)
        vm.messages.records.clear()

    table = lib_table({"fail": fail, "clear": clear}, "compactors.")
    vm.compactors_table = table
    return table


def default_compactor(vm):
    """compactors.fail as it stands in the Engine's table when a loop call
    begins (a prompt may have replaced it)."""
    return vm.compactors_table.hash.get("fail")


def run_compactor(vm, compactor, reason: str, check):
    """Calls compactor(reason) over the list. On a raise, or when `check`
    (the rules the compaction must pass) raises, the records are put back
    as they were and the failure propagates. A generator: the compactor
    may wait (models.infer)."""
    snapshot = list(vm.messages.records)
    vm.compacting = True
    try:
        yield from vm.state.call_g(compactor, to_lua_str(reason))
        check()
    except BaseException:
        vm.messages.records[:] = snapshot
        raise
    finally:
        vm.compacting = False


def structural_check(vm) -> None:
    """The structural rules a compaction must pass ("The rules a compaction
    must pass"): the list composes (an empty list passes)."""
    if vm.messages.records:
        composed(vm)


def models_compact(vm, args: tuple):
    """models.compact(compactor, reason): argument checks in their order,
    then one compaction checked by the structural rules only."""
    if len(args) > 2:
        raise_lua(COMPACT_TAKES)
    compactor = args[0] if args else None
    reason = args[1] if len(args) > 1 else None
    if type(compactor) is not FunctionType:
        raise_lua(NOT_A_FUNCTION.format(type=message_type(compactor)))
    if type(reason) is not str:
        raise_lua(REASON_NOT_STRING.format(type=message_type(reason)))
    if vm.in_loop or vm.compacting:
        raise_lua(COMPACT_RUNNING)
    yield from run_compactor(vm, compactor, from_lua_str(reason), lambda: structural_check(vm))
    return None

