"""Integer trees: a nest of integer and bit operators (`(x >> n | x << 32 - n)
& 0xffffffff`) compiled to plain Python integer operations, behind one
guard that its operands are integers (a mixin of ExprCompiler).

The guard tests each operand once (a local read twice, once), in Lua's
order; where all are integers, the tree runs on Python ints, no operator's
type test, metamethod or float path on the way, and wraps to 64 bits only
where a result can leave the range: every operator but `>>`, `//` and `%`
agrees with Lua's wraparound modulo 2**64, so an intermediate result may
stay unwrapped until one of those, or the end, needs it, and ranges known
from constants (`& 0xffffffff`, `% 64`, a for variable >= 1) drop the wrap
altogether. Otherwise the tree's general code runs, on the operands already
taken: the same text the operators compile to alone, with their coercions,
float paths, metamethods and messages.

An operand with effects (a call, a table read) is read once, at its place
in Lua's order: those before the tree's first operator all at once, a later
one only after the guard has found the operands before it integers (so the
operators before it, which Lua runs first, have no effects); the general
code reads it again only where the guard stopped before it.
"""

from __future__ import annotations

from ..syntax import ast as A
from .folding import fold
from .resolve import plain_local

MAXI, MINI = 2**63 - 1, -(2**63)
M, MN = str(MAXI), f"({MINI})"
U64 = str(2**64 - 1)

_PY = {"+": "+", "-": "-", "*": "*", "&": "&", "|": "|", "~": "^", "<<": "<<", ">>": ">>", "//": "//", "%": "%"}
#: operators that make a tree worth its guard (`+ - *` alone compile as before)
_FLAVOUR = frozenset(("&", "|", "~", "<<", ">>", "//", "%"))
#: past this many operators from the root, a subtree is an operand of its own
MAX_DEPTH = 8
#: a tree of more operands is left to its subtrees (the guard's text grows with their square)
MAX_LEAVES = 16
#: an operand the general code may read again: at most this many nodes, none a function or a constructor
PLAIN_NODES = 40


class _Leaf:
    __slots__ = ("node", "kind", "text", "ops_before", "lo", "hi")

    def __init__(self, node, kind, text, ops_before, lo=MINI, hi=MAXI):
        self.node, self.kind, self.text, self.ops_before = node, kind, text, ops_before
        self.lo, self.hi = lo, hi


class _Op:
    __slots__ = ("node", "op", "args")

    def __init__(self, node, op, args):
        self.node, self.op, self.args = node, op, args


class _Val:
    """A fast-path result: its text and, when it is within 64 bits, its
    range (lo is None: right only modulo 2**64)."""

    __slots__ = ("text", "lo", "hi")

    def __init__(self, text, lo=MINI, hi=MAXI):
        self.text, self.lo, self.hi = text, lo, hi

    @property
    def exact(self) -> bool:
        return self.lo is not None


class IntTreeCompiler:
    """Mixin of ExprCompiler: operator nests compiled as integer trees."""

    def int_tree(self, n) -> str | None:
        """n (a BinOp or UnOp) as an integer tree, or None where it is not worth one."""
        leaves, internal = [], []
        try:
            tree = self._tree_node(n, 0, leaves, internal)
        except _NoTree:
            return None
        if type(tree) is not _Op or len(leaves) > MAX_LEAVES:
            return None
        flavoured = any(o.op in _FLAVOUR for o in internal)
        tested = [lf for lf in leaves if lf.kind in ("local", "impure")]
        if not flavoured and (tested or len(internal) < 2):
            return None
        checked = False  # a test before the operand: the general code may have to read it again
        for lf in leaves:
            if lf.kind == "impure" and lf.ops_before > 0 and checked and not _plain(lf.node):
                return None
            checked = checked or lf.kind in ("local", "impure")
        for lf in leaves:
            if lf.kind == "impure":
                lf.text = self.temp()
        root = self._exact(self._emit(tree))
        if not tested:
            return root.text
        guard, subs = self._guard(leaves)
        ids = {id(o.node) for o in internal}
        self.no_tree |= ids
        self.leaf_text.update(subs)
        try:
            general = self.e_BinOp(n) if type(n) is A.BinOp else self.e_UnOp(n)
        finally:
            self.no_tree -= ids
            for k in subs:
                self.leaf_text.pop(k, None)
        return f"({root.text} if {guard} else {general})"

    # ------------------------------------------------------------ the tree

    def _tree_node(self, n, depth, leaves, internal):
        n = fold(n)
        t = type(n)
        if depth <= MAX_DEPTH and self._is_tree_op(n):
            args = [n.left, n.right] if t is A.BinOp else [n.operand]
            kids = [self._tree_node(a, depth + 1, leaves, internal) for a in args]
            op = _Op(n, n.op if t is A.BinOp else "u" + n.op, kids)
            internal.append(op)
            return op
        ops_before = len(internal)
        if t is A.Number:
            if type(n.value) is not int:
                raise _NoTree
            leaf = _Leaf(n, "const", repr(n.value) if n.value >= 0 else f"({n.value})", ops_before, n.value, n.value)
        elif t in (A.String, A.Nil, A.TrueLit, A.FalseLit, A.Table, A.Function):
            raise _NoTree  # never an integer: no tree
        elif plain_local(n):
            v = n.binding
            if v in self.ints:
                lo = 1 if v in self.positives else MINI
                leaf = _Leaf(n, "int", self.var_ref(v), ops_before, lo)
            else:
                leaf = _Leaf(n, "local", self.var_ref(v), ops_before)
        else:
            leaf = _Leaf(n, "impure", None, ops_before)
        leaves.append(leaf)
        return leaf

    def _is_tree_op(self, n) -> bool:
        t = type(n)
        if t is A.UnOp:
            return n.op in ("-", "~")
        if t is not A.BinOp or n.op not in _PY:
            return False
        if n.op in ("//", "%"):
            # by a constant other than 0 (never an error); by anything else, an operand of its own
            r = fold(n.right)
            return type(r) is A.Number and type(r.value) is int and r.value != 0
        if n.op in ("+", "-") and type(n.left) is A.UnOp and n.left.op == "#":
            return False  # `#t + 1` compiles as its own operand (OperatorCompiler.len_offset)
        return True

    # ----------------------------------------------------------- the guard

    def _guard(self, leaves) -> tuple[str, dict]:
        """The guard's text, and the general code's text for each operand
        with effects (by the node's id)."""
        first = [lf for lf in leaves if lf.kind == "impure" and lf.ops_before == 0]
        items, rechecks, seen, subs = [], [], set(), {}
        if first:
            items.append(" & ".join(f"(type({lf.text} := {self.expr(lf.node)}) is int)" for lf in first))
            rechecks.extend(f"type({lf.text}) is int" for lf in first)
            for lf in first:
                subs[id(lf.node)] = lf.text
        for lf in leaves:
            if lf.kind == "local" and lf.text not in seen:
                seen.add(lf.text)
                items.append(f"type({lf.text}) is int")
                rechecks.append(items[-1])
            elif lf.kind == "impure" and lf.ops_before > 0:
                gate = " and ".join(rechecks)
                items.append(f"type({lf.text} := {self.expr(lf.node)}) is int")
                rechecks.append(f"type({lf.text}) is int")
                # read by the general code where the guard stopped before it
                subs[id(lf.node)] = f"({lf.text} if {gate} else {self.expr(lf.node)})" if gate else lf.text
        return f"({' and '.join(items)})", subs

    # ------------------------------------------------------- the fast path

    def _emit(self, t) -> _Val:
        if type(t) is _Leaf:
            return _Val(t.text, t.lo, t.hi)
        args = [self._emit(a) for a in t.args]
        op = t.op
        if op == "u-":
            x = args[0]
            if x.exact and x.lo > MINI:
                return _Val(f"(-{x.text})", -x.hi, -x.lo)
            return _Val(f"(-{x.text})", None)
        if op == "u~":
            x = args[0]
            return _Val(f"(~{x.text})", -x.hi - 1, -x.lo - 1) if x.exact else _Val(f"(~{x.text})", None)
        x, y = args
        c = _const(t.node.right)
        if op in ("<<", ">>"):
            return self._shift(op, x, y, c)
        if op in ("//", "%"):
            return _divide(op, self._exact(x), c)
        text = f"({x.text} {_PY[op]} {y.text})"
        if op in ("+", "-", "*"):
            if x.exact and y.exact:
                lo, hi = _bounds(op, x, y)
                if MINI <= lo and hi <= MAXI:
                    return _Val(text, lo, hi)
            return _Val(text, None)
        if op == "&":
            nonneg = [v.hi for v in (x, y) if v.exact and v.lo >= 0]
            if nonneg:
                return _Val(text, 0, min(nonneg))
            return _Val(text) if x.exact and y.exact else _Val(text, None)
        if not (x.exact and y.exact):
            return _Val(text, None)
        if x.lo >= 0 and y.lo >= 0:
            return _Val(text, 0, (1 << max(x.hi, y.hi).bit_length()) - 1)
        return _Val(text)

    def _shift(self, op: str, x: _Val, y: _Val, c) -> _Val:
        """Lua's logical shifts: by 64 or more, 0; by a negative amount, the
        other way; `>>` of a negative value shifts in zeros."""
        if c is not None:
            if c <= -64 or c >= 64:
                return _Val("0", 0, 0)
            if c < 0:
                op, c = ("<<" if op == ">>" else ">>"), -c
            if c == 0:
                return self._exact(x)
            if op == "<<":
                text = f"({x.text} << {c})"
                if x.exact and x.lo >= 0 and x.hi << c <= MAXI:
                    return _Val(text, x.lo << c, x.hi << c)
                return _Val(text, None)
            if x.exact and x.lo >= 0:
                return _Val(f"({x.text} >> {c})", x.lo >> c, x.hi >> c)
            # the 64 bits as unsigned, shifted: right modulo 2**64 or not
            return _Val(f"(({x.text} & {U64}) >> {c})", 0, (1 << (64 - c)) - 1)
        # a shift amount computed: the helper (which takes the value's low
        # 64 bits itself) where it is not 0..63 (or x is negative, for `>>`)
        b = self.temp()
        if x.text.isidentifier():
            a, take = x.text, ""
        else:
            a = self.temp()
            take = f"(({a} := {x.text}) is {a}) and "
        amount = f"0 <= ({b} := {y.text}) < 64"
        wrapped = b if y.exact else f"_wrap({b})"
        if op == "<<":
            return _Val(f"({a} << {b} if {take}{amount} else _shl({a}, {wrapped}, None, None))", None)
        test = "" if x.exact and x.lo >= 0 else f" and {a} >= 0" if x.exact else f" and 0 <= {a} <= {M}"
        return _Val(f"({a} >> {b} if {take}{amount}{test} else _shr({a}, {wrapped}, None, None))")

    def _exact(self, v: _Val) -> _Val:
        """v wrapped to 64 bits where it may be outside them."""
        if v.exact:
            return v
        r = self.temp()
        return _Val(f"({r} if {MN} <= ({r} := {v.text}) <= {M} else _wrap({r}))")


class _NoTree(Exception):
    """An operand that is never an integer: the nest compiles as before."""


def _plain(n) -> bool:
    """Whether n may compile twice: small, no function or constructor in it."""
    stack, count = [n], 0
    while stack:
        m = stack.pop()
        count += 1
        if count > PLAIN_NODES or type(m) in (A.Function, A.Table, A.Vararg):
            return False
        stack.extend(A.children(m))
    return True


def _const(n):
    n = fold(n)
    return n.value if type(n) is A.Number and type(n.value) is int else None


def _bounds(op: str, x: _Val, y: _Val) -> tuple[int, int]:
    if op == "+":
        return x.lo + y.lo, x.hi + y.hi
    if op == "-":
        return x.lo - y.hi, x.hi - y.lo
    p = (x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi)
    return min(p), max(p)


def _divide(op: str, x: _Val, c: int) -> _Val:
    """x // c or x % c, by a constant other than 0 (Python floors as Lua does)."""
    text = f"({x.text} {op} {c if c > 0 else f'({c})'})"
    if op == "%":
        return _Val(text, 0, c - 1) if c > 0 else _Val(text, c + 1, 0)
    if c == -1:
        return _Val(text, -x.hi, -x.lo) if x.lo > MINI else _Val(text, None)
    lo, hi = sorted((x.lo // c, x.hi // c))
    return _Val(text, lo, hi)
