"""runvil.lua: a Lua 5.4 subset in pure Python — parse, resolve, compile,
run — with the sandboxed standard library. It knows nothing of prompts.

The names below are imported from their modules at first use (PEP 562), so
that `runvil check`, which compiles through the chunk cache and never runs
a state, does not import the runtime (state, values, tables)."""

#: exported name -> the module of runvil.lua that defines it
_EXPORTS = {
    "Compiled": "compiler.chunk",
    "compile_lua": "compiler.chunk",
    "EMPTY": "runtime.values",
    "Limits": "state",
    "LimitExceeded": "errors",
    "LuaError": "errors",
    "LuaState": "state",
    "LuaSyntaxError": "errors",
    "LuaTable": "runtime.tables",
    "Multi": "runtime.values",
    "Userdata": "runtime.values",
}

__all__ = ["Compiled", "compile_lua", "EMPTY", "Limits", "LimitExceeded", "LuaError", "LuaState", "LuaSyntaxError", "LuaTable", "Multi", "Userdata"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
