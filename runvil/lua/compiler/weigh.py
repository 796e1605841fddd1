"""Weighing a block's straight-line code in steps at compile time, with the
costs of compiler/costs.py (a module of its own so that the runtime, which needs
only the costs, never imports the AST at start-up)."""

from __future__ import annotations

from ..syntax import ast as A
from .costs import CALL_COST, CALL_COSTS, CONCAT_COST, METHOD_COST, OP_COST, TABLE_COST, TAIL_CALL_COST

_NESTED = (A.While, A.Repeat, A.NumericFor, A.GenericFor, A.Function)


def block_cost(stmts: list) -> int:
    """Steps for running stmts once, not counting nested loops' and
    functions' bodies (they charge for themselves)."""
    total = 0
    stack = list(stmts)
    while stack:
        n = stack.pop()
        t = type(n)
        if t is A.Call:
            total += CALL_COSTS.get(_callee_name(n), CALL_COST)
        elif t is A.MethodCall:
            total += CALL_COSTS.get(n.method, CALL_COST) + METHOD_COST
        elif t is A.BinOp:
            total += CONCAT_COST if n.op == ".." else OP_COST
        elif t is A.UnOp or t is A.Index:
            total += OP_COST
        elif t is A.Table:
            total += TABLE_COST
        elif t is A.Return and len(n.exprs) == 1 and type(n.exprs[0]) in (A.Call, A.MethodCall):
            total += TAIL_CALL_COST
        if t in _NESTED:
            # the loop's header expressions run here; its body counts itself
            stack.extend(_header(n))
            continue
        stack.extend(A.children(n))
    return total


def _callee_name(n) -> str | None:
    if type(n) is A.MethodCall:
        return n.method
    f = n.func
    if type(f) is A.Name:
        return f.name
    if type(f) is A.Index and type(f.key) is A.String:
        return f.key.value
    return None


def _header(n) -> list:
    t = type(n)
    if t is A.While:
        return [n.cond]
    if t is A.NumericFor:
        return [e for e in (n.start, n.stop, n.step) if e is not None]
    if t is A.GenericFor:
        return list(n.exprs)
    return []
