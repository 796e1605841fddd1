"""Debug information: what a compiled chunk knows of its Lua source, and
the Lua-visible stack that positions ("chunk:line:") and levels are read
from (C Lua's ldebug.c).

Each compiled chunk owns a `ChunkInfo` (C Lua's `Proto` plays this part):
its name, the map from generated Python lines to Lua lines, its call sites,
its generated source and what the generator twins made of it. Every code
object of the chunk holds it (as a constant no instruction loads), so it
lives exactly as long as some function, factory or code of the chunk does;
the weak map `CHUNKS` finds it from a code object's file name (`<lua:7>`,
shared by the chunk's codes and their twins) and forgets it when it goes.
The hot path pays nothing for line tracking: positions are read from the
Python stack when an error needs one.

Builtins are known by their code (`BUILTIN_CODES`, `QUALNAMES`): those of
the library and the Engine, a bounded set for the whole process.
"""

from __future__ import annotations

import itertools
import sys
import weakref
from types import CodeType


class ChunkInfo:
    """What one compiled chunk knows: `name` (as messages name the chunk),
    `filename` (its codes' co_filename), `lines` (Python line -> Lua line),
    `sites` ({(Python line, column): (name, is_method[, tail])} for each
    call: how Lua names the called function there), `source` (the Python
    source, as the disk cache stored it when `rename` is set: the renamer
    of its identifiers) and the twin compiler's caches (compiler/generators.py):
    the parsed factories, each function's twin code by qualified name,
    those that are numeric leaves and those that are leaves."""

    __slots__ = ("name", "filename", "chunk_id", "lines", "sites", "source", "rename", "trees", "twins", "numeric", "leaves",
                 "exact", "sites_by_code", "lua_source", "__weakref__")

    def __init__(self, name: str, filename: str, lines: list, sites: dict | None, source: str, rename=None,
                 chunk_id: int = 0):
        self.name, self.filename, self.lines = name, filename, lines
        self.chunk_id = chunk_id  # the number in its generated names (`c7_2`: compiler/chunk.chunk_ids)
        self.sites = sites or {}
        self.source, self.rename = source, rename
        self.trees = None  # factory name -> (offset, line) in the source, or its ast (compiler/generators._factory)
        #: a function's qualified name -> its twin's code, LEAF, or None (no
        #: twin). Keyed by name, not by code: a code object holds this info,
        #: and code objects are not collected in cycles
        self.twins: dict = {}
        self.numeric: set = set()  # qualified names of the numeric leaves
        self.leaves: set = set()  # qualified names of the leaves (runtime/generators.py)
        #: qualified name -> the function's code without `*_` (runtime/generators.exact),
        #: its info constant dropped (the cycle again)
        self.exact: dict = {}
        #: id of a code of the chunk -> (a weak reference to it, its sites by
        #: f_lasti: _sites_at)
        self.sites_by_code: dict = {}
        self.lua_source = None  # the Lua text compiled, where its compiler kept it (for string.dump)


#: co_filename of a compiled chunk's codes -> a weak reference to its
#: ChunkInfo; an entry goes when its chunk does (`_forget`). A plain dict
#: of weak references, so `filename in CHUNKS` (is this code Lua's?) is
#: one dict lookup on the hot paths
CHUNKS: dict[str, weakref.ref] = {}


#: file names of chunks that are gone, for the next chunks: CPython 3.11
#: keeps for good one string for each file name it has run a function
#: definition from, so a name per chunk would grow the process by 60 bytes
#: a load; reused, they are as many as chunks were ever alive at once
_FREE_NAMES: list = []
_names = itertools.count(1)


def new_filename() -> str:
    """A file name for a new chunk's code (`<lua:7>`): one of a chunk
    that is gone, else a new one."""
    return _FREE_NAMES.pop() if _FREE_NAMES else f"<lua:{next(_names)}>"


def _forget(ref: weakref.ref) -> None:
    filename = getattr(ref, "filename", None)
    if CHUNKS.get(filename) is ref:
        del CHUNKS[filename]
        _FREE_NAMES.append(filename)


class _Ref(weakref.ref):
    __slots__ = ("filename",)


def own(code: CodeType, info: ChunkInfo) -> CodeType:
    """The chunk's `code` with every code inside holding `info` (its last
    constant), and `info` found from their file name from now on."""
    ref = _Ref(info, _forget)
    ref.filename = info.filename
    CHUNKS[info.filename] = ref
    return _owned(code, info)


def _owned(code: CodeType, info: ChunkInfo) -> CodeType:
    consts = tuple(_owned(c, info) if type(c) is CodeType else c for c in code.co_consts)
    return code.replace(co_consts=consts + (info,))


def unowned(code: CodeType) -> CodeType:
    """`code` as compiled, without the info constants `own` added (what the
    disk cache stores: marshal holds no ChunkInfo)."""
    consts = code.co_consts
    if consts and type(consts[-1]) is ChunkInfo:
        consts = consts[:-1]
    return code.replace(co_consts=tuple(unowned(c) if type(c) is CodeType else c for c in consts))


def chunk_info(code) -> ChunkInfo | None:
    """The info of the chunk a code (or its twin's) belongs to, or None."""
    ref = CHUNKS.get(code.co_filename)
    return ref() if ref is not None else None


def is_lua_code(code) -> bool:
    """Whether a code is a compiled Lua function's (or its twin's)."""
    return code.co_filename in CHUNKS


def live_chunks() -> int:
    """How many compiled chunks are alive (for tests of memory)."""
    return sum(1 for ref in list(CHUNKS.values()) if ref() is not None)


# -------------------------------------------------------------- builtins

class CodeSet:
    """A set of code objects known by identity: CPython hashes a code object
    anew at each lookup, its nested codes with it (microseconds for a Lua
    function that makes closures), and a walk of the stack asks of every
    frame. The codes are kept, so their ids stay theirs."""

    __slots__ = ("codes",)

    def __init__(self):
        self.codes: dict = {}

    def add(self, code) -> None:
        self.codes[id(code)] = code

    def __contains__(self, code) -> bool:
        return id(code) in self.codes


#: code objects of builtins: frames that count as a (C) function level
BUILTIN_CODES = CodeSet()
#: code object of a library builtin -> its global name ("table.insert"),
#: which Lua uses in messages when no call site names the function
QUALNAMES: dict = {}


def builtin(fn):
    """Marks a Python function as a Lua builtin for stack-level counting."""
    BUILTIN_CODES.add(fn.__code__)  # (by identity: CodeSet)
    return fn


#: id of a code -> frame -> the frame a walk goes on at: the bottom of an
#: escalated call's context continues at the generator twin that escalated
#: it (runvil.lua.runtime.generators); None ends the walk (where a
#: coroutine's stack begins). Codes of runvil's own modules only (alive for
#: good: the ids stay theirs); by id, as CodeSet says why
_HOPS: dict = {}


def add_stack_hop(code, hop) -> None:
    _HOPS[id(code)] = hop


# ------------------------------------------------------- the Lua stack


def up(f):
    """The frame below `f` in its Lua-visible stack."""
    hop = _HOPS.get(id(f.f_code))
    if hop is not None:
        return hop(f)
    return f.f_back


def lua_position(filename: str, pyline: int, unknown=0) -> str | None:
    """"chunk:line" of a line of generated code (`filename` a compiled
    chunk's, `pyline` its Python line; `unknown` stands for a line past the
    map), or None when the file is not a Lua chunk's."""
    ref = CHUNKS.get(filename)
    info = ref() if ref is not None else None
    if info is None:
        return None
    lines = info.lines
    return f"{info.name}:{lines[pyline] if 0 <= pyline < len(lines) else unknown}"


def lua_frames(frame=None):
    """Yields (frame, where) for each Lua-visible level, innermost first.

    `where` is "chunk:line:" for a Lua function and "" for a builtin;
    internal helper frames are skipped.
    """
    f = frame if frame is not None else sys._getframe(1)
    merge = False  # the frame below was a hoisted expression of this one
    while f is not None:
        code = f.f_code
        if code.co_filename in CHUNKS:
            deep = code.co_name.startswith("_deep")
            if not merge and not in_direct_tail(f):
                yield f, lua_position(code.co_filename, f.f_lineno or 0) + ":"
            merge = deep  # a hoisted expression and its function are one Lua level
        elif code in BUILTIN_CODES:
            yield f, ""
        f = up(f)


def where(level: int = 1, frame=None) -> str:
    """Lua's luaL_where: "chunk:line: " of the Lua-visible level `level`
    counted from `frame` (level 0; default: the caller of `where`), or ""
    when that level is a builtin or does not exist."""
    f = frame if frame is not None else sys._getframe(1)
    i = -1
    for _f, w in lua_frames(f):
        i += 1
        if i == level:
            return w + " " if w else ""
    return ""


def builtin_context(fname: str) -> tuple[str, str, bool]:
    """For an error raised by the innermost running builtin: the position of
    its caller, the name to report, and whether the call was a method call
    (`o:f()`: Lua does not count the receiver). Called from Lua, the name is
    the one at the call site (`fmt` for `local fmt = string.format`); called
    from a builtin such as pcall, it is the global name (`coroutine.resume`)."""
    f = sys._getframe(1)
    while f is not None and f.f_code not in BUILTIN_CODES:
        if f.f_code.co_filename in CHUNKS:
            return where(0, f), fname, False
        f = up(f)
    if f is None:
        return "", fname, False
    caller = up(f)
    while caller is not None and caller.f_code not in BUILTIN_CODES and caller.f_code.co_filename not in CHUNKS:
        caller = up(caller)
    if caller is None or caller.f_code in BUILTIN_CODES:
        return "", QUALNAMES.get(f.f_code, fname), False
    event = metamethod_event(f.f_back)
    if event is not None:  # called as a metamethod: Lua names the event
        return where(0, caller), event, False
    site = call_site(caller)
    if site is None:
        return where(0, caller), fname, False
    return where(0, caller), site[0], site[1]


#: the operator helpers that call metamethods (their function names) -> the
#: event; None: the helper's own `event` argument ("__add") says
_METAMETHOD_CALLERS = {
    "_arith_meta": None, "string_arith": None, "unm": "unm", "bnot": "bnot", "eq": "eq", "lt": "lt",
    "le": "le", "concat": "concat", "length": "len", "index": "index", "setindex": "newindex",
    "add": "add", "sub": "sub", "mul": "mul",  # (their first case calls the metamethod itself)
    "_tbc_close": "close",
}  # fmt: skip


def metamethod_event(frame) -> str | None:
    """The event ("add") when `frame` is the call of a metamethod by one of
    the operator helpers (cstack.meta_call) for Lua code, else None: an
    operator a builtin applies (math.max's comparisons, table.sort's, the
    length table.insert takes) is lua_compare's or luaL_len's from C, where
    Lua's funcnamefromcall names no metamethod."""
    if frame is None or frame.f_code.co_name != "meta_call" or frame.f_back is None:
        return None
    op = frame.f_back
    if not op.f_code.co_filename.startswith(_PACKAGE_DIR) or op.f_code.co_name not in _METAMETHOD_CALLERS:
        return None
    event = _METAMETHOD_CALLERS[op.f_code.co_name]
    caller = op.f_back
    while caller is not None and caller.f_code.co_filename.startswith(_RUNTIME_DIR):
        caller = caller.f_back  # (a twin's operator call, _gop)
    if caller is not None and caller.f_code.co_filename.startswith(_STDLIB_DIR):
        return None
    if event is None:
        e = op.f_locals.get("event")
        event = e[2:] if type(e) is str and e.startswith("__") else None
    return event


_PACKAGE_DIR = __file__.rsplit("/", 1)[0]
_RUNTIME_DIR = _PACKAGE_DIR + "/runtime/"
_STDLIB_DIR = _PACKAGE_DIR + "/stdlib/"


def call_site(frame, lasti: int | None = None) -> tuple | None:
    """The name a Lua frame's current call gives the called function, from
    the compiler's call markers (ChunkInfo.sites), or None. `lasti`: where
    an error left the frame (its traceback's), when it did."""
    return _sites_at(frame.f_code).get(frame.f_lasti if lasti is None else lasti)


def in_direct_tail(frame, lasti: int | None = None) -> bool:
    """Whether a Lua frame is in a direct tail call (compile_expr's
    direct_tail): Lua reused its level for the called function, so the
    frame is no level of Lua's stack."""
    site = _sites_at(frame.f_code).get(frame.f_lasti if lasti is None else lasti)
    return site is not None and len(site) > 2


def _sites_at(code) -> dict:
    """f_lasti -> call site for the instructions of a Lua code at a marked
    call: found once per code (kept in its ChunkInfo), as reading a frame's
    position costs about 0.2 us per instruction before it."""
    ref = CHUNKS.get(code.co_filename)
    info = ref() if ref is not None else None
    if info is None:
        return {}
    known = info.sites_by_code
    hit = known.get(id(code))
    if hit is None or hit[0]() is not code:
        sites = info.sites
        at = {}
        if sites:
            for i, p in enumerate(code.co_positions()):
                site = sites.get((p[0], p[2]))
                if site is not None:
                    at[2 * i] = site
        hit = known[id(code)] = (weakref.ref(code), at)
    return hit[1]


def caller_where() -> str:
    """Position of whatever called the innermost running builtin: where a
    builtin's own errors (bad argument, ...) are reported, as luaL_error."""
    f = sys._getframe(1)
    while f is not None and f.f_code not in BUILTIN_CODES:
        if f.f_code.co_filename in CHUNKS:
            return where(0, f)
        f = up(f)
    if f is None:
        return ""
    return where(1, f)


def current_where() -> str:
    """Position of the innermost *Lua* function (for runtime errors raised
    by operators, which Lua reports at the instruction's line)."""
    for _f, w in lua_frames(sys._getframe(1)):
        return w + " " if w else ""
    return ""


def stack_overflow_position(tb) -> str:
    """"chunk:line: " of the innermost Lua line of a traceback, or ""."""
    where = ""
    while tb is not None:
        position = lua_position(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if position is not None:
            where = position + ": "
        tb = tb.tb_next
    return where
