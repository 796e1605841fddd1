"""Indexing a Lua value (`o[k]`, `o[k] = v`) through `__index` and
`__newindex`, the method lookups of `o:name(...)`, and `tostring` with
`__tostring` and `__name`."""

from __future__ import annotations

from types import FunctionType

from ..errors import lua_error, rt_error
from .calls import call_tostring, callable_of, meta_call
from .machine import RUNNING
from .tables import LuaTable
from .values import Userdata, _desc, fmt_float, fmt_number, first, getmetamethod, getmetatable, obj_typename, string_meta, tostring_basic


def tostring(v) -> str:
    """Lua's tostring: __tostring, then __name, then the basic form."""
    t = type(v)
    if t is str:  # strings and numbers first: no metatable of theirs counts
        return v
    if t is int:
        return str(v)
    if t is float:
        return fmt_float(v)
    mt = getmetatable(v)
    if mt is not None:
        h = mt.hash.get("__tostring")
        if h is not None:
            s = call_tostring(h, v)  # luaL_tolstring's C call: not yieldable
            if type(s) is not str:
                if type(s) is int or type(s) is float:
                    return fmt_number(s)
                lua_error("'__tostring' must return a string")  # luaL_tolstring's luaL_error
            return s
        name = mt.hash.get("__name")
        if type(name) is str and type(v) is LuaTable:
            return f"{name}: 0x{id(v):x}"
    return tostring_basic(v)

def method_of(o, name: str, desc=None):
    """The callable for `o:name(...)` (a builtin's argument errors count
    from the method's first explicit argument: see debuginfo.builtin_context)."""
    f = _chain_method(o, name)
    if f is None:
        f = index(o, name, desc)
    if type(f) is FunctionType:
        return f
    return callable_of(f, f"method '{name}'")

def method_from(t: LuaTable, name: str):
    """method_of(o, name) where the inline lookup of a method call
    (compile_expr.method_callee) has found no `name` in o, in its class
    and in the class's class t, each the __index table of the one before:
    the walk goes on from t, without taking those three hops again (the
    receiver's description only names a receiver that cannot be indexed,
    so none is needed; index counts the two hops already taken)."""
    m = t.meta
    f = _chain_method(m.hash.get("__index"), name) if m is not None else None
    if f is None:
        f = index(t, name, None, _MAX_HOPS - 2)
    if type(f) is FunctionType:
        return f
    return callable_of(f, f"method '{name}'")

def _chain_method(t, name: str):
    """A function `name` through a short chain of __index tables from t
    (classes), as index() finds it, without its call; None when index must
    look (anything else: no table, a value that is no function, an __index
    function, a longer chain or a loop)."""
    for _ in _SHORT_CHAIN:
        if type(t) is not LuaTable:
            return None
        f = t.hash.get(name)
        if f is not None:
            return f if type(f) is FunctionType else None
        m = t.meta
        if m is None:
            return None
        t = m.hash.get("__index")
    return None

#: the hops _chain_method takes itself
_SHORT_CHAIN = range(8)

def string_method(s: str, name: str, desc=None):
    """`s:name(...)` on a string: the function in the string metatable's
    `__index` table, without the general lookup; anything else (a changed
    metatable, a missing method) goes the general way, with its errors."""
    m = RUNNING[0].string_meta  # string_meta(), inline
    if m is not None:
        i = m.hash.get("__index")
        if type(i) is LuaTable:
            f = i.hash.get(name)
            if type(f) is FunctionType:
                return f
    return method_of(s, name, desc)

#: MAXTAGLOOP: the __index or __newindex hops one access may take
_MAX_HOPS = 2000

def index(o, k, desc=None, n=_MAX_HOPS):
    """o[k] with __index, as the GETTABLE/GETFIELD instructions (`n`: the
    hops left, when a walk begun elsewhere goes on at o)."""
    if type(k) is str:
        # a field through a chain of __index tables (classes): hash parts only
        while type(o) is LuaTable:
            v = o.hash.get(k)
            if v is not None:
                return v
            m = o.meta
            if m is None:
                return None
            h = m.hash.get("__index")
            if type(h) is not LuaTable:
                break
            if not n:
                rt_error("'__index' chain too long; possible loop")
            o = h
            desc = None
            n -= 1
    for _ in range(n + 1):  # o, then the n tables (or values) n hops reach
        if type(o) is LuaTable:
            v = o.get(k)
            if v is not None:
                return v
            m = o.meta
            if m is None:
                return None
            h = m.hash.get("__index")
            if h is None:
                return None
        elif type(o) is str:
            m = string_meta()
            h = m.hash.get("__index") if m is not None else None
            if h is None:
                rt_error(f"attempt to index a string value{_desc(desc)}")
        elif isinstance(o, Userdata):
            return o.lua_index(k)
        else:
            if desc is None and type(k) is str:
                desc = None
            rt_error(f"attempt to index a {obj_typename(o)} value{_desc(desc)}")
        if type(h) is FunctionType:
            return first(meta_call(h, o, k))
        o = h
        desc = None
    rt_error("'__index' chain too long; possible loop")

def setindex(o, k, v, desc=None):
    """o[k] = v with __newindex, as the SETTABLE/SETFIELD instructions."""
    for _ in range(_MAX_HOPS):
        if type(o) is LuaTable:
            m = o.meta
            if m is None or o.get(k) is not None:
                rawset(o, k, v)
                return
            h = m.hash.get("__newindex")
            if h is None:
                rawset(o, k, v)
                return
        elif isinstance(o, Userdata):
            o.lua_newindex(k, v)
            return
        else:
            h = getmetamethod(o, "__newindex")
            if h is None:
                rt_error(f"attempt to index a {obj_typename(o)} value{_desc(desc)}")
        if type(h) is FunctionType:
            meta_call(h, o, k, v)
            return
        o = h
        desc = None
    rt_error("'__newindex' chain too long; possible loop")

def rawset(t: LuaTable, k, v):
    try:
        t.set(k, v)
    except ValueError as e:
        rt_error(f"table {e}")
