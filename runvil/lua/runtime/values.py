"""Lua values: their representation, types, metatables and basic forms.
Calling a value is runtime/calls.py, indexing one runtime/indexing.py, the
operators runtime/operators.py; all three stand on this module.

Representation (docs/DECISIONS.md, "Values"): nil=None, booleans=bool,
integers=int kept in signed 64 bits, floats=float, strings=str holding one
char per byte, tables=LuaTable, functions=Python functions (compiled Lua
functions and builtins alike), coroutines=Coroutine, everything else is
userdata speaking the `Userdata` protocol.

Results: a function returns one value as itself, and zero or several values
as a `Multi`: a plain tuple, as no Lua value is one (a Python tuple given to
Lua becomes a table, runvil.lua.convert), so a tuple result always means
several values, and making one costs no more than a tuple. A call in tail
position returns `Multi((TAILCALL, f, args))`, which the caller's
`first`/`expand` runs, so tail calls do not grow the Python stack.
"""

from __future__ import annotations

from types import FunctionType

from .machine import RUNNING
# numbers and the memory accounting are read through values by the rest of
# the runtime and the standard library (both from beneath this module)
from ..numbers import (  # noqa: F401
    DEFAULT_NAN, INF, MAXI, MINI, float_to_int, fmt_float, fmt_number, str2number, tointeger, tonumber, wrap,
)
from .memory import (  # noqa: F401
    INLINE_CONCAT, TINY_RESULT, UNRESERVED_STEP, charge_steps, check_string_size, count_unreserved, reserve_memory,
    reserve_unreserved,
)
from ..errors import LuaError, rt_error
from .tables import LuaTable

#: zero or several results (a single result travels as itself); a class of
#: its own, subclassing tuple, cost 220 ns a result against a tuple's 45 ns
Multi = tuple

EMPTY = Multi()
TAILCALL = object()  # first item of a Multi that is a pending tail call


class Userdata:
    """The protocol every Engine object exposed to Lua implements.

    Subclasses override what they support; the defaults raise Lua's own
    errors. `lua_type_name` is the name used in messages (`__name`).
    """

    __slots__ = ()
    lua_type_name = "userdata"
    meta = None  # a Lua metatable, if the object has one

    def lua_index(self, key):
        rt_error(f"attempt to index a {self.lua_type_name} value")

    def lua_newindex(self, key, value):
        rt_error(f"attempt to index a {self.lua_type_name} value")

    def lua_len(self):
        rt_error(f"attempt to get length of a {self.lua_type_name} value")

    def lua_call(self, *args):
        rt_error(f"attempt to call a {self.lua_type_name} value")

    def lua_pairs(self):
        """Returns (next_function, state, control) for the generic for."""
        return None

    def lua_tostring(self) -> str:
        return f"{self.lua_type_name}: 0x{id(self):x}"

    def lua_eq(self, other) -> bool:
        return self is other


# ------------------------------------------------------------------ types

_TYPE_NAMES = {
    type(None): "nil",
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    LuaTable: "table",
    FunctionType: "function",
}


def register_type(pytype, name: str) -> None:
    """Lets another module (coroutines) name its Python type for `type()`."""
    _TYPE_NAMES[pytype] = name


def type_name(v) -> str:
    return _TYPE_NAMES.get(type(v), "userdata")


def obj_typename(v) -> str:
    """luaT_objtypename: a table's or userdata's `__name` (a string in its
    metatable), else its type — how runtime errors name a value."""
    t = type(v)
    if t is LuaTable or isinstance(v, Userdata):
        mt = v.meta
        if mt is not None:
            name = mt.hash.get("__name")
            if type(name) is str:
                return name
        if t is not LuaTable:
            return v.lua_type_name
    return type_name(v)


def is_number(v) -> bool:
    t = type(v)
    return t is int or t is float


# ------------------------------------------------------------ metatables

def string_meta():
    """The string metatable of the running machine's state (the machine
    that runs while no call does: that of the state made last)."""
    return RUNNING[0].string_meta


def getmetatable(v):
    t = type(v)
    if t is LuaTable:
        return v.meta
    if t is str:
        return string_meta()
    if isinstance(v, Userdata):
        return v.meta
    return None


def getmetamethod(v, event: str):
    t = type(v)
    if t is LuaTable:
        m = v.meta
    elif t is str:
        m = string_meta()
    elif isinstance(v, Userdata):
        m = v.meta
    else:
        return None
    if m is None:
        return None
    return m.hash.get(event)


# ------------------------------------------------------------ tostring


def tostring_basic(v) -> str:
    """tostring without metamethods (also used for error values)."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return str(v)
    if t is float:
        return fmt_float(v)
    if v is None:
        return "nil"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is LuaTable:
        return f"table: 0x{id(v):x}"
    if t is FunctionType:
        return f"function: 0x{id(v):x}"
    if isinstance(v, Userdata):
        return v.lua_tostring()
    return f"{type_name(v)}: 0x{id(v):x}"


LuaError.describe = staticmethod(tostring_basic)


# ----------------------------------------------------------------- calls


def first(r):
    """The first value of a call result (running a pending tail call: its
    callee is always a Python function, see `tail`)."""
    if type(r) is not Multi:
        return r
    while r and r[0] is TAILCALL:
        r = r[1](*r[2])
        if type(r) is not Multi:
            return r
    return r[0] if r else None


def expand(r) -> tuple:
    """All values of a call result, as a tuple (running tail calls)."""
    if type(r) is not Multi:
        return (r,)
    while r and r[0] is TAILCALL:
        r = r[1](*r[2])
        if type(r) is not Multi:
            return (r,)
    return r


def _desc(d) -> str:
    return f" ({d})" if d else ""
