"""Stores: `target = value` for a field or an indexed slot (a mixin of
FunctionCompiler), with the in-place shortcuts for the common shapes: an
existing field or array slot overwritten, `t[#t + 1] = v` appended,
`o.k = o.k + e` updated in one test."""

from __future__ import annotations

import math

from ..syntax import ast as A
from .folding import fold
from .operators import MN, M
from .resolve import LocalVar, plain_local
from .contract import WATCHED_KEYS


class StoreCompiler:
    """Mixin of FunctionCompiler: stores into tables."""

    def field_update(self, target, value) -> str | None:
        """`o.k = o.k + e` (or - *), o a plain local, e a plain local or a
        number: the text of one test that, when o is a table holding k and
        both operands are integers (no overflow) or floats, stores the
        result in place (`if <text>`); anything else then takes the general
        path, which starts over. Nothing between the test's read and its
        write can run Lua code, so the field still exists when written."""
        value = fold(value)
        if type(target) is not A.Index or type(target.key) is not A.String:
            return None
        o = target.obj
        if type(o) is not A.Name or not isinstance(o.binding, LocalVar) or o.binding.is_cell:
            return None
        if type(value) is not A.BinOp or value.op not in ("+", "-", "*"):
            return None
        left, right = fold(value.left), fold(value.right)
        if (type(left) is not A.Index or type(left.obj) is not A.Name or left.obj.binding is not o.binding
                or type(left.key) is not A.String or left.key.value != target.key.value):
            return None
        int_right = self.is_int(right)
        if type(right) is A.Number:
            rv = right.value
            if type(rv) is float and not math.isfinite(rv):
                return None
        elif type(right) is not A.Name or not isinstance(right.binding, LocalVar) or right.binding.is_cell:
            return None
        e = self.e_Number(right) if type(right) is A.Number else right.binding.pyname
        ot, op, k = o.binding.pyname, value.op, repr(target.key.value)
        h, v, r = self.temp(), self.temp(), self.temp()
        int_case = f"type({v}) is int and {MN} <= ({r} := {v} {op} {e}) <= {M}"
        float_case = f"type({v}) is float and ({r} := {v} {op} {e}) is {r}"
        if type(right) is A.Number:
            cases = int_case if type(right.value) is int else ""
            cases = f"{cases} or {float_case}" if cases else float_case
        elif int_right:
            cases = int_case
        else:
            cases = (f"type({v}) is type({e}) is int and {MN} <= ({r} := {v} {op} {e}) <= {M}"
                     f" or type({v}) is type({e}) is float and ({r} := {v} {op} {e}) is {r}")
        return (f"{self.table_test(o, ot)}({v} := ({h} := {ot}.hash).get({k})) is not None and ({cases}):"
                f" {h}[{k}] = {r}")

    def append_pure(self, target, value) -> str | None:
        """`t[#t + 1] = v`, t a plain local and v a constant or a plain
        local: nothing runs between the length and the store, so on a table
        without a metatable and with an empty hash part the value is
        appended to the array part in one test (`if <text>`)."""
        if type(target) is not A.Index or not _is_append(target):
            return None
        t, e = target.obj, target.key.left.operand
        if not (plain_local(t) and type(e) is A.Name and e.binding is t.binding):
            return None
        value = fold(value)
        if type(value) in (A.Number, A.String, A.TrueLit, A.FalseLit):
            v, given = self.expr(value), ""
        elif plain_local(value):
            v = value.binding.pyname
            given = "" if self.never_nil(value) else f" and {v} is not None"
        else:
            return None
        x = t.binding.pyname
        return f"{self.table_test(t, x)}{x}.meta is None and not {x}.hash{given}: {x}.arr.append({v})"

    def store(self, target, o, k, value: str, ind: int, line: int, end_line: int = 0, nonnil: bool = False,
              pure_value: bool = False):
        """Emits target = value; o/k are the texts already holding the
        table and key of an Index target (temporaries, or plain locals and
        constants, see assign_targets), or None to evaluate them here. With
        `nonnil`, the value is known not to be nil (never_nil): the fast
        paths skip that check; with `pure_value`, the value's text may be
        repeated (a constant or a local: see is_pure)."""
        if type(target) is A.Name:
            b = target.binding
            if isinstance(b, LocalVar):
                self.assign_local(b, value, ind, line)
            else:
                env = b.env
                if self.fast_env(env):
                    self.em.emit(ind, f"_gset({target.name!r}, {value})", line)
                else:
                    self.em.emit(ind, f"_setindex({self.env_ref(env)}, {target.name!r}, {value}, {self.env_desc(env)!r})", line)
            return
        desc = self.desc(target.obj)
        dtext = repr(desc) if desc else "None"
        int_key = self.is_int(target.key)
        if o is None:
            # a local or a constant is read where it is stored (place_text);
            # anything else is evaluated, in Lua's order, into a temporary
            o = self.place(target.obj, ind, line)
            key = target.key
            k = repr(key.value) if type(key) is A.String else self.place(key, ind, line)
            if not pure_value:
                vt = self.temp()
                self.em.emit(ind, f"{vt} = {value}", line)
                value = vt
            o, k = self.cell_read(o, ind, line), self.cell_read(k, ind, line)
        sline = end_line or target.line
        # the test that o is a table (none for a local only ever given tables)
        is_table = self.table_test(target.obj, o) if plain_local(target.obj) and o == target.obj.binding.pyname \
            else f"type({o}) is _Table and "
        given = "" if nonnil else f" and {value} is not None"
        nil = value == "None"  # `t[k] = nil`: no in-place store (a removal goes through set_*)
        branches = []  # (test, store): the first that holds stores
        if k.startswith("'") or k.startswith('"'):
            # a field that exists is overwritten in place, metatable or not
            # (a key that may be watched, in a table that is: through set_str,
            # which tells the table's watcher)
            watched = f"{o}.watcher is None and " if k[1:-1] in WATCHED_KEYS else ""  # (k: a plain name's repr)
            if not nil:
                branches.append((f"{is_table}{watched}{o}.hash.get({k}) is not None{given}",
                                 f"{o}.hash[{k}] = {value}"))
            # a new field: stored raw when no __newindex can intercept it
            branches.append((f"{is_table}({o}.meta is None or {o}.meta.hash.get('__newindex') is None)",
                             f"{o}.set_str({k}, {value})"))
        else:
            a = self.temp()
            int_test = "" if int_key else f"type({k}) is int"
            is_int = f"{int_test} and " if int_test else ""
            low = self.lower_bound(target.key) if int_key else "0 < "
            slot = f"{k} - 1"
            c = fold(target.key)
            if type(c) is A.Number and type(c.value) is int and c.value > 0 and k == repr(c.value):
                low, slot = "", repr(c.value - 1)  # a constant positive key (`t[1] = v`)
            if _is_append(target) and not nil:
                # `t[#t + 1] = v` on a plain table appends to its array part
                branches.append((f"{is_table}{o}.meta is None and type({k}) is int{given}"
                                 f" and {k} == len({a} := {o}.arr) + 1 and not {o}.hash", f"{a}.append({value})"))
            held = self.held_array(target.obj) if plain_local(target.obj) and o == target.obj.binding.pyname else None
            if not nil:
                # a value for an existing slot of the array part is stored in place (in
                # the array part a loop holds, compiler/arrays.py: an empty tuple for no table)
                branches.append((f"{is_int}{low}{k} <= len({held}) and {held}[{slot}] is not None{given}",
                                 f"{held}[{slot}] = {value}") if held else
                                (f"{is_table}{is_int}{low}{k} <= len({a} := {o}.arr) and {a}[{slot}] is not None{given}",
                                 f"{a}[{slot}] = {value}"))
                if not _is_append(target):
                    # a new last slot of a plain table's array part (`t[i] = v` filling
                    # t in order): appended, as set_int does when the hash part is empty
                    branches.append((f"{is_table}{o}.meta is None and {is_int}{k} == len({a} := {o}.arr) + 1"
                                     f" and not {o}.hash{given}", f"{a}.append({value})"))
            branches.append((f"{is_table}{o}.meta is None{' and ' if int_test else ''}{int_test}", f"{o}.set_int({k}, {value})"))
            if not int_key:
                # a string key (a name computed at run time): stored raw when no __newindex can intercept it
                branches.append((f"{is_table}type({k}) is str"
                                 f" and ({o}.meta is None or {o}.meta.hash.get('__newindex') is None)",
                                 f"{o}.set_str({k}, {value})"))
        for i, (test, action) in enumerate(branches):
            self.em.emit(ind, f"{'elif' if i else 'if'} {test}: {action}", sline)
        self.em.emit(ind, f"else: _setindex({o}, {k}, {value}, {dtext})", sline)

    def place_text(self, n) -> str | None:
        """The text a store target's table or key is read by at the store
        (see place): a constant, a local no call can assign, or one of this
        function's own locals (as Lua, which stores through the local's
        register as it is then: a call in the value that assigns it, a
        cell, changes where the value goes); else None."""
        n = fold(n)
        if type(n) is A.Name and isinstance(n.binding, LocalVar) and (not n.binding.is_cell or n.binding.func is self.scope):
            return self.var_ref(n.binding)
        if type(n) in (A.Number, A.String, A.Nil, A.TrueLit, A.FalseLit):
            return self.expr(n)
        return None

    def cell_read(self, text: str, ind: int, line: int) -> str:
        """A cell's value read once, now (after the value), into a
        temporary; any other text as it is."""
        if not text.endswith("[0]"):
            return text
        t = self.temp()
        self.em.emit(ind, f"{t} = {text}", line)
        return t

    def place(self, n, ind: int, line: int) -> str:
        """A store target's table or key, evaluated now: its text as it is
        (place_text), else a temporary assigned here."""
        text = self.place_text(n)
        if text is not None:
            return text
        t = self.temp()
        self.em.emit(ind, f"{t} = {self.expr(n)}", line)
        return t



def _is_append(target) -> bool:
    """Whether the store target is written `x[#x + 1]`."""
    k = target.key
    return (type(k) is A.BinOp and k.op == "+" and type(k.left) is A.UnOp and k.left.op == "#"
            and type(k.right) is A.Number and k.right.value == 1 and type(k.right.value) is int)
