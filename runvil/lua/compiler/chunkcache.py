"""Compiled chunks on disk, so that a prompt or a `runvil lua` chunk seen
before starts without the parser (lark), the resolver or the code generator.

An entry (see cache/disk.py for the folder and the atomic writes) is keyed by
the source, the chunk name, `fast_env`, the Python bytecode's magic number
and the compiler's own fingerprint (runvil's version, its files), and holds
what `compile_tree` made: the code object (marshaled), the main function's
name, whether _ENV is a cell, the Python source, the line map and the call
sites. Syntax errors are not cached: they are re-parsed, as Lua words them.

Generated names carry a per-process chunk number (`c7_2`, `_mk_c7_2`),
because a state's namespace holds the factories of every chunk it loaded.
A chunk read from the cache gets a fresh number and file name: its code
objects' names and file name are rewritten (identifiers only, never
constants), so it cannot collide with a chunk compiled in this process.
"""

from __future__ import annotations

import marshal
import re
import types
from importlib.util import MAGIC_NUMBER

from ..cache import disk as diskcache
from .chunk import Compiled, chunk_ids
from ..debuginfo import ChunkInfo, new_filename, own, unowned

_VERSION = b"chunk-17"


def compile_lua(source: str, chunkname: str, fast_env: bool = True, cache: bool = False, once: bool = True) -> Compiled:
    """Parses and compiles Lua source (one char per byte); `chunkname` is
    the name used in messages as is. Raises LuaSyntaxError. With `cache`,
    the chunk comes from (or goes to) the disk cache: for the host's chunks
    (prompt blocks, `runvil lua`), not for Lua's `load`. `once`: compile_chunk's."""
    compiled = cached_compile(source, chunkname, fast_env) if cache else _compile(source, chunkname, fast_env, once)
    compiled.info.lua_source = source  # what string.dump makes a function again from
    return compiled


def cached_compile(source: str, chunkname: str, fast_env: bool):
    """`compile_chunk` through the cache: a hit is rebuilt from disk, a miss is
    compiled and written (when marshal can hold it)."""
    key = diskcache.make_key(_VERSION, MAGIC_NUMBER, diskcache.code_fingerprint(), b"fe" if fast_env else b"",
                             chunkname.encode("utf-8", "surrogatepass"), source.encode("utf-8", "surrogatepass"))
    path = diskcache.entry_path("chunk", key)
    if path is None:
        return _compile(source, chunkname, fast_env)
    hit = _load(path, key, chunkname)
    if hit is not None:
        return hit
    compiled = _compile(source, chunkname, fast_env)
    _store(path, key, compiled)
    return compiled


def _compile(source: str, chunkname: str, fast_env: bool, once: bool = True) -> Compiled:
    """A miss: the parser and the code generator, imported only now."""
    from .codegen import compile_chunk

    return compile_chunk(source, chunkname, fast_env, once=once)


def _store(path: str, key: bytes, compiled: Compiled) -> None:
    info = compiled.info
    try:
        payload = marshal.dumps((key, info.chunk_id, unowned(compiled.code), compiled.main, compiled.env_is_cell,
                                 info.source, info.lines, info.sites or None))
    except (ValueError, RecursionError):  # nested too deep for marshal: compile it each time
        return
    diskcache.write(path, payload)


def _load(path: str, key: bytes, chunkname: str) -> Compiled | None:
    payload = diskcache.read(path)
    if payload is None:
        return None
    try:
        entry = marshal.loads(payload)
        stored_key, old_id, code, main, env_is_cell, source, linemap, sites = entry
    except (ValueError, EOFError, TypeError, RecursionError):
        return None
    if (stored_key != key or type(old_id) is not int or type(code) is not types.CodeType
            or type(main) is not str or type(source) is not str or type(linemap) is not list):
        return None
    new_id = next(chunk_ids)
    rename = _Renamer(old_id, new_id, new_filename())
    code = rename.code(code)
    # twins are compiled from the stored text, then renamed
    info = ChunkInfo(chunkname, rename.filename, linemap, sites, source, rename, new_id)
    return Compiled(chunkname, own(code, info), rename.name(main), env_is_cell, info)


class _Renamer:
    """Rewrites chunk number `old` to `new` in generated identifiers."""

    def __init__(self, old: int, new: int, filename: str):
        self.old, self.new = old, new
        self._ident = re.compile(rf"\b(_mk_)?c{old}_(\d+)\b")
        self.filename = filename

    def old_name(self, s: str) -> str:
        """A renamed identifier as the stored source spells it."""
        return re.sub(rf"\b(_mk_)?c{self.new}_(\d+)\b", lambda m: f"{m.group(1) or ''}c{self.old}_{m.group(2)}", s)

    def name(self, s: str) -> str:
        return self._ident.sub(lambda m: f"{m.group(1) or ''}c{self.new}_{m.group(2)}", s)

    def text(self, source: str) -> str:
        """The Python source as shown for debugging (identifiers renamed;
        a string constant spelling one is renamed there too, not in code)."""
        return self.name(source)

    def names(self, names: tuple) -> tuple:
        return tuple(self.name(n) for n in names)

    def code(self, code):
        consts = tuple(self.code(c) if type(c) is type(code) else c for c in code.co_consts)
        return code.replace(
            co_filename=self.filename,
            co_name=self.name(code.co_name),
            co_qualname=self.name(code.co_qualname),
            co_names=self.names(code.co_names),
            co_varnames=self.names(code.co_varnames),
            co_cellvars=self.names(code.co_cellvars),
            co_freevars=self.names(code.co_freevars),
            co_consts=consts,
        )
