"""Lua values, and the slow paths of every operator that compiled code calls.

Representation (ARCHITECTURE.md decision 4): nil=None, booleans=bool,
integers=int kept in signed 64 bits, floats=float, strings=str holding one
char per byte, tables=LuaTable, functions=Python functions (compiled Lua
functions and builtins alike), coroutines=Coroutine, everything else is
userdata speaking the `Userdata` protocol.

Results: a function returns one value as itself, and zero or several values
as a `Multi` (a tuple). A call in tail position returns `Multi((TAILCALL, f,
args))`, which the caller's `first`/`expand` runs, so tail calls do not grow
the Python stack.
"""

from __future__ import annotations

import math
import threading
from types import FunctionType

from .errors import LuaError, rt_error
from .table import LuaTable

MAXI = 2**63 - 1
MINI = -(2**63)
INF = float("inf")
DEFAULT_NAN = INF * 0.0  # the platform's default NaN, as C's 0.0/0.0 gives


class Multi(tuple):
    """Zero or several results (a single result travels as itself)."""

    __slots__ = ()


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


def is_number(v) -> bool:
    t = type(v)
    return t is int or t is float


def is_callable(v) -> bool:
    return type(v) is FunctionType or getmetamethod(v, "__call") is not None


# ------------------------------------------------------------ metatables

_tls = threading.local()
_default_string_meta = [None]


def set_string_meta(meta, *, default: bool = False) -> None:
    """Sets the string metatable for the current thread's Lua state."""
    _tls.string_meta = meta
    if default:
        _default_string_meta[0] = meta


def string_meta():
    return getattr(_tls, "string_meta", _default_string_meta[0])


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


# ------------------------------------------------------------- numbers


def wrap(i: int) -> int:
    """Wraps a Python int to Lua's signed 64-bit integer."""
    if MINI <= i <= MAXI:
        return i
    return ((i + 2**63) & 0xFFFFFFFFFFFFFFFF) - 2**63


def fmt_float(x: float) -> str:
    """Lua's `%.14g` float formatting, with `.0` added to integral values."""
    if x != x:
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    if x == INF:
        return "inf"
    if x == -INF:
        return "-inf"
    s = "%.14g" % x
    if s.lstrip("-").isdigit():
        s += ".0"
    return s


def fmt_number(x) -> str:
    if type(x) is int:
        return str(x)
    return fmt_float(x)


def float_to_int(x: float):
    """The integer equal to float x, or None (Lua's luaV_flttointns, exact)."""
    if x.is_integer() and -9.3e18 < x < 9.3e18:
        i = int(x)
        if MINI <= i <= MAXI:
            return i
    return None


_SPACES = " \f\n\r\t\v"


def str2number(s: str):
    """Lua's string-to-number conversion (luaO_str2num), or None."""
    s = s.strip(_SPACES)
    if not s:
        return None
    neg = s[0] == "-"
    body = s[1:] if s[0] in "+-" else s
    if body[:2] in ("0x", "0X"):
        return _hex2number(body[2:], neg)
    if not body or body[0] not in "0123456789.":
        return None  # rejects 'inf', 'nan', '+-1', ...
    for ch in body:
        if ch not in "0123456789.eE+-":
            return None
    if body.isdigit():
        v = int(body)
        if v <= MAXI + (1 if neg else 0):
            return -v if neg else v
        try:
            return float(s)
        except ValueError:
            return None
    try:
        f = float(body)
    except ValueError:
        return None
    return -f if neg else f


def _hex2number(h: str, neg: bool):
    mant, exp = h, None
    for sep in "pP":
        if sep in h:
            mant, _, exp = h.partition(sep)
            break
    if exp is None and "." not in mant:
        if not mant or any(c not in "0123456789abcdefABCDEF" for c in mant):
            return None
        v = wrap(int(mant, 16))
        return wrap(-v) if neg else v
    ip, _, fp = mant.partition(".")
    digits = ip + fp
    if not digits or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    e = 0
    if exp is not None:
        if not exp or exp.lstrip("+-") == "" or not exp.lstrip("+-").isdigit() or exp[1:].strip("0123456789"):
            return None
        e = int(exp)
    v = math.ldexp(float(int(digits, 16)), e - 4 * len(fp)) if len(digits) < 250 else INF
    return -v if neg else v


def tonumber(v):
    """A number for arithmetic: numbers as they are, numeric strings converted."""
    t = type(v)
    if t is int or t is float:
        return v
    if t is str:
        return str2number(v)
    return None


def tointeger(v):
    """An integer for bitwise operators and integer arguments, or None."""
    t = type(v)
    if t is int:
        return v
    if t is float:
        return float_to_int(v)
    if t is str:
        n = str2number(v)
        if n is not None:
            return tointeger(n)
    return None


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


def tostring(v) -> str:
    """Lua's tostring: __tostring, then __name, then the basic form."""
    mt = getmetatable(v)
    if mt is not None and type(v) is not str:
        h = mt.hash.get("__tostring")
        if h is not None:
            s = first(call(h, v))
            if type(s) is not str:
                if type(s) is int or type(s) is float:
                    return fmt_number(s)
                raise LuaError("'__tostring' must return a string")
            return s
        name = mt.hash.get("__name")
        if type(name) is str and type(v) is LuaTable:
            return f"{name}: 0x{id(v):x}"
    return tostring_basic(v)


# ----------------------------------------------------------------- calls


def first(r):
    """The first value of a call result (running a pending tail call)."""
    if type(r) is not Multi:
        return r
    while r and r[0] is TAILCALL:
        r = call(r[1], *r[2])
        if type(r) is not Multi:
            return r
    return r[0] if r else None


def expand(r) -> tuple:
    """All values of a call result, as a tuple (running tail calls)."""
    if type(r) is not Multi:
        return (r,)
    while r and r[0] is TAILCALL:
        r = call(r[1], *r[2])
        if type(r) is not Multi:
            return (r,)
    return r


def call(f, *args):
    """Calls any Lua value (functions directly, else through __call)."""
    if type(f) is FunctionType:
        return f(*args)
    return callable_of(f, None)(*args)


def callx(f, desc, *args):
    return callable_of(f, desc)(*args)


def callable_of(f, desc):
    """A Python function that calls the Lua value f: f itself, its __call
    metamethod, a userdata's call, or one that raises Lua's error (so the
    error comes after the arguments are evaluated, as in Lua)."""
    if type(f) is FunctionType:
        return f
    h = getmetamethod(f, "__call")
    if h is not None:
        return _call_tm(h, f)
    if isinstance(f, Userdata):
        return _call_ud(f)
    return _fail_call(f"attempt to call a {type_name(f)} value{_desc(desc)}")


def _call_tm(h, f):
    return lambda *a: call(h, f, *a)


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
    if f.__code__ in _NOT_TAIL:
        return f(*args)
    return Multi((TAILCALL, f, args))


def method_of(o, name: str):
    """The callable for `o:name(...)`. A builtin is wrapped so that its
    argument errors count from the method's first explicit argument."""
    f = index(o, name)
    if type(f) is FunctionType:
        from .errors import BUILTIN_CODES

        if f.__code__ not in BUILTIN_CODES:
            return f

        return _renumbered(f, name)
    return callable_of(f, f"method '{name}'")


def _renumbered(f, name):
    from .errors import ArgError

    def renumbered(*a):
        try:
            return f(*a)
        except ArgError as e:
            if e.fname == name:
                e.renumber_for_method()
            raise

    return renumbered


def call1(f, *args):
    """Calls f and returns its first result."""
    return first(call(f, *args))


def calln(f, *args) -> tuple:
    """Calls f and returns all its results as a tuple."""
    return expand(call(f, *args))


def callm(o, name, *args):
    """A method call `o:name(args)` from Python."""
    return method_of(o, name)(o, *args)


def _desc(d) -> str:
    return f" ({d})" if d else ""


# -------------------------------------------------------------- indexing


def index(o, k, desc=None):
    """o[k] with __index, as the GETTABLE/GETFIELD instructions."""
    for _ in range(2000):
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
            rt_error(f"attempt to index a {type_name(o)} value{_desc(desc)}")
        if type(h) is FunctionType:
            return first(h(o, k))
        o = h
        desc = None
    rt_error("'__index' chain too long; possible loop")


def setindex(o, k, v, desc=None):
    """o[k] = v with __newindex, as the SETTABLE/SETFIELD instructions."""
    for _ in range(2000):
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
                rt_error(f"attempt to index a {type_name(o)} value{_desc(desc)}")
        if type(h) is FunctionType:
            h(o, k, v)
            return
        o = h
        desc = None
    rt_error("'__newindex' chain too long; possible loop")


def rawset(t: LuaTable, k, v):
    try:
        t.set(k, v)
    except ValueError as e:
        rt_error(f"table {e}")


# ------------------------------------------------------------- arithmetic


def _arith_meta(a, b, event: str, da, db):
    """trybinTM: the operands' metamethod, else Lua's error for the operator."""
    h = getmetamethod(a, event)
    if h is None:
        h = getmetamethod(b, event)
    if h is not None:
        return first(call(h, a, b))
    if event in _BITWISE:
        if is_number(a) and is_number(b):
            rt_error("number has no integer representation")
        what = "perform bitwise operation on"
    else:
        what = "perform arithmetic on"
    bad, d = (b, db) if is_number(a) else (a, da)
    rt_error(f"attempt to {what} a {type_name(bad)} value{_desc(d)}")


_BITWISE = {"__band", "__bor", "__bxor", "__shl", "__shr", "__bnot"}


def string_arith(event: str, a, b):
    """The string metatable's arithmetic metamethods (lstrlib's `arith`):
    numeric strings are converted, anything else is Lua's trymt error."""
    x, y = tonumber(a), tonumber(b)
    if x is not None and y is not None:
        return _ARITH[event](x, y)
    if type(b) is str or (h := getmetamethod(b, event)) is None:
        rt_error(f"attempt to {event[2:]} a '{type_name(a)}' with a '{type_name(b)}'")
    return first(call(h, a, b))


def _nums(a, b):
    """Both operands if both are numbers (no string coercion: strings go
    through the string metatable, as in Lua 5.4), else None."""
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a, b
    return None


def add(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__add", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        return wrap(x + y)
    return float(x) + float(y)


def sub(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__sub", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        return wrap(x - y)
    return float(x) - float(y)


def mul(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__mul", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        return wrap(x * y)
    return float(x) * float(y)


def div(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__div", da, db)
    x, y = float(n[0]), float(n[1])
    if y == 0.0:
        if x == 0.0 or x != x:
            return DEFAULT_NAN
        return math.copysign(INF, x) * math.copysign(1.0, y)
    return x / y


def idiv(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__idiv", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        if y == 0:
            rt_error("attempt to divide by zero")
        return wrap(x // y)
    q = div(float(x), float(y))
    if q != q or q == INF or q == -INF or q == 0.0:
        return q
    return float(math.floor(q))


def mod(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__mod", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        if y == 0:
            rt_error("attempt to perform 'n%0'")
        return x % y
    return fmod_lua(float(x), float(y))


def fmod_lua(x: float, y: float) -> float:
    """Lua's float modulo: C fmod, then moved toward the divisor's sign."""
    if y == 0.0 or x != x or y != y or math.isinf(x):
        return DEFAULT_NAN
    if math.isinf(y):
        if x == 0.0 or (x > 0) == (y > 0):
            return x
        return y
    r = math.fmod(x, y)
    if r != 0.0 and (r < 0) != (y < 0):
        r += y
    return r


def pow_(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__pow", da, db)
    x, y = float(n[0]), float(n[1])
    try:
        return math.pow(x, y)
    except OverflowError:
        return INF if x > 0 or y % 2 == 0 else -INF
    except ValueError:
        if x == 0.0 and y < 0:
            return INF if (y % 2 != 1 or math.copysign(1.0, x) > 0) else -INF
        return DEFAULT_NAN


def unm(a, da=None):
    t = type(a)
    if t is int:
        return wrap(-a)
    if t is float:
        return -a
    h = getmetamethod(a, "__unm")
    if h is not None:
        return first(call(h, a, a))
    rt_error(f"attempt to perform arithmetic on a {type_name(a)} value{_desc(da)}")


_ARITH = {}  # event -> binary function on numbers; filled below


# --------------------------------------------------------------- bitwise


def _ints(a, b, event, da, db):
    x = a if type(a) is int else float_to_int(a) if type(a) is float else None
    y = b if type(b) is int else float_to_int(b) if type(b) is float else None
    if x is None or y is None:
        return None
    return x, y


def band(a, b, da=None, db=None):
    n = _ints(a, b, "__band", da, db)
    if n is None:
        return _arith_meta(a, b, "__band", da, db)
    return n[0] & n[1]


def bor(a, b, da=None, db=None):
    n = _ints(a, b, "__bor", da, db)
    if n is None:
        return _arith_meta(a, b, "__bor", da, db)
    return n[0] | n[1]


def bxor(a, b, da=None, db=None):
    n = _ints(a, b, "__bxor", da, db)
    if n is None:
        return _arith_meta(a, b, "__bxor", da, db)
    return n[0] ^ n[1]


def shl(a, b, da=None, db=None):
    n = _ints(a, b, "__shl", da, db)
    if n is None:
        return _arith_meta(a, b, "__shl", da, db)
    return shift_left(n[0], n[1])


def shr(a, b, da=None, db=None):
    n = _ints(a, b, "__shr", da, db)
    if n is None:
        return _arith_meta(a, b, "__shr", da, db)
    return shift_left(n[0], -n[1])


def shift_left(x: int, y: int) -> int:
    """Lua's logical shift on 64-bit integers (negative y shifts right)."""
    if y <= -64 or y >= 64:
        return 0
    u = x & 0xFFFFFFFFFFFFFFFF
    u = (u << y) & 0xFFFFFFFFFFFFFFFF if y >= 0 else u >> -y
    return u - 2**64 if u > MAXI else u


def bnot(a, da=None):
    x = a if type(a) is int else float_to_int(a) if type(a) is float else None
    if x is not None:
        return ~x
    h = getmetamethod(a, "__bnot")
    if h is not None:
        return first(call(h, a, a))
    if type(a) is float:
        rt_error("number has no integer representation")
    rt_error(f"attempt to perform bitwise operation on a {type_name(a)} value{_desc(da)}")


# ----------------------------------------------------------- comparisons


def eq(a, b) -> bool:
    """a == b with __eq (tables and userdata only)."""
    if a is b:
        return a == a  # NaN is not equal to itself
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is LuaTable:
            h = getmetamethod(a, "__eq")
            if h is None:
                h = getmetamethod(b, "__eq")
            if h is None:
                return False
            r = first(call(h, a, b))
            return r is not None and r is not False
        if isinstance(a, Userdata):
            return bool(a.lua_eq(b))
        return a == b
    if (ta is int and tb is float) or (ta is float and tb is int):
        return a == b
    if isinstance(a, Userdata) and isinstance(b, Userdata):
        return bool(a.lua_eq(b))
    return False


def lt(a, b) -> bool:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a < b
    if ta is str and tb is str:
        return a < b
    h = getmetamethod(a, "__lt")
    if h is None:
        h = getmetamethod(b, "__lt")
    if h is not None:
        r = first(call(h, a, b))
        return r is not None and r is not False
    _compare_error(a, b)


def le(a, b) -> bool:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a <= b
    if ta is str and tb is str:
        return a <= b
    h = getmetamethod(a, "__le")
    if h is None:
        h = getmetamethod(b, "__le")
    if h is not None:
        r = first(call(h, a, b))
        return r is not None and r is not False
    _compare_error(a, b)


def _compare_error(a, b):
    t1, t2 = type_name(a), type_name(b)
    if t1 == t2:
        rt_error(f"attempt to compare two {t1} values")
    rt_error(f"attempt to compare {t1} with {t2}")


# ---------------------------------------------------------- concat, len


def concat(a, b, da=None, db=None):
    ta, tb = type(a), type(b)
    if (ta is str or ta is int or ta is float) and (tb is str or tb is int or tb is float):
        s = (a if ta is str else fmt_number(a)) + (b if tb is str else fmt_number(b))
        check_string_size(len(s))
        return s
    h = getmetamethod(a, "__concat")
    if h is None:
        h = getmetamethod(b, "__concat")
    if h is not None:
        return first(call(h, a, b))
    if ta is str or ta is int or ta is float:
        rt_error(f"attempt to concatenate a {type_name(b)} value{_desc(db)}")
    rt_error(f"attempt to concatenate a {type_name(a)} value{_desc(da)}")


def length(v, desc=None):
    t = type(v)
    if t is str:
        return len(v)
    if t is LuaTable:
        m = v.meta
        if m is not None:
            h = m.hash.get("__len")
            if h is not None:
                return first(call(h, v))
        return v.length()
    h = getmetamethod(v, "__len")
    if h is not None:
        return first(call(h, v))
    if isinstance(v, Userdata):
        return v.lua_len()
    rt_error(f"attempt to get length of a {type_name(v)} value{_desc(desc)}")


# ---------------------------------------------------------------- limits

#: the largest string an operation may build; the sandbox lowers it
MAX_STRING = [2**31]


def check_string_size(n: int) -> None:
    if n > MAX_STRING[0]:
        from .errors import LimitExceeded

        raise LimitExceeded(f"{_where()}memory limit exceeded (string of {n} bytes)")


def _where():
    from .errors import current_where

    return current_where()


_ARITH.update(
    __add=add, __sub=sub, __mul=mul, __div=div, __mod=mod, __pow=pow_, __idiv=idiv,
    __unm=lambda a, b: unm(a),
)


def _not_tail_codes():
    from .errors import BUILTIN_CODES

    class _Codes:
        """Code objects a tail call runs at once: builtins and the wrappers
        above (the set of builtins grows as libraries open)."""

        extra = {_call_tm(None, None).__code__, _call_ud(None).__code__, _fail_call("").__code__,
                 _renumbered(None, "").__code__}

        def __contains__(self, code):
            return code in BUILTIN_CODES or code in self.extra

    return _Codes()


_NOT_TAIL = _not_tail_codes()
