"""Loops: while, repeat and the two for loops, with their step charges.

A loop iteration is a step point (compiler/costs.py): it charges what its body
weighs. Charging `_S[0]` and testing it on every iteration costs about as
much as a small body, so an iteration only counts down a Python local, and
every `BATCH` iterations the loop charges `BATCH` iterations' weight at once
and lets `_tick` check the limits. Whatever way the loop is left (its end,
break, return, goto, an error), a `finally` charges the iterations not yet
charged, so the budget spends the same steps as before, at most `BATCH - 1`
iterations later (a numeric for still charges its iterations up front,
in _forprep; its body's weight is charged this way).
"""

from __future__ import annotations

import contextlib

from ..syntax import ast as A
from .shapes import FOR_CALL_ITERATOR, FOR_ITERATOR, FOR_LOOP, LOOP_ERROR, LOOP_EXIT
from .weigh import block_cost

#: iterations a loop runs between two charges of the step budget
BATCH = 64


class LoopCompiler:
    """Mixin of FunctionCompiler: the loop statements."""

    def _loop(self, kind: str, body: A.Block):
        # `goto continue` becomes Python's continue when the label ends the body
        label = None
        if kind != "repeat" and body.stmts and type(body.stmts[-1]) is A.Label:
            label = body.stmts[-1].name
        return {"kind": kind, "continue": label, "dispatch": False}

    @contextlib.contextmanager
    def holding(self, *temps):
        """While a loop's body is compiled, its state's temporaries are held
        (`held`): a statement that runs a collection clears the others."""
        n = len(self.held)
        self.held.extend(t for t in temps if t and t.startswith("_t"))
        try:
            yield
        finally:
            del self.held[n:]

    # ------------------------------------------------------------ charges

    def open_charges(self, ind: int, line: int) -> str:
        """Before a loop: its countdown of iterations to the next charge."""
        c = self.temp()
        self.em.emit(ind, f"{c} = {BATCH}", line)
        return c

    def charge_iteration(self, c: str, cost: int, ind: int, line: int):
        """At the top of an iteration: counts it; every BATCH iterations,
        charges them and checks the limits."""
        self.em.emit(ind, f"{c} -= 1", line)
        self.em.emit(ind, f"if not {c}:", line)
        self.em.emit(ind + 1, f"{c} = {BATCH}", line)
        self.em.emit(ind + 1, f"_S[0] = _s = _S[0] - {BATCH * cost}", line)
        self.em.emit(ind + 1, "if _s < 0: _tick()", line)

    def close_charges(self, c: str, cost: int, ind: int, line: int):
        """In the loop's `finally`: the iterations run since the last charge."""
        self.em.emit(ind, f"_S[0] -= ({BATCH} - {c}) * {cost}", line)

    # ------------------------------------------------------------- loops

    def s_While(self, s: A.While, ind: int):
        cost = 1 + block_cost([s.cond, *s.body.stmts])
        with self.holding_arrays([s.cond, s.body], ind, s.line):
            self._while(s, cost, ind)

    def _while(self, s: A.While, cost: int, ind: int):
        c = self.open_charges(ind, s.line)
        self.em.emit(ind, "try:", s.line)
        # `while True:` and a test that breaks, not `while cond:`: CPython 3.11
        # ends `while cond:` with a conditional backward jump, which does not
        # count towards warming the code up, so a function whose hot loop is
        # a while, called fewer than 8 times, never ran specialized
        self.em.emit(ind + 1, "while True:", s.line)
        self.em.emit(ind + 2, f"if not ({self.loop_cond(s.cond)}): break", s.line)
        self.charge_iteration(c, cost, ind + 2, s.line)
        self.loops.append(self._loop("while", s.body))
        with self.nested(2), self.holding(c):
            self.block(s.body, ind + 2)
        self.loops.pop()
        self.em.emit(ind, "finally:", s.line)
        self.close_charges(c, cost, ind + 1, s.line)

    def loop_cond(self, cond) -> str:
        """A while's or a repeat's condition, tested each iteration: never
        compiled as code that runs once (ExprCompiler.cold)."""
        self.loop_heads += 1
        try:
            return self.cond(cond)
        finally:
            self.loop_heads -= 1

    def s_Repeat(self, s: A.Repeat, ind: int):
        cost = 1 + block_cost([*s.body.stmts, s.cond])
        with self.holding_arrays([s.body, s.cond], ind, s.line):
            self._repeat(s, cost, ind)

    def _repeat(self, s: A.Repeat, cost: int, ind: int):
        c = self.open_charges(ind, s.line)
        self.em.emit(ind, "try:", s.line)
        self.em.emit(ind + 1, "while True:", s.line)
        self.charge_iteration(c, cost, ind + 2, s.line)
        self.loops.append(self._loop("repeat", s.body))
        with self.nested(2), self.holding(c):
            self.block(s.body, ind + 2)
        self.loops.pop()
        self.em.emit(ind + 2, f"if {self.loop_cond(s.cond)}: break", s.cond.line)
        self.em.emit(ind, "finally:", s.line)
        self.close_charges(c, cost, ind + 1, s.line)

    def s_NumericFor(self, s: A.NumericFor, ind: int):
        v = s.var_local
        start, stop = self.expr(s.start), self.expr(s.stop)
        step = self.expr(s.step) if s.step is not None else "1"
        rng = self.temp()
        raw = self.temp() if v.is_cell else v.pyname
        self.bind(v.pyname)
        # the iterations are charged by _forprep; the body's weight beyond them here
        extra = block_cost(s.body.stmts)
        c = self.open_charges(ind, s.line) if extra else None
        body = ind + 1
        if c is not None:
            body += 1
        # (its reads of tables held from before the header: nothing there can change them)
        with self.holding_arrays([s.body], ind, s.line, own=(v,)):
            if c is not None:
                self.em.emit(ind, "try:", s.line)
            self.em.emit(body - 1, f"for {raw} in ({rng} := _forprep({start}, {stop}, {step})):", s.line)
            if v.is_cell:
                self.em.emit(body, f"{v.pyname} = [{raw}]", s.line)
            if c is not None:
                self.charge_iteration(c, extra, body, s.line)
            loop = self._loop("for", s.body)
            loop["refund"] = f"_refund({rng}, {raw})"
            self.loops.append(loop)
            with self.nested(body - ind), self.holding(rng, raw, c):
                self.block(s.body, body)
            self.loops.pop()
        if c is not None:
            self.em.emit(ind, "finally:", s.line)
            self.close_charges(c, extra, ind + 1, s.line)

    def s_GenericFor(self, s: A.GenericFor, ind: int):
        vars_ = s.vars
        f, st, c, close = self.temp(), self.temp(), self.temp(), self.temp()
        vals = self.explist(s.exprs, 4)
        # over one call (`pairs(t)`), whose callee a temporary keeps: the iterator is told what was called
        callee = self.temp() if len(s.exprs) == 1 and self.checked_callee(s.exprs[0]) else None
        if vals is None:
            self.em.emit(ind, f"{f}, {st}, {c}, {close} = {self.explist_tuple(s.exprs, 4, callee)}", s.line)
        else:
            self.em.emit(ind, f"{f}, {st}, {c}, {close} = {', '.join(vals)}", s.line)
            for extra in s.exprs[4:]:
                self.em.emit(ind, self.expr_stmt(extra), s.line)
        raws = [self.temp() if v.is_cell else v.pyname for v in vars_]
        target = raws[0] if len(raws) == 1 else ", ".join(raws)
        it = self.temp()
        if callee is None:
            self.em.emit(ind, FOR_ITERATOR.emit(it=it, f=f, s=st, c=c, close=close, n=len(vars_)), s.line)
        else:
            shape = FOR_CALL_ITERATOR
            self.em.emit(ind, shape.emit(it=it, f=f, s=st, c=c, close=close, n=len(vars_), callee=callee), s.line)
        # the iterations are charged by _giter; the body's weight beyond them here
        extra = block_cost(s.body.stmts)
        count = self.open_charges(ind, s.line) if extra else None
        # an error leaving the body reaches the closing value's __close
        self.em.emit(ind, "try:", s.line)
        self.em.emit(ind + 1, FOR_LOOP.emit(target=target, it=it), s.line)
        for v, r in zip(vars_, raws):
            self.bind(v.pyname)
            if v.is_cell:
                self.em.emit(ind + 2, f"{v.pyname} = [{r}]", s.line)
            self.mark_table(v, ind + 2, s.line)
        if count is not None:
            self.charge_iteration(count, extra, ind + 2, s.line)
        self.loops.append(self._loop("for", s.body))
        # Lua marks a generic for's state as to-be-closed: no tail calls inside
        self.tbc_depth += 1
        with self.nested(3), self.holding(f, st, c, close, callee, it, count, *raws):
            self.block(s.body, ind + 2)
        self.tbc_depth -= 1
        self.loops.pop()
        self.em.emit(ind, "except BaseException as _e:", s.line)
        self.em.emit(ind + 1, f"if {close} is not None and type(_e) is not _GotoSignal: {LOOP_ERROR.emit(it=it, error='_e')}",
                     s.line)
        self.em.emit(ind + 1, "raise", s.line)
        # left by break, goto or return: closed now, with no error
        self.em.emit(ind, "finally:", s.line)
        if count is not None:
            self.close_charges(count, extra, ind + 1, s.line)
        self.em.emit(ind + 1, LOOP_EXIT.emit(it=it), s.line)
