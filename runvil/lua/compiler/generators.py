"""Generator twins: a Lua function recompiled as a Python generator, so a
coroutine can run on its resumer's stack and yield with a plain Python
`yield` (runvil.lua.runtime.generators runs them; docs/DECISIONS.md, "coroutines as
generators").

A switch between greenlets costs about 1 µs; a generator's `yield` a tenth
of that. The twin is the function's own generated code, transformed on the
Python syntax tree (so line numbers, and the positions Lua's messages are
read from, stay those of the original):

- a Lua call site `(callee)(args)` becomes a real `yield` when the callee
  is `coroutine.yield`, else `yield from _gcall(callee, args)`: the callee
  runs as a twin too, or directly when it is a builtin that never runs Lua
  code, or on an execution context of its own (an *escalation*, where it
  may yield as in any coroutine);
- a runtime helper that may run a metamethod (`_index`, `_add`, ...)
  becomes `yield from _gop(helper, args)`: it runs directly, and is run
  again escalated only if it reached a metamethod (cstack.meta_call refuses
  to start one while a twin calls a helper directly: the helpers change
  nothing before their metamethod call, so running them again is exact);
- `return f(args)` stays a proper tail call (`_gtail`), and a generic `for`
  asks its iterator for the next values through `yield from` when the
  iterator function may run Lua code.

A function with nested Python functions (an expression or block hoisted
for CPython's nesting limits) has no twin: a call of it from a twin is
escalated, and a coroutine on it runs on a context of its own.

Twins are made on first use, per function code, from the chunk's Python
source (compiled.PY_SOURCE), and bound to each closure's own cells.
"""

from __future__ import annotations

import ast
import copy
import itertools
import types

from .chunk import PY_SOURCE

#: runtime helpers that never run Lua code: called directly from a twin
PURE_HELPERS = frozenset({
    "type", "len", "isinstance", "next", "str", "int", "float", "tuple", "repr", "getattr",
    "_first", "_expand", "_fixed", "_adjust", "_Multi", "_Table", "_tlist", "_tnamed", "_tmixed",
    "_callable", "_tbc_check", "_forprep", "_tick", "_refund", "_wrap", "_GotoSignal",
})  # fmt: skip

#: methods generated code calls on runtime objects that never run Lua code
PURE_METHODS = frozenset({"get", "set_str", "set_int", "append", "length", "get_int", "get_str"})

#: Python syntax a twin cannot hold: a `yield` inside would belong to the
#: nested function, and the twin's own would change what it is
_NO_TWIN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
            ast.DictComp, ast.GeneratorExp, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)

_trees: dict[str, dict] = {}  # chunk file name -> {factory name: its ast}
_codes: dict = {}  # a function's code -> its twin's code (None: it has none)
#: what twin_code gives for a function that calls nothing that may run Lua
#: code: its twin would never yield, so a twin calls it as it is
LEAF = "leaf"
#: the code flag of a generator function (inspect.CO_GENERATOR)
_CO_GENERATOR = 0x20


class NoTwin(Exception):
    """The function's code cannot become a generator."""


def twin_code(code: types.CodeType):
    """The code of `code`'s twin, LEAF, or None (made once per code)."""
    try:
        return _codes[code]
    except KeyError:
        pass
    try:
        made = _make(code)
    except NoTwin:
        made = None
    _codes[code] = made
    return made


def bind(f: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """The twin of the closure `f`: its code over f's own cells."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    closure = tuple(cells[n] for n in code.co_freevars)
    return types.FunctionType(code, f.__globals__, code.co_name, f.__defaults__, closure)


def _make(code: types.CodeType):
    source = PY_SOURCE.get(code.co_filename)
    qual = code.co_qualname.split(".<locals>.")
    if source is None or len(qual) != 2:
        raise NoTwin
    factory_name = qual[0]
    text, rename = source
    factories = _trees.get(code.co_filename)
    if factories is None:  # the chunk's factories, parsed once
        tree = ast.parse(text)
        factories = _trees[code.co_filename] = {d.name: d for d in tree.body if isinstance(d, ast.FunctionDef)}
    factory = factories.get(rename.old_name(factory_name) if rename else factory_name)
    if factory is None:
        raise NoTwin
    inner = [d for d in factory.body if isinstance(d, ast.FunctionDef)]
    if len(inner) != 1:
        raise NoTwin
    fn = _Twin().function(inner[0])
    shell = ast.FunctionDef(name=factory.name, args=factory.args, body=[fn, ast.Return(ast.Name(fn.name, ast.Load()))],
                            decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(shell, factory)
    module = ast.Module(body=[shell], type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec")
    made = _find(compiled, fn.name)
    if not made.co_flags & _CO_GENERATOR:
        return LEAF
    if rename is not None:
        made = rename.code(made)
    return made


def _find(code, name: str):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == name:
                return c
            found = _find(c, name)
            if found is not None:
                return found
    return None


def _at(node, like):
    return ast.fix_missing_locations(ast.copy_location(node, like))


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _is_coroutine_yield(func) -> bool:
    """Whether a call's callee (generated code) is `coroutine.yield`: the
    field 'yield' of the global 'coroutine' (read from `_Gh`, the global
    table's hash), tested callable."""
    if not (_is_call(func.orelse, "_callable", None, "field 'yield'") if isinstance(func, ast.IfExp) else False):
        return False
    test = func.test
    if not (isinstance(test, ast.Compare) and isinstance(test.left, ast.Call) and len(test.left.args) == 1
            and isinstance(test.left.args[0], ast.NamedExpr)):
        return False
    field = test.left.args[0].value
    return (isinstance(field, ast.IfExp) and _is_call(field.orelse, "_index", None, "yield", "global 'coroutine'")
            and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "get"
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == "_Gh"
                    and len(n.args) == 1 and isinstance(n.args[0], ast.Constant) and n.args[0].value == "coroutine"
                    for n in ast.walk(field)))


def _is_call(node, name: str, *constants) -> bool:
    """Whether node is `name(...)` with these constant arguments (None: any
    argument there)."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
            and len(node.args) == len(constants)
            and all(c is None or isinstance(a, ast.Constant) and a.value == c for a, c in zip(node.args, constants)))


def _packed(a: str, names: list | None) -> ast.expr:
    """A call site's arguments as one tuple: `a`, or a tuple of `names`."""
    return _name(a) if names is None else _args_tuple([_name(n) for n in names])


def _passed(a: str, names: list | None) -> list:
    """A call site's arguments as a call passes them: `*a`, or `names`."""
    return [ast.Starred(_name(a), ast.Load())] if names is None else [_name(n) for n in names]


def _yield_branches(call: ast.expr) -> list:
    """The branches `X if test else ...` of a call site (lua_call) whose X
    is `_Multi((yield args))`: the known yield's and the general one's."""
    found = []
    for _ in range(4):  # known yield, known leaf, twin, yield
        if not isinstance(call, ast.IfExp):
            break
        body = call.body
        if (isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "_Multi"
                and len(body.args) == 1 and isinstance(body.args[0], ast.Yield)):
            found.append(call)
        call = call.orelse
    return found


def _checked_callee(func) -> bool:
    """Whether a call's callee is `(f if type(f := e) is _FT else
    _callable(f, desc))`, a value tested callable (compile_expr.call)."""
    t = func.test if isinstance(func, ast.IfExp) else None
    return (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Is)
            and isinstance(t.comparators[0], ast.Name) and t.comparators[0].id == "_FT"
            and _is_call(t.left, "type", None) and isinstance(t.left.args[0], ast.NamedExpr)
            and _is_call(func.orelse, "_callable", None, None) and isinstance(func.body, ast.Name)
            and func.body.id == t.left.args[0].target.id)


def _head(test: ast.expr, name: str) -> ast.IfExp:
    """`name[0] if test else None`: the first of the values `name` holds."""
    return ast.IfExp(test, ast.Subscript(_name(name), ast.Constant(0), ast.Load()), ast.Constant(None))


def _one_value(x: ast.expr, name: str) -> ast.Compare:
    """`type(name := x) is not _Multi`: x is one value, not several."""
    return ast.Compare(ast.Call(_name("type"), [ast.NamedExpr(ast.Name(name, ast.Store()), x)], []), [ast.IsNot()],
                       [_name("_Multi")])


def _tests_not_multi(t) -> bool:
    """Whether t is `<x> is not _Multi`."""
    return (isinstance(t, ast.Compare) and isinstance(t.ops[0], ast.IsNot) and isinstance(t.comparators[0], ast.Name)
            and t.comparators[0].id == "_Multi")


def _args_tuple(args: list) -> ast.expr:
    """A call's arguments as one tuple; `(*X,)` is X itself when X is
    `(v,) if type(v := e) is not _Multi else v` (a call's values: a tuple)."""
    if len(args) == 1 and isinstance(args[0], ast.Starred):
        x = args[0].value
        if isinstance(x, ast.IfExp) and isinstance(x.body, ast.Tuple) and _tests_not_multi(x.test):
            return x
    return ast.Tuple(elts=args, ctx=ast.Load())


class _Twin(ast.NodeTransformer):
    """Rewrites one generated function's body into its generator twin."""

    def __init__(self):
        self.temps = itertools.count(1)
        self.loops: set[str] = set()  # names holding a generic for's iterator

    def temp(self) -> str:
        return f"_gv{next(self.temps)}"

    def function(self, fn: ast.FunctionDef) -> ast.FunctionDef:
        for node in ast.walk(fn):
            if node is not fn and isinstance(node, _NO_TWIN):
                raise NoTwin
            if isinstance(node, ast.Call) and node.keywords:
                raise NoTwin
            if isinstance(node, ast.For) and node.orelse:
                raise NoTwin
        twin = ast.FunctionDef(name=fn.name, args=fn.args, body=self.statements(fn.body), decorator_list=[],
                               returns=None, type_comment=None)
        return ast.copy_location(twin, fn)

    def statements(self, body: list) -> list:
        """The twin of a list of statements (one may become several)."""
        out = []
        for s in body:
            r = self.visit(s)
            out.extend(r if isinstance(r, list) else [r])
        return out

    # -------------------------------------------------------------- calls

    def visit_Call(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            final = self.final_result(func.id, node.args)
            if final is not None:
                return _at(final, node)
            if func.id in PURE_HELPERS or func.id.startswith("_mk_"):
                return self.generic_visit(node)
            args = [self.visit(a) for a in node.args]
            if func.id == "_tail":
                return _at(ast.YieldFrom(ast.Call(_name("_gtail"), args, [])), node)
            if func.id == "_giter":
                return _at(ast.Call(_name("_ggiter"), args, []), node)
            if func.id.startswith("L_"):  # a Lua local called directly
                return self.lua_call(node, func, args)
            return _at(ast.YieldFrom(ast.Call(_name("_gop"), [func, _args_tuple(args)], [])), node)
        if isinstance(func, ast.Attribute):
            if func.attr in PURE_METHODS:
                return self.generic_visit(node)
            args = [self.visit(a) for a in node.args]
            target = self.visit(func.value)
            if func.attr in ("close", "throw") and isinstance(target, ast.Name) and target.id in self.loops:
                call = ast.Call(_name("_gloop_end"), [target, ast.Constant(func.attr), *args], [])
                return _at(ast.YieldFrom(call), node)
            bound = ast.Attribute(target, func.attr, ast.Load())
            return _at(ast.YieldFrom(ast.Call(_name("_gop"), [bound, _args_tuple(args)], [])), node)
        known_yield = _is_coroutine_yield(func)  # (before visiting, which rewrites it in place)
        return self.lua_call(node, self.visit(func), [self.visit(a) for a in node.args], known_yield)

    @staticmethod
    def final_result(helper: str, args: list):
        """In a twin, a call's result is final: its pending tail call has run
        (gcall runs them), so `_first(r)` of a Multi is `r[0]` and
        `_expand(r)` is r itself."""
        if len(args) != 1 or not isinstance(args[0], ast.Name):
            return None
        r = args[0].id
        if helper == "_first":
            return _head(_name(r), r)
        if helper == "_expand":
            return _name(r)
        return None

    def visit_IfExp(self, node: ast.IfExp):
        """`(r if type(r := call) is not _Multi else <r's first value>)`, a
        call's first value: when the call is a yield, the first of the
        values it was resumed with, without a Multi of them."""
        node = self.generic_visit(node)
        t = node.test
        if (_tests_not_multi(t) and isinstance(t.left, ast.Call)
                and isinstance(t.left.func, ast.Name) and t.left.func.id == "type" and len(t.left.args) == 1
                and isinstance(t.left.args[0], ast.NamedExpr)
                and isinstance(node.body, ast.Name) and node.body.id == t.left.args[0].target.id
                and isinstance(node.orelse, ast.IfExp) and isinstance(node.orelse.body, ast.Subscript)):
            # (the value itself, else its first of several: not `(r,)`, all of them)
            for branch in _yield_branches(t.left.args[0].value):
                sent = self.temp()
                got = ast.NamedExpr(ast.Name(sent, ast.Store()), branch.body.args[0])
                branch.body = _head(got, sent)
                branch.body.first_value = True
                ast.fix_missing_locations(ast.copy_location(branch.body, branch))
            call = t.left.args[0].value
            if getattr(call, "call_branches", False):
                return ast.fix_missing_locations(self.first_values(call, node))
        return node

    def first_values(self, call: ast.IfExp, node: ast.IfExp) -> ast.IfExp:
        """`first(<call site>)` as the call site with each branch's own
        first value: a twin's result is tested for a tuple once, not once
        for a pending tail call and once more here (node is the first(...))."""
        r = node.body.id

        def first(x: ast.expr, name: str) -> ast.IfExp:  # (name if type(name := x) is not _Multi else name[0]...)
            return ast.IfExp(_one_value(x, name), _name(name), _head(_name(name), name))

        def branch(b: ast.expr) -> ast.expr:
            if getattr(b, "first_value", False):
                return b
            twin = getattr(b, "twin_call", None)
            if twin is None:
                return first(b, r)
            g, ran, tails = twin
            pending = ast.BoolOp(ast.And(), [_name(g), ast.Compare(
                ast.Subscript(_name(g), ast.Constant(0), ast.Load()), [ast.Is()], [_name("_TAILCALL")])])
            rest = ast.IfExp(pending, first(tails, self.temp()), _head(_name(g), g))
            return ast.IfExp(_one_value(ran, g), _name(g), rest)

        n = call
        while True:
            n.body = branch(n.body)
            if not getattr(n.orelse, "call_branches", False):
                n.orelse = branch(n.orelse)
                break
            n = n.orelse
        return ast.copy_location(call, node)

    def visit_If(self, node: ast.If):
        """`if type(r := call) is _Multi and r: _first(r)` (a call whose
        values are dropped, its tail call run) is the call alone here."""
        t = node.test
        if (not node.orelse and len(node.body) == 1 and isinstance(t, ast.BoolOp) and isinstance(t.op, ast.And)
                and len(t.values) == 2 and isinstance(t.values[0], ast.Compare)
                and isinstance(t.values[0].left, ast.Call) and isinstance(t.values[0].left.func, ast.Name)
                and t.values[0].left.func.id == "type" and len(t.values[0].left.args) == 1
                and isinstance(t.values[0].left.args[0], ast.NamedExpr)
                and isinstance(t.values[0].comparators[0], ast.Name) and t.values[0].comparators[0].id == "_Multi"
                and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Call)
                and isinstance(node.body[0].value.func, ast.Name) and node.body[0].value.func.id == "_first"):
            call = self.visit(t.values[0].left.args[0].value)
            for branch in _yield_branches(call):
                branch.body = branch.body.args[0]  # a dropped yield's values need no _Multi
            if getattr(call, "known_yield", False):
                return self.known_yield_statement(call, node)
            return ast.copy_location(ast.Expr(call), node)
        return self.generic_visit(node)

    def lua_call(self, node, func, args, known_yield: bool = False):
        """A Lua call site. The callee is evaluated first, then the
        arguments, as in Lua (each into a temporary of its own; all into one
        tuple when the last may give several values); then, by the callee:

            v(a1, a2) if ((t := getattr((v := callee), 'lua_twin', None)) is _GLEAFT) is not (
                (a1 := e1) is _GNEVER or (a2 := e2) is _GNEVER)  # a known leaf: as it is
            else <yield from t(a1, a2), its tail call run> if t is not None  # v's twin
            else _Multi((yield (a1, a2))) if v is _YIELD
            else v(a1, a2) if v in _GSAFE or _gleaf(v) or _GWHEN[v]((a1, a2))  # runs no Lua code
            else (yield from _gcall(v, (a1, a2)))     # the rest: gcall sorts it out

        A callee that may be no function (compile_expr tests it callable) is
        tested here, after the arguments, as Lua's OP_CALL does: only for a
        builtin that runs no Lua code, and as `_callable(v, desc)` for gcall.

        (a test that is never true evaluates the arguments after the callee
        with no tuple made for it, and the callee is called with the values
        themselves, not unpacked from a tuple: a tenth less per call)
        """
        desc = None
        if _checked_callee(func):  # (no check first: only a function has a lua_twin)
            func, desc = func.test.left.args[0].value, func.orelse.args[1]
        v, a, t, r = self.temp(), self.temp(), self.temp(), self.temp()
        twin_attr = ast.Call(_name("getattr"), [ast.NamedExpr(ast.Name(v, ast.Store()), func), ast.Constant("lua_twin"),
                                                ast.Constant(None)], [])
        is_leaf = ast.Compare(ast.NamedExpr(ast.Name(t, ast.Store()), twin_attr), [ast.Is()], [_name("_GLEAFT")])
        names = None if any(isinstance(e, ast.Starred) for e in args) else [self.temp() for _ in args]
        if names is None:  # their number is known when they run: one tuple
            made = [ast.Compare(ast.NamedExpr(ast.Name(a, ast.Store()), _args_tuple(args)), [ast.Is()],
                                [ast.Constant(None)])]
        else:
            made = [ast.Compare(ast.NamedExpr(ast.Name(n, ast.Store()), e), [ast.Is()], [_name("_GNEVER")])
                    for n, e in zip(names, args)]
        if not made:
            test = is_leaf
        else:
            test = ast.Compare(is_leaf, [ast.IsNot()], [made[0] if len(made) == 1 else ast.BoolOp(ast.Or(), made)])
        is_yield = ast.Compare(_name(v), [ast.Is()], [_name("_YIELD")])
        yielded = ast.Call(_name("_Multi"), [ast.Yield(_packed(a, names))], [])
        ran = ast.YieldFrom(ast.Call(_name(t), _passed(a, names), []))
        pending = ast.BoolOp(ast.And(), [
            ast.Compare(ast.Call(_name("type"), [ast.NamedExpr(ast.Name(r, ast.Store()), ran)], []), [ast.Is()],
                        [_name("_Multi")]),
            _name(r),
            ast.Compare(ast.Subscript(_name(r), ast.Constant(0), ast.Load()), [ast.Is()], [_name("_TAILCALL")]),
        ])
        tails = ast.YieldFrom(ast.Call(_name("_gcall"), [ast.Subscript(_name(r), ast.Constant(1), ast.Load()),
                                                        ast.Subscript(_name(r), ast.Constant(2), ast.Load())], []))
        twin_result = ast.IfExp(pending, tails, _name(r))
        twin_result.twin_call = (r, ran, tails)  # (see first_values)
        has_twin = ast.Compare(_name(t), [ast.IsNot()], [ast.Constant(None)])
        safe = ast.Compare(_name(v), [ast.In()], [_name("_GSAFE")])
        w = self.temp()
        safe_here = ast.BoolOp(ast.And(), [  # a builtin that runs no Lua code on these arguments
            ast.Compare(ast.NamedExpr(ast.Name(w, ast.Store()),
                                      ast.Call(ast.Attribute(_name("_GWHEN"), "get", ast.Load()), [_name(v)], [])),
                        [ast.IsNot()], [ast.Constant(None)]),
            ast.Call(_name(w), [_packed(a, names)], []),
        ])
        leaf = ast.Call(_name("_gleaf"), [_name(v)], [])  # (a closure no twin has called yet)
        safe = ast.BoolOp(ast.Or(), [safe, leaf, safe_here])
        callee = _name(v)
        if desc is not None:  # a value that may be no function: checked here, after the arguments
            function = ast.Compare(ast.Call(_name("type"), [_name(v)], []), [ast.Is()], [_name("_FT")])
            safe = ast.BoolOp(ast.And(), [function, safe])
            callee = ast.Call(_name("_callable"), [_name(v), desc], [])
        direct = ast.Call(_name(v), _passed(a, names), [])
        called = ast.YieldFrom(ast.Call(_name("_gcall"), [callee, _packed(a, names)], []))
        expr = ast.IfExp(test, copy.deepcopy(direct), ast.IfExp(has_twin, twin_result, ast.IfExp(
            is_yield, yielded, ast.IfExp(safe, direct, called))))
        for n in (expr, expr.orelse, expr.orelse.orelse, expr.orelse.orelse.orelse):
            n.call_branches = True  # (see first_values)
        if known_yield:
            # `coroutine.yield(args)` itself: while the global table's raw
            # `coroutine` is the library and its raw `yield` the state's
            # (`_GYOK`, kept by twins.install: raw hits, so no metamethod
            # could have given them), the arguments, yielded; else the
            # general path
            known = _name("_GYOK")
            yields = ast.Yield(_args_tuple(copy.deepcopy(args)))
            expr = ast.IfExp(known, ast.Call(_name("_Multi"), [yields], []), expr)
            expr.call_branches = True
            expr.known_yield = True  # (a statement of its own: see known_yield_statement)
        return _at(expr, node)

    def known_yield_statement(self, call: ast.IfExp, node: ast.stmt) -> ast.If:
        """A known yield whose values are dropped (`coroutine.yield(x)` as a
        statement): `if _GYOK: yield (x,)`, else the general path."""
        branch = ast.If(call.test, [ast.Expr(call.body)], [ast.Expr(call.orelse)])
        return ast.fix_missing_locations(ast.copy_location(branch, node))

    # ------------------------------------------------------- generic for

    def visit_Assign(self, node: ast.Assign):
        v = node.value
        if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "_giter"
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            self.loops.add(node.targets[0].id)
        return self.generic_visit(node)

    def visit_For(self, node: ast.For):
        """`for T in it:` over a generic for's iterator becomes a loop that
        takes each item with `next` (a native walk, or an iterator function
        that runs no Lua code) or through `yield from it.step()` (a GLoop)."""
        it = node.iter
        if not (isinstance(it, ast.Name) and it.id in self.loops):
            return self.generic_visit(node)
        if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_giter"
                   for s in node.body for n in ast.walk(s)):
            # no generic for inside: a plain Python for when the iterator is
            # plain (a native walk, a wrap function's), the loop below when
            # not (the body twice, a Python for taking items 40% faster)
            plain = ast.For(copy.deepcopy(node.target), node.iter, self.statements(copy.deepcopy(node.body)), [])
            test = ast.Compare(ast.Call(_name("type"), [_name(it.id)], []), [ast.IsNot()], [_name("_GLoop")])
            split = ast.If(test, [plain], [self.stepped_loop(node)])
            for n in (plain, split):
                ast.copy_location(n, node)
            return ast.fix_missing_locations(split)
        return self.stepped_loop(node)

    def stepped_loop(self, node: ast.For) -> ast.While:
        it = node.iter
        v = self.temp()
        plain = ast.Call(_name("next"), [_name(it.id), _name("_GDONE")], [])
        stepped = ast.YieldFrom(ast.Call(ast.Attribute(_name(it.id), "step", ast.Load()), [], []))
        test = ast.Compare(ast.Call(_name("type"), [_name(it.id)], []), [ast.IsNot()], [_name("_GLoop")])
        take = ast.Assign([ast.Name(v, ast.Store())], ast.IfExp(test, plain, stepped))
        done = ast.If(ast.Compare(_name(v), [ast.Is()], [_name("_GDONE")]), [ast.Break()], [])
        bind_ = ast.Assign([node.target], _name(v))
        loop = ast.While(ast.Constant(True), [take, done, bind_, *self.statements(node.body)], [])
        for n in (take, done, bind_, loop):
            ast.copy_location(n, node)
        return ast.fix_missing_locations(loop)
