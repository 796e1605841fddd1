"""The embedding surface: everything the rest of runvil (the prompt layer,
the Engine, the hosts) uses of the Lua interpreter, and nothing else of
runvil.lua is imported outside it (tests/engine/test_layers.py checks).

The names are imported from their modules at first use (PEP 562), so that
`runvil check`, which compiles through the chunk cache and never runs a
state, does not import the runtime.

| what | names |
|---|---|
| a state and its limits | LuaState, Limits, MemoryBudget (one run's memory, shared by its states), reserve_memory, reserve_long, reserve_slots (what the Engine copies, before it copies), INLINE_CONCAT (the longest copy left uncounted), charge_steps (the Engine's own long work, so the limits are checked as it goes) |
| compiling | compile_lua, Compiled, file_source |
| values | LuaTable, Multi, Userdata, EMPTY, tostring, tostring_basic, type_name, getmetamethod, fmt_number, float_to_int, MAXI, MINI, check_string_size |
| errors | LuaError, LuaSyntaxError, LimitExceeded, ArgError, lua_error, caller_where, current_where, chunkid |
| `require` and `package` | open_package, ModuleFiles (where modules may be read), package_defaults (lua5.4's paths) |
| grants of a host (`runvil lua --allow`) | GRANTS, parse_grants, open_grants, LuaExit (os.exit), lua_traceback |
| builtins | builtin, lib_table, BUILTIN_CODES, QUALNAMES, lua_position (the Lua line of generated code) |
| where Lua runs | run_lua, stop_lua_thread (before a fork), contexts (the execution contexts the Engine schedules on), INLINE, SUSPEND, C_BOUNDARY, drive |
| the running machine (runtime/machine.py), which a context switch swaps | running_machine, switch_machine |
| the cache folder | disk_cache |
"""

from __future__ import annotations

#: exported name -> (module of runvil.lua, its name there; None: the module itself)
_EXPORTS = {
    "LuaState": ("state", "LuaState"),
    "Limits": ("state", "Limits"),
    "MemoryBudget": ("stdlib.limits", "MemoryBudget"),
    "reserve_memory": ("runtime.memory", "reserve_memory"),
    "reserve_long": ("runtime.memory", "reserve_long"),
    "INLINE_CONCAT": ("runtime.memory", "INLINE_CONCAT"),
    "reserve_slots": ("stdlib.limits", "reserve_slots"),
    "charge_steps": ("runtime.memory", "charge_steps"),
    "compile_lua": ("compiler.chunkcache", "compile_lua"),
    "Compiled": ("compiler.chunk", "Compiled"),
    "file_source": ("files", "file_source"),
    "LuaTable": ("runtime.tables", "LuaTable"),
    "Multi": ("runtime.values", "Multi"),
    "Userdata": ("runtime.values", "Userdata"),
    "EMPTY": ("runtime.values", "EMPTY"),
    "tostring": ("runtime.indexing", "tostring"),
    "tostring_basic": ("runtime.values", "tostring_basic"),
    "type_name": ("runtime.values", "type_name"),
    "getmetamethod": ("runtime.values", "getmetamethod"),
    "fmt_number": ("numbers", "fmt_number"),
    "float_to_int": ("numbers", "float_to_int"),
    "MAXI": ("numbers", "MAXI"),
    "MINI": ("numbers", "MINI"),
    "check_string_size": ("runtime.memory", "check_string_size"),
    "LuaError": ("errors", "LuaError"),
    "LuaSyntaxError": ("errors", "LuaSyntaxError"),
    "LimitExceeded": ("errors", "LimitExceeded"),
    "ArgError": ("errors", "ArgError"),
    "lua_error": ("errors", "lua_error"),
    "caller_where": ("debuginfo", "caller_where"),
    "current_where": ("debuginfo", "current_where"),
    "chunkid": ("errors", "chunkid"),
    "builtin": ("debuginfo", "builtin"),
    "BUILTIN_CODES": ("debuginfo", "BUILTIN_CODES"),
    "QUALNAMES": ("debuginfo", "QUALNAMES"),
    "lua_position": ("debuginfo", "lua_position"),
    "lib_table": ("stdlib", "lib_table"),
    "open_package": ("stdlib.package", "open_package"),
    "ModuleFiles": ("stdlib.package", "ModuleFiles"),
    "package_defaults": ("stdlib.package", "package_defaults"),
    "GRANTS": ("stdlib.grants", "GRANTS"),
    "parse_grants": ("stdlib.grants", "parse_grants"),
    "open_grants": ("stdlib.grants", "open_grants"),
    "LuaExit": ("stdlib.os", "LuaExit"),
    "lua_traceback": ("stdlib.luastack", "traceback"),
    "run_lua": ("stack", "run_lua"),
    "stop_lua_thread": ("stack", "stop_lua_thread"),
    "INLINE": ("stack", "INLINE"),
    "contexts": ("runtime.contexts", None),
    "SUSPEND": ("runtime.contexts", "SUSPEND"),
    "C_BOUNDARY": ("runtime.contexts", "C_BOUNDARY"),
    "drive": ("runtime.contexts", "drive"),
    "running_machine": ("runtime.machine", "running"),
    "switch_machine": ("runtime.machine", "switch"),
    "disk_cache": ("cache.disk", None),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    entry = _EXPORTS.get(name)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    module, attr = entry
    value = import_module(f"runvil.lua.{module}")
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value  # found directly from now on
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
