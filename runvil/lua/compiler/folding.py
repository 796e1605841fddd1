"""Constant folding as Lua's compiler does it, for the code generator: what
a subexpression is once constants are folded (messages name the folded
constant, and the fast paths see through `<const>` locals)."""

from __future__ import annotations

import copy

from ..syntax import ast as A
from ..numbers import arith, wrap

_FOLDABLE = frozenset({"+", "-", "*", "/", "//", "%", "^", "&", "|", "~", "<<", ">>"})
_TRUTHY = (A.Number, A.String, A.TrueLit)
_FALSY = (A.Nil, A.FalseLit)


_CONSTANTS = (A.Number, A.String, A.Nil, A.TrueLit, A.FalseLit)


#: id(node) -> (node, folded node): fold runs at every level of an
#: expression, so without it a long chain of operators folds quadratically
_FOLDED: dict = {}


def clear_folds():
    """Forgets the folded nodes (after a chunk is compiled)."""
    _FOLDED.clear()


def fold(n):
    """`a and b` with a true constant `a`, and `a or b` with a false one,
    fold to `b`, as Lua's compiler folds them (so `(0 and "x")` is the
    constant "x" in messages); a `<const>` local holding a constant is that
    constant."""
    hit = _FOLDED.get(id(n))
    if hit is not None and hit[0] is n:
        return hit[1]
    r = _fold(n)
    _FOLDED[id(n)] = (n, r)
    return r


def _fold(n):
    t = type(n)
    if t is A.Name:
        init = getattr(n.binding, "const_init", None)
        if init is not None:
            c = fold(init)
            if type(c) in _CONSTANTS:
                c = copy.copy(c)
                c.line, c.col = n.line, n.col
                return c
        return n
    if t is A.Paren:
        # parentheses only truncate calls and `...` to one value
        inner = fold(n.expr)
        return n if type(inner) in (A.Call, A.MethodCall, A.Vararg) else inner
    if t is A.UnOp:
        e = fold(n.operand)
        if n.op == "not" and type(e) in _TRUTHY + _FALSY:
            return A.FalseLit(line=n.line, col=n.col) if type(e) in _TRUTHY else A.TrueLit(line=n.line, col=n.col)
        if n.op == "-" and type(e) is A.Number:
            return _number(lambda v: wrap(-v) if type(v) is int else -v, (e.value,), n)
        return n
    if t is A.BinOp and n.op in _FOLDABLE:
        a, b = fold(n.left), fold(n.right)
        if type(a) is A.Number and type(b) is A.Number:
            return _number(lambda x, y: arith(n.op, x, y), (a.value, b.value), n)
        return n
    # only a left side that the jump skips folds away: `"10" or 0` is a
    # register in Lua (never named in messages), `nil or "x"` the constant
    while type(n) is A.BinOp and n.op in ("and", "or"):
        left = fold(n.left)
        if type(left) in (_TRUTHY if n.op == "and" else _FALSY):
            n = fold(n.right)
        else:
            return n
    return n


def named_operand(n):
    """The expression Lua's varinfo names for an operand `n`: through an
    `and` whose left side ends as a true constant with no pending false
    jump (`(x or 1) and y` names y: Lua's code generator patches x's jump
    to y's code and goes on with y's register), and through an `or` whose
    left side ends as nil or false with no pending true jump. For messages
    only: the left side still runs (a global read may call `__index`)."""
    n = fold(n)
    while type(n) is A.BinOp and n.op in ("and", "or"):
        kind, true_jump, false_jump = _jump_shape(n.left)
        if n.op == "and" and kind is _TRUTHY and not false_jump:
            n = fold(n.right)
        elif n.op == "or" and kind is _FALSY and not true_jump:
            n = fold(n.right)
        else:
            return n
    return n


def _jump_shape(n) -> tuple:
    """(the kind an expression ends as: _TRUTHY or _FALSY for a constant,
    else None; whether it has a pending true jump; a pending false jump),
    as lcode.c's luaK_infix and luaK_posfix leave an `and`/`or` chain: the
    result is its right side's kind, with the jumps of both."""
    n = fold(n)
    t = type(n)
    if t in _TRUTHY:
        return _TRUTHY, False, False
    if t in _FALSY:
        return _FALSY, False, False
    if t is A.BinOp and n.op in ("and", "or"):
        kind, true_jump, false_jump = _jump_shape(n.left)
        rkind, rtrue, rfalse = _jump_shape(n.right)
        if n.op == "and":  # goiftrue: a true constant jumps nowhere, its true jumps land here
            return rkind, rtrue, rfalse or (false_jump if kind is _TRUTHY else True)
        return rkind, rtrue or (true_jump if kind is _FALSY else True), rfalse
    return None, False, False


def _number(op, args, n):
    """A constant-folded number, when Lua's compiler would fold it: never an
    error, a NaN or a negative zero."""
    try:
        v = op(*args)
    except Exception:
        return n
    if type(v) not in (int, float) or v != v or (v == 0 and str(v).startswith("-")):
        return n
    return A.Number(v, line=n.line, col=n.col)
