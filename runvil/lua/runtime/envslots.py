"""A compiled function's `_ENV` upvalue, for code that reads the state's
globals directly.

Compiled code reaches the globals through four names of its state's
namespace (`_Gh`, the globals' hash; `_gget` and `_gset`, a read and a
write through their metatable; `_Gt`, the globals table), where Lua has
an upvalue `_ENV`. Lua 5.1's `setfenv`, as libraries emulate it on 5.2 and
later (a loop over `debug.getupvalue` until `_ENV`, then
`debug.upvaluejoin` and `debug.setupvalue`), gives one function a table of
its own as its globals.

Here such a write gives the function an environment slot: its code is
swapped (`f.__code__`) for a copy whose names are the slot's (`_Gh:3`,
`_gget:3`, `_gset:3`, `_Gt:3`, bound in the namespace to the new table),
and so are the names of the factories it calls (`_mk_c1_4:3`), so closures it makes
from then on share its `_ENV`, as in Lua. Closures made before keep theirs.
One slot per table a namespace has been given (slot 0: the globals), kept
for the state's life.

A running frame keeps the code it began with, so a function that gives
itself a table while it runs (`setfenv(1, t)`, Penlight's tests) would read
the old one until it returns. The compiler sees such a call (a callee named
`setfenv`) and compiles that function's globals as reads of `env_now`: the
table set_env gave the function object, else its code's `_Gt`.

What Lua does and this does not: a `setupvalue` of an `_ENV` no
`upvaluejoin` made private changes it for that function (and what it
makes), not for every function sharing it.
"""

from __future__ import annotations

from types import CodeType, FunctionType

from . import indexing as LI
from .tables import LuaTable

#: the names compiled code reads the globals by (compiler/expressions.py e_Name, stores.py)
_ENV_NAMES = ("_Gh", "_gget", "_gset", "_Gt")
#: the namespace's slots: a list of EnvSlot, slot 0 the state's globals
SLOTS = "_ENVS"


class EnvSlot:
    """One environment a namespace's compiled code may read its globals
    from: an `_ENV` upvalue's value (debug.getupvalue reads it; debug.upvalueid
    gives one id per slot)."""

    __slots__ = ("env", "k")

    def __init__(self, env, k: int):
        self.env, self.k = env, k

    @property
    def cell_contents(self):
        return self.env


def bind_slot(ns: dict, env) -> EnvSlot:
    """The slot of `env` in the namespace, made and its names bound the
    first time."""
    slots = ns[SLOTS]
    for slot in slots:
        if slot.env is env:
            return slot
    slot = EnvSlot(env, len(slots))
    slots.append(slot)
    k = slot.k
    ns[f"_Gt:{k}"] = env
    if type(env) is LuaTable:
        ns[f"_Gh:{k}"] = env.hash
        ns[f"_gget:{k}"] = lambda key: LI.index(env, key, "upvalue '_ENV'")
        ns[f"_gset:{k}"] = lambda key, v: (env.set_str(key, v) if env.meta is None
                                           else LI.setindex(env, key, v, "upvalue '_ENV'"))
    else:  # every read and write is Lua's error for indexing the value
        ns[f"_Gh:{k}"] = {}
        ns[f"_gget:{k}"] = lambda key: LI.index(env, key, "upvalue '_ENV'")
        ns[f"_gset:{k}"] = lambda key, v: LI.setindex(env, key, v, "upvalue '_ENV'")
    return slot


def reads_globals(code: CodeType) -> bool:
    """Whether the code itself reads or writes globals by the namespace's
    names (of any slot): where Lua has an _ENV upvalue."""
    return any(name.partition(":")[0] in _ENV_NAMES for name in code.co_names)


def slot_of(fn: FunctionType) -> EnvSlot | None:
    """The slot fn reads its globals from, or None when neither it nor a
    function it makes reads any (then Lua gives it no `_ENV` upvalue)."""
    ns = fn.__globals__
    slots = ns.get(SLOTS)
    if slots is None:
        return None
    k = _reads(fn.__code__, ns, set())
    return None if k is None else slots[k]


def _reads(code: CodeType, ns: dict, seen: set) -> int | None:
    """The slot number code (or a factory it calls) names, or None."""
    found = None
    for name in code.co_names:
        base, _, k = name.partition(":")
        if base in _ENV_NAMES:
            return int(k) if k else 0
        if base.startswith("_mk_") and found is None and name not in seen:
            seen.add(name)
            factory = ns.get(name)
            if type(factory) is FunctionType:
                found = _reads(factory.__code__, ns, seen)
    for c in code.co_consts:
        if type(c) is CodeType:
            k = _reads(c, ns, seen)
            if k is not None:
                return k
    return found


def set_env(fn: FunctionType, env) -> None:
    """Gives fn (and the closures it makes from now on) `env` as its `_ENV`."""
    ns = fn.__globals__
    slot = bind_slot(ns, env)
    fn.__code__ = retargeted(fn.__code__, slot.k, ns)
    fn.lua_env = env  # (what its running frames read, env_now)
    for made in ("lua_twin", "lua_numeric_twin", "lua_exact"):  # made from the code it had
        old = fn.__dict__.pop(made, None)
        if type(old) is FunctionType:  # (a twin running already reads it by env_now)
            old.lua_env = env


def env_now(fn: FunctionType, env):
    """The _ENV of a function compiled to read it at each global access
    (one that calls `setfenv`): what set_env gave the function object, which
    a frame already running reads too, else its code's (`env`, its `_Gt`)."""
    return fn.__dict__.get("lua_env", env)


def env_given(fn: FunctionType, made):
    """A closure made by a function env_now reads for, given the table
    set_env gave that function, if any: in Lua it shares its maker's _ENV
    (a running frame's factories are those of the code it began with)."""
    env = fn.__dict__.get("lua_env", made)
    if env is not made and type(made) is FunctionType and slot_of(made) is not None:
        set_env(made, env)
    return made


def slot_number(code: CodeType) -> int:
    """The slot a code's names were made for (0: the globals): its twin,
    made from the chunk's text, is renamed to match."""
    for name in code.co_names:
        base, colon, k = name.partition(":")
        if colon and (base in _ENV_NAMES or base.startswith("_mk_")):
            return int(k)
    return 0


def retargeted(code: CodeType, k: int, ns: dict) -> CodeType:
    """code reading its globals from slot k: its names and its nested
    codes' renamed, each factory it calls made for slot k once."""
    names = tuple(_renamed(name, k, ns) for name in code.co_names)
    consts = tuple(retargeted(c, k, ns) if type(c) is CodeType else c for c in code.co_consts)
    if names == code.co_names and all(a is b for a, b in zip(consts, code.co_consts)):
        return code
    return code.replace(co_names=names, co_consts=consts)


def _renamed(name: str, k: int, ns: dict) -> str:
    base = name.partition(":")[0]
    if base in _ENV_NAMES:
        return f"{base}:{k}" if k else base
    if not base.startswith("_mk_"):
        return name
    new = f"{base}:{k}" if k else base
    if new not in ns:
        factory = ns.get(base)
        if type(factory) is FunctionType:
            ns[new] = factory  # (first: a factory's code never calls itself, but stay safe)
            ns[new] = FunctionType(retargeted(factory.__code__, k, ns), ns, factory.__name__)
    return new
