"""Operators and conditions: Lua's operators to Python expression text
(a mixin of ExprCompiler). Each has an inline fast path for the common
operand types and calls the slow path in `values` otherwise, with the
operands already evaluated in Lua's order."""

from __future__ import annotations

from ..syntax import ast as A
from .contract import TINY_RESULT
from . import shapes as S
from .folding import _CONSTANTS, fold
from .intops import IntTreeCompiler
from .resolve import LocalVar

M = "9223372036854775807"
MN = "-9223372036854775808"

_ARITH = {"+": ("_add", "+"), "-": ("_sub", "-"), "*": ("_mul", "*")}
_BITS = {"&": ("_band", "&"), "|": ("_bor", "|"), "~": ("_bxor", "^")}
#: each arithmetic and bitwise operator's helper (its whole semantics), for code that runs once
_COLD = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div", "//": "_idiv", "%": "_mod", "^": "_pow",
         "&": "_band", "|": "_bor", "~": "_bxor", "<<": "_shl", ">>": "_shr"}


class OperatorCompiler(IntTreeCompiler):
    """Mixin of ExprCompiler: unary and binary operators, conditions."""

    def e_UnOp(self, n):
        op, e = n.op, n.operand
        if op == "not":
            return f"(not {self.cond(e)})"
        if op == "-" and type(e) is A.Number:
            v = e.value
            if type(v) is int:
                v = -v if v != -(2**63) else v
                return f"({v})"
            return f"({-v!r})" if -v == -v and abs(v) != float("inf") else f"(-{self.expr(e)})"
        if op == "~" or (op == "-" and type(e) is A.BinOp):
            if id(n) not in self.no_tree and (tree := self.int_tree(n)) is not None:
                return tree
        a = self.temp()
        x = self.expr(e)
        d = self.drepr(e)
        if op == "-":
            return f"(-{a} if type({a} := {x}) is float or (type({a}) is int and {a} != {MN}) else _unm({a}, {d}))"
        if op == "#":
            test = self.table_test(e, x)
            if not test:  # a local that only holds tables
                return f"(len({x}.arr) if {x}.meta is None else _len({x}, {d}))"
            if not test.startswith("type("):  # a local with a flag
                return f"(len({x}.arr) if {test}{x}.meta is None else len({x}) if type({x}) is str else _len({x}, {d}))"
            return (f"(len({a}.arr) if type({a} := {x}) is _Table and {a}.meta is None"
                    f" else len({a}) if type({a}) is str else _len({a}, {d}))")  # a string: its bytes, no metamethod
        if op == "~":
            return f"(~{a} if type({a} := {x}) is int else _bnot({a}, {d}))"
        raise AssertionError(op)

    def e_BinOp(self, n):
        op = n.op
        if op == "and":
            t = self.temp()
            return f"({self.expr(n.right)} if (({t} := {self.expr(n.left)}) is not None and {t} is not False) else {t})"
        if op == "or":
            t = self.temp()
            return f"({t} if (({t} := {self.expr(n.left)}) is not None and {t} is not False) else {self.expr(n.right)})"
        if op in ("==", "~="):
            r = self.equality(n.left, n.right)
            return r if op == "==" else f"(not {r})"
        if op in ("<", "<=", ">", ">="):
            return self.compare(op, n.left, n.right)
        if op == "..":
            return self.concat(n)
        if id(n) not in self.no_tree and (tree := self.int_tree(n)) is not None:
            return tree
        if op in ("+", "-") and _is_len(n.left) and type(n.right) is A.Number and type(n.right.value) is int \
                and 0 <= n.right.value < 2**31:
            return self.len_offset(n)
        a, b = self.temp(), self.temp()
        x, y = self.expr(n.left), self.expr(n.right)
        da, db = self.drepr(n.left), self.drepr(n.right)
        slow_args = f"{a}, {b}, {da}, {db}"
        L = f"\x01{n.line}\x02"
        if self.cold and (fn := _COLD.get(op)) is not None:  # (ExprCompiler.cold) the helper alone
            return f"{L}{fn}({x}, {y}, {da}, {db})"
        both_int = self.is_int(n.left) and self.is_int(n.right)
        r = fold(n.right)
        if (both_int and op == "-" and type(n.left) is A.Name and n.left.binding in self.positives
                and type(r) is A.Number and 0 <= r.value < 2**62):
            return f"({x} - {y})"  # `i - 1`, i >= 1: never below the 64-bit range
        if both_int:
            fast = self.int_arith(op, x, y, n.right)
            if fast is not None:
                return fast
        if op in _ARITH:
            fn, pyop = _ARITH[op]
            rv = self.temp()
            ta = self.temp()
            if type(n.right) is A.Number and type(n.right.value) is int:
                c = n.right.value
                y = repr(c) if c >= 0 else f"({c})"
                return (
                    f"({rv} if type({a} := {x}) is int and {_in_range(op, n.right, f'({rv} := {a} {pyop} {y})')}"
                    f" else {a} {pyop} {y} if type({a}) is float else {L}{fn}({a}, {y}, {da}, None))"
                )
            return (
                f"({rv} if ({ta} := type({a} := {x})) is type({b} := {y}) is int and {MN} <= ({rv} := {a} {pyop} {b}) <= {M}"
                f" else {a} {pyop} {b} if {ta} is float and type({b}) is float else {L}{fn}({slow_args}))"
            )
        if op == "/":
            # (`* 1.0`: C divides two doubles, each integer rounded first;
            # Python divides two ints exactly, then rounds once)
            ta = self.temp()
            return (
                f"({a} * 1.0 / {b} if (({ta} := type({a} := {x})) is int or {ta} is float) & (type({b} := {y}) in _NUMS)"
                f" and {b} else {L}_div({slow_args}))"
            )
        if op in ("//", "%") and type(n.right) is A.Number and type(n.right.value) is int and n.right.value > 0:
            # a positive integer constant divisor: only the dividend's type to check
            c = n.right.value
            fn = "_idiv" if op == "//" else "_mod"
            return f"({a} {op} {c} if type({a} := {x}) is int else {L}{fn}({a}, {c}, {da}, {db}))"
        if op == "//":
            return f"({a} // {b} if type({a} := {x}) is type({b} := {y}) is int and {b} > 0 else {L}_idiv({slow_args}))"
        if op == "%":
            return f"({a} % {b} if type({a} := {x}) is type({b} := {y}) is int and {b} > 0 else {L}_mod({slow_args}))"
        if op == "^":
            return f"{L}_pow({x}, {y}, {da}, {db})"
        if op in _BITS:
            fn, pyop = _BITS[op]
            return f"({a} {pyop} {b} if type({a} := {x}) is type({b} := {y}) is int else {L}{fn}({slow_args}))"
        if op == "<<":  # inline while the shifted value stays in 64 bits (two's complement: Lua's wrap agrees)
            rv = self.temp()
            return (f"({rv} if type({a} := {x}) is type({b} := {y}) is int and 0 <= {b} < 64"
                    f" and {MN} <= ({rv} := {a} << {b}) <= {M} else {L}_shl({slow_args}))")
        if op == ">>":  # inline for a non-negative value (Lua's shift is logical: a negative one goes slow)
            return f"({a} >> {b} if type({a} := {x}) is type({b} := {y}) is int and {a} >= 0 and 0 <= {b} < 64 else {L}_shr({slow_args}))"
        raise AssertionError(op)

    def len_offset(self, n) -> str:
        """`#t + k` (`- k`), as in `buf[#buf + 1]`: on a table without a
        metatable, the length plus k is an integer in range, no checks."""
        t, a, rv = self.temp(), self.temp(), self.temp()
        e = n.left.operand
        fn, pyop = _ARITH[n.op]
        c = n.right.value
        L = f"\x01{n.line}\x02"
        slow = (
            f"({rv} if type({a} := _len({t}, {self.drepr(e)})) is int and {MN} <= ({rv} := {a} {pyop} {c}) <= {M}"
            f" else {a} {pyop} {c} if type({a}) is float else {L}{fn}({a}, {c}, {self.drepr(n.left)}, None))"
        )
        return f"(len({t}.arr) {pyop} {c} if type({t} := {self.expr(e)}) is _Table and {t}.meta is None else {slow})"

    def int_arith(self, op: str, x: str, y: str, right) -> str | None:
        """Both operands are known integers: no type checks, only Lua's
        64-bit wraparound where the result can leave the range."""
        if op in _ARITH:
            r = self.temp()
            return f"({r} if {_in_range(op, right, f'({r} := {x} {_ARITH[op][1]} {y})')} else _wrap({r}))"
        if op in ("//", "%") and type(fold(right)) is A.Number and fold(right).value > 0:
            return f"({x} {op} {y})"
        if op in _BITS:
            return f"({x} {_BITS[op][1]} {y})"
        return None

    def equality(self, left, right) -> str:
        for c, other in ((right, left), (left, right)):
            t = type(c)
            if t in (A.Nil, A.TrueLit, A.FalseLit) and type(other) in _CONSTANTS:
                # two constants: known now (and no `1 is None` for CPython to warn about)
                return "True" if type(other) is t else "False"
            if t is A.Nil:
                return f"({self.expr(other)} is None)"
            if t is A.TrueLit:
                return f"({self.expr(other)} is True)"
            if t is A.FalseLit:
                return f"({self.expr(other)} is False)"
            if t is A.String and c is right:
                return f"({self.expr(other)} == {self.expr(c)})"
            if t is A.Number and c is right:
                v = c.value
                if type(v) is float and (v != v or v in (float("inf"), float("-inf"))):
                    break
                if v in (0, 1):  # Python's False == 0 and True == 1: not Lua's
                    a = self.temp()
                    return f"(({a} := {self.expr(other)}) == {self.expr(c)} and {a} is not {v == 1})"
                return f"({self.expr(other)} == {self.expr(c)})"
        if self.is_int(left) and self.is_int(right):
            return f"({self.expr(left)} == {self.expr(right)})"
        a, b, ta, tb = self.temp(), self.temp(), self.temp(), self.temp()
        x, y = self.expr(left), self.expr(right)
        # values of different types are never equal (`v == null`, a string
        # and a table) unless both are numbers, or both userdata with __eq
        return (
            f"({a} == {b} if ({ta} := type({a} := {x})) is ({tb} := type({b} := {y})) and ({ta} is int or {ta} in _PRIM)"
            f" else False if {ta} is not {tb} and ({ta} is str or {tb} is str or {ta} is _Table or {tb} is _Table)"
            f" else _eq({a}, {b}))"
        )

    def compare(self, op: str, left, right) -> str:
        if self.is_int(left) and self.is_int(right):
            return f"({self.expr(left)} {op} {self.expr(right)})"
        a, b = self.temp(), self.temp()
        x = self.expr(left)
        if type(right) is A.Number and type(right.value) is int:
            c = repr(right.value) if right.value >= 0 else f"({right.value})"
            return f"({a} {op} {c} if type({a} := {x}) is int else {_slow_compare(op, a, c)})"
        if type(right) is A.Number and right.value - right.value == 0:  # a finite float constant
            # (Python compares an int with a float exactly, as Lua does)
            c, ta = f"({right.value!r})", self.temp()
            return f"({a} {op} {c} if ({ta} := type({a} := {x})) is float or {ta} is int else {_slow_compare(op, a, c)})"
        y = self.expr(right)
        if self.is_int(right) and self.is_pure(right):
            # a known integer on the right (`l <= size`): only the left's type to check
            return f"({a} {op} {y} if type({a} := {x}) is int else {_slow_compare(op, a, y)})"
        if self.is_int(left) and self.is_pure(left):
            # a known integer on the left: evaluated first, and only the right's type to check
            return f"({x} {op} {b} if type({b} := {y}) is int else {_slow_compare(op, x, b)})"
        ta = self.temp()
        # two numbers of one type, or two strings (Lua orders strings by their
        # bytes, one char each here: as Python orders them)
        return (
            f"({a} {op} {b} if ({ta} := type({a} := {x})) is type({b} := {y}) and ({ta} is int or {ta} is float or {ta} is str)"
            f" else {_slow_compare(op, a, b)})"
        )

    def concat(self, n) -> str:
        ops = []
        e = n
        line = n.line
        while type(e) is A.BinOp and e.op == "..":
            ops.append(e.left)
            line = e.line  # Lua reports the chain at its last operator
            e = e.right
        ops.append(e)
        descs = tuple(self.desc(o) for o in ops)
        if len(ops) <= 8 and not all(type(fold(o)) is A.String for o in ops) and not self.cold:
            # strings and integers, short: joined inline (every part evaluated
            # first, `&`); anything else, or a longer result (counted against
            # the memory limit, or reserved before it is built), in _concatn. Constants
            # alone are joined at run time: a new string each time, as in Lua
            # (an f-string of constants would be one shared constant)
            texts, lens, literal = [], [], []
            typed, types, str_lens = [], [], []  # operands not constant: `(ty := type(t := x))`, ty, `len(t)`
            texts_typed = []  # their temporaries
            # a call of one or two operands that are not constants, with only
            # constants and locals after it: its raw result is tested for a
            # string at once, and its first value taken (`_first`, which runs
            # a pending tail call) only on the general path, which reads the
            # later operands again (nothing has run between)
            raw = None  # (its index in typed, its temporary, the raw call)
            few = sum(type(fold(o)) is not A.String for o in ops) <= 2
            for i, o in enumerate(ops):
                fo = fold(o)
                if type(fo) is A.String:
                    texts.append(repr(fo.value))
                    literal.append(_fstring_text(fo.value))
                    lens.append(str(len(fo.value)))
                    str_lens.append(str(len(fo.value)))
                else:
                    # a string, or an integer (f-strings write it as Lua does, at most 20 characters)
                    t, ty = self.temp(), self.temp()
                    x = None
                    if raw is None and few and all(_rereadable(later) for later in ops[i + 1:]):
                        x = self.raw_value(o)
                    if x is not None:
                        raw = (len(typed), t, x)
                    typed.append(f"({ty} := type({t} := {self.expr(o) if x is None else S.TESTED_FIRST.emit(r=t)}))")
                    types.append(ty)
                    texts_typed.append(t)
                    texts.append(t)
                    literal.append(f"{{{t}}}")
                    lens.append(f"(len({t}) if {ty} is str else 20)")
                    str_lens.append(f"len({t})")
            joined = "".join(literal)
            short = f"{' + '.join(lens)} <= {TINY_RESULT}"  # a longer one is counted by _concatn
            slow = f"\x01{line}\x02_concatn(({', '.join(texts)},), {descs!r})"
            if len(typed) > 2:  # every operand typed as the test goes (`&`: all of them)
                tests = " & ".join(f"({x} is str or {ty} is int)" for x, ty in zip(typed, types))
                return f"(f\"{joined}\" if {tests} and {short} else {slow})"
            # one or two operands that are not constants (both evaluated before
            # the chained `is` compares them): strings alone first, the common
            # case (`+` joins two), then strings and integers on the types taken
            tests = " & ".join(f"({ty} is str or {ty} is int)" for ty in types)
            result = f"{texts[0]} + {texts[1]}" if len(ops) == 2 and len(typed) == 2 else f"f\"{joined}\""
            strings = f" is str and {' + '.join(str_lens)} <= {TINY_RESULT}"
            if raw is None:
                return f"({result} if {' is '.join(typed)}{strings} else f\"{joined}\" if {tests} and {short} else {slow})"
            # the fast test evaluates every operand (two at most: the chain's
            # first `is` needs both); the general path reads those before the
            # call from their temporaries and those after it again
            i, t, x = raw
            fast = [f"type({t} := {x})" if j == i else typed[j] for j in range(len(typed))]
            again = [f"({types[j]} := type({texts_typed[j]}))" if j < i else typed[j] for j in range(len(typed))]
            general = f"({result} if {' is '.join(again)}{strings} else f\"{joined}\" if {tests} and {short} else {slow})"
            return f"({result} if {' is '.join(fast)}{strings} else {general})"
        parts = ", ".join(self.expr(o) for o in ops)
        return f"\x01{line}\x02_concatn(({parts}), {descs!r})"

    # ---------------------------------------------------------- conditions

    def cond(self, n) -> str:
        """A Python expression that is true exactly when n is Lua-true."""
        t = type(n)
        if t is A.BinOp:
            if n.op in ("==", "~=", "<", "<=", ">", ">="):
                return self.expr(n)
            if n.op == "and":
                return f"({self.cond(n.left)} and {self.cond(n.right)})"
            if n.op == "or":
                return f"({self.cond(n.left)} or {self.cond(n.right)})"
        if t is A.UnOp and n.op == "not":
            return f"(not {self.cond(n.operand)})"
        if t is A.TrueLit:
            return "True"
        if t in (A.FalseLit, A.Nil):
            return "False"
        if t in (A.Number, A.String, A.Table, A.Function):
            return f"({self.expr(n)} is not None)" if t is A.Table else "True"
        v = self.temp()
        return f"(({v} := {self.expr(n)}) is not None and {v} is not False)"


def _in_range(op: str, right, value: str) -> str:
    """The test that an integer result `value` of `x op right` is within
    64 bits: adding or subtracting a small constant (|c| < 2**62) can only
    leave the range on one side, so one comparison is enough."""
    c = fold(right)
    if op in ("+", "-") and type(c) is A.Number and type(c.value) is int and abs(c.value) < 2**62:
        up = (c.value >= 0) == (op == "+")
        return f"{value} <= {M}" if up else f"{MN} <= {value}"
    return f"{MN} <= {value} <= {M}"


def _rereadable(n) -> bool:
    """Whether reading n again gives its value with no effect: a constant
    or a local."""
    n = fold(n)
    return type(n) in (A.String, A.Number) or (type(n) is A.Name and isinstance(n.binding, LocalVar))


def _fstring_text(s: str) -> str:
    """s as literal text inside f"...": escaped, braces doubled."""
    return s.encode("unicode_escape").decode("ascii").replace('"', '\\"').replace("{", "{{").replace("}", "}}")


def _is_len(n) -> bool:
    return type(n) is A.UnOp and n.op == "#"


def _slow_compare(op: str, a: str, b: str) -> str:
    # Lua has only < and <=: a > b is b < a, a >= b is b <= a
    return {"<": f"_lt({a}, {b})", "<=": f"_le({a}, {b})", ">": f"_lt({b}, {a})", ">=": f"_le({b}, {a})"}[op]
