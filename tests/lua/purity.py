"""What a Python function of the runtime may run, read from its source: no
Lua code, Lua code only to finish a pending tail call (`values.first` and
`values.expand` run those), or any Lua code (it calls a value it cannot
know: a parameter, an unknown method, a computed callee, a metamethod).

The reading follows every call written in the function to what it calls:
functions and classes of the runtime (read the same way), the values of
its globals and closure cells, the functions passed to it as arguments
(bound to the parameters), nested functions, and, on a receiver it cannot
know, every runtime class's method of that name. A C function runs no Lua
code, but those that call their arguments (`map`, `sorted`'s key, ...).
Implicit calls (operators, `for` over an iterator, `__format__`) are not
calls written, and are not followed: the helpers compiled code calls take
Lua values, whose Python classes define none that could run Lua code.
"""

from __future__ import annotations

import ast
import builtins
import io
import sys
import types
from functools import lru_cache

NONE, TAIL, LUA = 0, 1, 2
LEVELS = {NONE: "no Lua code", TAIL: "Lua code only to finish a pending tail call", LUA: "Lua code"}

_UNKNOWN = object()
_MISSING = object()

#: C functions that call a function passed to them, and where it is
_CALLS_ARGS = {map: ("args", 0), filter: ("args", 0), sorted: ("key",), min: ("key",), max: ("key",)}

#: methods of Python's own types: they run no Lua code (`sort` is checked for its key)
_BUILTIN_METHODS = frozenset(
    name
    for t in (dict, list, tuple, str, bytes, bytearray, set, frozenset, int, float, object, BaseException,
              types.CodeType, types.FrameType, types.TracebackType, io.IOBase, io.TextIOWrapper, io.BufferedReader)
    for name in dir(t)
)


class _Alias:
    """A local name given a method once (`get = t.get`): a call of it is a
    call of that method."""

    __slots__ = ("attribute",)

    def __init__(self, attribute: ast.Attribute):
        self.attribute = attribute


class _Local:
    """A function written inside the one being read (no object of it yet)."""

    __slots__ = ("node", "scope")

    def __init__(self, node, scope):
        self.node, self.scope = node, scope


class Purity:
    """Reads functions; `of(obj)` is (level, the path of calls to the reason)."""

    def __init__(self, tail_runners=(), not_lua: dict | None = None, classes=(), own=("runvil.",), no_yield=()):
        self.tail_runners = {id(f): f for f in tail_runners}
        #: functions whose Lua code runs where a yield is refused: nothing in them can suspend their caller
        self.no_yield = {id(f): f for f in no_yield}
        #: (function's qualified name, name called) -> why that dynamic call runs no Lua code
        self.not_lua = not_lua or {}
        self.classes = list(classes)
        self.own = tuple(own)  # the modules whose code is read (the others: Python's library)
        self.memo: dict = {}
        #: the objects whose ids are in the memo's keys: kept alive, so that
        #: no id is reused by a later object (a test's state made and closed)
        self._kept: list = []

    # ------------------------------------------------------------ objects

    def of(self, obj, bound: dict | None = None) -> tuple[int, list]:
        if id(obj) in self.tail_runners:
            return TAIL, [_label(obj)]
        if id(obj) in self.no_yield:
            return NONE, []
        if isinstance(obj, _Local):
            return self._function(obj.node, obj.scope, _label(obj), bound or {}, None)
        if isinstance(obj, types.MethodType):
            fn = obj.__func__
            first = fn.__code__.co_varnames[0] if fn.__code__.co_argcount else None
            b = dict(bound or {})
            if first is not None:
                b[first] = obj.__self__
            return self.of(fn, b)
        if isinstance(obj, types.FunctionType):
            if not self.ours(obj):  # Python's own library: it calls only the functions passed to it
                worst = (NONE, [])
                for v in (bound or {}).values():
                    if isinstance(v, (types.FunctionType, types.MethodType, _Local)):
                        worst = _worse(worst, self.of(v), _label(obj))
                return worst
            node = _source_node(obj.__code__)
            if node is None:
                return LUA, [f"{_label(obj)} (no source)"]
            scope = _Scope(None, {**_cells(obj)}, obj.__globals__)
            key = (id(obj), tuple(sorted((k, id(v)) for k, v in (bound or {}).items())))
            if key not in self.memo:
                self._kept.append((obj, bound))
            return self._function(node, scope, _label(obj), bound or {}, key)
        if isinstance(obj, type):
            worst = (NONE, [])
            for name in ("__new__", "__init__"):
                for klass in obj.__mro__:
                    if name in klass.__dict__:
                        if self.ours(klass):
                            f = klass.__dict__[name]
                            f = f.__func__ if isinstance(f, staticmethod) else f
                            worst = _worse(worst, self.of(f), f"{obj.__name__}()")
                        break
            return worst
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, types.WrapperDescriptorType,
                            types.MethodWrapperType, types.MethodDescriptorType, types.ClassMethodDescriptorType)):
            return NONE, []
        if isinstance(obj, (classmethod, staticmethod)):
            return self.of(obj.__func__, bound)
        call = getattr(type(obj), "__call__", None)
        if call is not None and self.ours(type(obj)):
            return self.of(types.MethodType(call, obj), bound)
        return LUA, [f"calls {type(obj).__name__} {obj!r:.40}"]

    def ours(self, obj) -> bool:
        return (getattr(obj, "__module__", None) or "").startswith(self.own)

    def method(self, name: str) -> tuple[int, list]:
        """What `x.name()` may run, x any value of the runtime's types."""
        return self._method(name, ast.Call(ast.Name("x"), [], [], lineno=0), _Scope(None, {}, {}))

    # ---------------------------------------------------------- functions

    def _function(self, node, parent, label: str, bound: dict, key=None) -> tuple[int, list]:
        key = key or (id(node), id(parent), tuple(sorted((k, id(v)) for k, v in bound.items())))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        self._kept.append((node, parent, bound))
        self.memo[key] = (NONE, [])  # (a call back into it adds nothing)
        scope = _Scope(parent, _locals(node, bound, parent.module()), None)
        worst = (NONE, [])
        for call in _calls(node):
            worst = _worse(worst, self._call(call, scope, label), label)
            if worst[0] == LUA:
                break
        self.memo[key] = worst
        return worst

    def _call(self, call: ast.Call, scope, label: str) -> tuple[int, list]:
        func = call.func
        if isinstance(func, ast.Name):
            value = scope.lookup(func.id)
            if isinstance(value, _Alias):
                return self._call(ast.Call(value.attribute, call.args, call.keywords, lineno=call.lineno), scope, label)
            if value is _UNKNOWN:
                why = self.not_lua.get((label, func.id))
                return (NONE, []) if why else (LUA, [f"calls its variable {func.id!r} (line {call.lineno})"])
            return self._called(value, call, scope)
        if isinstance(func, ast.Attribute):
            if _is_super(func.value):  # super().name(...): the next class's, after the function's own
                klass = scope.lookup("__class__")
                for k in (klass.__mro__[1:] if isinstance(klass, type) else ()):
                    if func.attr in k.__dict__:
                        return self.of(k.__dict__[func.attr]) if self.ours(k) else (NONE, [])
                return LUA, [f"calls super().{func.attr} (line {call.lineno})"]
            base = _value(func.value, scope)
            if base is not _UNKNOWN:
                value = getattr(base, func.attr, _MISSING)
                if value is not _MISSING:
                    return self._called(value, call, scope)
            return self._method(func.attr, call, scope)
        if self.not_lua.get((label, ast.unparse(func))):
            return NONE, []
        return LUA, [f"calls a computed value, {ast.unparse(func)} (line {call.lineno})"]

    def _called(self, value, call: ast.Call, scope) -> tuple[int, list]:
        """A call of a known value, the functions passed to it bound to
        its parameters (or read, for the C functions that call them)."""
        spec = _CALLS_ARGS.get(value) if isinstance(value, types.BuiltinFunctionType) else None
        if spec is not None:
            return self._passed(spec, call, scope)
        bound = {}
        target = value.__func__ if isinstance(value, types.MethodType) else value
        params = _params(target)
        if params is not None:
            offset = 1 if isinstance(value, types.MethodType) else 0
            for name, arg in zip(params[offset:], call.args):
                if isinstance(arg, ast.Starred):
                    break
                v = _value(arg, scope)
                if callable(v) or isinstance(v, _Local):
                    bound[name] = v
            for kw in call.keywords:
                v = _value(kw.value, scope) if kw.arg else _UNKNOWN
                if kw.arg and (callable(v) or isinstance(v, _Local)):
                    bound[kw.arg] = v
        return self.of(value, bound)

    def _passed(self, spec, call: ast.Call, scope) -> tuple[int, list]:
        if spec[0] == "args":
            args = call.args[spec[1]:spec[1] + 1]
        else:
            args = [kw.value for kw in call.keywords if kw.arg == spec[0]]
        worst = (NONE, [])
        for a in args:
            v = _value(a, scope)
            if v is _UNKNOWN:
                return LUA, [f"passes an unknown function to a builtin (line {call.lineno})"]
            worst = _worse(worst, self.of(v), "")
        return worst

    def _method(self, name: str, call: ast.Call, scope) -> tuple[int, list]:
        """`x.name(...)` on an x the reading cannot know: every runtime
        class's method of that name, else one of Python's own types'."""
        found = [k.__dict__[name] for k in self.classes if name in k.__dict__]
        if not found:
            if name in _BUILTIN_METHODS:
                if name == "sort":
                    return self._passed(("key",), call, scope)
                return NONE, []
            return LUA, [f"calls the method {name!r} of an unknown value (line {call.lineno})"]
        worst = (NONE, [])
        for f in found:
            if isinstance(f, (staticmethod, classmethod)):
                f = f.__func__
            if isinstance(f, property) or not callable(f):
                continue
            worst = _worse(worst, self.of(f), "")
        return worst


# -------------------------------------------------------------- scopes


class _Scope:
    def __init__(self, parent, names: dict, globals_: dict | None):
        self.parent, self.names, self.globals = parent, names, globals_

    def module(self) -> str:
        """The name of the module the code in this scope belongs to."""
        s = self
        while s.globals is None and s.parent is not None:
            s = s.parent
        return (s.globals or {}).get("__name__", "")

    def lookup(self, name: str):
        s = self
        while s is not None:
            if name in s.names:
                v = s.names[name]
                return _Local(v, s) if isinstance(v, (ast.FunctionDef, ast.Lambda)) else v
            if s.globals is not None:
                if name in s.globals:
                    return s.globals[name]
                return getattr(builtins, name, _UNKNOWN)
            s = s.parent
        return getattr(builtins, name, _UNKNOWN)


def _is_super(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args


def _value(node, scope):
    """The value an expression has, when it is a name or attributes of one."""
    if isinstance(node, ast.Name):
        return scope.lookup(node.id)
    if isinstance(node, ast.Attribute):
        base = _value(node.value, scope)
        if base is _UNKNOWN or isinstance(base, _Local):
            return _UNKNOWN
        v = getattr(base, node.attr, _MISSING)
        return _UNKNOWN if v is _MISSING else v
    if isinstance(node, ast.Lambda):
        return _Local(node, scope)
    return _UNKNOWN


def _locals(node, bound: dict, module: str) -> dict:
    """A function's own names: its nested functions (read when called), its
    parameters (the values bound, else unknown) and whatever it assigns."""
    names: dict = {}
    args = node.args
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            names[a.arg] = bound.get(a.arg, _UNKNOWN)
    body = node.body if isinstance(node.body, list) else [node.body]
    stores: dict = {}
    params = set(names)
    for n in _own_nodes(body):
        if isinstance(n, ast.FunctionDef):
            names[n.name] = n
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names[n.id] = _UNKNOWN
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                names[(a.asname or a.name).split(".")[0]] = _import_value(n, a, module)
    for n in _own_nodes(body):  # `get = t.get`, assigned once and not a parameter
        if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Attribute) and stores.get(n.targets[0].id) == 1
                and n.targets[0].id not in params):
            names[n.targets[0].id] = _Alias(n.value)
    return names


def _import_value(n, a, module: str):
    """What an import inside a function binds (the modules are loaded)."""
    if isinstance(n, ast.Import):
        return sys.modules.get(a.name.split(".")[0], _UNKNOWN)
    base = n.module or ""
    if n.level:
        package = module.rsplit(".", n.level)[0]
        base = f"{package}.{base}" if base else package
    m = sys.modules.get(base)
    if m is None:
        return _UNKNOWN
    v = getattr(m, a.name, _MISSING)
    if v is _MISSING:
        v = sys.modules.get(f"{base}.{a.name}", _UNKNOWN)
    return v


def _own_nodes(body: list):
    """The nodes of a body, not descending into nested functions or classes
    (their defining statements are yielded)."""
    stack = list(reversed(body))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(n))))


def _calls(node):
    body = node.body if isinstance(node.body, list) else [node.body]
    return [n for n in _own_nodes(body) if isinstance(n, ast.Call)]


def _params(f):
    if isinstance(f, _Local):
        a = f.node.args
    elif isinstance(f, types.FunctionType):
        return list(f.__code__.co_varnames[: f.__code__.co_argcount + f.__code__.co_kwonlyargcount])
    else:
        return None
    return [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]]


def _cells(f: types.FunctionType) -> dict:
    out = {}
    for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            out[name] = _UNKNOWN
    return out


@lru_cache(maxsize=None)
def _tree(filename: str):
    try:
        with open(filename, encoding="utf-8") as fh:
            return ast.parse(fh.read())
    except OSError:
        return None


def _source_node(code: types.CodeType):
    """The def or lambda a code object was compiled from."""
    tree = _tree(code.co_filename)
    if tree is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef) and n.name == code.co_name:
            first = min([n.lineno] + [d.lineno for d in n.decorator_list])
            if first == code.co_firstlineno:
                return n
        elif isinstance(n, ast.Lambda) and code.co_name == "<lambda>" and n.lineno == code.co_firstlineno:
            if [a.arg for a in n.args.args] == list(code.co_varnames[: code.co_argcount]):
                return n
    return None


def _label(obj) -> str:
    if isinstance(obj, _Local):
        return getattr(obj.node, "name", "<lambda>")
    return getattr(obj, "__qualname__", None) or repr(obj)


def _worse(a: tuple, b: tuple, via: str) -> tuple:
    if b[0] > a[0]:
        return b[0], ([via] if via else []) + b[1]
    return a


def runtime_classes() -> list:
    """The classes of runvil's Lua runtime, whose methods a call on an
    unknown receiver may reach (the sandbox's limits among them: the
    machine's guard and meter, the run's memory budget; the compiled patterns
    that inline pattern calls read)."""
    out = []
    for name, m in sorted(sys.modules.items()):
        if name.startswith(("runvil.lua.runtime", "runvil.lua.errors", "runvil.lua.state", "runvil.lua.stdlib.limits",
                            "runvil.lua.stdlib.patterns")) \
                and m is not None:
            out += [v for v in vars(m).values() if isinstance(v, type) and v.__module__ == name]
    return out


def describe(result: tuple) -> str:
    level, path = result
    return f"{LEVELS[level]}: {' -> '.join(path)}" if path else LEVELS[level]


