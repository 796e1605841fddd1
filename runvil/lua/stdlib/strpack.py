"""string.pack, string.unpack and string.packsize: Lua 5.4's binary
formats (lstrlib's pack machinery) with x86-64 sizes and alignments."""

from __future__ import annotations

import math
import struct

from ..runtime.args import arg_error, check_int, check_number, check_str, opt_int
from .patterns.matcher import error
from ..runtime.values import Multi, reserve_memory
from .limits import TINY_RESULT, reserve_result


def _isdigit(c: str) -> bool:
    return "0" <= c <= "9"


_MASK64 = 0xFFFFFFFFFFFFFFFF
MAXINTSIZE = 16
NATIVE_ALIGN = 8
_FIXED = {  # option -> (kind, size)
    "b": ("int", 1), "B": ("uint", 1), "h": ("int", 2), "H": ("uint", 2),
    "l": ("int", 8), "L": ("uint", 8), "j": ("int", 8), "J": ("uint", 8),
    "T": ("uint", 8), "f": ("float", 4), "n": ("double", 8), "d": ("double", 8),
}
_INT_MAX = 2**31 - 1


class _Header:
    """A format being read: position, endianness and maximum alignment."""

    __slots__ = ("fmt", "i", "little", "maxalign", "fname")

    def __init__(self, fmt: str, fname: str):
        self.fmt, self.i, self.little, self.maxalign, self.fname = fmt, 0, True, 1, fname

    def getnum(self, df: int) -> int:
        fmt, i = self.fmt, self.i
        if i >= len(fmt) or not _isdigit(fmt[i]):
            return df
        a = 0
        while True:
            a = a * 10 + ord(fmt[i]) - 48
            i += 1
            if not (i < len(fmt) and _isdigit(fmt[i]) and a <= (_INT_MAX - 9) // 10):
                break
        self.i = i
        return a

    def getnumlimit(self, df: int) -> int:
        sz = self.getnum(df)
        if sz > MAXINTSIZE or sz <= 0:
            error(f"integral size ({sz}) out of limits [1,{MAXINTSIZE}]")
        return sz

    def option(self):
        """(kind, size) of the next option (getoption)."""
        opt = self.fmt[self.i]
        self.i += 1
        r = _FIXED.get(opt)
        if r is not None:
            return r
        if opt == "i" or opt == "I":
            return ("int" if opt == "i" else "uint"), self.getnumlimit(4)
        if opt == "s":
            return "string", self.getnumlimit(8)
        if opt == "c":
            size = self.getnum(-1)
            if size == -1:
                error("missing size for format option 'c'")
            return "char", size
        if opt == "z":
            return "zstr", 0
        if opt == "x":
            return "padding", 1
        if opt == "X":
            return "paddalign", 0
        if opt == "<" or opt == "=":
            self.little = True
        elif opt == ">":
            self.little = False
        elif opt == "!":
            self.maxalign = self.getnumlimit(NATIVE_ALIGN)
        elif opt != " ":
            error(f"invalid format option '{opt}'")
        return "nop", 0

    def details(self, total: int):
        """(kind, size, padding needed to align) of the next option."""
        kind, size = self.option()
        align = size
        if kind == "paddalign":
            if self.i >= len(self.fmt):
                arg_error(1, self.fname, "invalid next option for option 'X'")
            k2, align = self.option()
            if k2 == "char" or align == 0:
                arg_error(1, self.fname, "invalid next option for option 'X'")
        if align <= 1 or kind == "char":
            return kind, size, 0
        align = min(align, self.maxalign)
        if align & (align - 1):
            arg_error(1, self.fname, "format asks for alignment not power of 2")
        return kind, size, (align - (total & (align - 1))) & (align - 1)


def _packint(n: int, little: bool, size: int) -> str:
    b = (n & ((1 << (8 * size)) - 1)).to_bytes(size, "little" if little else "big")
    return b.decode("latin-1")


def str_pack(*args):
    h = _Header(check_str(args, 1, "pack"), "pack")
    args = args + (None,) * 2  # lstrlib pushes a nil: missing args read as nil
    out = []
    total = 0
    arg = 1
    while h.i < len(h.fmt):
        kind, size, pad = h.details(total)
        total += pad + size
        out.append("\0" * pad)
        arg += 1
        if len(args) < arg:
            args = args + (None,)
        if kind == "int" or kind == "uint":
            n = check_int(args, arg, "pack")
            if size < 8:
                lim = 1 << (size * 8 - 1)
                if kind == "int" and not -lim <= n < lim:
                    arg_error(arg, "pack", "integer overflow")
                if kind == "uint" and not 0 <= (n & _MASK64) < 2 * lim:
                    arg_error(arg, "pack", "unsigned overflow")
            out.append(_packint(n if kind == "int" else n & _MASK64, h.little, size))
        elif kind == "float" or kind == "double":
            x = float(check_number(args, arg, "pack"))
            code = ("<" if h.little else ">") + ("f" if kind == "float" else "d")
            try:
                out.append(struct.pack(code, x).decode("latin-1"))
            except OverflowError:  # C's (float) cast gives an infinity
                out.append(struct.pack(code, math.copysign(math.inf, x)).decode("latin-1"))
        elif kind == "char":
            s = check_str(args, arg, "pack")
            if len(s) > size:
                arg_error(arg, "pack", "string longer than given size")
            reserve_memory(total)
            out.append(s + "\0" * (size - len(s)))
        elif kind == "string":
            s = check_str(args, arg, "pack")
            if size < 8 and len(s) >= 1 << (size * 8):
                arg_error(arg, "pack", "string length does not fit in given size")
            out.append(_packint(len(s), h.little, size))
            out.append(s)
            total += len(s)
        elif kind == "zstr":
            s = check_str(args, arg, "pack")
            if "\0" in s:
                arg_error(arg, "pack", "string contains zeros")
            out.append(s + "\0")
            total += len(s) + 1
        else:
            if kind == "padding":
                out.append("\0")
            arg -= 1
        reserve_memory(total)
    return "".join(out)


def str_packsize(*args):
    h = _Header(check_str(args, 1, "packsize"), "packsize")
    total = 0
    while h.i < len(h.fmt):
        kind, size, pad = h.details(total)
        if kind == "string" or kind == "zstr":
            arg_error(1, "packsize", "variable-length format")
        size += pad
        if total > _INT_MAX - size:
            arg_error(1, "packsize", "format result too large")
        total += size
    return total


def _unpackint(data: str, pos: int, little: bool, size: int, signed: bool) -> int:
    raw = data[pos:pos + size].encode("latin-1")
    if not little:
        raw = raw[::-1]
    res = int.from_bytes(raw[:8], "little")
    if size < 8:
        if signed and res >= 1 << (size * 8 - 1):
            res -= 1 << (size * 8)
        return res
    if size > 8:
        mask = 0xFF if signed and res >= 1 << 63 else 0
        if any(b != mask for b in raw[8:]):
            error(f"{size}-byte integer does not fit into Lua Integer")
    return res - (1 << 64) if res >= 1 << 63 else res


def str_unpack(*args):
    h = _Header(check_str(args, 1, "unpack"), "unpack")
    data = check_str(args, 2, "unpack")
    ld = len(data)
    pos = opt_int(args, 3, "unpack", 1)
    pos = (pos if pos > 0 else 1 if pos == 0 or pos < -ld else ld + pos + 1) - 1
    if pos > ld:
        arg_error(3, "unpack", "initial position out of string")
    out = []
    while h.i < len(h.fmt):
        kind, size, pad = h.details(pos)
        if pad + size > ld - pos:
            arg_error(2, "unpack", "data string too short")
        pos += pad
        if kind == "int" or kind == "uint":
            out.append(_unpackint(data, pos, h.little, size, kind == "int"))
        elif kind == "float" or kind == "double":
            code = ("<" if h.little else ">") + ("f" if kind == "float" else "d")
            out.append(struct.unpack(code, data[pos:pos + size].encode("latin-1"))[0])
        elif kind == "char":
            if size > TINY_RESULT:  # a new string: reserved first
                reserve_result(size)
            out.append(data[pos:pos + size])
        elif kind == "string":
            n = _unpackint(data, pos, h.little, size, False) & _MASK64
            if n > ld - pos - size:
                arg_error(2, "unpack", "data string too short")
            if n > TINY_RESULT:
                reserve_result(n)
            out.append(data[pos + size:pos + size + n])
            pos += n
        elif kind == "zstr":
            end = data.find("\0", pos)
            if end < 0:
                arg_error(2, "unpack", "unfinished string for format 'z'")
            if end - pos > TINY_RESULT:
                reserve_result(end - pos)
            out.append(data[pos:end])
            pos = end + 1
        pos += size
    out.append(pos + 1)
    return Multi(out)

