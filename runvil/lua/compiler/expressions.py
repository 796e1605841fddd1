"""Expressions: Lua expressions to Python expression text.

Fast paths are written inline for the common operand types (integers,
floats, strings, tables without metatables); everything else calls the
slow path in `values` with the operands already evaluated, in Lua's order.
Names in messages (`local 'x'`, `field 'y'`) are passed to the slow paths
as constants, so they cost nothing on the fast path.
"""

from __future__ import annotations

from ..syntax import ast as A
from .arrays import ArrayReadCompiler
from .calls import CallCompiler
from .folding import _CONSTANTS, clear_folds, fold, named_operand  # noqa: F401  (clear_folds: re-exported)
from .operators import OperatorCompiler
from .strcalls import StringCallCompiler
from .kinds import INT_OPS, is_int_expr
from .resolve import FuncScope, GlobalRef, LocalVar, plain_local
from .shapes import ALL_VALUES

_PURE = (A.Number, A.String, A.Nil, A.TrueLit, A.FalseLit)


#: expression nesting past which a subexpression is hoisted (see `hoist`):
#: each level takes a few parentheses of CPython's 200
HOIST_DEPTH = 24


class ExprCompiler(ArrayReadCompiler, CallCompiler, StringCallCompiler, OperatorCompiler):
    def __init__(self, chunk, scope: FuncScope):
        self.chunk = chunk
        self.scope = scope
        self.em = chunk.em
        self.ntemp = 0
        #: temporaries that hold a value beyond their statement while the
        #: statement being compiled runs (an enclosing loop's state, a
        #: to-be-closed scope's error): a collection's statement keeps them
        self.held: list = []
        self.cur_line = 0
        self.depth = 0  # nesting of expr() calls in the statement being compiled
        self.hoisted: list = []  # (def text, line) to emit before the statement
        self.cur_block_end = 0
        self.ints: set = set()  # locals that only ever hold integers (compiler/kinds.py)
        self.tables: set = set()  # locals that only ever hold tables (compiler/kinds.py)
        self.positives: set = set()  # integer locals that only ever hold values >= 1 (compiler/kinds.py)
        #: locals never assigned again that are used as tables often enough: the
        #: name of a Python local holding whether the local is a table (codegen.table_flags)
        self.table_flags: dict = {}
        #: the tables whose array part the loops being compiled hold
        #: (compiler/arrays.py): local -> (the temporary, the hoisted block it is in)
        self.arrays: dict = {}
        self.int_memo: dict = {}  # id(node) -> (node, is an integer expression)
        #: while an integer tree's general code compiles (compiler/intops.py): the ids of
        #: its operators (compiled alone) and the text of its operands already read
        self.no_tree: set = set()
        self.leaf_text: dict = {}

    @property
    def cold(self) -> bool:
        """Whether the code being compiled runs once: the chunk's main
        function outside any loop (codegen.FunctionCompiler says). There a
        global or field read, a method lookup and an operator are their
        helper's call, not the inline path: a third of the text to compile,
        and of the generator twin the inline backend makes of the function
        (a chunk called again runs them again, a little slower, with the
        same results: Lua's `load` makes its chunks without, compile_chunk's
        `once`)."""
        return False

    # -------------------------------------------------------------- names

    def temp(self) -> str:
        self.ntemp += 1
        return f"_t{self.ntemp}"

    def var_ref(self, v: LocalVar) -> str:
        return f"{v.pyname}[0]" if v.is_cell else v.pyname

    #: the Python name of the function being compiled when it may give
    #: itself another _ENV while it runs (codegen.sets_own_env), else None
    own_env: str | None = None

    def state_env(self, env: LocalVar) -> bool:
        """Whether `env` is the chunk's own _ENV, never assigned, in a chunk
        compiled to read the state's globals directly (`_Gh`, `_Gt`...)."""
        return self.chunk.fast_env_ok and env.pyname == "_ENV_0" and not env.assigned

    def fast_env(self, env: LocalVar) -> bool:
        return self.own_env is None and self.state_env(env)

    def env_ref(self, env: LocalVar) -> str:
        """The text of the table a global access indexes where fast_env
        does not hold: the function's _ENV as it is now (envslots.env_now)
        in one that may change it while running, else the _ENV variable."""
        if self.own_env is not None and self.state_env(env):
            return f"_envnow({self.own_env}, _Gt)"
        return self.var_ref(env)

    def is_int(self, n) -> bool:
        return self._is_int(fold(n))

    def lower_bound(self, n) -> str:
        """`0 < ` before `k <= len(...)` for an integer key n, but for a
        local known to be >= 1 (infer.local_kinds)."""
        return "" if type(n) is A.Name and n.binding in self.positives else "0 < "

    def _is_int(self, n) -> bool:
        """infer.is_int_expr, remembered per node (it runs at every level)."""
        t = type(n)
        if t is not A.BinOp and t is not A.Paren:
            return is_int_expr(n, self.ints)
        hit = self.int_memo.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        if t is A.Paren:
            r = self._is_int(n.expr)
        else:
            r = n.op in INT_OPS and self._is_int(n.left) and self._is_int(n.right)
        self.int_memo[id(n)] = (n, r)
        return r

    def bound(self, o) -> tuple[str, str]:
        """(the name to read o by, the text that evaluates it first): o
        itself when it is pure, else a temporary assigned in place."""
        if self.is_pure(o):
            text = self.expr(o)
            return text, text
        t = self.temp()
        return t, f"{t} := {self.expr(o)}"

    def is_pure(self, n) -> bool:
        """No side effects and cannot fail: safe to evaluate out of order
        or to repeat."""
        t = type(n)
        if t in _PURE:
            return True
        return t is A.Name and isinstance(n.binding, LocalVar)

    def table_test(self, n, text: str) -> str:
        """`type(text) is _Table and `, the test that n (compiled to text)
        is a table, or nothing when n is a local that only ever holds
        tables (infer.local_kinds), or the local's flag when it has one
        (table_flags)."""
        if type(n) is A.Name:
            if n.binding in self.tables:
                return ""
            flag = self.table_flags.get(n.binding)
            if flag is not None:
                return f"{flag} and "
        return f"type({text}) is _Table and "

    def never_nil(self, n) -> bool:
        """Whether n's value can never be nil: a constant other than nil, a
        constructor, a closure, a comparison or `not` (always booleans), an
        integer expression. (Arithmetic and `..` can call a metamethod,
        which may return nil.)"""
        n = fold(n)
        t = type(n)
        if t in (A.Number, A.String, A.TrueLit, A.FalseLit, A.Table, A.Function):
            return True
        if t is A.BinOp and n.op in ("==", "~=", "<", "<=", ">", ">="):
            return True
        if t is A.UnOp and n.op == "not":
            return True
        return self.is_int(n)

    def desc(self, n) -> str | None:
        """Lua's varinfo for an operand: how error messages name it."""
        n = named_operand(n)
        t = type(n)
        if t is A.Name:
            b = n.binding
            if isinstance(b, GlobalRef):
                return f"global '{n.name}'"
            if b.func is not self.scope:
                return f"upvalue '{n.name}'"
            return f"local '{n.name}'"
        if t is A.Index:
            key = fold(n.key)
            if type(key) is A.String:
                o = n.obj
                if type(o) is A.Name and isinstance(o.binding, LocalVar) and o.binding.pyname == "_ENV_0":
                    return f"global '{key.value}'"
                return f"field '{key.value}'"
            if type(key) is A.Number and type(key.value) is int and 0 <= key.value <= 255:
                return "field 'integer index'"
            return "field '?'"
        if t is A.String:
            return f"constant '{n.value}'"
        return None

    def drepr(self, n) -> str:
        d = self.desc(n)
        return repr(d) if d else "None"

    # --------------------------------------------------------- entry point

    def expr(self, n) -> str:
        if self.leaf_text and (taken := self.leaf_text.get(id(fold(n)))) is not None:
            return taken
        if self.depth >= HOIST_DEPTH and type(n) not in _PURE:
            return self.hoist(n)
        self.depth += 1
        try:
            return self._expr_at_line(n)
        finally:
            self.depth -= 1

    def hoist(self, n, compile_text=None) -> str:
        """A subexpression nested past HOIST_DEPTH becomes a local function
        defined before the statement and called in its place: CPython's
        parser allows only so many nested parentheses, Lua's none. The
        function reads the enclosing locals when it is called, so the
        expression still runs at its place in the evaluation order."""
        saved = self.depth
        self.depth = 0
        try:
            text = (compile_text or self._expr_at_line)(n)
        finally:
            self.depth = saved
        self.chunk.n_hoisted += 1
        name = f"_deep{self.chunk.n_hoisted}"
        self.hoisted.append((f"def {name}(): return ({text})", n.line or self.cur_line))
        return f"{name}()"

    def raw_value(self, n) -> str | None:
        """The raw result (value or Multi) of a call whose first value is
        wanted, for an operator that tests the result's type at once and
        takes its first value (`_first`) only when that test fails; None
        for anything else (or where the call would be hoisted)."""
        if type(n) not in (A.Call, A.MethodCall) or self.one_result(n) or self.depth >= HOIST_DEPTH:
            return None
        self.depth += 1
        try:
            return self._expr_at_line(n, self.raw_call)
        finally:
            self.depth -= 1

    def _expr_at_line(self, n, compile_node=None) -> str:
        compile_node = compile_node or self._expr
        n = fold(n)
        line = n.line
        if line and line != self.cur_line and type(n) not in _PURE:
            saved = self.cur_line
            self.cur_line = line
            try:
                # the text after this operand goes back to the parent's line
                back = f"\x01{saved}\x02" if saved else ""
                return f"(\x01{line}\x02{compile_node(n)}{back})"
            finally:
                self.cur_line = saved
        return compile_node(n)

    def _expr(self, n) -> str:
        return getattr(self, "e_" + type(n).__name__)(n)

    def multi(self, n) -> str:
        """A tuple of all the values of a call or `...`."""
        if type(n) is A.Vararg:
            return "VA"
        if self.depth >= HOIST_DEPTH:
            return self.hoist(n, self._multi)
        self.depth += 1
        try:
            return self._multi(n)
        finally:
            self.depth -= 1

    def _multi(self, n) -> str:
        return ALL_VALUES.emit(r=self.temp(), call=self.raw_call(n))

    # ------------------------------------------------------------ constants

    def e_Nil(self, n):
        return "None"

    def e_TrueLit(self, n):
        return "True"

    def e_FalseLit(self, n):
        return "False"

    def e_Number(self, n):
        v = n.value
        if type(v) is float:
            if v != v:
                return "_NAN"
            if v in (float("inf"), float("-inf")):
                return "_INF" if v > 0 else "(-_INF)"
            return repr(v)
        return repr(v) if v >= 0 else f"({v})"

    def e_String(self, n):
        return repr(n.value)

    def e_Vararg(self, n):
        return "(VA[0] if VA else None)"

    def e_Paren(self, n):
        return self.expr(n.expr)

    def e_Function(self, n):
        return self.closure(n)

    # -------------------------------------------------------------- names

    def e_Name(self, n):
        b = n.binding
        if isinstance(b, LocalVar):
            return self.var_ref(b)
        env = b.env
        key = repr(n.name)
        if self.fast_env(env):
            if self.cold:
                return f"_gget({key})"
            v = self.temp()
            return f"({v} if ({v} := _Gh.get({key})) is not None else _gget({key}))"
        return f"_index({self.env_ref(env)}, {key}, {self.env_desc(env)!r})"

    def env_desc(self, env: LocalVar) -> str | None:
        """How Lua names an _ENV that cannot be indexed (a constant: not)."""
        if env.const_init is not None and type(fold(env.const_init)) in _CONSTANTS:
            return None
        return "upvalue '_ENV'" if env.func is not self.scope else "local '_ENV'"

    def e_Index(self, n):
        o, k = n.obj, n.key
        # Lua reports an index error at the key's line
        d = self.drepr(o)
        m = f"\x01{k.line}\x02" if k.line and k.line != self.cur_line else ""
        v = self.temp()
        if type(k) is A.String and self.cold:
            return f"({m}_index({self.expr(o)}, {k.value!r}, {d}))"
        if type(k) is A.String:
            # in the table itself, else (a metatable) in its __index table (a
            # class), else through _index
            key = repr(k.value)
            mt, i = self.temp(), self.temp()
            ot, obj = self.bound(o)
            return (
                f"({v} if {self.table_test(o, obj)}(({v} := {ot}.hash.get({key})) is not None or ({mt} := {ot}.meta) is None"
                f" or type({i} := {mt}.hash.get('__index')) is _Table and ({v} := {i}.hash.get({key})) is not None)"
                f" else {m}_index({ot}, {key}, {d}))"
            )
        if self.arrays and (held := self.held_read(n, v, m, d)) is not None:
            return held  # in a loop that holds the table's array part
        fk = fold(k)
        if type(fk) is A.Number and type(fk.value) is int and 0 < fk.value < 2**31:
            # a constant positive key (`pair[1]`): the array part read in place
            a, c = self.temp(), fk.value
            ot, obj = self.bound(o)
            # (key 1: a list that is not empty has it, a test without len's call)
            has = f"({a} := {ot}.arr)" if c == 1 else f"{c} <= len({a} := {ot}.arr)"
            return (
                f"({v} if {self.table_test(o, obj)}(({has} and ({v} := {a}[{c - 1}])"
                f" is not None) or ({v} := {ot}.hash.get({c})) is not None or {ot}.meta is None)"
                f" else {m}_index({ot}, {c}, {d}))"
            )
        if self.is_pure(o) and self.is_pure(k):
            ot, kt = self.expr(o), self.expr(k)
            if self.is_int(k):
                # an integer key: the array part read in place
                a = self.temp()
                return (
                    f"({v} if {self.table_test(o, ot)}(({self.lower_bound(k)}{kt} <= len({a} := {ot}.arr)"
                    f" and ({v} := {a}[{kt} - 1])"
                    f" is not None) or ({v} := {ot}.hash.get({kt})) is not None or {ot}.meta is None)"
                    f" else {m}_index({ot}, {kt}, {d}))"
                )
            a = self.temp()
            return (
                # a key of any type: an integer one still reads the array part in place, a string
                # one the hash part (LuaTable.get's first case, without its call)
                f"({v} if {self.table_test(o, ot)}((type({kt}) is int and 0 < {kt} <= len({a} := {ot}.arr)"
                f" and ({v} := {a}[{kt} - 1]) is not None) or ({v} := ({ot}.hash if type({kt}) is str else {ot}).get({kt}))"
                f" is not None or {ot}.meta is None)"
                f" else {m}_index({ot}, {kt}, {d}))"
            )
        if plain_local(o):
            # a plain local's table and a key computed (`t[#t]`, `t[i - 1]`): only
            # the key held in a temporary (evaluating it cannot change the local)
            ot, kt, a = o.binding.pyname, self.temp(), self.temp()
            key = self.expr(k)
            if self.is_int(k):
                read = f"0 < {kt} <= len({a} := {ot}.arr) and ({v} := {a}[{kt} - 1]) is not None) or ({v} := {ot}.hash.get({kt}))"
            else:
                read = (f"type({kt}) is int and 0 < {kt} <= len({a} := {ot}.arr) and ({v} := {a}[{kt} - 1]) is not None)"
                        f" or ({v} := ({ot}.hash if type({kt}) is str else {ot}).get({kt}))")
            return (
                f"({v} if (({kt} := {key}) is {kt}) and {self.table_test(o, ot)}(({read}"
                f" is not None or {ot}.meta is None) else {m}_index({ot}, {kt}, {d}))"
            )
        if self.is_int(k):
            # an integer key computed (`t[i - 1]`): the array part read in place
            ot, kt, a = self.temp(), self.temp(), self.temp()
            return (
                f"({v} if (type({ot} := {self.expr(o)}) is _Table) & (({kt} := {self.expr(k)}) is {kt})"
                f" and ((0 < {kt} <= len({a} := {ot}.arr) and ({v} := {a}[{kt} - 1]) is not None)"
                f" or ({v} := {ot}.hash.get({kt})) is not None or {ot}.meta is None) else {m}_index({ot}, {kt}, {d}))"
            )
        ot, kt, a = self.temp(), self.temp(), self.temp()
        # evaluate the table, then the key, whatever the table's type
        return (
            f"({v} if (type({ot} := {self.expr(o)}) is _Table) & (({kt} := {self.expr(k)}) is {kt})"
            f" and ((type({kt}) is int and 0 < {kt} <= len({a} := {ot}.arr) and ({v} := {a}[{kt} - 1]) is not None)"
            f" or ({v} := ({ot}.hash if type({kt}) is str else {ot}).get({kt})) is not None or {ot}.meta is None)"
            f" else {m}_index({ot}, {kt}, {d}))"
        )

    # ------------------------------------------------------------ closures

    def closure(self, fn: A.Function, self_var=None) -> str:
        name = self.chunk.function(fn.scope, fn, self_var)
        ups = [v.pyname for v in fn.scope.upvals if v is not self_var]
        if self.own_env is not None:  # it shares the maker's _ENV as it is now (envslots.env_given)
            return f"_envgive({self.own_env}, _mk_{name}({', '.join(ups)}))"
        return f"_mk_{name}({', '.join(ups)})"

    # -------------------------------------------------------------- tables

    def e_Table(self, n):
        items = n.items
        if not items:
            return "_Table()"
        if all(type(i) is A.ListItem for i in items):
            parts = [self.expr(i.value) for i in items[:-1]]
            last = items[-1].value
            if type(last) in (A.Call, A.MethodCall, A.Vararg):
                parts.append("*" + self.multi(last))
                return f"_tlist([{', '.join(parts)}])"
            parts.append(self.expr(last))
            if self.never_nil(last):
                # the list cannot end in nil: it is the array part as it is
                return f"_Table([{', '.join(parts)}])"
            lt = self.temp()
            return f"(_Table({lt}) if ({lt} := [{', '.join(parts)}])[-1] is not None else _tlist({lt}))"
        if all(type(i) is A.NamedItem for i in items):
            names = [i.name for i in items]
            if len(set(names)) == len(names):
                vals = [self.expr(i.value) for i in items]
                maybe = [k for k, i in enumerate(items) if not self.never_nil(i.value)]
                if not maybe:
                    # no value can be nil: the dict is the hash part as it is
                    body = ", ".join(f"{i.name!r}: {v}" for i, v in zip(items, vals))
                    return f"_Table(None, {{{body}}})"
                plain = {k: fold(i.value).binding.pyname for k, i in enumerate(items) if plain_local(fold(i.value))}
                if all(k in plain or k in maybe or type(fold(i.value)) in _PURE for k, i in enumerate(items)):
                    # each value that is no constant evaluated in order and tested
                    # (`&`: all are), a plain local where it is: the dict is made
                    # once the tests are done (a nil leaves its key out: _tnamed)
                    texts, tests, locals_ = [], [], []
                    for k, v in enumerate(vals):
                        if k in plain:
                            texts.append(plain[k])
                            if k in maybe and plain[k] not in locals_:
                                locals_.append(plain[k])
                        elif k in maybe:
                            t = self.temp()
                            texts.append(t)
                            tests.append(f"(({t} := {v}) is not None)")
                        else:
                            texts.append(v)
                    # (the locals' tests last, and short-circuited: they evaluate nothing)
                    test = " and ".join(([" & ".join(tests)] if tests else []) + [f"{x} is not None" for x in locals_])
                    body = ", ".join(f"{i.name!r}: {v}" for i, v in zip(items, texts))
                    return f"(_Table(None, {{{body}}}) if {test} else _tnamed({{{body}}}))"
                # the values in order, each possibly nil one tested (`&`: all
                # are evaluated); a nil among them leaves its key out (_tnamed)
                temps = {k: self.temp() for k in maybe}
                parts = [f"{i.name!r}: ({temps[k]} := {v})" if k in temps else f"{i.name!r}: {v}"
                         for k, (i, v) in enumerate(zip(items, vals))]
                d = self.temp()
                test = " & ".join(f"({temps[k]} is not None)" for k in maybe)
                return f"(_Table(None, {d}) if ({d} := {{{', '.join(parts)}}}) and {test} else _tnamed({d}))"
        # mixed: values in Lua's order, with a layout saying where each goes
        vals, layout = [], []
        for k, it in enumerate(items):
            t = type(it)
            if t is A.ListItem:
                last = k == len(items) - 1 and type(it.value) in (A.Call, A.MethodCall, A.Vararg)
                if last:
                    vals.append("*" + self.multi(it.value))
                    layout.append(2)
                else:
                    vals.append(self.expr(it.value))
                    layout.append(0)
            elif t is A.NamedItem:
                vals.append(repr(it.name))
                vals.append(self.expr(it.value))
                layout.append(1)
            else:
                vals.append(self.expr(it.key))
                vals.append(self.expr(it.value))
                layout.append(1)
        return f"_tmixed([{', '.join(vals)}], {tuple(layout)!r})"
