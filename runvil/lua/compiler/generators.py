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
(runvil.lua.debuginfo) keeps them, so they go with the chunk. The last
twins made in the process are also kept by their factory's text
(compiler/recenttwins.py), so a chunk compiled again (a prompt run again,
a block many prompts share) takes them renamed. The call sites' twins are
compiler/callsites.py's. What
the twin makes of each shape of generated code and of each helper it calls
is written in the contract between the two compilers, compiler/shapes.py:
a shape is found by the pattern of its own template, and its twin form is
the table's template or this module's `twin_<shape>` method.
"""

from __future__ import annotations

import ast
import gc
import itertools
import re
import types

from . import shapes as S
from .callsites import CallSite, CallSites, first_value as _first, load as _name, store as _store
from .pytrees import compile_quietly, copy_tree, factory_source, factory_tree, locate, walk
from .recenttwins import RECENT
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
    enabled = gc.isenabled()
    gc.disable()  # (a twin's syntax trees hold no cycle: the collector would only walk them, a fifth of the cost)
    try:
        made = _make(code, info)
    except NoTwin:
        made = None
    finally:
        if enabled:
            gc.enable()
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
    rename = info.rename
    name = rename.old_name(qual[0]) if rename else qual[0]
    text_id = rename.old if rename is not None else info.chunk_id  # (the number the source spells)
    source = factory_source(info, name)
    key = RECENT.key(source, text_id)
    made = RECENT.get(key, text_id, code.co_filename) if key is not None else None
    if made is None:
        made = _compiled(info, name, source, code.co_filename)
        if key is not None:
            RECENT.put(key, text_id, *made)
    twin, numeric = made
    if twin is None:
        raise NoTwin
    if twin is LEAF:
        return LEAF
    if rename is not None:
        twin = rename.code(twin)
    if numeric:
        info.numeric.add(twin.co_qualname)
    return twin


def _compiled(info, name: str, source, filename: str) -> tuple:
    """(the twin's code as the source names it, or LEAF, or None for
    NoTwin; whether it is a numeric leaf) of the factory `name`."""
    factory = factory_tree(info, name, source)
    if factory is None:
        return None, False
    inner = [d for d in factory.body if isinstance(d, ast.FunctionDef)]
    if len(inner) != 1:
        return None, False
    numeric = _numbers_only(inner[0], factory)  # (before the twin is made of it, in place)
    try:
        fn = _Twin(once=_MAIN_FACTORY.fullmatch(factory.name) is not None).function(inner[0])
    except NoTwin:
        return None, False
    shell = ast.FunctionDef(name=factory.name, args=factory.args, body=[fn, ast.Return(ast.Name(fn.name, ast.Load()))],
                            decorator_list=[], returns=None, type_comment=None)
    _at(shell, factory)  # (every form inside is located as it is made: no fix_missing_locations of the whole)
    module = ast.Module(body=[shell], type_ignores=[])
    made = _find(compile_quietly(module, filename), fn.name)
    if not made.co_flags & _CO_GENERATOR:
        return LEAF, False
    return made, numeric


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
def _refuse():
    """A node of _NO_TWIN met: the function has no twin."""
    raise NoTwin


#: _Twin's method for each class of node, found at its first visit
_VISITORS: dict = dict.fromkeys(_NO_TWIN, lambda twin, node: _refuse())
#: classes of nodes that hold nothing a twin rewrites: left as they are
_INERT = frozenset({ast.Name, ast.Constant, *ast.expr_context.__subclasses__(), *ast.operator.__subclasses__(),
                    *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__(), *ast.unaryop.__subclasses__()})


class _Twin(CallSites, ast.NodeTransformer):
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
        """ast.NodeTransformer's, without its generators over the fields,
        and passing over what holds nothing to rewrite (names, constants,
        contexts and operators: most of a function's nodes)."""
        visit = self.visit
        for field in node._fields:
            old = getattr(node, field, None)
            cls = old.__class__
            if cls is list:
                if not old:
                    continue
                new = []
                for value in old:
                    if value.__class__ not in _INERT and isinstance(value, ast.AST):
                        value = visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif cls not in _INERT and isinstance(old, ast.AST):
                made = visit(old)
                if made is None:
                    delattr(node, field)
                elif made is not old:
                    setattr(node, field, made)
        return node

    def function(self, fn: ast.FunctionDef) -> ast.FunctionDef:
        """The twin of `fn`; NoTwin when its body holds what a generator
        cannot (_NO_TWIN, a call with keywords, a `for` with an `else`: each
        refused as the walk meets it, which visits every node of the body)."""
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

    def twin_call_site(self, node: ast.Call) -> CallSite | None:
        """The twin of a Lua call site: any call but of a helper (a name
        other than a Lua local's) or of a method; else None."""
        if node.keywords:
            raise NoTwin
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
        if node.orelse:
            raise NoTwin
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
