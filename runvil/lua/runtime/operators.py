"""The slow paths of Lua's operators: what compiled code calls when its
inline fast path does not apply — coercions, metamethods, and Lua's own
error messages naming the operand (`local 'x'`, `field 'y'`)."""

from __future__ import annotations


from .calldepth import NeedsContext
from .calls import meta_call
from .machine import RUNNING
from .memory import INLINE_CONCAT, TINY_RESULT, charge_steps, check_string_size, count_unreserved, reserve_memory
from ..errors import rt_error
from ..numbers import float_div, float_idiv, float_pow, float_to_int, fmod_lua, fmt_number, shift_left, tonumber, wrap  # noqa: F401
from .tables import LuaTable
from .values import Multi, Userdata, _desc, first, getmetamethod, is_number, obj_typename, type_name

# ------------------------------------------------------------- arithmetic


def _arith_meta(a, b, event: str, da, db):
    """trybinTM: the operands' metamethod, else Lua's error for the operator."""
    if type(a) is LuaTable and (m := a.meta) is not None and (h := m.hash.get(event)) is not None:
        pass  # the common case, read inline: an object whose class has the event
    else:
        h = _metamethod2(a, b, event)
    if h is not None:
        r = meta_call(h, a, b)
        return first(r) if type(r) is Multi else r
    if event in _BITWISE:
        if is_number(a) and is_number(b):
            d = da if type(a) is float and float_to_int(a) is None else db
            rt_error(f"number{_desc(d)} has no integer representation")
        what = "perform bitwise operation on"
    else:
        what = "perform arithmetic on"
    bad, d = (b, db) if is_number(a) else (a, da)
    rt_error(f"attempt to {what} a {obj_typename(bad)} value{_desc(d)}")


_BITWISE = {"__band", "__bor", "__bxor", "__shl", "__shr", "__bnot"}


def string_arith(event: str, a, b):
    """The string metatable's arithmetic metamethods (lstrlib's `arith`):
    numeric strings are converted, anything else is Lua's trymt error."""
    x, y = tonumber(a), tonumber(b)
    if x is not None and y is not None:
        return _ARITH[event](x, y)
    if type(b) is str or (h := getmetamethod(b, event)) is None:
        rt_error(f"attempt to {event[2:]} a '{type_name(a)}' with a '{type_name(b)}'")
    return first(meta_call(h, a, b))


def _nums(a, b):
    """Both operands if both are numbers (no string coercion: strings go
    through the string metatable, as in Lua 5.4), else None."""
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a, b
    return None


def add(a, b, da=None, db=None):
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if ta is int and tb is int:
            return wrap(a + b)
        return float(a) + float(b)
    if ta is LuaTable and (m := a.meta) is not None and (h := m.hash.get("__add")) is not None:
        r = meta_call(h, a, b)  # an object whose class has the event (_arith_meta's first case, inline)
        return first(r) if type(r) is Multi else r
    return _arith_meta(a, b, "__add", da, db)


def sub(a, b, da=None, db=None):
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if ta is int and tb is int:
            return wrap(a - b)
        return float(a) - float(b)
    if ta is LuaTable and (m := a.meta) is not None and (h := m.hash.get("__sub")) is not None:
        r = meta_call(h, a, b)  # an object whose class has the event (_arith_meta's first case, inline)
        return first(r) if type(r) is Multi else r
    return _arith_meta(a, b, "__sub", da, db)


def mul(a, b, da=None, db=None):
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if ta is int and tb is int:
            return wrap(a * b)
        return float(a) * float(b)
    if ta is LuaTable and (m := a.meta) is not None and (h := m.hash.get("__mul")) is not None:
        r = meta_call(h, a, b)  # an object whose class has the event (_arith_meta's first case, inline)
        return first(r) if type(r) is Multi else r
    return _arith_meta(a, b, "__mul", da, db)


def div(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__div", da, db)
    return float_div(float(n[0]), float(n[1]))


def idiv(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__idiv", da, db)
    x, y = n
    if type(x) is int and type(y) is int:
        if y == 0:
            rt_error("attempt to divide by zero")
        return wrap(x // y)
    return float_idiv(float(x), float(y))


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


def pow_(a, b, da=None, db=None):
    n = _nums(a, b)
    if n is None:
        return _arith_meta(a, b, "__pow", da, db)
    return float_pow(float(n[0]), float(n[1]))


def unm(a, da=None):
    t = type(a)
    if t is int:
        return wrap(-a)
    if t is float:
        return -a
    h = getmetamethod(a, "__unm")
    if h is not None:
        return first(meta_call(h, a, a))
    rt_error(f"attempt to perform arithmetic on a {obj_typename(a)} value{_desc(da)}")


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


def bnot(a, da=None):
    x = a if type(a) is int else float_to_int(a) if type(a) is float else None
    if x is not None:
        return ~x
    h = getmetamethod(a, "__bnot")
    if h is not None:
        return first(meta_call(h, a, a))
    if type(a) is float:
        rt_error(f"number{_desc(da)} has no integer representation")
    rt_error(f"attempt to perform bitwise operation on a {obj_typename(a)} value{_desc(da)}")


# ----------------------------------------------------------- comparisons


def eq(a, b) -> bool:
    """a == b with __eq (tables and userdata only)."""
    if a is b:
        return a == a  # NaN is not equal to itself
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is LuaTable:
            m = a.meta  # the first operand's metamethod, else the second's, inline
            h = m.hash.get("__eq") if m is not None else None
            if h is None:
                m = b.meta
                h = m.hash.get("__eq") if m is not None else None
                if h is None:
                    return False
            r = meta_call(h, a, b)
            if type(r) is Multi:
                r = first(r)
            return r is not None and r is not False
        if isinstance(a, Userdata):
            return bool(a.lua_eq(b))
        return a == b
    if (ta is int and tb is float) or (ta is float and tb is int):
        return a == b
    if isinstance(a, Userdata) and isinstance(b, Userdata):
        return bool(a.lua_eq(b))
    return False


def _metamethod2(a, b, event: str):
    """The first operand's metamethod for `event`, else the second's (a
    table's metatable read inline)."""
    if type(a) is LuaTable:
        m = a.meta
        h = m.hash.get(event) if m is not None else None
    else:
        h = getmetamethod(a, event)
    if h is None:
        if type(b) is LuaTable:
            m = b.meta
            return m.hash.get(event) if m is not None else None
        return getmetamethod(b, event)
    return h


def lt(a, b) -> bool:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a < b
    if ta is str and tb is str:
        return a < b
    if ta is LuaTable and (m := a.meta) is not None and (h := m.hash.get("__lt")) is not None:
        pass  # the common case, read inline: an object whose class has the event
    else:
        h = _metamethod2(a, b, "__lt")
    if h is not None:
        r = meta_call(h, a, b)
        if type(r) is Multi:
            r = first(r)
        return r is not None and r is not False
    _compare_error(a, b)


def le(a, b) -> bool:
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return a <= b
    if ta is str and tb is str:
        return a <= b
    if ta is LuaTable and (m := a.meta) is not None and (h := m.hash.get("__le")) is not None:
        pass  # the common case, read inline: an object whose class has the event
    else:
        h = _metamethod2(a, b, "__le")
    if h is not None:
        r = meta_call(h, a, b)
        if type(r) is Multi:
            r = first(r)
        return r is not None and r is not False
    h = _metamethod2(b, a, "__lt")  # no __le: not (b < a), as Lua built with LUA_COMPAT_5_3 (its makefile's) does
    if h is not None:
        try:
            r = meta_call(h, b, a)
        except NeedsContext as e:  # a twin runs the metamethod itself: it negates the result too
            e.args = (*e.args, True)
            raise
        if type(r) is Multi:
            r = first(r)
        return r is None or r is False
    _compare_error(a, b)


def _compare_error(a, b):
    t1, t2 = obj_typename(a), obj_typename(b)
    if t1 == t2:
        rt_error(f"attempt to compare two {t1} values")
    rt_error(f"attempt to compare {t1} with {t2}")


# ---------------------------------------------------------- concat, len


def concat(a, b, da=None, db=None):
    ta, tb = type(a), type(b)
    if (ta is str or ta is int or ta is float) and (tb is str or tb is int or tb is float):
        a = a if ta is str else fmt_number(a)
        b = b if tb is str else fmt_number(b)
        n = len(a) + len(b)
        if n > INLINE_CONCAT:
            reserve_memory(n)  # counted against the memory limit before it is built
            charge_steps(n >> 6)  # and its copy in steps (stdlib/limits.py)
        elif n > TINY_RESULT:
            check_string_size(n)
            count_unreserved(n)
        return a + b
    h = getmetamethod(a, "__concat")
    if h is None:
        h = getmetamethod(b, "__concat")
    if h is not None:
        return first(meta_call(h, a, b))
    if ta is str or ta is int or ta is float:
        rt_error(f"attempt to concatenate a {obj_typename(b)} value{_desc(db)}")
    rt_error(f"attempt to concatenate a {obj_typename(a)} value{_desc(da)}")


def length(v, desc=None):
    t = type(v)
    if t is str:
        return len(v)
    if t is LuaTable:
        m = v.meta
        if m is not None:
            h = m.hash.get("__len")
            if h is not None:
                return first(meta_call(h, v, v))  # Lua passes the operand twice
        return v.length()
    h = getmetamethod(v, "__len")
    if h is not None:
        return first(meta_call(h, v, v))
    if isinstance(v, Userdata):
        return v.lua_len()
    rt_error(f"attempt to get length of a {obj_typename(v)} value{_desc(desc)}")


_ARITH.update(
    __add=add, __sub=sub, __mul=mul, __div=div, __mod=mod, __pow=pow_, __idiv=idiv,
    __unm=lambda a, b: unm(a),
)
