"""The compiler: turns a resolved chunk into Python source, compiled once.

Each Lua function becomes a Python function made by a factory that receives
its upvalues, so every closure gets its own bindings (a fresh local per loop
iteration comes for free). Uncaptured locals are plain Python locals; a local
that is captured and assigned after capture lives in a one-item list (a
cell). Operators are inline fast paths for the common types that fall back
to the slow paths of `values` (metamethods, coercions, error messages).

Every generated line maps back to a Lua line (the chunk's
`debuginfo.ChunkInfo`), so error positions cost nothing until an error
happens.
"""

from __future__ import annotations

from ..syntax import ast as A
from .expressions import ExprCompiler, clear_folds, fold
from .loops import LoopCompiler
from .nesting import NestingHoister
from .pytrees import compile_quietly
from .weigh import block_cost
from .stores import StoreCompiler
from .chunk import Compiled
from .chunk import chunk_ids as _chunk_ids
from ..debuginfo import ChunkInfo, new_filename, own
from ..errors import LuaSyntaxError
from .kinds import local_kinds, table_uses
from .resolve import FuncScope, GlobalRef, LocalVar, plain_local, resolve


class Emitter:
    """Python source lines, each tagged with the Lua line it came from."""

    def __init__(self):
        self.lines: list[tuple[int, str, int]] = []

    def emit(self, indent: int, text: str, line: int):
        # Expressions carry "\x01N\x02" markers where the Lua line changes;
        # they become physical lines so positions stay exact.
        if "\x01" not in text:
            self.lines.append((indent, text, line))
            return
        parts = text.split("\x01")
        self.lines.append((indent, parts[0], line))
        for p in parts[1:]:
            num, _, rest = p.partition("\x02")
            self.lines.append((indent + 2, rest, int(num)))

    def source(self, call_names: list | None = None) -> tuple[str, list[int], dict]:
        """The source, its line map, and the call sites: (python line,
        UTF-8 column) of each call marked "\x03K\x04" -> call_names[K]."""
        out = []
        linemap = [0]
        sites = {}
        for indent, text, line in self.lines:
            text = "    " * indent + text if indent >= 0 else text
            if "\x03" in text:
                text = _take_call_marks(text, len(out) + 1, call_names, sites)
            out.append(text)
            linemap.append(line)
        return "\n".join(out) + "\n", linemap, sites


def _take_call_marks(text: str, pyline: int, names: list, sites: dict) -> str:
    pieces = text.split("\x03")
    kept = [pieces[0]]
    col = len(pieces[0].encode("utf-8"))
    for piece in pieces[1:]:
        k, _, rest = piece.partition("\x04")
        sites[(pyline, col)] = names[int(k)]
        kept.append(rest)
        col += len(rest.encode("utf-8"))
    return "".join(kept)


class FunctionCompiler(StoreCompiler, LoopCompiler, NestingHoister, ExprCompiler):
    """Compiles one Lua function body into statements."""

    def __init__(self, chunk: "ChunkCompiler", scope: FuncScope, node: A.Function):
        super().__init__(chunk, scope)
        self.node = node
        # what each local is known to hold, the enclosing functions' locals
        # too (an upvalue that is no cell is never assigned again)
        for known, own in zip(chunk.kinds, local_kinds(node)):
            known |= own
        self.ints, self.tables, self.positives = chunk.kinds
        self.table_flags = self.flag_tables(node)
        self.loops: list[dict] = []  # innermost last: {'kind', 'continue_label'}
        # the chunk's main function, called once (compile_chunk's `once`)
        self.runs_once = scope.parent is not None and scope.parent.parent is None and chunk.once
        self.loop_heads = 0  # inside a loop's condition (loops.loop_cond)
        self.tbc_depth = 0  # inside to-be-closed scopes: no tail calls
        self.goto_ctx: list[dict] = []
        self.init_nesting()

    @property
    def cold(self) -> bool:
        """ExprCompiler.cold: in the chunk's main function, outside any loop
        and its condition (a backward goto's dispatch loop counts as one)."""
        return self.runs_once and not self.loops and not self.loop_heads

    def flag_tables(self, node: A.Function) -> dict:
        """The locals of this function that get a table flag: never assigned
        after their declaration (no cells), not known tables, and used as
        tables at least twice (kinds.table_uses). The flag, a Python local
        set where the local is declared (mark_table), holds whether it is a
        table: each use then tests the flag, not the type."""
        return {v: f"_k{v.pyname}" for v, n in table_uses(node).items()
                if n >= 2 and not v.assigned and not v.captured and v not in self.tables}

    def mark_table(self, v: LocalVar, ind: int, line: int):
        """Sets v's table flag (flag_tables), just after v is given its value."""
        flag = self.table_flags.get(v)
        if flag is not None:
            self.bind(flag)
            self.em.emit(ind, f"{flag} = type({v.pyname}) is _Table", line)

    # -------------------------------------------------------------- blocks

    def block(self, block: A.Block, ind: int):
        # a <close> variable is closed at its block's `end`
        saved = self.cur_block_end
        self.cur_block_end = block.end_line or saved
        try:
            labels = self._dispatch_labels(block)
            if labels:
                self._dispatch_block(block, labels, ind)
            else:
                self.stmts(block.stmts, ind)
        finally:
            self.cur_block_end = saved

    def stmts(self, stmts: list, ind: int):
        if stmts and self.too_deep(ind):
            self.hoist_block(stmts, ind)
            return
        start = len(self.em.lines)
        for i, s in enumerate(stmts):
            if type(s) is A.Local and "close" in s.attribs:
                self.with_hoists(self.s_Local, s, ind)
                self._close_scope(s, stmts[i + 1 :], ind)
                break
            self.stmt(s, ind)
            if not i & 1023 and i and self.chunk.progress is not None:  # a long chunk: charged as it goes
                self.chunk.progress("statements", 1024)
        if len(self.em.lines) == start:
            self.em.emit(ind, "pass", stmts[0].line if stmts else self.node.line)

    def stmt(self, s, ind: int):
        self.with_hoists(getattr(self, "s_" + type(s).__name__), s, ind)

    def with_hoists(self, compile_stmt, s, ind: int):
        """Compiles one statement; the functions its deep expressions were
        hoisted into (ExprCompiler.hoist) are defined just before it."""
        saved, self.hoisted = self.hoisted, []
        mark = len(self.em.lines)
        try:
            compile_stmt(s, ind)
            if self.hoisted:
                defs = Emitter()
                for text, line in self.hoisted:
                    defs.emit(ind, text, line)
                self.em.lines[mark:mark] = defs.lines
        finally:
            self.hoisted = saved

    def _close_scope(self, s: A.Local, rest: list, ind: int):
        """`local x <close>`: the rest of the block runs in try/finally."""
        v = s.vars[s.attribs.index("close")]
        ref = self.var_ref(v)
        err = self.temp()
        line = s.line
        self.em.emit(ind, f"_tbc_check({ref}, {v.name!r})", line)
        self.em.emit(ind, f"{err} = None", line)
        self.em.emit(ind, "try:", line)
        self.tbc_depth += 1
        with self.nested(3), self.holding(err):
            self.stmts(rest, ind + 1)
        self.tbc_depth -= 1
        self.em.emit(ind, "except BaseException as _e:", line)
        self.em.emit(ind + 1, f"{err} = _e", line)
        self.em.emit(ind + 1, "raise", line)
        self.em.emit(ind, "finally:", line)
        end = self.cur_block_end or line
        self.em.emit(ind + 1, f"_tbc_close({ref}, {err})", end)

    # ---------------------------------------------------------- statements

    def s_Local(self, s: A.Local, ind: int):
        vars_ = s.vars
        exprs = s.exprs
        n = len(vars_)
        line = s.line
        if n == 1 and len(exprs) == 1:
            self.assign_local(vars_[0], self.expr(exprs[0]), ind, line, declare=True)
            return
        values = self.explist(exprs, n)
        if values is None and not any(v.is_cell for v in vars_):
            # unpacked straight into the locals
            for v in vars_:
                self.bind(v.pyname)
            self.em.emit(ind, f"{', '.join(v.pyname for v in vars_)}, = {self.explist_tuple(exprs, n)}", line)
            for v in vars_:
                self.mark_table(v, ind, line)
        elif values is None:
            tmp = self.temp()
            self.em.emit(ind, f"{tmp} = {self.explist_tuple(exprs, n)}", line)
            for i, v in enumerate(vars_):
                self.assign_local(v, f"{tmp}[{i}]", ind, line, declare=True)
        else:
            # each value straight into its local: the new locals are not in
            # scope in the values, so none of these can see another's store
            for v, val in zip(vars_, values):
                self.assign_local(v, val, ind, line, declare=True)
            for extra in exprs[n:]:
                self.em.emit(ind, self.expr_stmt(extra), line)

    def assign_local(self, v: LocalVar, value: str, ind: int, line: int, declare: bool = False):
        if v.is_cell:
            if declare:
                self.bind(v.pyname)
                self.em.emit(ind, f"{v.pyname} = [{value}]", line)
            else:
                self.em.emit(ind, f"{v.pyname}[0] = {value}", line)
        else:
            self.bind(v.pyname)
            self.em.emit(ind, f"{v.pyname} = {value}", line)
            if declare:
                self.mark_table(v, ind, line)

    def s_LocalFunction(self, s: A.LocalFunction, ind: int):
        v = s.var
        self.bind(v.pyname)
        if v.is_cell:
            self.em.emit(ind, f"{v.pyname} = [None]", s.line)
            self.em.emit(ind, f"{v.pyname}[0] = {self.closure(s.func)}", s.line)
        else:
            self.em.emit(ind, f"{v.pyname} = {self.closure(s.func, self_var=v)}", s.line)

    def s_FunctionStat(self, s: A.FunctionStat, ind: int):
        target = s.target
        if s.method is not None:
            target = A.Index(target, A.String(s.method, line=s.line), line=s.line)
        self.assign_targets([target], [s.func], ind, s.line)

    def s_Assign(self, s: A.Assign, ind: int):
        self.assign_targets(s.targets, s.exprs, ind, s.line, s.end_line)

    def assign_targets(self, targets: list, exprs: list, ind: int, line: int, end_line: int = 0):
        """`end_line`, the line of the statement's last token, is where Lua
        reports a failing store (the store runs after the values)."""
        if len(targets) == 1 and len(exprs) == 1:
            nonnil = self.never_nil(exprs[0])
            fast = self.field_update(targets[0], exprs[0]) or self.append_pure(targets[0], exprs[0])
            if fast is not None:
                self.em.emit(ind, f"if {fast}", line)
                self.em.emit(ind, "else:", line)
                ind += 1
            kept = self._kept(exprs[0], ())  # a value that may be read where it is stored
            value = kept if kept is not None else self.expr(exprs[0])
            self.store(targets[0], None, None, value, ind, line, end_line, nonnil, kept is not None)
            return
        # Lua order: the targets' table and key expressions, then the values,
        # then the stores from the last target to the first. A table or key
        # that is a constant or a local (place_text) no target of the
        # statement assigns is read at its store, as Lua reads it (only a
        # store into such a local could change it in between, or, for a cell,
        # a metamethod); a value only when it is a constant or a plain local
        assigned = {t.binding for t in targets if type(t) is A.Name}
        pre = []
        for t in targets:
            if type(t) is A.Index:
                o = self._kept(t.obj, assigned, True)
                if o is None:
                    o = self.temp()
                    self.em.emit(ind, f"{o} = {self.expr(t.obj)}", line)
                key = fold(t.key)
                k = repr(key.value) if type(key) is A.String else self._kept(key, assigned, True)
                if k is None:
                    k = self.temp()
                    self.em.emit(ind, f"{k} = {self.expr(t.key)}", line)
                pre.append((o, k))
            else:
                pre.append((None, None))
        n = len(targets)
        values = self.explist(exprs, n)
        if values is None:
            tmps = [self.temp() for _ in range(n)]
            tup = self.temp()
            self.em.emit(ind, f"{tup} = {self.explist_tuple(exprs, n)}", line)
            for i, t in enumerate(tmps):
                self.em.emit(ind, f"{t} = {tup}[{i}]", line)
        else:
            tmps = []
            for i, val in enumerate(values):
                kept = self._kept(exprs[i], assigned) if i < len(exprs) else "None"
                if kept is not None:
                    tmps.append(kept)
                    continue
                t = self.temp()
                self.em.emit(ind, f"{t} = {val}", line)
                tmps.append(t)
            for extra in exprs[n:]:
                self.em.emit(ind, self.expr_stmt(extra), line)
        nonnil = [values is not None and i < len(exprs) and self.never_nil(exprs[i]) for i in range(n)]
        for t, (o, k), tmp, known in reversed(list(zip(targets, pre, tmps, nonnil))):
            self.store(t, o, k, tmp, ind, line, end_line, known)

    def _kept(self, n, assigned, place: bool = False) -> str | None:
        """The text of an assignment's part read where it is used, after the
        other parts (see assign_targets): a constant, or a plain local (not
        a cell; with `place`, a table or key: as place_text) that none of
        the statement's targets is; else None."""
        n = fold(n)
        if type(n) is A.Name and n.binding in assigned:
            return None
        if place:
            return self.place_text(n)
        if type(n) in (A.Number, A.String, A.Nil, A.TrueLit, A.FalseLit):
            return self.expr(n)
        if plain_local(n):
            return n.binding.pyname
        return None

    def s_CallStat(self, s: A.CallStat, ind: int):
        call = s.call
        if type(call) is A.Call and type(call.func) is A.Name and type(call.func.binding) is GlobalRef \
                and call.func.name == "collectgarbage":
            # Lua's stack holds no dead temporary: before a collection, this
            # function's temporaries not held by an enclosing statement, and
            # its locals out of scope (a loop's variables once it ended), let
            # go of their values (filled in when the function is compiled)
            live = self.scope.live_at.get(id(s))
            dead = [] if live is None or self.frames else \
                [v.pyname for v in self.scope.declared if v.pyname not in live]
            self.em.emit(ind, f"{CLEAR_MARK}{' '.join(self.held)}|{' '.join(dead)}", s.line)
        self.em.emit(ind, self.expr_stmt(call), s.line)

    def s_Do(self, s: A.Do, ind: int):
        self.block(s.body, ind)

    def s_If(self, s: A.If, ind: int):
        for i, (cond, body) in enumerate(s.tests):
            kw = "if" if i == 0 else "elif"
            self.em.emit(ind, f"{kw} {self.cond(cond)}:", cond.line)
            self.block(body, ind + 1)
        if s.orelse is not None and s.orelse.stmts:
            self.em.emit(ind, "else:", s.orelse.line or s.line)
            self.block(s.orelse, ind + 1)

    def s_Return(self, s: A.Return, ind: int):
        self.emit_return(self.return_value(s.exprs), ind, s.line)

    def return_value(self, exprs: list) -> str:
        if not exprs:
            return "_EMPTY"
        if len(exprs) == 1:
            e = exprs[0]
            if type(e) in (A.Call, A.MethodCall) and self.tbc_depth == 0:
                return self.tailcall(e)
            if type(e) is A.Vararg:
                return "VA"  # a tuple is a Multi (values.Multi)
            if type(e) in (A.Call, A.MethodCall):
                return self.multi(e)
            return self.expr(e)
        return self.explist_tuple(exprs, None)

    def s_Break(self, s: A.Break, ind: int):
        if self.break_out(ind, s.line):
            return
        loop = self.loops[-1] if self.loops else None
        if loop is not None and loop.get("refund"):
            self.em.emit(ind, loop["refund"], s.line)
        if loop is not None and loop.get("flag"):
            self.em.emit(ind, f"{loop['flag']} = True", s.line)
        self.em.emit(ind, "break", s.line)

    def s_Goto(self, s: A.Goto, ind: int):
        # innermost first: a dispatcher or a loop whose body ends at the label
        for ctx in reversed(self.loops):
            if ctx["kind"] == "hoist":
                self.goto_out(ctx["frame"], s.label, ind, s.line)
                return
            if ctx["kind"] == "dispatch":
                if s.label in ctx["labels"]:
                    self.em.emit(ind, f"{ctx['var']} = {ctx['labels'][s.label]}", s.line)
                    self.em.emit(ind, "continue", s.line)
                    return
                break
            if ctx["continue"] == s.label:
                self.em.emit(ind, "continue", s.line)
                return
            break
        self.em.emit(ind, f"raise _GotoSignal({s.label!r})", s.line)

    def s_Label(self, s: A.Label, ind: int):
        pass

    # ----------------------------------------------------- goto dispatcher

    def _dispatch_labels(self, block: A.Block) -> dict:
        """Labels of this block that some goto needs (other than a loop's
        trailing `continue` label, which becomes Python's continue)."""
        names = [s.name for s in block.stmts if type(s) is A.Label]
        if not names:
            return {}
        loop = self.loops[-1] if self.loops else None
        trailing = loop["continue"] if loop and loop["kind"] != "dispatch" and block.stmts[-1:] and type(block.stmts[-1]) is A.Label else None
        needed = set()
        for g in _gotos_in(block):
            if g.label in names and g.label != trailing:
                needed.add(g.label)
            elif g.label in names and g.label == trailing and not _direct_goto(block, g):
                needed.add(g.label)
        return {n: i + 1 for i, n in enumerate(x for x in names if x in needed)}

    def _dispatch_block(self, block: A.Block, labels: dict, ind: int):
        var = self.temp()
        flag = self.temp()
        segments: list[list] = [[]]
        for s in block.stmts:
            if type(s) is A.Label and s.name in labels:
                segments.append([])
            else:
                segments[-1].append(s)
        line = block.stmts[0].line
        self.em.emit(ind, f"{var} = 0", line)
        self.em.emit(ind, f"{flag} = False", line)
        self.em.emit(ind, "while True:", line)
        self.em.emit(ind + 1, "_S[0] -= 1", line)
        self.em.emit(ind + 1, "if _S[0] < 0: _tick()", line)
        self.em.emit(ind + 1, "try:", line)
        outer_loop = self.loops[-1] if self.loops else None
        ctx = {"kind": "dispatch", "labels": labels, "var": var, "continue": None, "flag": flag}
        self.loops.append(ctx)
        with self.nested(2), self.holding(var, flag):
            for i, seg in enumerate(segments):
                self.em.emit(ind + 2, f"if {var} <= {i}:", line)
                self.stmts(seg, ind + 3)
        self.loops.pop()
        self.em.emit(ind + 2, "break", line)
        self.em.emit(ind + 1, "except _GotoSignal as _g:", line)
        self.em.emit(ind + 2, f"_gl = {labels!r}.get(_g.label)", line)
        self.em.emit(ind + 2, "if _gl is None: raise", line)
        self.em.emit(ind + 2, f"{var} = _gl", line)
        if outer_loop is not None:
            # a break inside the dispatcher: now leave the loop around it
            self.em.emit(ind, f"if {flag}:", line)
            self.s_Break(A.Break(line=line), ind + 1)

    # ----------------------------------------------------------- function

    def fill_clears(self, start: int) -> None:
        """The clearing lines of this function's collections (CLEAR_MARK),
        now that its temporaries are known."""
        lines = self.em.lines
        for i in range(start, len(lines)):
            indent, text, line = lines[i]
            if text.startswith(CLEAR_MARK):
                held, _, dead = text[1:].partition("|")
                lines[i] = (indent, _clearing(self.ntemp, set(held.split()), dead.split()), line)

    def compile_function(self, name: str, self_var: LocalVar | None) -> None:
        """Emits the factory `def _mk_<name>(upvalues): def <name>(...)`."""
        fn = self.node
        sc = self.scope
        em = self.em
        ups = [v.pyname for v in sc.upvals if v is not self_var]
        if sc.parent is not None and sc.parent.parent is None:
            ups = ["_ENV_0"]  # the main function: its only upvalue is _ENV
        fname = self_var.pyname if self_var is not None else name
        self.own_env = fname if sets_own_env(fn) else None
        line = fn.line
        em.emit(0, f"def _mk_{name}({', '.join(ups)}):", line)
        params = [f"{v.pyname}=None" for v in fn.param_vars]
        params.append("*VA" if fn.is_vararg else "*_")
        em.emit(1, f"def {fname}({', '.join(params)}):", line)
        # the call's steps (a local for the test: one subscript fewer than `_S[0] -= k`)
        em.emit(2, f"_S[0] = _s = _S[0] - {1 + block_cost(fn.body.stmts)}", line)
        em.emit(2, "if _s < 0: _tick()", line)
        for v in fn.param_vars:
            if v.is_cell:
                em.emit(2, f"{v.pyname} = [{v.pyname}]", line)
            self.mark_table(v, 2, line)
        self.cur_block_end = fn.body.end_line or fn.end_line
        mark = len(em.lines)
        self.block(fn.body, 2)
        self.fill_clears(mark)
        em.lines[mark:mark] = self.nesting_prologue({v.pyname for v in fn.param_vars})
        em.emit(2, "return _EMPTY", fn.end_line or line)
        em.emit(1, f"return {fname}", line)


#: a line to become the clearing of this function's free temporaries
#: (s_CallStat of `collectgarbage(...)`), then the temporaries it keeps
CLEAR_MARK = "\x05"


def _clearing(ntemp: int, held: set, dead: list) -> str:
    free = [f"_t{i}" for i in range(1, ntemp + 1) if f"_t{i}" not in held] + dead
    return " = ".join(free) + " = None" if free else "pass"


def sets_own_env(fn: A.Function) -> bool:
    """Whether fn's body (not a nested function's) calls a function named
    `setfenv` (a name or a field): Lua 5.1's setfenv as libraries emulate
    it, which may give the running function, `setfenv(1, t)`, a table of
    its own as its globals. Such a function reads its globals through
    what it has now (ExprCompiler.env_ref), since a running Python frame
    keeps the code set_env replaces (runtime/envslots.py)."""
    for n in A.own_nodes([fn.body]):
        if type(n) is A.Call:
            f = n.func
            if (type(f) is A.Name and f.name == "setfenv") or (
                    type(f) is A.Index and type(f.key) is A.String and f.key.value == "setfenv"):
                return True
    return False


def _gotos_in(node):
    """Every Goto under node, not descending into nested functions."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is A.Goto:
            yield n
        elif t is A.Block:
            stack.extend(n.stmts)
        elif t in (A.Do, A.While, A.Repeat, A.NumericFor, A.GenericFor):
            stack.append(n.body)
        elif t is A.If:
            stack.extend(b for _c, b in n.tests)
            if n.orelse is not None:
                stack.append(n.orelse)


def _direct_goto(block: A.Block, g: A.Goto) -> bool:
    """True when g is reachable from block without crossing a nested loop."""
    stack = list(block.stmts)
    while stack:
        n = stack.pop()
        if n is g:
            return True
        t = type(n)
        if t is A.Do:
            stack.extend(n.body.stmts)
        elif t is A.If:
            for _c, b in n.tests:
                stack.extend(b.stmts)
            if n.orelse is not None:
                stack.extend(n.orelse.stmts)
    return False


class ChunkCompiler:
    """Compiles a whole chunk into one Python module's source."""

    def __init__(self, chunk: A.Chunk, fast_env: bool, progress=None, once: bool = True):
        self.chunk_node = chunk
        self.progress = progress  # compile_chunk's
        self.id = next(_chunk_ids)
        self.em = Emitter()
        self.counter = 0
        self.fast_env_ok = fast_env
        self.once = once  # (compile_chunk's)
        self.defs: list[Emitter] = []
        # call-site names (Lua's funcnamefromcode): (name, is_method) per marker
        self.call_names: list[tuple[str, bool]] = []
        self.call_sites: dict = {}
        self.n_hoisted = 0  # functions deep expressions were hoisted into
        # the locals known to hold integers, tables, values >= 1 (kinds.local_kinds), of every
        # function compiled so far: an inner function is compiled within its enclosing one
        self.kinds: tuple[set, set, set] = (set(), set(), set())

    def new_name(self) -> str:
        self.counter += 1
        return f"c{self.id}_{self.counter}"

    def compile(self) -> tuple[str, list[int], str]:
        scope = resolve(self.chunk_node)
        if self.progress is not None:
            self.progress("resolved", 0)
        main = self.function(scope, scope.node, None)
        em = Emitter()
        for d in self.defs:
            em.lines.extend(d.lines)
        src, linemap, self.call_sites = em.source(self.call_names)
        return src, linemap, main

    def function(self, scope: FuncScope, node: A.Function, self_var) -> str:
        """Compiles one function into its own factory definition."""
        name = self.new_name()
        saved = self.em
        self.em = Emitter()
        self.defs.append(self.em)
        fc = FunctionCompiler(self, scope, node)
        fc.compile_function(name, self_var)
        self.em = saved
        return name


def compile_chunk(source: str, chunkname: str, fast_env: bool = True, progress=None, once: bool = True) -> Compiled:
    """Parses and compiles Lua source (one char per byte); `chunkname` is
    the name used in messages as is. Raises LuaSyntaxError. (The disk
    cache's way in, for the host's chunks, is compiler.chunkcache.compile_lua.)
    `progress(stage, n)`, if given, is called between the stages and every
    so many tokens and statements inside them (Lua's `load` charges the
    running state's limits with it: runvil.lua.runtime.pieces). `once`: the
    chunk's main function is called once (ExprCompiler.cold); not for the
    chunks Lua's `load` and `loadfile` make, which a program may call
    many times."""
    from ..syntax.parser import parse

    tree = parse(source, chunkname, progress)
    if progress is not None:
        progress("parsed", 0)
    return compile_tree(tree, fast_env, progress, once)


def compile_tree(chunk: A.Chunk, fast_env: bool = True, progress=None, once: bool = True) -> Compiled:
    """Compiles a parsed chunk. With fast_env, global accesses read the
    namespace's `_Gh` (the hash part of the state's globals) directly, so
    the chunk must run with the state's globals as its _ENV.

    The passes recurse over the tree, and a chain of operators or fields
    has no depth limit in Lua: a chunk too deep for the caller's stack is
    compiled again on a Lua thread (a large stack, a high recursion limit);
    too deep even there, it gets Lua's error for a chunk nested too deeply."""
    from ..stack import on_lua_thread, run_lua

    try:
        return _compile_tree(chunk, fast_env, progress, once)
    except RecursionError:
        if on_lua_thread():
            raise LuaSyntaxError(f"{chunk.name}: C stack overflow") from None
    try:
        return run_lua(lambda: _compile_tree(chunk, fast_env, progress, once))
    except RecursionError:
        raise LuaSyntaxError(f"{chunk.name}: C stack overflow") from None


def _compile_tree(chunk: A.Chunk, fast_env: bool, progress=None, once: bool = True) -> Compiled:
    cc = ChunkCompiler(chunk, fast_env, progress, once)
    try:
        src, linemap, main = cc.compile()
    finally:
        clear_folds()
    filename = new_filename()
    if progress is not None:
        progress("generated", len(src))
    code = compile_quietly(src, filename)
    info = ChunkInfo(chunk.name, filename, linemap, cc.call_sites, src, chunk_id=cc.id)
    env_var = chunk.scope.parent.blocks[0].vars[0]
    return Compiled(chunk.name, own(code, info), main, env_var.is_cell, info)
