"""Generator twins: a Lua function recompiled as a Python generator, so a
coroutine can run on its resumer's stack and yield with a plain Python
`yield` (runvil.lua.runtime.generators runs them; docs/DECISIONS.md, "Generator
twins").

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

A *numeric leaf* (a function of numbers only: `numeric_leaf`) is called as
it is by a twin's call site when its arguments are numbers, as a leaf is.

A chunk's main function (a prompt's block, a module) usually runs once,
and its twin is made before it runs (the threadless backend runs every
block as a twin): outside its loops, each call site is gcall's alone
(`compact_call`), a small fraction of the branches lua_call makes.

A function with nested Python functions (an expression or block hoisted
for CPython's nesting limits) has no twin: a call of it from a twin is
escalated, and a coroutine on it runs on a context of its own.

Twins are made on first use, per function, from the chunk's Python
source, and bound to each closure's own cells; the chunk's ChunkInfo
(runvil.lua.debuginfo) keeps them, so they go with the chunk. What
the twin makes of each shape of generated code and of each helper it calls
is written in the contract between the two compilers, compiler/shapes.py:
a shape is found by the pattern of its own template, and its twin form is
the table's template or this module's `twin_<shape>` method.
"""

from __future__ import annotations

import ast
import itertools
import re
import types

from . import shapes as S
from .pytrees import copy_tree, factory_tree, locate, walk
from ..debuginfo import chunk_info
from .resolve import LOCAL_PREFIX

#: Python syntax a twin cannot hold: a `yield` inside would belong to the
#: nested function, and the twin's own would change what it is
_NO_TWIN = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
            ast.DictComp, ast.GeneratorExp, ast.Yield, ast.YieldFrom, ast.Await, ast.Global, ast.Nonlocal)

#: the factory of a chunk's main function: its first (compiler/codegen.py
#: numbers a chunk's functions from 1 as it compiles them, the main first)
_MAIN_FACTORY = re.compile(r"_mk_c\d+_1")
#: what twin_code gives for a function that calls nothing that may run Lua
#: code: its twin would never yield, so a twin calls it as it is
LEAF = "leaf"
#: the code flag of a generator function (inspect.CO_GENERATOR)
_CO_GENERATOR = 0x20


class NoTwin(Exception):
    """The function's code cannot become a generator."""


def twin_code(code: types.CodeType):
    """The code of `code`'s twin, LEAF, or None (made once per function of
    a chunk, kept in its ChunkInfo)."""
    info = chunk_info(code)
    if info is None:
        return None
    qual = code.co_qualname
    try:
        return info.twins[qual]
    except KeyError:
        pass
    try:
        made = _make(code, info)
    except NoTwin:
        made = None
    info.twins[qual] = made
    return made


def numeric_leaf(twin: types.CodeType) -> bool:
    """Whether the function of this twin runs no Lua code when its
    arguments are numbers: it reads only them, its own locals and number
    constants, and its only operators are arithmetic and comparisons (a
    metamethod is reached only through a value with a metatable, and numbers
    have none). A twin's call site calls it as it is on such arguments."""
    info = chunk_info(twin)
    return info is not None and twin.co_qualname in info.numeric


def bind(f: types.FunctionType, code: types.CodeType) -> types.FunctionType:
    """The twin of the closure `f`: its code over f's own cells."""
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    closure = tuple(cells[n] for n in code.co_freevars)
    return types.FunctionType(code, f.__globals__, code.co_name, f.__defaults__, closure)


def _make(code: types.CodeType, info):
    qual = code.co_qualname.split(".<locals>.")
    if len(qual) != 2:
        raise NoTwin
    factory_name = qual[0]
    rename = info.rename
    factory = factory_tree(info, rename.old_name(factory_name) if rename else factory_name)
    if factory is None:
        raise NoTwin
    inner = [d for d in factory.body if isinstance(d, ast.FunctionDef)]
    if len(inner) != 1:
        raise NoTwin
    numeric = _numbers_only(inner[0], factory)  # (before the twin is made of it, in place)
    fn = _Twin(once=_MAIN_FACTORY.fullmatch(factory.name) is not None).function(inner[0])
    shell = ast.FunctionDef(name=factory.name, args=factory.args, body=[fn, ast.Return(ast.Name(fn.name, ast.Load()))],
                            decorator_list=[], returns=None, type_comment=None)
    _at(shell, factory)  # (every form inside is located as it is made: no fix_missing_locations of the whole)
    module = ast.Module(body=[shell], type_ignores=[])
    compiled = compile(module, code.co_filename, "exec")
    made = _find(compiled, fn.name)
    if not made.co_flags & _CO_GENERATOR:
        return LEAF
    if rename is not None:
        made = rename.code(made)
    if numeric:
        info.numeric.add(made.co_qualname)
    return made


#: operators whose operands, numbers, give numbers or booleans (no `..`,
#: which makes strings, whose metatable Lua code may change; no `#`)
_NUMERIC_OPERATORS = frozenset({"_add", "_sub", "_mul", "_div", "_idiv", "_mod", "_pow", "_unm", "_band", "_bor",
                                "_bxor", "_shl", "_shr", "_bnot", "_eq", "_lt", "_le"})


def _numbers_only(fn: ast.FunctionDef, factory: ast.FunctionDef) -> bool:
    """numeric_leaf's test, on the generated function `fn` (inside its
    closure `factory`): no upvalue, global or table read, no call but of
    direct helpers and numeric operators, no string constant but the names
    in those operators' messages, no store but into its own names and the
    step countdown (`_S[0]`). Its values are then its numbers' results."""
    upvalues = {a.arg for a in factory.args.args}
    described = set()  # the message arguments of operator calls (after the operands)
    for node in walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if not isinstance(f, ast.Name):
                return False
            if f.id in _NUMERIC_OPERATORS:
                described.update(id(a) for a in node.args[2:])
            elif S.helper_role(f.id) != S.DIRECT or f.id.startswith("_mk_"):
                return False
        elif isinstance(node, ast.Name):
            if node.id in upvalues or node.id in ("_Gh", "_ENV"):
                return False
        elif isinstance(node, ast.Attribute):
            return False
        elif isinstance(node, ast.Subscript):
            if not (isinstance(node.value, ast.Name) and node.value.id == "_S"):
                return False
        elif isinstance(node, (ast.Delete, ast.With, ast.Starred)):
            return False
    for node in walk(fn):
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in described:
            return False
    return True


def _find(code, name: str):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == name:
                return c
            found = _find(c, name)
            if found is not None:
                return found
    return None


_at = locate


def _name(n: str) -> ast.Name:
    return ast.Name(n, ast.Load())


def _store(n: str) -> ast.Name:
    return ast.Name(n, ast.Store())


def _head(test: ast.expr, name: str) -> ast.IfExp:
    """`name[0] if test else None`: the first of the values `name` holds."""
    return ast.IfExp(test, ast.Subscript(_name(name), ast.Constant(0), ast.Load()), ast.Constant(None))


def _one_value(x: ast.expr, name: str) -> ast.Compare:
    """`type(name := x) is not _Multi`: x is one value, not several."""
    return ast.Compare(ast.Call(_name("type"), [ast.NamedExpr(_store(name), x)], []), [ast.IsNot()], [_name("_Multi")])


def _first(x: ast.expr, name: str) -> ast.IfExp:
    """`(name if type(name := x) is not _Multi else name[0] if name else None)`"""
    return ast.IfExp(_one_value(x, name), _name(name), _head(_name(name), name))


class _CallSite:
    """A Lua call site's twin, by its branches (see _Twin.lua_call): what
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
        twin_result = ast.IfExp(_pending(r, ran), tails, _name(r))
        return self.chain(_multi_yield, twin_result, lambda call: call)

    def first(self, r: str) -> ast.expr:
        """The call's first value, each branch its own (a twin's results
        are final: no pending tail call to run, no Multi made for a yield)."""
        _t, g, ran, tails = self.twin
        pending = ast.BoolOp(ast.And(), [_name(g), ast.Compare(
            ast.Subscript(_name(g), ast.Constant(0), ast.Load()), [ast.Is()], [_name("_TAILCALL")])])
        rest = ast.IfExp(pending, _first(tails, self.temp()), _head(_name(g), g))
        twin_first = ast.IfExp(_one_value(ran, g), _name(g), rest)

        def first_yield(args):
            sent = self.temp()
            return _head(ast.NamedExpr(_store(sent), ast.Yield(args)), sent)

        return self.chain(first_yield, twin_first, lambda call: _first(call, r))

    def statement(self, like: ast.stmt) -> ast.stmt:
        """The call as a statement, its values dropped: a yield makes no Multi."""
        t, r, ran, tails = self.twin
        twin_result = ast.IfExp(_pending(r, ran), tails, _name(r))
        rest = self.chain(ast.Yield, twin_result, lambda call: call, known=False)
        if self.known is None:
            return _at(ast.Expr(rest), like)
        return _at(ast.If(_name("_GYOK"), [ast.Expr(ast.Yield(self.known))], [ast.Expr(rest)]), like)

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
            expr = ast.IfExp(_name("_GYOK"), yielding(self.known), expr)
        return _at(expr, self.node)


class _CompactSite:
    """A call site that runs once (_Twin.compact_call): gcall's result,
    its first value, or the call as a statement."""

    __slots__ = ("call", "node")

    def __init__(self, call: ast.expr, node: ast.Call):
        self.call = call  # gcall's raw result
        self.node = node

    def raw(self) -> ast.expr:
        return _at(self.call, self.node)

    def first(self, r: str) -> ast.expr:
        return _at(_first(self.call, r), self.node)

    def statement(self, like: ast.stmt) -> ast.stmt:
        return _at(ast.Expr(_at(self.call, self.node)), like)


def _multi_yield(args: ast.expr) -> ast.expr:
    return ast.Call(_name("_Multi"), [ast.Yield(args)], [])


def _pending(r: str, ran: ast.expr) -> ast.expr:
    """`type(r := ran) is _Multi and r and r[0] is _TAILCALL`: the twin's
    result is a pending tail call."""
    return ast.BoolOp(ast.And(), [
        ast.Compare(ast.Call(_name("type"), [ast.NamedExpr(_store(r), ran)], []), [ast.Is()], [_name("_Multi")]),
        _name(r),
        ast.Compare(ast.Subscript(_name(r), ast.Constant(0), ast.Load()), [ast.Is()], [_name("_TAILCALL")]),
    ])


#: _Twin's method for each class of node, found at its first visit
_VISITORS: dict = {}


class _Twin(ast.NodeTransformer):
    """Rewrites one generated function's body into its generator twin."""

    def __init__(self, once: bool = False):
        #: the function runs once per closure (a chunk's main function): its
        #: call sites outside loops are gcall's alone (see compact_call)
        self.once = once
        self.temps = itertools.count(1)
        self.loops: set[str] = set()  # names holding a generic for's iterator
        self.tuples: dict[int, ast.expr] = {}  # twin forms of ALL_VALUES (already a tuple), by id
        self.loop_depth = 0  # loops around the statement being made
        self.caches: list[str] = []  # each call site's last callee in a loop (see lua_call)

    def temp(self) -> str:
        return f"_gv{next(self.temps)}"

    def visit(self, node):
        """ast.NodeVisitor's dispatch by the node's class, the method looked
        up once per class (a twin visits every node of its function)."""
        cls = node.__class__
        method = _VISITORS.get(cls)
        if method is None:
            method = _VISITORS[cls] = _Twin.__dict__.get("visit_" + cls.__name__, _Twin.generic_visit)
        return method(self, node)

    def generic_visit(self, node):
        """ast.NodeTransformer's, without its generators over the fields."""
        for field in node._fields:
            old = getattr(node, field, None)
            if type(old) is list:
                new = []
                for value in old:
                    if isinstance(value, ast.AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif isinstance(old, ast.AST):
                made = self.visit(old)
                if made is None:
                    delattr(node, field)
                else:
                    setattr(node, field, made)
        return node

    def function(self, fn: ast.FunctionDef) -> ast.FunctionDef:
        for node in walk(fn):
            if node is not fn and isinstance(node, _NO_TWIN):
                raise NoTwin
            if isinstance(node, ast.Call) and node.keywords:
                raise NoTwin
            if isinstance(node, ast.For) and node.orelse:
                raise NoTwin
        body = self.statements(fn.body)
        # the call sites' caches start empty (_GNEVER is no callee)
        body[:0] = [_at(ast.Assign([_store(c)], _name("_GNEVER")), fn) for c in self.caches]
        twin = ast.FunctionDef(name=fn.name, args=fn.args, body=body, decorator_list=[],
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
        site = self.twin_call_site(node)
        if site is not None:
            return _at(site.raw(), node)
        func = node.func
        if isinstance(func, ast.Name):
            role = S.helper_role(func.id)
            if role == S.DIRECT or role == S.FINAL:
                return self.generic_visit(node)
            args = [self.visit(a) for a in node.args]
            if role == S.OPERATOR:
                return _at(ast.YieldFrom(ast.Call(_name("_gop"), [func, self.args_tuple(args)], [])), node)
            if role == S.TAIL:
                return _at(ast.YieldFrom(ast.Call(_name("_gtail"), args, [])), node)
            raise NoTwin  # a name the contract does not know: no twin rather than a wrong one
        for shape in (S.LOOP_EXIT, S.LOOP_ERROR):  # a generic for left
            holes = shape.match(node)
            if holes is not None and type(holes["it"]) is ast.Name and holes["it"].id in self.loops:
                return shape.twin_form({k: self.visit(v) for k, v in holes.items()}, node)
        if func.attr in S.METHODS:
            return self.generic_visit(node)
        args = [self.visit(a) for a in node.args]
        bound = ast.Attribute(self.visit(func.value), func.attr, ast.Load())
        return _at(ast.YieldFrom(ast.Call(_name("_gop"), [bound, self.args_tuple(args)], [])), node)

    def twin_call_site(self, node: ast.Call) -> _CallSite | None:
        """The twin of a Lua call site: any call but of a helper (a name
        other than a Lua local's) or of a method; else None."""
        func = node.func
        if isinstance(func, ast.Name):
            if not func.id.startswith(LOCAL_PREFIX):
                return None
            return self.lua_call(node, func, [self.visit(a) for a in node.args])
        if isinstance(func, ast.Attribute):
            return None
        for shape in (S.CALLEE, S.YIELD_CALLEE):
            holes = shape.match(func)
            if holes is not None:
                callee = self.visit(holes["callee"])
                return self.lua_call(node, callee, [self.visit(a) for a in node.args], holes["desc"], holes["f"].id,
                                     known_yield=shape is S.YIELD_CALLEE)
        return self.lua_call(node, self.visit(func), [self.visit(a) for a in node.args])

    def args_tuple(self, args: list) -> ast.expr:
        """A call's arguments as one tuple; `(*X,)` is X itself when X is
        ALL_VALUES's twin form (a tuple already)."""
        if len(args) == 1 and isinstance(args[0], ast.Starred) and id(args[0].value) in self.tuples:
            return args[0].value
        return ast.Tuple(elts=args, ctx=ast.Load())

    def lua_call(self, node, func, args, desc=None, v: str | None = None, known_yield: bool = False) -> _CallSite:
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
        twin_attr = ast.Call(_name("getattr"), [ast.NamedExpr(_store(v), func), ast.Constant("lua_twin"),
                                                ast.Constant(None)], [])
        if self.loop_depth:
            # in a loop: the callee's `lua_twin` kept with the callee (a local
            # of the twin), read again only for another callee, and not kept
            # while it is None (a closure's is set at its first twin call):
            #   (k if (v := callee) is c else k if (k := getattr(v, ...)) is None or (c := v) is None else k)
            c, k = self.temp(), self.temp()
            self.caches.append(c)
            fetched = ast.NamedExpr(_store(k), ast.Call(_name("getattr"), [_name(v), ast.Constant("lua_twin"),
                                                                           ast.Constant(None)], []))
            kept = ast.BoolOp(ast.Or(), [ast.Compare(fetched, [ast.Is()], [ast.Constant(None)]),
                                         ast.Compare(ast.NamedExpr(_store(c), _name(v)), [ast.Is()],
                                                     [ast.Constant(None)])])
            twin_attr = ast.IfExp(ast.Compare(ast.NamedExpr(_store(v), func), [ast.Is()], [_name(c)]), _name(k),
                                  ast.IfExp(kept, _name(k), _name(k)))
        is_leaf = ast.Compare(ast.NamedExpr(_store(t), twin_attr), [ast.Is()], [_name("_GLEAFT")])
        names = None if any(isinstance(e, ast.Starred) for e in args) else [self.temp() for _ in args]
        if names is None:  # their number is known when they run: one tuple
            made = [ast.Compare(ast.NamedExpr(_store(a), self.args_tuple(args)), [ast.Is()], [ast.Constant(None)])]
            packed, passed = _name(a), [ast.Starred(_name(a), ast.Load())]
        else:
            made = [ast.Compare(ast.NamedExpr(_store(n), e), [ast.Is()], [_name("_GNEVER")])
                    for n, e in zip(names, args)]
            packed, passed = ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load()), [_name(n) for n in names]
        if not made:
            test = is_leaf
        else:
            test = ast.Compare(is_leaf, [ast.IsNot()], [made[0] if len(made) == 1 else ast.BoolOp(ast.Or(), made)])
        ran = ast.YieldFrom(ast.Call(_name(t), copy_tree(passed), []))
        tails = ast.YieldFrom(ast.Call(_name("_gcall"), [ast.Subscript(_name(r), ast.Constant(1), ast.Load()),
                                                        ast.Subscript(_name(r), ast.Constant(2), ast.Load())], []))
        has_twin = ast.Compare(_name(t), [ast.IsNot()], [ast.Constant(None)])
        is_yield = ast.Compare(_name(v), [ast.Is()], [_name("_YIELD")])
        w = self.temp()
        safe_here = ast.BoolOp(ast.And(), [  # a builtin that runs no Lua code on these arguments
            ast.Compare(ast.NamedExpr(_store(w), ast.Call(ast.Attribute(_name("_GWHEN"), "get", ast.Load()),
                                                          [_name(v)], [])), [ast.IsNot()], [ast.Constant(None)]),
            ast.Call(_name(w), [copy_tree(packed)], []),
        ])
        leaf = ast.Call(_name("_gleaf"), [_name(v)], [])  # (a closure no twin has called yet)
        safe = ast.BoolOp(ast.Or(), [ast.Compare(_name(v), [ast.In()], [_name("_GSAFE")]), leaf, safe_here])
        callee = _name(v)
        if desc is not None:  # a value that may be no function: checked here, after the arguments
            function = ast.Compare(ast.Call(_name("type"), [_name(v)], []), [ast.Is()], [_name("_FT")])
            safe = ast.BoolOp(ast.And(), [function, safe])
            callee = ast.Call(_name("_callable"), [_name(v), desc], [])
        direct = ast.Call(_name(v), passed, [])
        called = ast.YieldFrom(ast.Call(_name("_gcall"), [callee, copy_tree(packed)], []))
        # `coroutine.yield(args)` itself: while the global table's raw `coroutine`
        # is the library and its raw `yield` the state's (`_GYOK`, kept by
        # runtime/generators.Twins.watched: raw hits, so no metamethod could have
        # given them), the arguments, yielded; else the general path
        known = copy_tree(self.args_tuple(args)) if known_yield else None
        numeric = None
        if names is not None:
            kinds = [self.temp() for _ in names]
            numbers = [ast.BoolOp(ast.Or(), [
                ast.Compare(ast.NamedExpr(_store(k), ast.Call(_name("type"), [_name(n)], [])), [ast.Is()],
                            [_name("int")]),
                ast.Compare(_name(k), [ast.Is()], [_name("float")])]) for n, k in zip(names, kinds)]
            numeric = (ast.Compare(_name(t), [ast.Is()], [_name("_GNUMT")]),
                       ast.BoolOp(ast.And(), numbers) if len(numbers) > 1 else numbers[0] if numbers
                       else ast.Constant(True), copy_tree(direct))
        leaf_call = copy_tree(direct)
        fast = self.fast_path(func, args, v) if self.loop_depth and not known_yield else None
        if fast is not None:  # a direct call keeps its callee, and what to call, for the fast path
            fast, last, fn = fast
            leaf_call.func = ast.NamedExpr(_store(fn), ast.NamedExpr(_store(last), leaf_call.func))
            if numeric is not None:  # a numeric leaf: its exact twin (no `*_`) when the arguments fit it
                numeric[2].func = ast.NamedExpr(_store(fn), ast.Call(_name("_gexact"), [
                    ast.NamedExpr(_store(last), numeric[2].func), ast.Constant(len(args))], []))
        return _CallSite(known, fast, (test, leaf_call), numeric, (has_twin, r, ran, tails),
                         (is_yield, copy_tree(packed)), (safe, direct), called, self.temp, node)

    def compact_call(self, node, func, args, desc, v: str) -> _CompactSite:
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
        callee = _name(v) if desc is None else ast.Call(_name("_callable"), [_name(v), desc], [])
        call = ast.YieldFrom(ast.Call(_name("_gcall"), [callee, _name(a)], []))
        order = ast.Compare(
            ast.Compare(ast.NamedExpr(_store(v), func), [ast.Is()], [_name("_GNEVER")]), [ast.Is()],
            [ast.Compare(ast.NamedExpr(_store(a), self.args_tuple(args)), [ast.Is()], [ast.Constant(None)])])
        return _CompactSite(ast.IfExp(order, call, ast.Constant(None)), node)

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
                ast.Compare(ast.Call(_name("type"), [_name(e.id)], []), [ast.Is()], [_name(kind)])
                for kind in ("int", "float")]))
        last, fn = self.temp(), self.temp()
        self.caches.append(last)  # (fn is only read once last is set)
        same = ast.Compare(ast.NamedExpr(_store(v), copy_tree(func)), [ast.Is()], [_name(last)])
        test = ast.BoolOp(ast.And(), [same, *tests]) if tests else same
        return (test, ast.Call(_name(fn), [copy_tree(e) for e in args], [])), last, fn

    # ------------------------------------------------------ values of calls

    def visit_IfExp(self, node: ast.IfExp):
        holes = S.FIRST_VALUE.match(node)
        if holes is not None:
            return self.twin_first_value(node, holes)
        holes = S.ALL_VALUES.match(node)
        if holes is not None:
            form = S.ALL_VALUES.twin_form(dict(holes, call=self.visit(holes["call"])), node)
            self.tuples[id(form)] = form
            return form
        return self.generic_visit(node)

    def twin_first_value(self, node: ast.IfExp, holes: dict) -> ast.expr:
        """FIRST_VALUE: the call site with each branch's own first value (a
        twin's result is tested for a tuple once, not once for a pending
        tail call and once more here)."""
        r = holes["r"].id
        site = self.twin_call_site(holes["call"]) if type(holes["call"]) is ast.Call else None
        if site is None:
            return _at(_first(self.visit(holes["call"]), r), node)
        return _at(site.first(r), node)

    def visit_If(self, node: ast.If):
        holes = S.DROPPED_VALUES.match(node)
        if holes is not None:
            return self.twin_dropped_values(node, holes)
        return self.generic_visit(node)

    def twin_dropped_values(self, node: ast.If, holes: dict) -> ast.stmt:
        """DROPPED_VALUES: the call alone (its tail call runs in the twin)."""
        site = self.twin_call_site(holes["call"]) if type(holes["call"]) is ast.Call else None
        if site is None:
            return _at(ast.Expr(self.visit(holes["call"])), node)
        return site.statement(node)

    # ------------------------------------------------------- generic for

    def visit_Assign(self, node: ast.Assign):
        for shape in (S.FOR_ITERATOR, S.FOR_CALL_ITERATOR):
            holes = shape.match(node)
            if holes is not None and type(holes["it"]) is ast.Name:
                self.loops.add(holes["it"].id)
                return shape.twin_form({k: self.visit(v) for k, v in holes.items()}, node)
        return self.generic_visit(node)

    def visit_For(self, node: ast.For):
        holes = S.FOR_LOOP.match(node)
        self.loop_depth += 1
        try:
            if holes is None or type(holes["it"]) is not ast.Name or holes["it"].id not in self.loops:
                return self.generic_visit(node)
            return self.twin_for_loop(node, holes)
        finally:
            self.loop_depth -= 1

    def visit_While(self, node: ast.While):
        self.loop_depth += 1
        try:
            return self.generic_visit(node)
        finally:
            self.loop_depth -= 1

    def twin_for_loop(self, node: ast.For, holes: dict):
        """FOR_LOOP: a loop that takes each item with `next` (a native walk,
        or an iterator function that runs no Lua code) or through
        `yield from it.step()` (a GLoop)."""
        it = holes["it"]
        if not any(type(n) is ast.Assign and (S.FOR_ITERATOR.match(n) or S.FOR_CALL_ITERATOR.match(n))
                   for s in node.body for n in walk(s)):
            # no generic for inside: a plain Python for when the iterator is
            # plain (a native walk, a wrap function's), the loop below when
            # not (the body twice, a Python for taking items 40% faster)
            plain = ast.For(copy_tree(node.target), node.iter, self.statements(copy_tree(node.body)), [])
            test = ast.Compare(ast.Call(_name("type"), [_name(it.id)], []), [ast.IsNot()], [_name("_GLoop")])
            split = ast.If(test, [plain], [self.stepped_loop(node)])
            _at(plain, node)
            return _at(split, node)
        return self.stepped_loop(node)

    def stepped_loop(self, node: ast.For) -> ast.While:
        it = node.iter
        v = self.temp()
        plain = ast.Call(_name("next"), [_name(it.id), _name("_GDONE")], [])
        stepped = ast.YieldFrom(ast.Call(ast.Attribute(_name(it.id), "step", ast.Load()), [], []))
        test = ast.Compare(ast.Call(_name("type"), [_name(it.id)], []), [ast.IsNot()], [_name("_GLoop")])
        take = ast.Assign([_store(v)], ast.IfExp(test, plain, stepped))
        done = ast.If(ast.Compare(_name(v), [ast.Is()], [_name("_GDONE")]), [ast.Break()], [])
        bind_ = ast.Assign([node.target], _name(v))
        loop = ast.While(ast.Constant(True), [take, done, bind_, *self.statements(node.body)], [])
        for n in (take, done, bind_):
            _at(n, node)
        return _at(loop, node)
