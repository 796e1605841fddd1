"""Lua 5.4's `os` library (loslib.c). The sandbox has `time`, `clock` and
`date`; what touches files, processes or the environment (`getenv`,
`exit`, `remove`, `rename`, `tmpname`, `difftime`, `setlocale`, and
`execute`) only a host's grant opens (`open_host`, `open_process`).

Dates go through the C library as in Lua (Python's `time` module wraps
localtime/gmtime/mktime/strftime), in the C locale.
"""

from __future__ import annotations

import os as _os
import sys as _sys
import time as _time

from ..runtime import values as V
from ..runtime import indexing as LI
from ..runtime.args import arg_error, check_int, check_str, type_error
from ..errors import lua_error as _error
from ..runtime.tables import LuaTable
from . import lib_table



_INT_MAX = 2**31 - 1
_INT_MIN = -(2**31)
#: years (since 1900) beyond which os.time computes 400 years nearer
_FAR = 8000
_SECS_400Y = 146097 * 86400

#: conversions strftime accepts (ISO C99 and POSIX), by length
_OPTIONS_1 = set("aAbBcCdDeFgGhHIjmMnprRStTuUVwWxXyYzZ%")
_OPTIONS_2 = {
    "Ec", "EC", "Ex", "EX", "Ey", "EY",
    "Od", "Oe", "OH", "OI", "Om", "OM", "OS", "Ou", "OU", "OV", "Ow", "OW", "Oy",
}


# --------------------------------------------------------------- fields


def _getfield(t, key: str, d: int, delta: int) -> int:
    v = LI.index(t, key)
    res = V.tointeger(v)
    if res is None:
        if v is not None:
            _error(f"field '{key}' is not an integer")
        if d < 0:
            _error(f"field '{key}' missing in date table")
        return d
    if not (res - delta <= _INT_MAX if res >= 0 else _INT_MIN + delta <= res):
        _error(f"field '{key}' is out-of-bound")
    return res - delta


def _getboolfield(t, key: str) -> int:
    v = LI.index(t, key)
    if v is None:
        return -1
    return 0 if v is False else 1


def _setallfields(t, st, year_shift: int = 0) -> None:
    """Stores a struct_time in t as Lua's setallfields does."""
    LI.setindex(t, "year", st.tm_year + year_shift)
    LI.setindex(t, "month", st.tm_mon)
    LI.setindex(t, "day", st.tm_mday)
    LI.setindex(t, "hour", st.tm_hour)
    LI.setindex(t, "min", st.tm_min)
    LI.setindex(t, "sec", st.tm_sec)
    LI.setindex(t, "yday", st.tm_yday)
    LI.setindex(t, "wday", (st.tm_wday + 1) % 7 + 1)  # Python: Monday is 0
    if st.tm_isdst >= 0:
        LI.setindex(t, "isdst", bool(st.tm_isdst))


# ---------------------------------------------------------------- time


def o_time(*args):
    if not args or args[0] is None:
        return int(_time.time())
    if type(args[0]) is not LuaTable:
        type_error(args, 1, "time", "table")
    t = args[0]
    year = _getfield(t, "year", -1, 1900)
    month = _getfield(t, "month", -1, 1)
    day = _getfield(t, "day", -1, 0)
    hour = _getfield(t, "hour", 12, 0)
    minute = _getfield(t, "min", 0, 0)
    sec = _getfield(t, "sec", 0, 0)
    isdst = _getboolfield(t, "isdst")
    # The Gregorian calendar repeats every 400 years (146097 days, a whole
    # number of weeks): far years are moved near enough for Python's mktime
    # (C int years, float seconds) to be exact, then moved back.
    shift = 0
    if year > _FAR:
        shift = (year - _FAR) // 400 * 400
    elif year < -_FAR:
        shift = -((-_FAR - year + 399) // 400 * 400)
    try:
        r = _time.mktime((year - shift + 1900, month + 1, day, hour, minute, sec, 0, 1, isdst))
        st = _time.localtime(r)
        if not _INT_MIN <= st.tm_year + shift - 1900 <= _INT_MAX:
            raise OverflowError
    except (OverflowError, ValueError, OSError):
        # C's mktime failed: Lua still stores the fields it was given
        st = _time.struct_time((year + 1900, month + 1, day, hour, minute, sec, 6, 1, isdst))
        _setallfields(t, st)
        _error("time result cannot be represented in this installation")
    r = int(r) + shift // 400 * _SECS_400Y
    _setallfields(t, st, shift)
    if r == -1 or not V.MINI <= r <= V.MAXI:
        _error("time result cannot be represented in this installation")
    return r


def o_clock(*args):
    return _time.process_time()


# ---------------------------------------------------------------- date


def _checkoption(conv: str, fname: str) -> str:
    """The conversion at the start of conv (after '%'), as loslib's
    checkoption: one-char options, then two-char ones."""
    if conv[:1] in _OPTIONS_1:
        return conv[:1]
    if conv[:2] in _OPTIONS_2:
        return conv[:2]
    shown = conv.split("\0", 1)[0]
    arg_error(1, fname, f"invalid conversion specifier '%{shown}'")


def _strftime(spec: str, st) -> str:
    out = _time.strftime("%" + spec, st)
    # strftime writes bytes; Python decodes them with the locale encoding
    try:
        b = out.encode("utf-8", "surrogateescape")
    except UnicodeError:
        return out
    return b.decode("latin-1") if len(b) <= 250 else ""


def o_date(*args):
    from ..runtime.pieces import charge_items

    s = check_str(args, 1, "date") if args and args[0] is not None else "%c"
    if len(args) >= 2 and args[1] is not None:
        tm = check_int(args, 2, "date")
    else:
        tm = int(_time.time())
    utc = s.startswith("!")
    if utc:
        s = s[1:]
    try:
        st = _time.gmtime(tm) if utc else _time.localtime(tm)
    except (OverflowError, ValueError, OSError):
        st = None
    if st is None:
        _error("date result cannot be represented in this installation")
    if s.split("\0", 1)[0] == "*t":
        t = LuaTable()
        _setallfields(t, st)
        return t
    out = []
    i = 0
    n = len(s)
    while i < n:
        j = s.find("%", i)
        if j < 0:
            out.append(s[i:])
            break
        out.append(s[i:j])
        if len(out) % 8192 == 8191:  # a long format (two parts a conversion): the limits checked as it goes
            charge_items(4096)
        conv = s[j + 1 : j + 3]  # (not the whole rest at each '%': quadratic; the rest only for the error)
        spec = _checkoption(conv if conv[:1] in _OPTIONS_1 or conv in _OPTIONS_2 else s[j + 1 :], "date")
        try:
            out.append(_strftime(spec, st))
        except (OverflowError, ValueError):
            # years past C's int range, which C's strftime wraps around
            _error("date result cannot be represented in this installation")
        i = j + 1 + len(spec)
    r = "".join(out)
    V.reserve_memory(len(r))
    return r


# ------------------------------------------------------------- opening


def open_lib(state) -> None:
    lib = lib_table({"clock": o_clock, "date": o_date, "time": o_time}, "os.")
    state.G.set_str("os", lib)


# ------------------------------------------------- granted by the host


class LuaExit(BaseException):
    """`os.exit(code)`: ends the Lua run (not the host's process: the host
    that ran it returns `code`). Not a Lua error, so no pcall stops it."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


def _path(name: str) -> str:
    return name.encode("latin-1").decode("utf-8", "surrogateescape")


def _fileresult(e: OSError, filename: str):
    return V.Multi((None, f"{filename}: {e.strerror}", e.errno or 0))


def o_getenv(*args):
    name = check_str(args, 1, "getenv")
    value = _os.environ.get(_path(name))
    return None if value is None else value.encode("utf-8", "surrogateescape").decode("latin-1")


def o_exit(*args):
    status = args[0] if args else None
    if status is None or status is True:
        code = 0
    elif status is False:
        code = 1
    else:
        code = check_int(args, 1, "exit")
    raise LuaExit(code)


def o_remove(*args):
    name = check_str(args, 1, "remove")
    try:
        if _os.path.isdir(_path(name)) and not _os.path.islink(_path(name)):
            _os.rmdir(_path(name))  # C's remove takes empty folders too
        else:
            _os.remove(_path(name))
    except OSError as e:
        return _fileresult(e, name)
    return True


def o_rename(*args):
    old = check_str(args, 1, "rename")
    new = check_str(args, 2, "rename")
    try:
        _os.rename(_path(old), _path(new))
    except OSError as e:  # (loslib.c names no file here)
        return V.Multi((None, e.strerror, e.errno or 0))
    return True


def o_tmpname(*args):
    """A new empty file's name, `/tmp/lua_XXXXXX` as loslib.c's mkstemp."""
    import random
    import tempfile

    folder = "/tmp" if _os.path.isdir("/tmp") else tempfile.gettempdir()
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    for _ in range(100):
        name = _os.path.join(folder, "lua_" + "".join(random.choices(letters, k=6)))
        try:
            _os.close(_os.open(name, _os.O_CREAT | _os.O_EXCL | _os.O_RDWR, 0o600))
        except FileExistsError:
            continue
        except OSError:
            break
        return name.encode("utf-8", "surrogateescape").decode("latin-1")
    _error("unable to generate a unique filename")


def o_difftime(*args):
    t1 = check_int(args, 1, "difftime")
    t2 = check_int(args, 2, "difftime")  # (5.4.4 requires both)
    return float(t1 - t2)


def o_setlocale(*args):
    locale = args[0] if args else None
    if locale is not None:
        locale = check_str(args, 1, "setlocale")
    category = args[1] if len(args) > 1 and args[1] is not None else "all"
    if category not in ("all", "collate", "ctype", "monetary", "numeric", "time"):
        arg_error(2, "setlocale", f"invalid option '{category}'")
    return "C" if locale in (None, "", "C", "POSIX") else None


def o_execute(*args):
    from ...threads import start_shell

    if not args or args[0] is None:
        return True  # a shell is there
    command = check_str(args, 1, "execute")
    for stream in (_sys.stdout, _sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        child = start_shell(_path(command))
    except OSError as e:
        return _fileresult(e, command)
    with child:  # as subprocess.call waits
        try:
            code = child.wait()
        except BaseException:
            child.kill()
            raise
    if code < 0:
        return V.Multi((None, "signal", -code))
    return V.Multi((True if code == 0 else None, "exit", code))


def open_host(state) -> None:
    """The rest of Lua's os, for a host that grants it (`--allow os`)."""
    funcs = {"difftime": o_difftime, "exit": o_exit, "getenv": o_getenv, "remove": o_remove, "rename": o_rename,
             "setlocale": o_setlocale, "tmpname": o_tmpname}
    os_table = state.G.get("os")
    for name, f in lib_table(funcs, "os.").hash.items():
        os_table.set_str(name, f)


def open_process(state) -> None:
    """`os.execute` (the `process` grant)."""
    state.G.get("os").set_str("execute", lib_table({"execute": o_execute}, "os.").hash["execute"])
