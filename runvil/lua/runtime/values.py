"""Lua values, and the slow paths of every operator that compiled code calls.

Representation (ARCHITECTURE.md decision 4): nil=None, booleans=bool,
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

from .calldepth import charge_meta, meta_call
from .machine import IDLE, RUNNING
from ..errors import BUILTIN_CODES, LUA_CODE, LuaError, rt_error
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
            from .calldepth import call_tostring

            s = call_tostring(h, v)  # luaL_tolstring's C call: not yieldable
            if type(s) is not str:
                if type(s) is int or type(s) is float:
                    return fmt_number(s)
                from ..errors import lua_error

                lua_error("'__tostring' must return a string")  # luaL_tolstring's luaL_error
            return s
        name = mt.hash.get("__name")
        if type(name) is str and type(v) is LuaTable:
            return f"{name}: 0x{id(v):x}"
    return tostring_basic(v)


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


def call(f, *args):
    """Calls any Lua value (functions directly, else through __call)."""
    if type(f) is FunctionType:
        return f(*args)
    return resolve_callable(f, None)(*args)


def callx(f, desc, *args):
    return resolve_callable(f, desc)(*args)


def callable_of(f, desc):
    """A Python function that calls the Lua value f: f itself, or one that
    finds f's __call when it is called, after the arguments are evaluated
    (Lua's OP_CALL looks it up then: the arguments may set it)."""
    if type(f) is FunctionType:
        return f

    def call_late(*a):
        h = getmetamethod(f, "__call")
        if type(h) is FunctionType:  # the common case, called as _tm_caller calls it
            charge_meta(h)
            return h(f, *a)
        return resolve_callable(f, desc)(*a)

    return call_late


def late_callee(fn) -> tuple:
    """The (value, desc) that callable_of made `fn` (a call_late) for."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__))
    return cells["f"].cell_contents, cells["desc"].cell_contents


def resolve_callable(f, desc):
    """What calling the Lua value f calls, now: f itself, its __call
    metamethod, a userdata's call, or one that raises Lua's error."""
    if type(f) is FunctionType:
        return f
    h = getmetamethod(f, "__call")
    if h is not None:
        return _call_tm(h, f, desc)
    if isinstance(f, Userdata):
        return _call_ud(f)
    return _fail_call(f"attempt to call a {obj_typename(f)} value{_desc(desc)}")


#: a chain of __call metamethods longer than this fills Lua's stack
MAX_CALL_CHAIN = 100_000


def _call_tm(h, f, desc):
    """Lua puts the metamethod in the called slot, the value before the
    arguments, and tries again: a chain of __call ends in a function (or
    fails naming the slot, as Lua names it: `(upvalue 'a')`)."""
    prefix = [f]
    while type(h) is not FunctionType:
        nxt = getmetamethod(h, "__call")
        if nxt is None:
            if isinstance(h, Userdata):
                return lambda *a: h.lua_call(*reversed(prefix), *a)
            return _fail_call(f"attempt to call a {obj_typename(h)} value{_desc(desc)}")
        if len(prefix) >= MAX_CALL_CHAIN:
            return _fail_call("stack overflow")
        prefix.append(h)
        h = nxt
    prefix.reverse()
    return _tm_caller(h, tuple(prefix))


def _tm_caller(h, prefix: tuple):
    # a call through __call is charged as a metamethod call (cstack.charge_meta):
    # the call site was weighed as a plain call
    def call_tm(*a):
        charge_meta(h)
        return h(*prefix, *a)

    call_tm.lua_tm = (h, prefix)  # what `tail` calls in its place
    return call_tm


def _call_ud(f):
    return lambda *a: f.lua_call(*a)


def _fail_call(msg):
    def fail(*_a):
        rt_error(msg)

    return fail


def tail(f, args: tuple):
    """`return f(args)`. A Lua function becomes a pending call that the
    caller's caller runs, so tail calls do not grow the stack; anything else
    (a builtin, __call, an error) runs now, in the caller's frame, as Lua
    runs a C function called in tail position."""
    # The code object is told apart by its file name or its id: CPython
    # recomputes a code object's hash (from its bytecode) on every lookup.
    code = f.__code__
    if code.co_filename in LUA_CODE:  # a compiled Lua function (never a builtin)
        return Multi((TAILCALL, f, args))
    if id(code) in _RUNS_NOW:
        return f(*args)
    if code is LATE_CODE:  # a value that is no function: what calling it calls now
        return tail(resolve_callable(*late_callee(f)), args)
    if code is _TM_CODE:  # through __call: the metamethod is the tail call
        h, prefix = f.lua_tm
        return tail(h, prefix + args)
    if code in BUILTIN_CODES:
        _RUNS_NOW.add(id(code))  # BUILTIN_CODES keeps it alive: the id stays its own
        if f.__closure__ is None and len(TAIL_NOW) < _TAIL_NOW_MAX:
            TAIL_NOW.add(f)  # a module's builtin (alive for good): called in place from now on
        return f(*args)
    return Multi((TAILCALL, f, args))


#: builtins a tail call calls in place, without `tail` (compile_expr.tailcall):
#: those `tail` has run, made by no factory (a set of functions, not of code
#: ids, so the test costs no call; bounded all the same)
TAIL_NOW: set = set()
_TAIL_NOW_MAX = 4096


def method_of(o, name: str, desc=None):
    """The callable for `o:name(...)` (a builtin's argument errors count
    from the method's first explicit argument: see errors.builtin_context)."""
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


def call1(f, *args):
    """Calls f and returns its first result."""
    return first(call(f, *args))


def calln(f, *args) -> tuple:
    """Calls f and returns all its results as a tuple."""
    return expand(call(f, *args))


def _desc(d) -> str:
    return f" ({d})" if d else ""


# -------------------------------------------------------------- indexing


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


#: ids of the code objects a tail call runs at once: the callables above
#: (module-level code, alive for good), and each builtin once seen
_RUNS_NOW = {id(_call_ud(None).__code__), id(_fail_call("").__code__)}
_TM_CODE = _tm_caller(None, ()).__code__
LATE_CODE = callable_of(None, None).__code__


# Re-exported: the rest of runvil reads numbers and operators through values.
from ..numbers import DEFAULT_NAN, INF, MAXI, MINI, float_to_int, fmt_float, fmt_number, str2number, tointeger, tonumber, wrap
from .operators import INLINE_CONCAT, TINY_RESULT, UNRESERVED_STEP, count_unreserved, reserve_unreserved, add, band, bnot, bor, bxor, check_string_size, concat, div, eq, fmod_lua, idiv, le, length, lt, mod, mul, pow_, shift_left, shl, shr, string_arith, sub, unm


def reserve_memory(n: int) -> None:
    """Called before a string or table part of about n bytes is built, so a
    runaway result stops with `memory limit exceeded` before it is made:
    the running machine's string limit, then its guard (the running
    state's memory limit: runvil.lua.stdlib.limits)."""
    check_string_size(n)
    RUNNING[0].guard(n)


def charge_steps(n: int) -> None:
    """Charges steps a builtin's own loop takes (a pattern match's
    backtracking) to the running state's step budget."""
    RUNNING[0].meter(n)
