"""The resolver: binds every name to a local, an upvalue or a global, and
checks what Lua checks at compile time (goto targets, const assignments).

It writes what it learns into the tree: `Name.binding`, `Local.vars`,
`Function.scope` (a FuncScope), and marks locals that inner functions
capture, so the compiler can keep uncaptured locals as plain Python locals.
"""

from __future__ import annotations

from ..syntax import ast as A
from ..errors import LuaSyntaxError

#: the start of every Lua local's Python name, and of no other name
LOCAL_PREFIX = "L_"


class LocalVar:
    """One declared Lua local (a fresh one per declaration)."""

    __slots__ = ("name", "pyname", "attrib", "func", "captured", "assigned", "decl_line", "const_init", "function")

    def __init__(self, name: str, pyname: str, attrib, func: "FuncScope", line: int):
        self.name = name
        self.pyname = pyname
        self.attrib = attrib  # None, 'const' or 'close'
        self.func = func
        self.captured = False  # read or written by an inner function
        self.assigned = False  # assigned after its declaration
        self.decl_line = line
        # the initializer of a <const> local that may be a compile-time
        # constant (Lua's localstat: the last name, no adjustment); the
        # compiler folds it, and a constant then stands for every use
        self.const_init = None
        # the function of a `local function` statement or of `local f =
        # function ... end` (its only value while `assigned` stays False)
        self.function = None

    @property
    def is_cell(self) -> bool:
        """Held in a one-item list: captured and assigned after capture."""
        return self.captured and self.assigned

    def __repr__(self):
        return f"<local {self.name} {self.pyname}>"


def plain_local(n) -> bool:
    """Whether the node n names a local that no inner function assigns (no
    cell): a Python local, which no call made while evaluating can change."""
    return type(n) is A.Name and isinstance(n.binding, LocalVar) and not n.binding.is_cell


class GlobalRef:
    """A free name: `_ENV.name`, with the _ENV binding in scope."""

    __slots__ = ("env",)

    def __init__(self, env: LocalVar):
        self.env = env


class FuncScope:
    """What the compiler needs to know about one function."""

    __slots__ = ("parent", "node", "upvals", "blocks", "vararg", "has_close", "bad_break", "tails_local",
                 "one_result", "declared", "live_at")

    def __init__(self, parent, node):
        self.parent = parent
        self.node = node
        self.upvals: list[LocalVar] = []  # captured from enclosing functions
        self.blocks: list[_Block] = []
        self.vararg = False
        self.has_close = False
        self.bad_break = 0  # line of a break outside any loop: Lua reports it at the function's end
        # some `return f(...)` of it calls a local f (it may make a direct tail call)
        self.tails_local = False
        # every return gives one value that is no call's or `...`, and the
        # body cannot end without one: a call of it never gives a Multi
        self.one_result = True
        self.declared: list[LocalVar] = []  # every local of its own, in order
        # id of a `collectgarbage(...)` statement -> the Python names of the locals in scope there
        self.live_at: dict[int, frozenset] = {}


class _Block:
    __slots__ = ("vars", "labels", "gotos", "is_loop", "nactive", "node")

    def __init__(self, node, is_loop: bool):
        self.vars: list[LocalVar] = []  # in declaration order (shadowing allowed)
        self.labels: dict[str, tuple] = {}  # name -> (line, nvars at label, is_last)
        self.gotos: list = []  # pending (Goto node, nvars at goto, block depth)
        self.is_loop = is_loop
        self.node = node


class Resolver:
    def __init__(self, chunkname: str):
        self.chunkname = chunkname
        self.counter = 0
        self.func: FuncScope | None = None

    def error(self, line: int, msg: str):
        raise LuaSyntaxError(f"{self.chunkname}:{line}: {msg}")

    def fresh(self, name: str) -> str:
        """The Python name of a Lua local: `L_<name>_<n>`. Only Lua locals
        start with `L_` (every name the compiler makes itself starts with
        `_`, `c` or `VA`), and the trailing counter makes each one unique,
        so no Lua name can ever meet a generated one."""
        self.counter += 1
        return f"{LOCAL_PREFIX}{name}_{self.counter}"

    # ------------------------------------------------------------ scopes

    def declare(self, name: str, attrib, line: int) -> LocalVar:
        v = LocalVar(name, self.fresh(name), attrib, self.func, line)
        self.func.blocks[-1].vars.append(v)
        self.func.declared.append(v)
        return v

    def lookup(self, name: str):
        fs = self.func
        found = None
        chain = []
        while fs is not None:
            for b in reversed(fs.blocks):
                for v in reversed(b.vars):
                    if v.name == name:
                        found = v
                        break
                if found:
                    break
            if found:
                break
            chain.append(fs)
            fs = fs.parent
        if found is None:
            return None
        if chain:
            found.captured = True
            for f in chain:
                if found not in f.upvals:
                    f.upvals.append(found)
        return found

    # --------------------------------------------------------- functions

    def resolve_chunk(self, chunk: A.Chunk, env_pyname: str = "_ENV_0") -> FuncScope:
        outer = FuncScope(None, None)
        self.func = outer
        outer.blocks.append(_Block(None, False))
        env = LocalVar("_ENV", env_pyname, None, outer, 0)
        outer.blocks[-1].vars.append(env)
        fn = A.Function(params=[], is_vararg=True, body=chunk.body, name="main chunk", line=0)
        fs = self.function(fn)
        chunk.scope = fs  # type: ignore[attr-defined]
        return fs

    def function(self, fn: A.Function) -> FuncScope:
        fs = FuncScope(self.func, fn)
        fs.vararg = fn.is_vararg
        self.func = fs
        fs.blocks.append(_Block(fn.body, False))
        fn.param_vars = [self.declare(p, None, fn.line) for p in fn.params]
        self.block_body(fn.body)
        if not fn.body.stmts or type(fn.body.stmts[-1]) is not A.Return:
            fs.one_result = False  # it may end without a return: no values
        if fs.bad_break:
            self.error(fn.body.end_line or fs.bad_break, f"break outside loop at line {fs.bad_break}")
        self.close_block(fn.body)
        self.func = fs.parent
        fn.scope = fs
        return fs

    # ------------------------------------------------------------ blocks

    def block(self, block: A.Block, is_loop: bool = False, pre=None):
        self.func.blocks.append(_Block(block, is_loop))
        if pre is not None:
            pre()
        self.block_body(block)
        self.close_block(block)

    def block_body(self, block: A.Block, until: bool = False):
        stmts = block.stmts
        i = 0
        while i < len(stmts):
            if not isinstance(stmts[i], A.Label):
                self.stmt(stmts[i])
                i += 1
                continue
            # a run of labels: Lua's labelstat parses the no-op statements
            # after a label before it checks and creates it, so a run's last
            # label comes first, and errors are at the token after the run
            j = i
            while j < len(stmts) and isinstance(stmts[j], A.Label):
                j += 1
            after = stmts[j].line if j < len(stmts) else block.end_line
            last = not until and j == len(stmts)
            for s in reversed(stmts[i:j]):
                self.label(s, last, after or s.line)
            i = j

    def label(self, s: A.Label, last: bool, at: int):
        """Creates a label, checked as Lua does at line `at` (the token
        after it and the labels that follow it)."""
        fs = self.func
        for b in fs.blocks:
            if s.name in b.labels:
                self.error(at, f"label '{s.name}' already defined on line {b.labels[s.name][0]}")
        b = fs.blocks[-1]
        nvars = 0 if last else len(b.vars)
        b.labels[s.name] = (s.line, nvars, last)
        # pending forward gotos in this block to this label
        keep = []
        for g, gn in b.gotos:
            if g.label == s.name:
                if nvars > gn:
                    v = b.vars[gn]
                    self.error(at, f"<goto {g.label}> at line {g.line} jumps into the scope of local '{v.name}'")
            else:
                keep.append((g, gn))
        b.gotos = keep

    def close_block(self, block):
        fs = self.func
        b = fs.blocks.pop()
        if b.gotos:
            if fs.blocks:
                # unresolved gotos move outward: they may target a later label there
                outer = fs.blocks[-1]
                for g, _gn in b.gotos:
                    outer.gotos.append((g, len(outer.vars)))
            else:
                # Lua notices at the end of the function (the chunk: its last line)
                g = b.gotos[0][0]
                self.error(block.end_line or g.line, f"no visible label '{g.label}' for <goto> at line {g.line}")

    # -------------------------------------------------------- statements

    def stmt(self, s):
        m = getattr(self, "s_" + type(s).__name__)
        m(s)

    def s_Local(self, s: A.Local):
        for e in s.exprs:
            self.expr(e)
        nclose = 0
        vars_ = []
        for name, attrib in zip(s.names, s.attribs):
            if attrib not in (None, "const", "close"):
                self.error(s.line, f"unknown attribute '{attrib}'")
            if attrib == "close":
                nclose += 1
                self.func.has_close = True
            vars_.append(LocalVar(name, self.fresh(name), attrib, self.func, s.line))
        if nclose > 1:
            self.error(s.line, "multiple to-be-closed variables in local list")
        if vars_ and vars_[-1].attrib == "const" and len(s.exprs) == len(vars_):
            vars_[-1].const_init = s.exprs[-1]
        for v, e in zip(vars_, s.exprs):
            if type(e) is A.Function and v.attrib != "close":
                v.function = e  # `local f = function ... end`: as a `local function f`
        self.func.blocks[-1].vars.extend(vars_)
        self.func.declared.extend(vars_)
        s.vars = vars_

    def s_LocalFunction(self, s: A.LocalFunction):
        v = self.declare(s.name, None, s.line)
        s.var = v
        v.function = s.func
        self.function(s.func)

    def s_Assign(self, s: A.Assign):
        for t in s.targets:
            if isinstance(t, A.Name):
                self.assign_name(t)
            else:
                self.expr(t)
        for e in s.exprs:
            self.expr(e)

    def assign_name(self, t: A.Name):
        self.expr(t)
        v = t.binding
        if isinstance(v, LocalVar):
            if v.attrib is not None:
                self.error(t.line, f"attempt to assign to const variable '{v.name}'")
            v.assigned = True

    def s_CallStat(self, s):
        self.expr(s.call)
        call = s.call
        if type(call) is A.Call and type(call.func) is A.Name and type(call.func.binding) is GlobalRef \
                and call.func.name == "collectgarbage":  # (codegen clears what is dead before it)
            self.func.live_at[id(s)] = frozenset(v.pyname for b in self.func.blocks for v in b.vars)

    def s_Do(self, s):
        self.block(s.body)

    def s_While(self, s):
        self.expr(s.cond)
        self.block(s.body, is_loop=True)

    def s_Repeat(self, s: A.Repeat):
        # the condition sees the body's locals: resolve it inside the block
        self.func.blocks.append(_Block(s.body, True))
        self.block_body(s.body, until=True)
        self.expr(s.cond)
        self.close_block(s.body)

    def s_If(self, s: A.If):
        for cond, body in s.tests:
            self.expr(cond)
            self.block(body)
        if s.orelse is not None:
            self.block(s.orelse)

    def s_NumericFor(self, s: A.NumericFor):
        self.expr(s.start)
        self.expr(s.stop)
        if s.step is not None:
            self.expr(s.step)

        def pre():
            s.var_local = self.declare(s.var, None, s.line)

        self.block(s.body, is_loop=True, pre=pre)

    def s_GenericFor(self, s: A.GenericFor):
        for e in s.exprs:
            self.expr(e)

        def pre():
            s.vars = [self.declare(n, None, s.line) for n in s.names]

        self.block(s.body, is_loop=True, pre=pre)

    def s_FunctionStat(self, s: A.FunctionStat):
        if isinstance(s.target, A.Name) and s.method is None:
            self.assign_name(s.target)
        else:
            self.expr(s.target)
        self.function(s.func)

    def s_Return(self, s):
        for e in s.exprs:
            self.expr(e)
        if len(s.exprs) == 1 and type(e) is A.Call and type(e.func) is A.Name and isinstance(e.func.binding, LocalVar):
            self.func.tails_local = True
        if len(s.exprs) != 1 or type(s.exprs[0]) in (A.Call, A.MethodCall, A.Vararg):
            self.func.one_result = False

    def s_Break(self, s):
        for b in reversed(self.func.blocks):
            if b.is_loop:
                return
        if not self.func.bad_break:
            self.func.bad_break = s.line

    def s_Goto(self, s: A.Goto):
        fs = self.func
        # backward jump to a label already seen in an enclosing block
        for b in reversed(fs.blocks):
            if s.label in b.labels:
                return
        b = fs.blocks[-1]
        b.gotos.append((s, len(b.vars)))

    def s_Label(self, s):
        self.label(s, False)

    # -------------------------------------------------------- expressions

    def expr(self, e):
        t = type(e)
        if t is A.Name:
            v = self.lookup(e.name)
            if v is None:
                env = self.lookup("_ENV")
                e.binding = GlobalRef(env)
            else:
                e.binding = v
        elif t is A.Index:
            self.expr(e.obj)
            self.expr(e.key)
        elif t is A.Call:
            self.expr(e.func)
            for a in e.args:
                self.expr(a)
        elif t is A.MethodCall:
            self.expr(e.obj)
            for a in e.args:
                self.expr(a)
        elif t is A.Function:
            self.function(e)
        elif t is A.BinOp:
            self.expr(e.left)
            self.expr(e.right)
        elif t is A.UnOp:
            self.expr(e.operand)
        elif t is A.Paren:
            self.expr(e.expr)
        elif t is A.Table:
            for it in e.items:
                if type(it) is A.KeyedItem:
                    self.expr(it.key)
                self.expr(it.value)
        elif t is A.Vararg:
            if not self.func.vararg:
                self.error(e.line, "cannot use '...' outside a vararg function near '...'")


def resolve(chunk: A.Chunk) -> FuncScope:
    """Resolves a parsed chunk in place; returns its main function's scope."""
    return Resolver(chunk.name).resolve_chunk(chunk)
