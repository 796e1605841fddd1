"""String method calls done inline (a mixin of ExprCompiler): `s:sub(i, j)`,
`s:byte(i)`, `s:find(p, i, true)`, `s:find(p, i)` and `s:match(p)` on a
string, while the library's own function is the method
(contract.INLINE_STRING_CALLS: a flag), cost Python's slice, `ord`,
`str.find` or a constant pattern's regex and one test of their operands'
shapes.

Only arguments that may be evaluated again are taken (constants, plain
locals, expressions of known integers): the fast test reads them, and
where it fails the call compiles as before and reads them again. The
method's lookup, which Lua makes before the arguments, has no effect while
the flag holds, so reading the arguments inside the test keeps the order.
"""

from __future__ import annotations

from ..syntax import ast as A
from .contract import INLINE_STRING_CALLS, TINY_RESULT
from .folding import fold
from .resolve import plain_local
from .shapes import FIRST_VALUE

#: a pattern with none of these is found as plain text
_SPECIALS = frozenset("^$*+?.([%-")


def _near(i, j) -> bool:
    """Whether j is `i + k` (0 <= k < TINY_RESULT) of the same local: the
    slice from i to j is short."""
    return (type(j) is A.BinOp and j.op == "+" and plain_local(i) and plain_local(j.left)
            and j.left.binding is i.binding and type(fold(j.right)) is A.Number
            and type(fold(j.right).value) is int and 0 <= fold(j.right).value < TINY_RESULT)


class StringCallCompiler:
    """Mixin of ExprCompiler: inline string method calls."""

    def string_call(self, n, single: bool, values: int | None = None) -> str | None:
        """`s:m(...)` done inline where it can be, its first value only
        when `single`, exactly `values` values otherwise if given (`local
        a, b = s:find(...)`, `local a, b, c, d = s:byte(i, j)`); None where
        the call compiles as any other."""
        if values is not None and (n.method, values == 2) not in (("find", True), ("byte", True), ("byte", False)) \
                and n.method != "match":
            return None
        flag = INLINE_STRING_CALLS.get(n.method)
        if flag is None or not self.table_test(n.obj, ""):  # (a local known to hold tables: no)
            return None
        args = [fold(a) for a in n.args]
        if not all(self._rereadable_arg(a) for a in args):
            return None
        build = {"sub": self._sub, "byte": self._byte, "find": self._find, "match": self._match}[n.method]
        o = n.obj.binding.pyname if plain_local(n.obj) else self.temp()
        shaped = build(o, args, values or single)
        if shaped is None:
            return None
        tests, fast = shaped
        given = o if plain_local(n.obj) else f"{o} := {self.expr(n.obj)}"
        general = (f"{self.call_mark(n)}{self.method_callee(n, o, self.temp(), evaluated=True)}"
                   f"({o}{', ' if n.args else ''}{self.args(n.args)})")
        if single:
            general = FIRST_VALUE.emit(r=self.temp(), call=general)
        elif values is not None:
            r = self.temp()
            general = f"({r} if type({r} := {general}) is _Multi and len({r}) == {values} else _fixed({r}, {values}))"
        return f"({fast} if type({given}) is str and {flag}{''.join(' and ' + t for t in tests)} else {general})"

    def _rereadable_arg(self, a) -> bool:
        return type(a) in (A.Number, A.String, A.TrueLit) or plain_local(a) or self.is_int(a)

    def _int_arg(self, a, tests: list, low: int | None) -> str | None:
        """The text of an integer argument, its tests added to `tests`: its
        type (unless known), and `low <=` it (unless known); None for a
        constant that is not such an integer."""
        if type(a) is A.Number:
            ok = type(a.value) is int and (low is None or a.value >= low)
            return repr(a.value) if ok else None
        text = self.expr(a)
        if not (type(a) is A.Name or type(a) is A.Number):
            t = self.temp()
            tests.append(f"(({t} := {text}) is {t})")  # computed once
            text = t
        if not self.is_int(a):
            tests.append(f"type({text}) is int")
        if low is not None and not (low == 1 and type(a) is A.Name and a.binding in self.positives):
            tests.append(f"{low} <= {text}")
        return text

    def _sub(self, o: str, args: list, single: bool):
        if not 1 <= len(args) <= 2 or not all(self.is_int(a) or plain_local(a) for a in args):
            return None
        tests: list = []
        i = self._int_arg(args[0], tests, 1)
        if i is None:
            return None
        start = f"{i} - 1" if type(args[0]) is not A.Number else str(args[0].value - 1)
        if len(args) == 1:
            tests.append(f"len({o}) - {i} < {TINY_RESULT}")  # a longer one is counted first, by the library
            return tests, f"{o}[{start}:]"
        if plain_local(args[0]) and plain_local(args[1]) and args[0].binding is args[1].binding:
            return tests, f"{o}[{start}:{i}]"  # `s:sub(i, i)`: one char at most
        j = self._int_arg(args[1], tests, 0)
        if j is None:
            return None
        if not _near(args[0], args[1]):
            tests.append(f"{j} - {i} < {TINY_RESULT}")
        return tests, f"{o}[{start}:{j}]"

    def _byte(self, o: str, args: list, single):
        if type(single) is int:  # (a count of values: True and False are bools)
            return self._bytes(o, args, single)
        if len(args) != 1 or not (self.is_int(args[0]) or plain_local(args[0])):
            return None
        tests: list = []
        i = self._int_arg(args[0], tests, 1)
        if i is None:
            return None
        tests.append(f"{i} <= len({o})")
        return tests, f"ord({o}[{i} - 1])"

    def _bytes(self, o: str, args: list, count: int):
        """`s:byte(i, j)` adjusted to `count` values: where j - i + 1 is
        that count, within the string, the bytes themselves."""
        if len(args) != 2 or not 2 <= count <= 8:
            return None
        tests: list = []
        i = self._int_arg(args[0], tests, 1)
        j = self._int_arg(args[1], tests, 1) if i is not None else None
        if j is None:
            return None
        tests.append(f"{j} - {i} == {count - 1}")
        tests.append(f"{j} <= len({o})")
        first = int(i) - 1 if i.isdigit() else None
        at = [str(first + k) if first is not None else f"{i} - 1" if k == 0 else f"{i}" if k == 1 else f"{i} + {k - 1}"
              for k in range(count)]
        return tests, f"({', '.join(f'ord({o}[{a}])' for a in at)})"

    def _find(self, o: str, args: list, single):
        if not 1 <= len(args) <= 3:
            return None
        p = args[0]
        plain = len(args) == 3 and type(args[2]) is A.TrueLit
        if len(args) == 3 and not plain:
            return None
        if type(p) is A.String:
            if not plain and _SPECIALS.intersection(p.value):
                return self._pattern_find(o, p.value, args[1:], single)
            pt, tests = repr(p.value), []
        elif plain and plain_local(p):
            pt, tests = p.binding.pyname, [f"type({p.binding.pyname}) is str"]
        else:
            return None
        start = "0"
        if len(args) >= 2:
            if not (self.is_int(args[1]) or plain_local(args[1])):
                return None
            init = self._int_arg(args[1], tests, 1)
            if init is None:
                return None
            start = f"{init} - 1"
        k = self.temp()
        size = len(p.value) if type(p) is A.String else f"len({pt})"
        found = f"{k} + 1" if single is True else f"({k} + 1, {k} + {size})"
        missed = "(None, None)" if single == 2 else "None"
        return tests, f"({found} if ({k} := {o}.find({pt}, {start})) >= 0 else {missed})"

    # ------------------------------------------------ constant patterns

    def _pattern(self, o: str, pattern: str, tests: list, field: str, want: str, start: str = "") -> tuple[str, str, str]:
        """Tests that the library's compiled pattern (contract.INLINE_STRING_CALLS
        says what its fields are) has `field` `want` and a regex safe on o,
        added to `tests`; the names of the pattern and of the match, and the
        test that its regex matches o (from `start`, a 0-based position's text)."""
        p, r, m = self.temp(), self.temp(), self.temp()
        k = repr(pattern)
        tests.append(f"({p} := _MP.get({k}) or _mpat({k})).{field}{want}")
        tests.append(f"(({r} := {p}.find_rx) is not None or ({r} := _rxfor({p}, {o})) is not None)")
        at = f", {start}" if start else ""
        return p, m, f"({m} := {'_RXM' if pattern[:1] == '^' else '_RXS'}({r}, {o}{at})) is not None"

    def _pattern_find(self, o: str, pattern: str, rest: list, single):
        """`s:find(p[, i])`, p a constant with specials and no captures:
        where its match starts and ends, or nil (fail)."""
        if len(rest) > 1 or single not in (True, False, 2):
            return None
        tests: list = []
        start = ""
        if rest:
            if not (self.is_int(rest[0]) or plain_local(rest[0])):
                return None
            init = self._int_arg(rest[0], tests, 1)
            if init is None:
                return None
            tests.append(f"{init} <= len({o}) + 1")  # (beyond: fail, where re would clamp to the end)
            start = f"{init} - 1"
        _p, m, run = self._pattern(o, pattern, tests, "bare", "", start)
        if single is True:
            return tests, f"(_MSTART({m}) + 1 if {run} else None)"
        missed = "(None, None)" if single == 2 else "None"
        return tests, f"((_MSTART({m}) + 1, _MEND({m})) if {run} else {missed})"

    def _match(self, o: str, args: list, single):
        """`s:match(p)`, p a constant: its captures (or the whole match), or
        nil (fail); exactly `single` values where an int (the assignment's
        targets) when the pattern gives that many."""
        if len(args) != 1 or type(args[0]) is not A.String:
            return None
        pattern = args[0].value
        tests: list = []
        count = single if type(single) is int else None  # (True and False are bools)
        p, m, run = self._pattern(o, pattern, tests, "match_values", "" if count is None else f" == {count}")
        if single is True:
            return tests, f"(_MGROUP({m}, {p}.first_group) if {run} else None)"
        if count is not None:
            return tests, f"(_MGROUPS({m}) if {run} else ({'None, ' * count}))"
        return tests, f"((_MGROUPS({m}) if {p}.match_values > 1 else _MGROUP({m}, {p}.first_group)) if {run} else None)"
