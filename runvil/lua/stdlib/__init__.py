"""The standard library: one module per library, opened in this order."""

from __future__ import annotations

from itertools import repeat
from types import FunctionType

from ..debuginfo import BUILTIN_CODES, QUALNAMES, builtin
from ..runtime.tables import LuaTable


#: (global name, module name) in the order Lua's linit.c opens them
LIBRARIES = ("base", "coroutine", "table", "string", "math", "utf8", "os")


def lib_table(funcs: dict, prefix: str = "") -> LuaTable:
    """A library table from name -> builtin (a None value is left out);
    marks each as a builtin, known in messages by its global name (prefix
    "table." gives "table.insert").

    Every state opens the same libraries again, so a library's plan is kept
    by its prefix and names: the same functions again (module-level ones)
    give a copy of the table made the first time; the same codes again (the
    closures a library makes per state) are marked already. Both are told
    by comparing tuples in C, not by a loop over the functions."""
    names = tuple(funcs)
    values = tuple(funcs.values())
    plan = _PLANS.get((prefix, names))
    if plan is not None:
        made, codes, nils = plan
        if made is not None and made[0] == values:
            return LuaTable(hash=made[1].copy())
        if codes == _codes(values):  # (so its None values are where they were)
            return LuaTable(hash=_without_nils(funcs) if nils else dict(funcs))
    return LuaTable(hash=_first_opening(funcs, prefix, names, values))


def _first_opening(funcs: dict, prefix: str, names: tuple, values: tuple) -> dict:
    """Marks a library's builtins and keeps its plan (lib_table)."""
    shared = True
    for name, f in funcs.items():
        if type(f) is FunctionType:
            code = f.__code__
            if not (code in BUILTIN_CODES and code in QUALNAMES):
                builtin(f)
                QUALNAMES.setdefault(code, prefix + name)
            if f.__closure__ is not None:
                shared = False  # (never kept: it would keep its state alive)
        elif f is not None:
            shared = False
    hash = _without_nils(funcs)
    if len(_PLANS) < _PLANS_MAX:
        _PLANS[prefix, names] = ((values, hash.copy()) if shared else None), _codes(values), len(hash) < len(funcs)
    return hash


def _codes(values: tuple) -> tuple:
    """Each value's code (None for one that is no Python function), in C."""
    return tuple(map(getattr, values, _CODE_ATTR, _NO_CODE))


def _without_nils(funcs: dict) -> dict:
    return {name: f for name, f in funcs.items() if f is not None}


#: (prefix, names) -> (None, or (the module-level functions, their
#: table's hash); the functions' codes; whether a value was None) of each
#: library opened: bounded, as a host could make libraries without end
_PLANS: dict = {}
_PLANS_MAX = 1024
#: the arguments of getattr(f, "__code__", None) for map
_CODE_ATTR, _NO_CODE = repeat("__code__"), repeat(None)


#: library name -> its module, imported at its first opening (a state is
#: made per section entry: `import_module` each time cost more than some libraries' opening)
_MODULES: dict = {}


def open_libs(state, names=LIBRARIES) -> None:
    from . import limits as budget

    for name in names:
        mod = _MODULES.get(name)
        if mod is None:
            import importlib

            mod = _MODULES[name] = importlib.import_module(f"{__name__}.{name}")
        mod.open_lib(state)
    budget.install(state)
    enable = getattr(state, "enable_twins", None)
    if enable is not None:  # once every library is open: twins look up the builtins
        enable()
