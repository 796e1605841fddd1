"""Running coroutines as generators (their functions' twins, made by
compiler/generators.py): the names a twin calls, bound per state.

A coroutine whose function has a twin runs it as a Python generator on the
stack of whoever resumes it: `coroutine.yield` in the twin is a `yield`,
and a Lua call is `yield from _gcall(...)`, so a yield at any depth of
twins reaches the resumer through the generators alone. Where Lua code
would run on that stack outside a twin (a builtin that calls back, a
metamethod, a function without a twin), the call is *escalated*
(runtime/escalation.py): it runs on an execution context of its own, where
a yield suspends the context, and the twin that escalated passes the yield
on with its own `yield`.

RUNVIL_TWINS=0 turns twins off: every coroutine then runs on a context
(stdlib/coroutine.py reads it, and imports this module only at a state's
first coroutine).
"""

from __future__ import annotations

from types import CodeType, FunctionType

from . import values as V
from . import calls as LC
from .args import arg_error, check_function
from .contexts import INLINE
from .escalation import escalate, held
from .calldepth import LUAI_MAXCCALLS, NeedsContext, charge_meta, check
from .machine import RUNNING
from ..debuginfo import CHUNKS, QUALNAMES, builtin, chunk_info
from ..errors import LuaError, rt_error
from .helpers import CATCHER_CODES, _tbc_check, _tbc_close, caught_value, fixed, handler_value, take_unwound
from .envslots import retargeted, slot_number
from .tables import LuaTable, watch
from .values import TAILCALL, Multi

#: a generic for's iterator has no more items
GDONE = object()
#: a leaf's `lua_twin` (a Lua function that calls nothing that may run Lua
#: code: its twin would never yield): a twin's call site tests it first and
#: calls the leaf as it is (one attribute read; its chunk's ChunkInfo.leaves
#: knows the leaves by name, for closures no twin has called yet: is_leaf)
LEAF_TWIN = object()
#: the `lua_twin` of a numeric leaf (compiler/generators.numeric_leaf): a
#: twin's call site calls it as it is when its arguments are numbers; its
#: twin, for other arguments, is its `lua_numeric_twin`
NUMERIC_TWIN = object()


#: the code flag of a function with `*args` (inspect.CO_VARARGS)
_CO_VARARGS = 0x04


def exact(f, nargs: int):
    """What a twin's call site calls for a numeric leaf f on nargs numbers
    (compiler/generators.fast_path): f's copy without the `*_` every Lua
    function has for extra arguments, when nargs fit its parameters (then
    the `*_` is empty, and the function never reads it), else f itself.
    Kept on f; the copy is f's code with that flag cleared, the same
    lines, names and cells (one per function of a chunk, kept in its
    ChunkInfo without the info constant: debuginfo.own)."""
    try:
        e = f.lua_exact
    except AttributeError:
        code = f.__code__
        e = f
        if code.co_flags & _CO_VARARGS and code.co_varnames[code.co_argcount + code.co_kwonlyargcount] == "_":
            info = chunk_info(code)
            bare = info.exact.get(code.co_qualname)
            if bare is None:
                bare = info.exact[code.co_qualname] = code.replace(co_flags=code.co_flags & ~_CO_VARARGS,
                                                                   co_consts=code.co_consts[:-1])
            e = FunctionType(bare, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        f.lua_exact = e
    return e if e is f or nargs <= e.__code__.co_argcount else f


def _truth(r) -> bool:
    r = V.first(r)
    return r is not None and r is not False


def _untruth(r) -> bool:
    r = V.first(r)
    return r is None or r is False


#: operator helpers whose metamethod call, if any, is their last step (one
#: at most: runtime/operators.py, values.index and setindex), and what each makes
#: of the metamethod's results: a twin runs such a metamethod itself
_FINAL_METAMETHOD = {
    **dict.fromkeys(("_add", "_sub", "_mul", "_div", "_mod", "_pow", "_idiv", "_band", "_bor", "_bxor", "_shl",
                     "_shr", "_unm", "_bnot", "_len", "_concat", "_index"), V.first),
    **dict.fromkeys(("_eq", "_lt", "_le"), _truth),
    "_setindex": lambda r: None, "_tbc_close": lambda r: None,
}  # fmt: skip


def is_lua(f) -> bool:
    return f.__code__.co_filename in CHUNKS


def is_leaf(code) -> bool:
    """Whether a Lua function's code is known to be a leaf's (its twin
    would never yield: it calls nothing that may run Lua code)."""
    info = chunk_info(code)
    return info is not None and code.co_qualname in info.leaves


def _plain(v) -> bool:
    """Whether tostring(v) runs no Lua code (no __tostring to call)."""
    t = type(v)
    if t is int or t is float or t is bool or v is None:
        return True
    return t is str and V.getmetamethod(v, "__tostring") is None


def _raw_table(a: tuple) -> bool:
    return bool(a) and type(a[0]) is LuaTable and a[0].meta is None


#: builtins that run no Lua code: None, always; else, for arguments that
#: pass the test (the others run escalated)
_SAFE_BUILTINS = {
    "": ("assert error getmetatable ipairs next rawequal rawget rawlen rawset select setmetatable tonumber "
         "type"),
    "coroutine": "close create isyieldable resume running status wrap",
    "math": ("abs ceil cos exp floor fmod log max min modf random randomseed sin sqrt tan tointeger type "
             "ult acos asin atan"),
    "string": "byte char find len lower match rep reverse sub upper",
    "utf8": "char codepoint len offset",
    "os": "clock date difftime time getenv",
}
_SAFE_WHEN = {
    ("", "pairs"): lambda a: not a or V.getmetamethod(a[0], "__pairs") is None,
    ("", "tostring"): lambda a: not a or _plain(a[0]),
    ("", "print"): lambda a: all(_plain(v) for v in a),
    ("string", "format"): lambda a: all(_plain(v) for v in a),
    ("string", "gsub"): lambda a: len(a) >= 3 and type(a[2]) is str,
    ("table", "insert"): _raw_table,
    ("table", "remove"): _raw_table,
    ("table", "concat"): _raw_table,
    ("table", "unpack"): _raw_table,
}


def safe_builtins(libs: dict) -> dict:
    """The builtins (of `libs`, as opened) that run no Lua code: each with
    None, or the test of the arguments for which it runs none."""
    safe = {}

    def lookup(lib: str, name: str):
        t = libs.get(lib) if lib else libs
        f = t.get(name) if type(t) is dict else None
        return f if type(f) is FunctionType else None

    for lib, names in _SAFE_BUILTINS.items():
        for name in names.split():
            f = lookup(lib, name)
            if f is not None:
                safe[f] = None
    for (lib, name), test in _SAFE_WHEN.items():
        f = lookup(lib, name)
        if f is not None:
            safe[f] = test
    return safe


class GLoop:
    """A twin's generic for whose iterator function may run Lua code, or
    whose closing value has a __close: each item is asked for through
    `yield from step()` (compiler/shapes.py FOR_ITERATOR)."""

    __slots__ = ("twins", "f", "s", "c", "close", "n", "walk", "done")

    def __init__(self, twins: Twins, f, s, c, close, n, callee=None):
        if close is not None:
            _tbc_check(close, "(for state)")
        self.twins = twins
        self.f, self.s, self.c, self.close, self.n = f, s, c, close, n
        self.done = False
        # next, a raw ipairs and builtins walk natively, as giter does
        self.walk = twins.giter(f, s, c, None, n, callee) if twins.loops_no_lua(f, s) else None

    def step(self):
        if self.walk is not None:
            return next(self.walk, GDONE)
        twins = self.twins
        steps = twins.steps
        steps[0] -= 1
        if steps[0] < 0:
            twins.tick()
        f = self.f
        if type(f) is not FunctionType:  # a value called through __call (or Lua's error), looked up each time
            f = LC.resolve_callable(f, "for iterator 'for iterator'")
        r = yield from twins.gcall(f, (self.s, self.c))
        vals = fixed(r, self.n)
        if vals[0] is None:
            return GDONE
        self.c = vals[0]
        return vals[0] if self.n == 1 else vals


#: no builtin's test in Twins.safe: what runs_no_lua tells apart from None
#: (a twin's call-site caches also start at it: `_GNEVER` is no callee)
_MISSING = object()


class Twins:
    """The generator twins of one state: what its twins call, bound into
    its namespace at its first coroutine (`_gcall`, `_gtail`, `_gop`, ...:
    compiler/generators.py writes the calls), and what they know of its
    builtins as opened. The hot methods run once or more per call a twin
    makes; they read the object's slots as they need them (a slot read
    costs about what a closure's cell read does)."""

    __slots__ = ("state", "ns", "yield_fn", "wrapped_code", "lib", "safe", "calling_back", "finals", "giter",
                 "steps", "tick", "next_fn", "ipairs_aux", "pairs_fn", "concatn", "concat", "G")

    def __init__(self, state, yield_fn, wrapped_code, libs: dict, lib: LuaTable):
        """`yield_fn` is the state's coroutine.yield; a coroutine.wrap
        function (code `wrapped_code`) only resumes another coroutine;
        `libs`, the builtins as opened (copied by stdlib/coroutine.py);
        `lib`, the coroutine library as opened."""
        if INLINE:  # an Engine wait may pass up through a resume: resume and wrap functions are twins' calls
            wrapped_code = None
            libs = dict(libs, coroutine={k: v for k, v in libs.get("coroutine", {}).items() if k != "resume"})
        self.state, self.ns, self.G = state, state.ns, state.G
        self.yield_fn, self.wrapped_code, self.lib = yield_fn, wrapped_code, lib
        self.giter = self.ns["_giter"]
        self.steps, self.tick = state._steps, state._tick
        self.next_fn, self.ipairs_aux = state.iterators
        self.safe = safe_builtins(libs)
        self.pairs_fn = pairs_fn = libs.get("pairs")
        #: builtins that call back only through a metamethod, and their twins
        #: (used when the builtin is not known to run no Lua code here)
        self.calling_back = {pairs_fn: self.pairs} if pairs_fn is not None else {}
        for name, own in (("pcall", self.pcall), ("xpcall", self.xpcall)):  # what a twin runs for them,
            real = libs.get(name)  # as for a Lua function's
            if real is not None:
                real.lua_twin = own
        self.finals = {self.ns[name]: post for name, post in _FINAL_METAMETHOD.items()}
        self.concatn, self.concat = self.ns["_concatn"], self.ns["_concat"]

    def install(self) -> None:
        """Binds the twins' names in the state's namespace, and the state's
        hooks (LuaState._HOOKS) to this object's methods."""
        state, ns, safe = self.state, self.ns, self.safe
        state.yield_watcher = self.watched  # (the tables hold it weakly: the state keeps it)
        watch(self.G, state.yield_watcher)
        watch(self.lib, state.yield_watcher)
        self.watched()
        ns.update({
            "_GSAFE": frozenset(f for f, test in safe.items() if test is None),
            "_GWHEN": {f: test for f, test in safe.items() if test is not None}, "_GLEAFT": LEAF_TWIN,
            "_gleaf": self.known_leaf, "_GNUMT": NUMERIC_TWIN, "_gexact": exact,
            "_YIELD": self.yield_fn, "_gcall": self.gcall, "_gtail": self.gtail, "_gop": self.operator,
            "_ggiter": self.ggiter, "_gloop_end": self.gloop_end, "_GLoop": GLoop, "_GDONE": GDONE,
            "_GNEVER": _MISSING,
        })  # fmt: skip
        state.twins = self
        state.twin_of = self.twin_of
        state.has_twin = self.has_twin
        state.twin_call = self.gcall
        state.twin_protected = self.protected  # a call of f as one nested C call (LuaState.call_g)

    # ------------------------------------------------- what a twin knows

    def runs_no_lua(self, f, args: tuple) -> bool:
        """Whether the call f(*args) runs no Lua code (so may run directly
        on a twin's stack)."""
        test = self.safe.get(f, _MISSING)
        if test is _MISSING:
            code = f.__code__
            return code is self.wrapped_code or is_leaf(code)
        return test is None or test(args)

    def twin_of(self, f):
        """f's generator twin, or None (a builtin, or a function without
        one); kept on the function."""
        try:
            twin = f.lua_twin
        except AttributeError:
            pass
        else:
            if twin is NUMERIC_TWIN:
                return f.lua_numeric_twin
            return None if twin is LEAF_TWIN else twin
        twin = None
        if is_lua(f):
            from ..compiler.generators import LEAF, bind, numeric_leaf, twin_code  # the first twin imports ast

            code = twin_code(f.__code__)
            if type(code) is CodeType:
                env = slot_number(f.__code__)
                if env:  # given an _ENV of its own, or made by a function that was (runtime/envslots.py)
                    code = retargeted(code, env, f.__globals__)
            if code is LEAF:
                chunk_info(f.__code__).leaves.add(f.__code__.co_qualname)
                f.lua_twin = LEAF_TWIN
                return None
            if code is not None:
                twin = bind(f, code)
                if numeric_leaf(code):
                    f.lua_numeric_twin, f.lua_twin = twin, NUMERIC_TWIN
                    return twin
        f.lua_twin = twin
        return twin

    def has_twin(self, f) -> bool:
        """Whether a coroutine on f runs as a twin (a leaf's is f itself)."""
        return self.twin_of(f) is not None or is_leaf(f.__code__)

    @staticmethod
    def known_leaf(f) -> bool:
        """f's code is a leaf's (f, a closure of it that no twin has called
        yet): marked as one, for its next calls."""
        if is_leaf(f.__code__):
            f.lua_twin = LEAF_TWIN
            return True
        return False

    def loops_no_lua(self, f, s) -> bool:
        """Whether a generic for's iterator runs no Lua code."""
        if f is self.next_fn:
            return True
        if f is self.ipairs_aux:
            return type(s) is LuaTable and s.meta is None
        # a builtin that runs no Lua code whatever its arguments (the test of
        # one that depends on them would hold for the first item only)
        return self.safe.get(f, _MISSING) is None or type(f) is FunctionType and f.__code__ is self.wrapped_code

    def watched(self) -> None:
        """`_GYOK`: the global table's raw `coroutine` is the library and its
        raw `yield` the state's, so a twin's `coroutine.yield(...)` yields at
        once. Kept true to both by set_str, which calls this after each write
        of those keys in those tables (tables.watch)."""
        lib = self.lib
        self.ns["_GYOK"] = self.G.hash.get("coroutine") is lib and lib.hash.get("yield") is self.yield_fn

    # ------------------------------------------------------------ calls

    def gcall(self, f, args: tuple):
        """A call from a twin (or a coroutine's body): a twin runs as a
        generator, with its tail calls in this loop (a proper tail call)."""
        while True:
            try:
                twin = f.lua_twin
            except AttributeError:
                twin = self.twin_of(f)
            if twin is LEAF_TWIN:  # known to run no Lua code (call_builtin would hash its code to see that)
                return f(*args)
            if twin is NUMERIC_TWIN:
                twin = f.lua_numeric_twin
            elif twin is None:
                return (yield from self.call_builtin(f, args))
            r = yield from twin(*args)
            if type(r) is not Multi or not r or r[0] is not TAILCALL:
                return r
            f, args = r[1], r[2]

    def gtail(self, f, args: tuple):
        """`return f(args)` in a twin: a Lua function becomes the pending
        call `gcall` runs; anything else runs now, as `values.tail` does."""
        yield_fn = self.yield_fn
        while True:
            if f is yield_fn:
                return Multi((yield args))
            if type(f) is FunctionType and f.__code__ is LC.LATE_CODE:  # a value that is no function
                f = LC.resolve_callable(*LC.late_callee(f))  # (what calling it calls now)
                continue
            tm = getattr(f, "lua_tm", None)
            if tm is not None:  # through __call: the metamethod is the tail call
                f, args = tm[0], tm[1] + args
                continue
            if is_lua(f):
                return Multi((TAILCALL, f, args))
            return (yield from self.call_builtin(f, args))

    def call_builtin(self, f, args: tuple):
        """A callee without a twin: directly if it runs no Lua code, as its
        own generator if it has one (pcall, xpcall, the Engine's waiting
        builtins), else escalated."""
        if self.runs_no_lua(f, args):
            return f(*args)
        if f is self.yield_fn:  # (called by a name no call site knew, or by pcall)
            return Multi((yield args))
        if f.__code__ is LC.LATE_CODE:  # a value that is no function: what calling it calls now
            return (yield from self.gcall(LC.resolve_callable(*LC.late_callee(f)), args))
        tm = getattr(f, "lua_tm", None)
        if tm is not None:  # a value called through __call: its metamethod, with the value before the arguments
            charge_meta(tm[0])
            return (yield from self.gcall(tm[0], tm[1] + args))
        own = getattr(f, "lua_twin", None)  # pcall's, xpcall's, a waiting builtin's (runvil.engine)
        if own is None:
            own = self.calling_back.get(f)
        if own is not None and own is not LEAF_TWIN and own is not NUMERIC_TWIN:
            return (yield from own(*args))
        return (yield from escalate(f, args))

    def protected(self, f, args: tuple):
        """base.pcall's call of f, on a twin: a nested C call, then f as
        any call of a twin (so f may yield, as under lua_pcallk)."""
        m = RUNNING[0]
        n = m.depth + 1
        if n >= LUAI_MAXCCALLS:
            check(n, False)
        m.depth = n
        co = held(m.co, 1)
        try:
            if type(f) is not FunctionType:
                f = LC.resolve_callable(f, None)
            return V.expand((yield from self.gcall(f, args)))
        finally:
            RUNNING[0].depth -= 1  # the count goes on from where the coroutine was resumed last
            held(co, -1)

    @builtin
    def pcall(self, *args):
        """base.pcall, in a twin (a builtin level in messages, as pcall)."""
        if not args:
            arg_error(1, "pcall", "value expected")
        try:
            r = yield from self.protected(args[0], args[1:])
        except (LuaError, RecursionError, MemoryError) as e:
            m = RUNNING[0]
            pending = take_unwound(m.co or m)
            if pending is None:
                return Multi((False, caught_value(e)))
            return Multi((False, (yield from self.close_unwound(pending, caught_value(e)))))
        return (True, *r)  # several results: a tuple (values.Multi is tuple)

    @builtin
    def xpcall(self, *args):
        """base.xpcall, in a twin."""
        handler = check_function(args, 2, "xpcall")
        try:
            r = yield from self.protected(args[0], args[2:])
        except (LuaError, RecursionError, MemoryError) as e:
            m = RUNNING[0]
            pending = take_unwound(m.co or m)
            value = handler_value(handler, e)
            if pending is not None:
                value = yield from self.close_unwound(pending, value)
            return Multi((False, value))
        return (True, *r)  # several results: a tuple (values.Multi is tuple)

    def close_unwound(self, pending: list, value):
        """helpers.close_unwound in a twin: each __close as any call of a
        twin (it may yield, as Lua's closing after a pcall may)."""
        for v in pending:
            try:
                h = V.getmetamethod(v, "__close")
                if h is None:  # removed after the variable was declared
                    rt_error("attempt to call a nil value (metamethod 'close')")
                callee = h if type(h) is FunctionType else LC.resolve_callable(h, None)
                yield from self.gcall(callee, (v, value))
            except (LuaError, RecursionError, MemoryError) as e:
                value = caught_value(e)
                m = RUNNING[0]
                if (more := take_unwound(m.co or m)) is not None:  # the failing __close's own
                    value = yield from self.close_unwound(more, value)
        return value

    @builtin
    def pairs(self, *args):
        """base.pairs on a value with __pairs, in a twin: the metamethod runs
        as any call of a twin (it may yield, as under lua_callk)."""
        h = V.getmetamethod(args[0], "__pairs") if args else None
        if h is None:
            return self.pairs_fn(*args)
        callee = h if type(h) is FunctionType else LC.resolve_callable(h, None)
        r = V.expand((yield from self.gcall(callee, args[:1])))
        return Multi((r + (None, None, None))[:3])

    # -------------------------------------------------------- operators

    def operator(self, helper, args: tuple):
        """An operator helper called from a twin (`_gop`): directly; when it
        reaches a metamethod that is its last step, the metamethod runs as
        any call of a twin, as cstack.meta_call calls it (a nested C call, a
        Lua one's steps); any other, with the helper, escalated."""
        m = RUNNING[0]
        m.direct = True
        try:
            return helper(*args)
        except NeedsContext as e:
            e.__traceback__ = None  # (cstack.REFUSAL: raised again and again)
            h, operands, *negated = e.args  # (negated: the __lt that stands in for __le, operators.le)
        finally:
            m.direct = False
        if helper is self.concatn:  # a chain: each pair as an operator of its own (no pair ran a metamethod yet)
            return (yield from self.concat_pairs(*args))
        post = self.finals.get(helper)
        if negated:
            post = _untruth
        n = m.depth + 1
        if post is None or type(h) is not FunctionType or n >= LUAI_MAXCCALLS:  # (the overflow's message: escalated)
            return (yield from escalate(helper, args))
        charge_meta(h)
        m.depth = n
        co = held(m.co, 1)
        try:
            return post((yield from self.gcall(h, operands)))
        finally:
            RUNNING[0].depth -= 1  # the count goes on from where the coroutine was resumed last
            held(co, -1)

    def concat_pairs(self, parts: tuple, descs: tuple):
        """`a .. b .. c` right to left, as runtime's _concat_right, each
        pair through `operator`: a metamethod in any pair runs as a twin."""
        acc = parts[-1]
        concat = self.concat
        for i in range(len(parts) - 2, -1, -1):
            pair = (parts[i], acc, descs[i], descs[i + 1] if i + 1 == len(parts) - 1 else None)
            acc = yield from self.operator(concat, pair)
        return acc

    # ---------------------------------------------------- generic fors

    def ggiter(self, f, s, c, close, n, callee=None):
        """A twin's generic for (compiler/shapes.py FOR_ITERATOR): giter's
        when its iterator runs no Lua code, else a GLoop."""
        if close is None and self.loops_no_lua(f, s):
            return self.giter(f, s, c, close, n, callee)
        return GLoop(self, f, s, c, close, n, callee)

    def gloop_end(self, it, what: str, *args):
        """`it.close()` / `it.throw(e)` as a generic for is left: runs the
        closing value's __close once (never while a twin is being dropped)."""
        if type(it) is not GLoop:
            return getattr(it, what)(*args)
        if it.done:
            return None
        it.done = True
        err = args[0] if args else None
        if it.close is None or isinstance(err, GeneratorExit):
            return None
        return (yield from self.operator(_tbc_close, (it.close, err)))


QUALNAMES[Twins.pcall.__code__], QUALNAMES[Twins.xpcall.__code__] = "pcall", "xpcall"
CATCHER_CODES.update((Twins.pcall.__code__, Twins.xpcall.__code__))
QUALNAMES[Twins.pairs.__code__] = "pairs"


def install(state, yield_fn, wrapped_code, libs: dict, lib: LuaTable) -> Twins:
    """Makes a state's twins (at its first coroutine) and binds them into
    its namespace (see Twins)."""
    twins = Twins(state, yield_fn, wrapped_code, libs, lib)
    twins.install()
    return twins
