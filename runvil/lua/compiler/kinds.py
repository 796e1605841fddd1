"""Integer locals: which locals of a function can only ever hold integers,
so the compiler can drop the type checks of their arithmetic and
comparisons (keeping the 64-bit wraparound); table locals, which only
ever hold tables; and the numeric for variables that only hold values >= 1.

A local qualifies when every value it is ever given is an integer
expression: an integer literal, another such local, or + - * // % and the
bitwise operators over integer expressions (all of which give integers in
Lua 5.4). A numeric for's variable qualifies when its start and step are
integer expressions. Parameters never qualify (callers pass anything), nor
do locals that an inner function can assign.
"""

from __future__ import annotations

from ..syntax import ast as A
from .resolve import LocalVar

INT_OPS = frozenset(("+", "-", "*", "//", "%", "&", "|", "~", "<<", ">>"))


def is_int_expr(n, ints: set) -> bool:
    t = type(n)
    if t is A.Number:
        return type(n.value) is int
    if t is A.Name:
        return n.binding in ints
    if t is A.Paren:
        return is_int_expr(n.expr, ints)
    if t is A.BinOp:
        return n.op in INT_OPS and is_int_expr(n.left, ints) and is_int_expr(n.right, ints)
    if t is A.UnOp:
        return n.op in ("-", "~") and is_int_expr(n.operand, ints)
    return False


def local_kinds(fn: A.Function) -> tuple[set, set, set]:
    """What fn's own locals (not those of nested functions) are known to
    hold, from one walk of its statements: (the integer locals, the table
    locals, the positive for variables)."""
    defs: dict[LocalVar, list] = {}  # var -> the expressions it is given (None: a non-integer)
    fors: list = []
    _collect(fn.body, defs, fors)
    ints = _int_locals(defs)
    return ints, _table_locals(defs), _positive_locals(defs, fors, ints)


def _int_locals(defs: dict) -> set:
    """The locals that always hold integers."""
    ints = {v for v in defs if not v.is_cell}
    changed = True
    while changed:
        changed = False
        for v in list(ints):
            if not all(e is not None and is_int_expr(e, ints) for e in defs[v]):
                ints.discard(v)
                changed = True
    return ints


def _positive_locals(defs: dict, fors: list, ints: set) -> set:
    """The numeric for variables (integer locals, given no other value)
    whose start is an integer literal >= 1 and whose step is a positive
    one (or absent), or that count down (a negative literal step) to a
    limit that is a literal >= 1: each value they hold is >= 1, so an array
    read by them needs no `0 <` test."""
    return {n.var_local for n in fors
            if n.var_local in ints and len(defs[n.var_local]) == 1
            and (_positive_literal(n.start) and (n.step is None or _positive_literal(n.step))
                 or _negative_literal(n.step) and type(n.stop) is A.Number and n.stop.value >= 1)}


def _positive_literal(n) -> bool:
    return type(n) is A.Number and type(n.value) is int and n.value >= 1


def _negative_literal(n) -> bool:
    """An integer literal <= -1 (or the unary minus of one >= 1)."""
    if type(n) is A.UnOp:
        return n.op == "-" and _positive_literal(n.operand)
    return type(n) is A.Number and type(n.value) is int and n.value <= -1


def _table_locals(defs: dict) -> set:
    """The locals (not cells) that only ever hold tables: every value they
    are given is a table constructor (so a type test of theirs can be left
    out; their metatable still needs testing)."""
    return {v for v, es in defs.items() if not v.is_cell and all(type(e) is A.Table for e in es)}


def _give(defs, var, expr):
    defs.setdefault(var, []).append(expr)


def _collect(node, defs, fors: list):
    """Walks statements (not nested functions), recording each local's
    values, and the numeric fors into `fors`."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is A.Block:
            stack.extend(n.stmts)
        elif t is A.Local:
            # a value past the list is nil; a call's value is never an integer expression
            for i, v in enumerate(n.vars):
                _give(defs, v, n.exprs[i] if i < len(n.exprs) else None)
        elif t is A.Assign:
            for i, target in enumerate(n.targets):
                if type(target) is A.Name and isinstance(target.binding, LocalVar):
                    _give(defs, target.binding, n.exprs[i] if i < len(n.exprs) else None)
        elif t is A.NumericFor:
            # the variable is an integer exactly when start and step are
            step = n.step if n.step is not None else A.Number(1)
            _give(defs, n.var_local, A.BinOp("+", n.start, step))
            fors.append(n)
            stack.append(n.body)
        elif t is A.GenericFor:
            for v in n.vars:
                _give(defs, v, None)
            stack.append(n.body)
        elif t is A.LocalFunction:
            _give(defs, n.var, None)
        elif t is A.FunctionStat:
            if type(n.target) is A.Name and isinstance(n.target.binding, LocalVar) and n.method is None:
                _give(defs, n.target.binding, None)
        elif t in (A.Do, A.While, A.Repeat):
            stack.append(n.body)
        elif t is A.If:
            stack.extend(b for _c, b in n.tests)
            if n.orelse is not None:
                stack.append(n.orelse)


#: a use of a local in a loop its declaration is outside of counts this many times
LOOP_USES = 4


def table_uses(fn: A.Function) -> dict:
    """How often each local of fn (not of nested functions) is used as a
    table (indexed, a method called on it, stored into, its length), a use
    inside a loop around it counting LOOP_USES times: where a local that is
    never assigned again is used enough, the compiler tests once that it is
    a table (FunctionCompiler.table_flags)."""
    decl: dict = {v: 0 for v in fn.param_vars}  # var -> loop depth of its declaration
    uses: dict = {}  # var -> [loop depths of its uses]
    stack = [(fn.body, 0)]
    while stack:
        n, depth = stack.pop()
        t = type(n)
        if t is A.Function:
            continue
        if t in (A.Index, A.MethodCall) or (t is A.UnOp and n.op == "#"):
            o = n.operand if t is A.UnOp else n.obj
            while type(o) is A.Paren:
                o = o.expr
            if type(o) is A.Name and isinstance(o.binding, LocalVar):
                uses.setdefault(o.binding, []).append(depth)
        elif t is A.Local:
            for v in n.vars:
                decl[v] = depth
        elif t is A.GenericFor:
            for v in n.vars:
                decl[v] = depth + 1
        if t in (A.While, A.Repeat, A.NumericFor, A.GenericFor):
            # the body, and what is evaluated again each iteration
            stack.append((n.body, depth + 1))
            if t is A.NumericFor:
                stack.extend((e, depth) for e in (n.start, n.stop, n.step) if e is not None)
            elif t is A.GenericFor:
                stack.extend((e, depth) for e in n.exprs)
            else:
                stack.append((n.cond, depth + 1))
            continue
        for child in A.children(n):
            stack.append((child, depth))
    return {v: sum(LOOP_USES if d > decl[v] else 1 for d in ds) for v, ds in uses.items() if v in decl}

