"""Compaction (conversations.md "Compactors and context exhaustion"): the
`compactors` global, `models.compact`, and running a compactor under a
snapshot that any failure restores."""

from __future__ import annotations

from types import FunctionType

from ...lua import LuaError, LuaTable
from ...lua.stdlib import lib_table
from ..errors import engine_error, raise_lua
from .precheck import exhausted_message

COMPACT_TAKES = "models.compact takes (compactor, reason)"
NOT_A_FUNCTION = "compactor must be a function, got {type}"  # models.compact and the loop
REASON_NOT_STRING = "reason must be a string, got {type}"
COMPACT_RUNNING = "models.compact cannot start while a loop or a compactor is running in this section"
CLEAR_OUTSIDE = (
    "compactors.clear works only inside a compactor; empty messages with models.compact(compactors.clear, reason)"
)


def exhausted(reason: str) -> LuaError:
    """A context_exhausted error value for a reason (a Python string)."""
    return engine_error("context_exhausted", exhausted_message(reason), reason=reason)


def open_compactors(vm) -> LuaTable:
    """The `compactors` global: fail (the default) and clear. The loop reads
    the default from this table, whatever the global is rebound to."""
    from ..vm import from_lua_str

    def fail(*args):
        reason = args[0] if args else None
        raise exhausted(from_lua_str(reason) if type(reason) is str else _lua_tostring(reason))

    def clear(*args):
        if not vm.compacting:
            raise_lua(CLEAR_OUTSIDE)
        vm.messages.records.clear()

    table = lib_table({"fail": fail, "clear": clear}, "compactors.")
    vm.compactors_table = table
    return table


def _lua_tostring(v) -> str:
    from ...lua.values import tostring_basic

    return tostring_basic(v)


def default_compactor(vm):
    """compactors.fail as it stands in the Engine's table when a loop call
    begins (a prompt may have replaced it)."""
    return vm.compactors_table.hash.get("fail")


def run_compactor(vm, compactor, reason: str, check) -> None:
    """Calls compactor(reason) over the list. On a raise, or when `check`
    (the rules the compaction must pass) raises, the records are put back
    as they were and the failure propagates."""
    from ..vm import to_lua_str

    snapshot = list(vm.messages.records)
    vm.compacting = True
    try:
        vm.state.call(compactor, to_lua_str(reason))
        check()
    except BaseException:
        vm.messages.records[:] = snapshot
        raise
    finally:
        vm.compacting = False


def models_compact(vm, args: tuple):
    """models.compact(compactor, reason): argument checks in their order,
    then one compaction checked by the structural rules only."""
    from ..models import type_for_message
    from ..vm import from_lua_str
    from .loop import structural_check

    if len(args) > 2:
        raise_lua(COMPACT_TAKES)
    compactor = args[0] if args else None
    reason = args[1] if len(args) > 1 else None
    if type(compactor) is not FunctionType:
        raise_lua(NOT_A_FUNCTION.format(type=type_for_message(compactor)))
    if type(reason) is not str:
        raise_lua(REASON_NOT_STRING.format(type=type_for_message(reason)))
    if vm.in_loop or vm.compacting:
        raise_lua(COMPACT_RUNNING)
    run_compactor(vm, compactor, from_lua_str(reason), lambda: structural_check(vm))
    return None

