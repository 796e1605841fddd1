"""The standard library: one module per library, opened in this order."""

from __future__ import annotations

from types import FunctionType

from ..debuginfo import BUILTIN_CODES, QUALNAMES, builtin
from ..runtime.tables import LuaTable


#: (global name, module name) in the order Lua's linit.c opens them
LIBRARIES = ("base", "coroutine", "table", "string", "math", "utf8", "os")


def lib_table(funcs: dict, prefix: str = "") -> LuaTable:
    """A library table from name -> builtin; marks each as a builtin, known
    in messages by its global name (prefix "table." gives "table.insert")."""
    for name, f in funcs.items():
        # (once per code: every state opens the same libraries again)
        if type(f) is FunctionType and not (f.__code__ in BUILTIN_CODES and f.__code__ in QUALNAMES):
            builtin(f)
            QUALNAMES.setdefault(f.__code__, prefix + name)
    return LuaTable(hash={name: f for name, f in funcs.items() if f is not None})


def open_libs(state, names=LIBRARIES) -> None:
    import importlib

    from . import limits as budget

    for name in names:
        mod = importlib.import_module(f"{__name__}.{name}")
        mod.open_lib(state)
    budget.install(state)
    enable = getattr(state, "enable_twins", None)
    if enable is not None:  # once every library is open: twins look up the builtins
        enable()
