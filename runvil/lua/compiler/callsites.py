"""The call sites of a generator twin (compiler/generators.py): what a Lua
call `(callee)(args)` becomes in a twin, as its branches by the callee
(a leaf called as it is, the callee's twin run, a yield, a builtin that
runs no Lua code, or gcall's way), and the expressions those branches are
made of."""

from __future__ import annotations

import ast

from .pytrees import copy_tree, locate as _at


def load(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def store(n: str) -> ast.Name:
    return ast.Name(n, ast.Store())


def _head(test: ast.expr, name: str) -> ast.IfExp:
    """`name[0] if test else None`: the first of the values `name` holds."""
    return ast.IfExp(test, ast.Subscript(load(name), ast.Constant(0), ast.Load()), ast.Constant(None))


def _one_value(x: ast.expr, name: str) -> ast.Compare:
    """`type(name := x) is not _Multi`: x is one value, not several."""
    return ast.Compare(ast.Call(load("type"), [ast.NamedExpr(store(name), x)], []), [ast.IsNot()], [load("_Multi")])


def first_value(x: ast.expr, name: str) -> ast.IfExp:
    """`(name if type(name := x) is not _Multi else name[0] if name else None)`"""
    return ast.IfExp(_one_value(x, name), load(name), _head(load(name), name))


class CallSite:
    """A Lua call site's twin, by its branches (see CallSites.lua_call): what
    it gives as a raw result, as a first value, or as a statement."""

    __slots__ = ("known", "fast", "leaf", "numeric", "twin", "yielded", "direct", "called", "temp", "node")

    def __init__(self, known, fast, leaf, numeric, twin, yielded, direct, called, temp, node):
        self.known = known  # the args a known yield yields at once while _GYOK, or None
        self.fast = fast  # (test, call): the last leaf this site called as it is, called again; or None
        self.leaf = leaf  # (test, call): a known leaf called as it is, the arguments evaluated in the test
        self.numeric = numeric  # (test, numbers, call): a numeric leaf, called as it is on numbers; or None
        self.twin = twin  # (test, r, ran, tails): the callee's twin run, its tail call too
        self.yielded = yielded  # (test, args): the callee is the state's coroutine.yield
        self.direct = direct  # (test, call): a builtin (or leaf) that runs no Lua code here
        self.called = called  # the rest: gcall sorts it out
        self.temp = temp  # makes a temporary name
        self.node = node  # the call in the generated code: where its twin is (errors.call_site reads it)

    def raw(self) -> ast.expr:
        """The call's raw result (one value or a Multi)."""
        t, r, ran, tails = self.twin
        twin_result = ast.IfExp(_pending(r, ran), tails, load(r))
        return self.chain(_multi_yield, twin_result, lambda call: call)

    def first(self, r: str) -> ast.expr:
        """The call's first value, each branch its own (a twin's results
        are final: no pending tail call to run, no Multi made for a yield)."""
        _t, g, ran, tails = self.twin
        pending = ast.BoolOp(ast.And(), [load(g), ast.Compare(
            ast.Subscript(load(g), ast.Constant(0), ast.Load()), [ast.Is()], [load("_TAILCALL")])])
        rest = ast.IfExp(pending, first_value(tails, self.temp()), _head(load(g), g))
        twin_first = ast.IfExp(_one_value(ran, g), load(g), rest)

        def first_yield(args):
            sent = self.temp()
            return _head(ast.NamedExpr(store(sent), ast.Yield(args)), sent)

        return self.chain(first_yield, twin_first, lambda call: first_value(call, r))

    def statement(self, like: ast.stmt) -> ast.stmt:
        """The call as a statement, its values dropped: a yield makes no Multi."""
        t, r, ran, tails = self.twin
        twin_result = ast.IfExp(_pending(r, ran), tails, load(r))
        rest = self.chain(ast.Yield, twin_result, lambda call: call, known=False)
        if self.known is None:
            return _at(ast.Expr(rest), like)
        return _at(ast.If(load("_GYOK"), [ast.Expr(ast.Yield(self.known))], [ast.Expr(rest)]), like)

    def chain(self, yielding, twin_result, value, known: bool = True) -> ast.expr:
        """The branches as one expression: `yielding(args)` for a yield,
        `value(call)` for a direct call or gcall's."""
        leaf_test, leaf_call = self.leaf
        twin_test = self.twin[0]
        yield_test, yield_args = self.yielded
        direct_test, direct_call = self.direct
        rest = ast.IfExp(twin_test, twin_result, ast.IfExp(
            yield_test, yielding(yield_args), ast.IfExp(direct_test, value(direct_call), value(self.called))))
        if self.numeric is not None:  # (any other arguments: gcall runs its twin)
            is_numeric, numbers, numeric_call = self.numeric
            rest = ast.IfExp(is_numeric, ast.IfExp(numbers, value(numeric_call), value(copy_tree(self.called))),
                             rest)
        expr = ast.IfExp(leaf_test, value(leaf_call), rest)
        if self.fast is not None:
            fast_test, fast_call = self.fast
            expr = ast.IfExp(fast_test, value(fast_call), expr)
        if known and self.known is not None:
            expr = ast.IfExp(load("_GYOK"), yielding(self.known), expr)
        return _at(expr, self.node)


class CompactSite:
    """A call site that runs once (CallSites.compact_call): gcall's result,
    its first value, or the call as a statement."""

    __slots__ = ("call", "node")

    def __init__(self, call: ast.expr, node: ast.Call):
        self.call = call  # gcall's raw result
        self.node = node

    def raw(self) -> ast.expr:
        return _at(self.call, self.node)

    def first(self, r: str) -> ast.expr:
        return _at(first_value(self.call, r), self.node)

    def statement(self, like: ast.stmt) -> ast.stmt:
        return _at(ast.Expr(_at(self.call, self.node)), like)


def _multi_yield(args: ast.expr) -> ast.expr:
    return ast.Call(load("_Multi"), [ast.Yield(args)], [])


def _pending(r: str, ran: ast.expr) -> ast.expr:
    """`type(r := ran) is _Multi and r and r[0] is _TAILCALL`: the twin's
    result is a pending tail call."""
    return ast.BoolOp(ast.And(), [
        ast.Compare(ast.Call(load("type"), [ast.NamedExpr(store(r), ran)], []), [ast.Is()], [load("_Multi")]),
        load(r),
        ast.Compare(ast.Subscript(load(r), ast.Constant(0), ast.Load()), [ast.Is()], [load("_TAILCALL")]),
    ])




class CallSites:
    """The call-site makers of _Twin (compiler/generators.py), which gives
    them `temp`, `args_tuple`, `once`, `loop_depth` and `caches`."""

    def lua_call(self, node, func, args, desc=None, v: str | None = None, known_yield: bool = False) -> CallSite:
        """A Lua call site. The callee is evaluated first, then the
        arguments, as in Lua (each into a temporary of its own; all into one
        tuple when the last may give several values); then, by the callee:

            v(a1, a2) if ((t := getattr((v := callee), 'lua_twin', None)) is _GLEAFT) is not (
                (a1 := e1) is _GNEVER or (a2 := e2) is _GNEVER)  # a known leaf: as it is
            else (v(a1, a2) if (type(a1) is int or type(a1) is float) and (...a2...)  # a numeric leaf:
                  else (yield from _gcall(v, (a1, a2)))) if t is _GNUMT  # as it is on numbers
            else <yield from t(a1, a2), its tail call run> if t is not None  # v's twin
            else _Multi((yield (a1, a2))) if v is _YIELD
            else v(a1, a2) if v in _GSAFE or _gleaf(v) or _GWHEN[v]((a1, a2))  # runs no Lua code
            else (yield from _gcall(v, (a1, a2)))     # the rest: gcall sorts it out

        A callee that may be no function (CALLEE: `desc` is how messages
        name it) is tested here, after the arguments, as Lua's OP_CALL
        does: only for a builtin that runs no Lua code, and as
        `_callable(v, desc)` for gcall; `v` is then CALLEE's own name for it,
        which holds the callee after the call in the twin too.

        (a test that is never true evaluates the arguments after the callee
        with no tuple made for it, and the callee is called with the values
        themselves, not unpacked from a tuple: a tenth less per call)
        """
        v = v or self.temp()
        if self.once and not self.loop_depth:
            return self.compact_call(node, func, args, desc, v)
        a, t, r = self.temp(), self.temp(), self.temp()
        twin_attr = ast.Call(load("getattr"), [ast.NamedExpr(store(v), func), ast.Constant("lua_twin"),
                                                ast.Constant(None)], [])
        if self.loop_depth:
            # in a loop: the callee's `lua_twin` kept with the callee (a local
            # of the twin), read again only for another callee, and not kept
            # while it is None (a closure's is set at its first twin call):
            #   (k if (v := callee) is c else k if (k := getattr(v, ...)) is None or (c := v) is None else k)
            c, k = self.temp(), self.temp()
            self.caches.append(c)
            fetched = ast.NamedExpr(store(k), ast.Call(load("getattr"), [load(v), ast.Constant("lua_twin"),
                                                                           ast.Constant(None)], []))
            kept = ast.BoolOp(ast.Or(), [ast.Compare(fetched, [ast.Is()], [ast.Constant(None)]),
                                         ast.Compare(ast.NamedExpr(store(c), load(v)), [ast.Is()],
                                                     [ast.Constant(None)])])
            twin_attr = ast.IfExp(ast.Compare(ast.NamedExpr(store(v), func), [ast.Is()], [load(c)]), load(k),
                                  ast.IfExp(kept, load(k), load(k)))
        is_leaf = ast.Compare(ast.NamedExpr(store(t), twin_attr), [ast.Is()], [load("_GLEAFT")])
        names = None if any(isinstance(e, ast.Starred) for e in args) else [self.temp() for _ in args]
        if names is None:  # their number is known when they run: one tuple
            made = [ast.Compare(ast.NamedExpr(store(a), self.args_tuple(args)), [ast.Is()], [ast.Constant(None)])]
            packed, passed = load(a), [ast.Starred(load(a), ast.Load())]
        else:
            made = [ast.Compare(ast.NamedExpr(store(n), e), [ast.Is()], [load("_GNEVER")])
                    for n, e in zip(names, args)]
            packed, passed = ast.Tuple(elts=[load(n) for n in names], ctx=ast.Load()), [load(n) for n in names]
        if not made:
            test = is_leaf
        else:
            test = ast.Compare(is_leaf, [ast.IsNot()], [made[0] if len(made) == 1 else ast.BoolOp(ast.Or(), made)])
        ran = ast.YieldFrom(ast.Call(load(t), copy_tree(passed), []))
        tails = ast.YieldFrom(ast.Call(load("_gcall"), [ast.Subscript(load(r), ast.Constant(1), ast.Load()),
                                                        ast.Subscript(load(r), ast.Constant(2), ast.Load())], []))
        has_twin = ast.Compare(load(t), [ast.IsNot()], [ast.Constant(None)])
        is_yield = ast.Compare(load(v), [ast.Is()], [load("_YIELD")])
        w = self.temp()
        safe_here = ast.BoolOp(ast.And(), [  # a builtin that runs no Lua code on these arguments
            ast.Compare(ast.NamedExpr(store(w), ast.Call(ast.Attribute(load("_GWHEN"), "get", ast.Load()),
                                                          [load(v)], [])), [ast.IsNot()], [ast.Constant(None)]),
            ast.Call(load(w), [copy_tree(packed)], []),
        ])
        leaf = ast.Call(load("_gleaf"), [load(v)], [])  # (a closure no twin has called yet)
        safe = ast.BoolOp(ast.Or(), [ast.Compare(load(v), [ast.In()], [load("_GSAFE")]), leaf, safe_here])
        callee = load(v)
        if desc is not None:  # a value that may be no function: checked here, after the arguments
            function = ast.Compare(ast.Call(load("type"), [load(v)], []), [ast.Is()], [load("_FT")])
            safe = ast.BoolOp(ast.And(), [function, safe])
            callee = ast.Call(load("_callable"), [load(v), desc], [])
        direct = ast.Call(load(v), passed, [])
        called = ast.YieldFrom(ast.Call(load("_gcall"), [callee, copy_tree(packed)], []))
        # `coroutine.yield(args)` itself: while the global table's raw `coroutine`
        # is the library and its raw `yield` the state's (`_GYOK`, kept by
        # runtime/generators.Twins.watched: raw hits, so no metamethod could have
        # given them), the arguments, yielded; else the general path
        known = copy_tree(self.args_tuple(args)) if known_yield else None
        numeric = None
        if names is not None:
            kinds = [self.temp() for _ in names]
            numbers = [ast.BoolOp(ast.Or(), [
                ast.Compare(ast.NamedExpr(store(k), ast.Call(load("type"), [load(n)], [])), [ast.Is()],
                            [load("int")]),
                ast.Compare(load(k), [ast.Is()], [load("float")])]) for n, k in zip(names, kinds)]
            numeric = (ast.Compare(load(t), [ast.Is()], [load("_GNUMT")]),
                       ast.BoolOp(ast.And(), numbers) if len(numbers) > 1 else numbers[0] if numbers
                       else ast.Constant(True), copy_tree(direct))
        leaf_call = copy_tree(direct)
        fast = self.fast_path(func, args, v) if self.loop_depth and not known_yield else None
        if fast is not None:  # a direct call keeps its callee, and what to call, for the fast path
            fast, last, fn = fast
            leaf_call.func = ast.NamedExpr(store(fn), ast.NamedExpr(store(last), leaf_call.func))
            if numeric is not None:  # a numeric leaf: its exact twin (no `*_`) when the arguments fit it
                numeric[2].func = ast.NamedExpr(store(fn), ast.Call(load("_gexact"), [
                    ast.NamedExpr(store(last), numeric[2].func), ast.Constant(len(args))], []))
        return CallSite(known, fast, (test, leaf_call), numeric, (has_twin, r, ran, tails),
                         (is_yield, copy_tree(packed)), (safe, direct), called, self.temp, node)

    def compact_call(self, node, func, args, desc, v: str) -> CompactSite:
        """A call site that runs once (outside any loop of a chunk's main
        function): gcall sorts the callee out, as the last branch of
        lua_call's does for any callee (the other branches only make a
        call that runs many times faster, and make the call site's twin,
        which must be made before it runs once, several times as large):

            (yield from _gcall(_callable(v, desc), a)) if ((v := callee) is _GNEVER) is ((a := args) is None) else None

        (the callee first, then the arguments, then the callable test, as
        in lua_call; the test is always true). When do these run again (a
        loaded chunk called in a loop)? Then each call takes gcall's way,
        a little slower, with the same results."""
        a = self.temp()
        callee = load(v) if desc is None else ast.Call(load("_callable"), [load(v), desc], [])
        call = ast.YieldFrom(ast.Call(load("_gcall"), [callee, load(a)], []))
        order = ast.Compare(
            ast.Compare(ast.NamedExpr(store(v), func), [ast.Is()], [load("_GNEVER")]), [ast.Is()],
            [ast.Compare(ast.NamedExpr(store(a), self.args_tuple(args)), [ast.Is()], [ast.Constant(None)])])
        return CompactSite(ast.IfExp(order, call, ast.Constant(None)), node)

    def fast_path(self, func: ast.expr, args: list, v: str):
        """A call site in a loop whose callee is a local and whose arguments
        are locals or number constants (evaluating them twice changes
        nothing): the last leaf or numeric leaf it called as it is, kept in a
        local of the twin, is called as it is again on numbers before any
        other test (the general branches run when that test fails):

            fn(a) if (v := callee) is last and (type(a) is int or type(a) is float) else <the branches>

        where `fn` is `last` itself, or a numeric leaf's copy without the
        `*_` that takes extra arguments (runtime/generators.exact): CPython
        calls a function without it as it calls a plain one, a sixth faster.
        Returns ((test, call), last, fn), or None for any other call site."""
        if type(func) is not ast.Name:
            return None
        tests = []
        for e in args:
            if type(e) is ast.Constant and type(e.value) in (int, float):
                continue
            if type(e) is not ast.Name:
                return None
            tests.append(ast.BoolOp(ast.Or(), [  # (int first, kept nowhere: a walrus costs an int more)
                ast.Compare(ast.Call(load("type"), [load(e.id)], []), [ast.Is()], [load(kind)])
                for kind in ("int", "float")]))
        last, fn = self.temp(), self.temp()
        self.caches.append(last)  # (fn is only read once last is set)
        same = ast.Compare(ast.NamedExpr(store(v), copy_tree(func)), [ast.Is()], [load(last)])
        test = ast.BoolOp(ast.And(), [same, *tests]) if tests else same
        return (test, ast.Call(load(fn), [copy_tree(e) for e in args], [])), last, fn
