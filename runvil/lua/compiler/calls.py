"""Calls: function and method calls to Python call text (a mixin of
ExprCompiler). A callee that cannot be called becomes a function raising
Lua's error once the arguments are evaluated; a method is looked up inline
in the object, its class and the class's class before the lookup's slow
path; a tail call goes through the trampoline unless it may be direct.
"""

from __future__ import annotations

from ..syntax import ast as A
from .contract import INLINE_STRING_CALLS, INLINE_STRING_METHODS
from .folding import fold
from .resolve import GlobalRef, LocalVar, plain_local
from .shapes import CALLEE, DROPPED_VALUES, FIRST_VALUE, YIELD_CALLEE

#: the string library's functions: a method call of one of these names is
#: tested for a string receiver first (`s:upper()`), before a table's lookup
STRING_METHODS = frozenset({"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower", "match", "pack",
                            "packsize", "rep", "reverse", "sub", "unpack", "upper"})


class CallCompiler:
    """Mixin of ExprCompiler: calls, method lookups, tail calls, expression lists."""

    def args(self, args: list) -> str:
        """Argument text: single values, the last one expanded."""
        if not args:
            return ""
        parts = [self.expr(a) for a in args[:-1]]
        last = args[-1]
        if type(last) in (A.Call, A.MethodCall, A.Vararg):
            parts.append("*" + self.multi(last))
        else:
            parts.append(self.expr(last))
        return ", ".join(parts)

    def raw_call(self, n, callee: str | None = None) -> str:
        """A call expression whose value is the raw result (value or Multi).

        The callee is checked before the arguments are evaluated, but a
        value that cannot be called is turned into a function that raises
        Lua's error when called, after the arguments, as Lua does. With
        `callee` (a temporary, see checked_callee), the temporary that holds
        the callee after the call."""
        if type(n) is A.MethodCall:
            return self.raw_method_call(n)
        if self.known_function(n.func) is not None:  # a function: nothing to check
            return f"{self.call_mark(n)}{self.expr(n.func)}({self.args(n.args)})"
        f = callee or self.temp()
        fn = self.expr(n.func)
        args = self.args(n.args)
        mark = self.call_mark(n)
        shape = YIELD_CALLEE if self.known_yield(n.func) else CALLEE
        return f"{mark}{shape.emit(f=f, callee=fn, desc=self.drepr(n.func))}({args})"

    def checked_callee(self, n) -> bool:
        """Whether raw_call(n) tests n's callee callable (CALLEE), so a
        temporary holds it after the call, in a twin as well."""
        return type(n) is A.Call and self.known_function(n.func) is None and not self.known_yield(n.func)

    def known_yield(self, func) -> bool:
        """Whether a callee is `coroutine.yield`, `coroutine` read from the
        state's globals (compiler/shapes.py YIELD_CALLEE)."""
        if type(func) is not A.Index or type(func.obj) is not A.Name or func.obj.name != "coroutine":
            return False
        key = fold(func.key)
        b = func.obj.binding
        return type(key) is A.String and key.value == "yield" and isinstance(b, GlobalRef) and self.fast_env(b.env)

    @staticmethod
    def known_function(func):
        """The A.Function a callee always is: a `local function` (or a
        local given a function where it is declared) never assigned again
        (else None)."""
        if type(func) is not A.Name:
            return None
        v = func.binding
        return v.function if isinstance(v, LocalVar) and not v.assigned else None

    def one_result(self, n) -> bool:
        """Whether a call's result is always one value (no Multi)."""
        fn = self.known_function(n.func) if type(n) is A.Call else None
        return fn is not None and fn.scope.one_result

    def method_object(self, n) -> str:
        """What `o:m()` passes as its object: a plain local as it is (the
        arguments' evaluation cannot change it), else a temporary that
        method_callee assigns."""
        o = n.obj
        if plain_local(o):
            return o.binding.pyname
        return self.temp()

    def raw_method_call(self, n) -> str:
        if n.method in INLINE_STRING_CALLS and (fast := self.string_call(n, False)) is not None:
            return fast
        o, f = self.method_object(n), self.temp()
        inline = INLINE_STRING_METHODS.get(n.method) if not n.args else None
        if inline is not None and self.table_test(n.obj, o).startswith("type("):
            # `s:upper()`: the library's one-char answer while its function is in place
            ok, chars = inline
            r = self.temp()
            given = o if plain_local(n.obj) else f"{o} := {self.expr(n.obj)}"
            call = f"{self.call_mark(n)}{self.method_callee(n, o, f, evaluated=True)}({o})"
            return f"({r} if type({given}) is str and {ok} and ({r} := {chars}.get({o})) is not None else {call})"
        args = self.args(n.args)
        comma = ", " if args else ""
        return f"{self.call_mark(n)}{self.method_callee(n, o, f)}({o}{comma}{args})"

    def method_callee(self, n, o: str, f: str, evaluated: bool = False) -> str:
        """The function `o:m()` calls, with the object left in temp `o`.

        Inline: a function in the object itself, else (the object holds no
        `m` at all) in its metatable's __index table (a class), else what
        _method finds through the whole chain (called there at once, so an
        __index function further on runs once); on a string, the string
        metatable's __index table (_SIh: its hash). Anything else (a value
        that is not a function, a missing method, __index functions, other
        types) goes to _method / _smethod with Lua's errors; a method in
        none of the three tables looked at inline, to _method_from, which
        goes on from the third."""
        name = repr(n.method)
        d = self.drepr(n.obj)
        plain = evaluated or o == self.method_object(n)  # a plain local (or o holds the object): no temporary
        if self.cold:  # (ExprCompiler.cold) _method finds it on any value, a string too
            return f"_method({o if plain else f'({o} := {self.expr(n.obj)})'}, {name}, {d})"
        m, i, m2, i2 = self.temp(), self.temp(), self.temp(), self.temp()
        # the class's own class (a subclass's instance) is looked at inline too
        parent = (
            f"({m2} := {i}.meta) is not None and type({i2} := {m2}.hash.get('__index')) is _Table"
            f" and (type({f} := {i2}.hash.get({name})) is _FT or {f} is None and ({f} := _method_from({i2}, {name})) is {f})"
        )
        obj = o if plain else self.expr(n.obj)
        string_first = ""
        if n.method in STRING_METHODS:  # most likely called on a string: that test first
            given = o if plain else f"{o} := {obj}"
            string_first = f"{f} if type({given}) is str and type({f} := _SIh.get({name})) is _FT else "
            obj = o
        is_table = (f"type({o}) is _Table and " if evaluated else self.table_test(n.obj, o)) if plain \
            else f"type({o} := {obj}) is _Table and "
        return (
            f"({string_first}{f} if {is_table}((({f} := {o}.hash.get({name})) is None"
            f" and ({m} := {o}.meta) is not None and type({i} := {m}.hash.get('__index')) is _Table"
            f" and (type({f} := {i}.hash.get({name})) is _FT"
            f" or {f} is None and ({parent} or ({f} := _method({o}, {name}, {d})) is {f})))"
            f" or type({f}) is _FT)"
            f" else {f} if type({o}) is str and type({f} := _SIh.get({name})) is _FT"
            f" else _smethod({o}, {name}, {d}) if type({o}) is str else _method({o}, {name}, {d}))"
        )

    def call_mark(self, n, direct_tail: bool = False) -> str:
        """A marker before a call's text: where Lua names the called
        function in `bad argument` messages (the name at the call site);
        a direct tail call's site says so (debuginfo.lua_frames skips its
        frame, as Lua's stack has no level for a function that made a tail
        call)."""
        if type(n) is A.MethodCall:
            site = (n.method, True)
        else:
            d = self.desc(n.func)
            if d is None or d.startswith("constant"):
                return ""
            site = (d[d.index("'") + 1 : -1], False, True) if direct_tail else (d[d.index("'") + 1 : -1], False)
        names = self.chunk.call_names
        names.append(site)
        return f"\x03{len(names) - 1}\x04"

    def e_Call(self, n):
        if type(n) is A.MethodCall and n.method in INLINE_STRING_CALLS and (fast := self.string_call(n, True)):
            return fast
        if self.one_result(n):
            return self.raw_call(n)
        return FIRST_VALUE.emit(r=self.temp(), call=self.raw_call(n))

    e_MethodCall = e_Call

    def expr_stmt(self, n) -> str:
        """A statement that evaluates n for its effects (a call statement)."""
        if type(n) in (A.Call, A.MethodCall):
            if self.one_result(n):
                return self.raw_call(n)
            return DROPPED_VALUES.emit(r=self.temp(), call=self.raw_call(n))
        return f"{self.expr(n)}"

    def tailcall(self, n) -> str:
        """`return f(args)`: `_tail` makes a Lua callee a pending call that
        the caller's caller runs; a builtin runs at once. A direct tail call
        (see direct_tail) is a plain call.

        A builtin `_tail` has seen before (values.TAIL_NOW) is called here,
        as any call: `_tail` would only call it the same way, one frame
        further (its errors name it from the same call site). The callee
        is evaluated first, then the arguments, in either branch; the
        direct call's callee is written `(f if True else f)`, which CPython
        compiles to `f`, so the coroutine twins see an ordinary call site."""
        args = self.args(n.args)
        if self.direct_tail(n):
            return f"{self.call_mark(n, direct_tail=True)}{self.expr(n.func)}({args})"
        tail = f"({args},)" if args else "()"
        f = self.temp()
        mark = self.call_mark(n)
        if type(n) is A.MethodCall:
            o = self.method_object(n)
            callee = self.method_callee(n, o, f)
            comma = ", " if args else ""
            return (f"({mark}_tail({f}, ({o}, *{tail})) if ({f} := {callee}) not in _TAIL_NOW"
                    f" else {mark}({f} if True else {f})({o}{comma}{args}))")
        callee = CALLEE.emit(f=f, callee=self.expr(n.func), desc=self.drepr(n.func))
        return (f"({mark}_tail({f}, {tail}) if ({f} := {callee}) not in _TAIL_NOW"
                f" else {mark}({f} if True else {f})({args}))")

    def direct_tail(self, n) -> bool:
        """Whether `return g(args)` may call g at once, not through the
        trampoline: g is a `local function` never assigned again (so a Lua
        function), and none of g's own tail calls can be direct (it makes
        none of a local), so direct tail calls never nest and the Python
        stack grows by at most one frame per Lua level (an endless tail
        recursion still runs in constant space). Not in a hoisted block,
        whose frame lies between the caller and g."""
        fn = self.known_function(n.func) if type(n) is A.Call and not self.frames else None
        return fn is not None and not fn.scope.tails_local

    def explist(self, exprs: list, n: int):
        """n single-value texts for an expression list, or None when the
        last expression must be expanded to fill them."""
        if len(exprs) < n and exprs and type(exprs[-1]) in (A.Call, A.MethodCall, A.Vararg):
            return None
        vals = [self.expr(e) for e in exprs[:n]]
        vals += ["None"] * (n - len(vals))
        return vals

    def explist_tuple(self, exprs: list, n, callee: str | None = None) -> str:
        """A tuple of the list's values: exactly n of them, or all (n None).
        `callee`: see raw_call."""
        if n is not None and len(exprs) == 1 and type(exprs[0]) in (A.Call, A.MethodCall):
            # `local a, b = f()`: the raw result adjusted at once, no tuple built
            # around it; a Multi of exactly n values (not a pending tail call,
            # which is a Multi of 3) is taken as it is, inline
            if type(exprs[0]) is A.MethodCall and (inline := self.string_call(exprs[0], False, n)):
                return inline  # `local a, b = s:find(p, i, true)`, `local a, b, c, d = s:byte(i, j)`
            r = self.temp()
            pending = f" and {r}[0] is not _TAILCALL" if n == 3 else ""
            return (
                f"({r} if type({r} := {self.raw_call(exprs[0], callee)}) is _Multi and len({r}) == {n}{pending}"
                f" else _fixed({r}, {n}))"
            )
        parts = [self.expr(e) for e in exprs[:-1]]
        last = exprs[-1]
        if type(last) in (A.Call, A.MethodCall, A.Vararg):
            parts.append("*" + self.multi(last))
        else:
            parts.append(self.expr(last))
        tup = f"({', '.join(parts)},)"
        if n is None:
            return tup
        return f"_adjust({tup}, {n})"
