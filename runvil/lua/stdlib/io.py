"""Lua 5.4's `io` library (liolib.c), opened only by a grant of the host
(`runvil lua --allow io`): files are Python binary files behind a `FILE*`
userdata whose metatable has Lua's methods; the standard files write to
and read from whatever `sys.stdout`, `sys.stderr` and `sys.stdin` are when
they are used (an embedding host may redirect them to text streams, which
get the bytes decoded as UTF-8 with surrogate escapes). `io.popen` exists
only with the `process` grant.
"""

from __future__ import annotations

import sys
from types import FunctionType

from ..debuginfo import builtin
from ..errors import lua_error
from ..runtime import values as V
from ..runtime.args import arg_error, check_int, check_str, opt_str, type_error
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, Multi, Userdata
from . import lib_table

#: the longest numeral `read('n')` takes (L_MAXLENNUM)
MAX_NUMERAL = 200
_MODES = {"r", "w", "a", "r+", "w+", "a+"}


class StdStream:
    """One of the process's standard files, found when used."""

    def __init__(self, name: str):
        self.name = name

    def _stream(self):
        return getattr(sys, self.name)

    def write(self, data: bytes) -> None:
        stream = self._stream()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.write(data)
            if self.name == "stderr":  # unbuffered, as C's stderr
                buffer.flush()
        else:
            stream.write(data.decode("utf-8", "surrogateescape"))

    def read(self, n: int = -1) -> bytes:
        stream = self._stream()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            return buffer.read(n) if n >= 0 else buffer.read()
        text = stream.read(n) if n >= 0 else stream.read()
        return text.encode("utf-8", "surrogateescape")

    def readline(self) -> bytes:
        stream = self._stream()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            return buffer.readline()
        return stream.readline().encode("utf-8", "surrogateescape")

    def flush(self) -> None:
        stream = self._stream()
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            buffer.flush()

    def seek(self, offset: int, whence: int) -> int:
        raise OSError(29, "Illegal seek")

    def close(self) -> None:
        pass


class LuaFile(Userdata):
    """A `FILE*`: a Python binary file (or StdStream), with one byte of
    look-ahead put back, as C's ungetc."""

    __slots__ = ("fh", "meta", "closed", "pushed", "std", "process")
    lua_type_name = "FILE*"

    def __init__(self, fh, meta, std: bool = False, process=None):
        self.fh = fh
        self.meta = meta
        self.closed = False
        self.pushed = b""
        self.std = std
        self.process = process  # io.popen's child

    def lua_index(self, key):
        return V.getmetatable(self).hash["__index"].get(key)

    def lua_tostring(self) -> str:
        return "file (closed)" if self.closed else f"file (0x{id(self):x})"

    # ------------------------------------------------------- byte access

    def getc(self) -> bytes:
        if self.pushed:
            c, self.pushed = self.pushed[:1], self.pushed[1:]
            return c
        return self.fh.read(1)

    def ungetc(self, c: bytes) -> None:
        if c:
            self.pushed = c + self.pushed

    def read(self, n: int) -> bytes:
        head = self.pushed[:n] if n >= 0 else self.pushed
        self.pushed = self.pushed[len(head):]
        if n >= 0:
            return head + (self.fh.read(n - len(head)) if n > len(head) else b"")
        return head + self.fh.read()

    def readline(self) -> bytes:
        if self.pushed:
            if b"\n" in self.pushed:
                line, _, self.pushed = self.pushed.partition(b"\n")
                return line + b"\n"
            head, self.pushed = self.pushed, b""
            return head + self.fh.readline()
        return self.fh.readline()


def _text(b: bytes) -> str:
    return b.decode("latin-1")


def _bytes(s: str) -> bytes:
    return s.encode("latin-1")


def fileresult(ok: bool, filename: str | None, e: OSError | None = None):
    """luaL_fileresult: true, or fail, the message and the error number."""
    if ok:
        return True
    text = e.strerror or str(e)
    message = f"{filename}: {text}" if filename is not None else text
    return Multi((None, message, e.errno or 0))


def _check_open(args, fname: str) -> LuaFile:
    f = args[0] if args else None
    if type(f) is not LuaFile:
        type_error(args, 1, fname, "FILE*")
    if f.closed:
        lua_error("attempt to use a closed file")
    return f


# --------------------------------------------------------------- reading


def _read_number(f: LuaFile):
    """l_getn: the longest prefix that can be a numeral, then tonumber."""
    buff = []
    c = f.getc()
    while c and c in b" \t\n\v\f\r":
        c = f.getc()

    def take(chars: bytes):
        nonlocal c
        if c and c in chars and len(buff) < MAX_NUMERAL:
            buff.append(c)
            c = f.getc()
            return True
        return False

    def digits(hex_: bool) -> int:
        n = 0
        while take(b"0123456789abcdefABCDEF" if hex_ else b"0123456789"):
            n += 1
        return n

    take(b"-+")
    count, hex_ = 0, False
    if take(b"0"):
        if take(b"xX"):
            hex_ = True
        else:
            count = 1
    count += digits(hex_)
    if take(b"."):
        count += digits(hex_)
    if count > 0 and take(b"pP" if hex_ else b"eE"):
        take(b"-+")
        digits(False)
    f.ungetc(c)
    n = V.str2number(_text(b"".join(buff)))
    return (n is not None), n


def _read_line(f: LuaFile, chop: bool):
    line = f.readline()
    if not line:
        return False, ""
    if chop and line.endswith(b"\n"):
        line = line[:-1]
    return True, _text(line)


def g_read(f: LuaFile, args, first: int, fname: str):
    """g_read: each format's value, and fail for the first that fails."""
    formats = args[first - 1:]
    results = []
    try:
        if not formats:
            ok, v = _read_line(f, True)
            return v if ok else None
        for i, fmt in enumerate(formats, first):
            if type(fmt) in (int, float):
                n = check_int(args, i, fname)
                if n == 0:
                    c = f.getc()
                    f.ungetc(c)
                    ok, v = bool(c), ""
                else:
                    data = f.read(max(n, 0))
                    ok, v = bool(data), _text(data)
            else:
                p = check_str(args, i, fname)
                p = p[1:] if p[:1] == "*" else p
                k = p[:1]
                if k == "n":
                    ok, v = _read_number(f)
                elif k == "l":
                    ok, v = _read_line(f, True)
                elif k == "L":
                    ok, v = _read_line(f, False)
                elif k == "a":
                    ok, v = True, _text(f.read(-1))
                else:
                    arg_error(i, fname, "invalid format")
            V.reserve_memory(len(v) if type(v) is str else 0)
            results.append(v if ok else None)
            if not ok:
                break
    except OSError as e:
        return fileresult(False, None, e)
    return Multi(tuple(results))


def g_write(f: LuaFile, args, first: int, fname: str):
    parts = []
    for i in range(first, len(args) + 1):
        v = args[i - 1]
        if type(v) is int:
            parts.append(str(v))
        elif type(v) is float:
            parts.append(V.fmt_number(v) if v != v or v in (float("inf"), float("-inf")) else "%.14g" % v)
        else:
            parts.append(check_str(args, i, fname))
    try:
        f.fh.write(_bytes("".join(parts)))
    except OSError as e:
        return fileresult(False, None, e)
    return f


# ------------------------------------------------------------- the library


class IoLib:
    """One state's io: its metatable of file methods and its default files."""

    def __init__(self, state, process: bool):
        self.state = state
        methods = lib_table({
            "close": self._builtin("close", lambda *a: self.close_file(_check_open(a, "close"))),
            "flush": self._builtin("flush", lambda *a: self.flush(_check_open(a, "flush"))),
            "lines": self._builtin("lines", lambda *a: self.lines(_check_open(a, "lines"), a, 2, False)),
            "read": self._builtin("read", lambda *a: g_read(_check_open(a, "read"), a, 2, "read")),
            "seek": self._builtin("seek", self.seek),
            "setvbuf": self._builtin("setvbuf", self.setvbuf),
            "write": self._builtin("write", lambda *a: g_write(_check_open(a, "write"), a, 2, "write")),
        })
        meta = self.meta = LuaTable()
        meta.set_str("__index", methods)
        meta.set_str("__name", "FILE*")
        meta.set_str("__tostring", builtin(named_builtin("tostring", lambda *a: a[0].lua_tostring())))
        meta.set_str("__close", builtin(named_builtin("close", self._gc)))
        meta.set_str("__gc", builtin(named_builtin("gc", self._gc)))
        self.stdin = LuaFile(StdStream("stdin"), meta, std=True)
        self.stdout = LuaFile(StdStream("stdout"), meta, std=True)
        self.stderr = LuaFile(StdStream("stderr"), meta, std=True)
        self.input, self.output = self.stdin, self.stdout
        funcs = {
            "close": self.io_close, "flush": self.io_flush, "input": self.io_input, "lines": self.io_lines,
            "open": self.io_open, "output": self.io_output, "read": self.io_read, "tmpfile": self.io_tmpfile,
            "type": self.io_type, "write": self.io_write,
        }
        if process:
            funcs["popen"] = self.io_popen
        self.table = lib_table({name: self._builtin(name, f) for name, f in funcs.items()}, "io.")
        for name in ("stdin", "stdout", "stderr"):
            self.table.set_str(name, getattr(self, name))

    @staticmethod
    def _builtin(name: str, f):
        return named_builtin(name, f)

    # ---------------------------------------------------------- handles

    def close_file(self, f: LuaFile):
        if f.std:
            return Multi((None, "cannot close standard file"))
        f.closed = True
        try:
            f.fh.close()
        except OSError as e:
            return fileresult(False, None, e)
        if f.process is not None:
            code = f.process.wait()
            if code < 0:
                return Multi((None, "signal", -code))
            return Multi((True if code == 0 else None, "exit", code))
        return True

    def _gc(self, *args):
        f = args[0] if args else None
        if type(f) is LuaFile and not f.closed and not f.std:
            self.close_file(f)
        return EMPTY

    def flush(self, f: LuaFile):
        try:
            f.fh.flush()
        except OSError as e:
            return fileresult(False, None, e)
        return f

    def seek(self, *args):
        f = _check_open(args, "seek")
        whence = {"set": 0, "cur": 1, "end": 2}.get(opt_str(args, 2, "seek", "cur"))
        if whence is None:
            arg_error(2, "seek", f"invalid option '{args[1]}'")
        offset = args[2] if len(args) > 2 and args[2] is not None else 0
        if type(offset) is not int:
            offset = check_int(args, 3, "seek")
        try:
            if f.pushed and whence == 1:
                offset -= len(f.pushed)
            f.pushed = b""
            return f.fh.seek(offset, whence)
        except (OSError, ValueError) as e:
            return fileresult(False, None, e if isinstance(e, OSError) else OSError(22, "Invalid argument"))

    def setvbuf(self, *args):
        _check_open(args, "setvbuf")
        mode = check_str(args, 2, "setvbuf")
        if mode not in ("no", "full", "line"):
            arg_error(2, "setvbuf", f"invalid option '{mode}'")
        return True

    def lines(self, f: LuaFile, args, first: int, close: bool):
        formats = tuple(args[first - 1:])
        if len(formats) > 250:
            arg_error(first + 250, "lines", "too many arguments")

        def iterate(*_):
            if f.closed:
                lua_error("file is already closed")
            values = g_read(f, (f, *formats), 2, "lines")
            value = values[0] if type(values) is Multi and values else values
            if value is None:
                if type(values) is Multi and len(values) > 1 and type(values[1]) is str:
                    lua_error(values[1])
                if close:
                    self.close_file(f)
                return None
            return values

        return builtin(iterate)

    # ----------------------------------------------------------- io.*

    def _open(self, filename: str, mode: str) -> LuaFile:
        path = filename.encode("latin-1").decode("utf-8", "surrogateescape")
        m = mode.replace("b", "")
        flags = {"r": "rb", "w": "wb", "a": "ab", "r+": "r+b", "w+": "w+b", "a+": "a+b"}[m]
        return LuaFile(open(path, flags), self.meta)

    def io_open(self, *args):
        filename = check_str(args, 1, "open")
        mode = opt_str(args, 2, "open", "r")
        base = mode.replace("b", "", 1) if mode.endswith("b") else mode
        if base not in _MODES:
            arg_error(2, "open", "invalid mode")
        try:
            return self._open(filename, base)
        except OSError as e:
            return fileresult(False, filename, e)

    def io_close(self, *args):
        if not args or args[0] is None:
            return self.close_file(self.output)
        return self.close_file(_check_open(args, "close"))

    def io_flush(self, *args):
        return self.flush(self.output)

    def _default(self, args, which: str, mode: str):
        v = args[0] if args else None
        if v is not None:
            if type(v) is str or type(v) in (int, float):
                name = check_str(args, 1, which)
                try:
                    f = self._open(name, mode)
                except OSError as e:
                    lua_error(f"cannot open file '{name}' ({e.strerror})")
            else:
                f = _check_open(args, which)
            setattr(self, which, f)
        return getattr(self, which)

    def io_input(self, *args):
        return self._default(args, "input", "r")

    def io_output(self, *args):
        return self._default(args, "output", "w")

    def io_lines(self, *args):
        if not args or args[0] is None:
            f = self.input
            if f.closed:
                lua_error("attempt to use a closed file")
            return self.lines(f, args, 2, False)
        name = check_str(args, 1, "lines")
        try:
            f = self._open(name, "r")
        except OSError as e:
            lua_error(f"cannot open file '{name}' ({e.strerror})")
        return Multi((self.lines(f, args, 2, True), None, None, f))

    def io_read(self, *args):
        f = self.input
        if f.closed:
            lua_error("default input file is closed")
        return g_read(f, (f, *args), 2, "read")

    def io_write(self, *args):
        f = self.output
        if f.closed:
            lua_error("default output file is closed")
        return g_write(f, (f, *args), 2, "write")

    def io_type(self, *args):
        if not args:
            arg_error(1, "type", "value expected")
        f = args[0]
        if type(f) is not LuaFile:
            return None
        return "closed file" if f.closed else "file"

    def io_tmpfile(self, *args):
        import tempfile

        try:
            return LuaFile(tempfile.TemporaryFile("w+b"), self.meta)
        except OSError as e:
            return fileresult(False, None, e)

    def io_popen(self, *args):
        import subprocess

        from ...threads import start_shell

        command = check_str(args, 1, "popen")
        mode = opt_str(args, 2, "popen", "r")
        if mode not in ("r", "w"):
            arg_error(2, "popen", "invalid mode")
        _flush_host()
        shell = command.encode("latin-1").decode("utf-8", "surrogateescape")
        try:
            if mode == "r":
                p = start_shell(shell, stdout=subprocess.PIPE)
                fh = p.stdout
            else:
                p = start_shell(shell, stdin=subprocess.PIPE)
                fh = p.stdin
        except OSError as e:
            return fileresult(False, command, e)
        return LuaFile(fh, self.meta, process=p)


def _flush_host() -> None:
    """What Lua wrote so far reaches the terminal before a child writes."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def open_lib(state, process: bool = False) -> IoLib:
    lib = IoLib(state, process)
    state.G.set_str("io", lib.table)
    state.io = lib
    return lib


def named_builtin(name: str, f):
    """A builtin calling f, with a code of its own named `name` (a builtin
    is known in messages by its code)."""
    def call(*args):
        return f(*args)

    code = call.__code__.replace(co_name=name, co_qualname=name)
    return FunctionType(code, call.__globals__, name, None, call.__closure__)
