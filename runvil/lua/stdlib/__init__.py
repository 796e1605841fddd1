"""The standard library: one module per library, opened in this order."""

from __future__ import annotations

from types import FunctionType

from ..debuginfo import BUILTIN_CODES, QUALNAMES, builtin
from ..runtime.tables import LuaTable


#: (global name, module name) in the order Lua's linit.c opens them
LIBRARIES = ("base", "coroutine", "table", "string", "math", "utf8", "os")


#: id(code) -> code of the builtins `lib_table` has marked: every state
#: opens the same libraries again, and a code object's hash is not cached
#: (hashing one costs microseconds), so the codes marked are known by identity
_MARKED: dict = {}


def lib_table(funcs: dict, prefix: str = "") -> LuaTable:
    """A library table from name -> builtin; marks each as a builtin, known
    in messages by its global name (prefix "table." gives "table.insert")."""
    key = made = None
    if prefix not in _UNSHARED:
        try:  # the same functions again (a library opened by every state): marked already
            key = (prefix, *funcs, *funcs.values())
            made = _MADE.get(key)
        except TypeError:  # a value that has no hash
            key = None
    if made is not None:
        return LuaTable(hash=made.copy())
    marked = _MARKED
    shared = key is not None
    for name, f in funcs.items():
        if type(f) is FunctionType:
            code = f.__code__
            if marked.get(id(code)) is not code:
                if not (code in BUILTIN_CODES and code in QUALNAMES):
                    builtin(f)
                    QUALNAMES.setdefault(code, prefix + name)
                marked[id(code)] = code
            if f.__closure__ is not None:
                shared = False
        elif f is not None:
            shared = False
    hash = {name: f for name, f in funcs.items() if f is not None}
    if shared:  # (never a closure, which would keep its state alive here)
        _MADE[key] = hash.copy()
    elif key is not None:  # made of closures (made per state): never looked up again
        _UNSHARED.add(prefix)
    return LuaTable(hash=hash)


#: (prefix, the names, the functions) -> the hash of their table, for the libraries
#: made of module-level functions alone
_MADE: dict = {}
#: the prefixes of libraries made of closures, whose tables are never copied
_UNSHARED: set = set()


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
