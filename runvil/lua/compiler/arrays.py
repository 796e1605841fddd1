"""Array reads in loops (a mixin of ExprCompiler): a loop that reads `t[i]`
of a local table holds `t`'s array part in a temporary from its entry, so
each read is one test of the key's range and a subscript, with the general
read where that test fails.

This holds only while `t` names the same value for the whole loop: a
local declared outside the loop, which no statement of the loop assigns
and no inner function can (a cell), so only this code could. A table's
`arr` is never replaced by another list (runtime/tables.py), so the list
held is the table's array part however the loop grows, shrinks or clears
it; the range test reads its length at each read. A value found there
needs no metatable (Lua looks at `__index` only for a nil); a nil, a key
outside the array part, or a `t` that is no table (the loop holds an
empty tuple then) takes the rest of the general read, which looks at the
hash part, the metatable and `_index` as before. A store of a value into
an existing slot writes the held list in place (compiler/stores.py). Code
in a block hoisted into a function of its own (compiler/nesting.py)
reads the table as before: the temporary is not in its scope.
"""

from __future__ import annotations

from contextlib import contextmanager

from ..syntax import ast as A
from .folding import fold
from .resolve import plain_local


def _loop_tables(nodes: list, own: tuple = ()) -> list:
    """The locals worth holding the array part of in a loop over `nodes`
    (its body and its condition), each as a name that reads it: read or
    stored into as `t[k]`, k no constant string, somewhere in the loop
    (outside inner functions), and neither declared nor assigned in it,
    nor `own` (the loop's control variable, given a value each iteration).
    (A key of any other type costs the same test of its type as without
    the held array part.)"""
    read: dict = {}  # binding -> a name reading it
    assigned, declared = set(), set(own)
    for n in A.own_nodes(nodes):
        t = type(n)
        if t is A.Index:
            o = n.obj
            if plain_local(o) and type(fold(o)) is A.Name:
                if type(fold(n.key)) is not A.String:
                    read.setdefault(o.binding, o)
        elif t is A.Assign:
            assigned.update(x.binding for x in n.targets if type(x) is A.Name)
        elif t is A.Local:
            declared.update(n.vars)
        elif t is A.LocalFunction:
            declared.add(n.var)
        elif t is A.FunctionStat and type(n.target) is A.Name:
            assigned.add(n.target.binding)
        elif t is A.NumericFor:
            declared.add(n.var_local)
        elif t is A.GenericFor:
            declared.update(n.vars)
    return [o for v, o in read.items() if v not in assigned and v not in declared]


class ArrayReadCompiler:
    """Mixin of ExprCompiler: loops that hold their tables' array parts."""

    @contextmanager
    def holding_arrays(self, nodes: list, ind: int, line: int, own: tuple = ()):
        """While a loop over `nodes` compiles: emits, before it, the
        holding of the array part of each table it reads by keys that may
        be integers, and has its reads use the held list; the temporaries
        are held as the loop's own state."""
        saved = dict(self.arrays)
        frame = self.frames[-1] if self.frames else None
        temps = []
        for name in _loop_tables(nodes, own):
            var = name.binding
            if var in self.arrays and self.arrays[var][1] is frame:
                continue  # an enclosing loop holds it already
            a = self.temp()
            test = self.table_test(name, var.pyname).removesuffix(" and ")
            self.em.emit(ind, f"{a} = {var.pyname}.arr if {test} else ()" if test else f"{a} = {var.pyname}.arr", line)
            self.arrays[var] = (a, frame)
            temps.append(a)
        self.held.extend(temps)
        try:
            yield
        finally:
            del self.held[len(self.held) - len(temps):]
            self.arrays = saved

    def held_array(self, o) -> str | None:
        """The temporary holding the array part of the table o names, where
        a loop around the code being compiled holds it (else None)."""
        held = self.arrays.get(o.binding) if type(o) is A.Name else None
        if held is None or held[1] is not (self.frames[-1] if self.frames else None):
            return None
        return held[0]

    def held_read(self, n, v: str, m: str, d: str) -> str | None:
        """`t[k]` from the array part its loop holds (else None): `v` the
        temporary of the value, `m` the key's line mark, `d` how messages
        name `t`."""
        o = n.obj
        a = self.held_array(o)
        if a is None:
            return None
        ot = o.binding.pyname
        test = self.table_test(o, ot)
        k = fold(n.key)
        if type(k) is A.Number and type(k.value) is int:
            if not 0 < k.value < 2**31:
                return None
            kt, c = repr(k.value), k.value
            has = a if c == 1 else f"{c} <= len({a})"
            return (f"({v} if {has} and ({v} := {a}[{c - 1}]) is not None"
                    f" or {test}(({v} := {ot}.hash.get({kt})) is not None or {ot}.meta is None)"
                    f" else {m}_index({ot}, {kt}, {d}))")
        if self.is_pure(k):
            kt = self.expr(k)
            first = ""
        else:
            kt = self.temp()
            first = f"(({kt} := {self.expr(k)}) is {kt}) and "
        if self.is_int(k):
            # (an integer key is never a string: the hash part holds it as it is)
            read = f"{self.lower_bound(k)}{kt} <= len({a})"
            rest = f"({v} := {ot}.hash.get({kt}))"
        else:
            read = f"type({kt}) is int and 0 < {kt} <= len({a})"
            rest = f"({v} := ({ot}.hash if type({kt}) is str else {ot}).get({kt}))"
        read = (f"{read} and ({v} := {a}[{kt} - 1]) is not None"
                f" or {test}({rest} is not None or {ot}.meta is None)")
        body = f"{first}({read})" if first else read
        return f"({v} if {body} else {m}_index({ot}, {kt}, {d}))"
