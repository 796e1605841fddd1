"""The code generator's contract with the twin compiler: the shapes of
generated Python that a coroutine's twin (compiler/generators.py) makes
something else of, and what a twin does with each helper generated code
calls. Like a bytecode's opcode list, this table is the one place both
sides read: the code generator writes a shape's text only through its
`Shape` here, and the twin compiler finds the shape by a pattern made from
that same text, and makes its twin form from the table too.

A template is Python text with holes (`{name}`): `emit` fills them with
text; `match` takes a node of the parsed generated code and gives back the
nodes in the holes (a hole written twice holds the same name twice), or
None. A shape whose twin form is plain text has it in `twin` (its holes
filled with the matched nodes); the others are made by the twin compiler's
method `twin_<name>`, which is what `twin` then names. A template that ends
with `:` is a block's head (its body is not part of the shape).

To add a fast path the twin must see through, add its Shape here and emit
it with `SHAPE.emit(...)` (tests/lua/test_shapes.py fails when a shape's
text is written anywhere else in the compiler); a helper that generated code
calls goes into HELPERS with what it may run (the same test reads each
helper's code to check that).
"""

from __future__ import annotations

import ast
import re

from .pytrees import copy_tree, locate

#: what a hole is in a template's pattern: a name no generated code uses
_HOLE = "__hole_"


class Shape:
    """One shape of generated code: its name, its template and its twin."""

    __slots__ = ("name", "template", "twin", "doc", "holes", "pattern", "twin_pattern")

    def __init__(self, name: str, template: str, twin: str, doc: str):
        self.name, self.template, self.twin, self.doc = name, template, twin, doc
        self.holes = tuple(dict.fromkeys(re.findall(r"\{(\w+)\}", template)))
        self.pattern = _parse(template)
        self.twin_pattern = _parse(twin) if not twin.startswith("twin_") else None

    def emit(self, **holes: str) -> str:
        """The shape's text, with these texts in its holes."""
        return self.template.format_map(holes)

    def match(self, node) -> dict | None:
        """The nodes in the holes when `node` has this shape, else None."""
        found: dict = {}
        return found if _match(self.pattern, node, found) else None

    def twin_form(self, holes: dict, like: ast.AST):
        """The twin form (`twin` as a template), with these nodes in its
        holes, at `like`'s position."""
        node = _Fill(holes).visit(copy_tree(self.twin_pattern))
        return locate(node, like)

    def __repr__(self):
        return f"Shape({self.name})"


def _parse(template: str):
    """The template's syntax tree, its holes as names, without positions
    (a twin form takes those of the code it replaces)."""
    text = re.sub(r"\{(\w+)\}", lambda m: _HOLE + m.group(1), template)
    tree = ast.parse(text + " pass" if text.endswith(":") else text)  # (a block's head: a body for the parser)
    if len(tree.body) != 1:
        raise ValueError(f"a shape is one expression or one statement: {template!r}")
    stmt = tree.body[0]
    node = stmt.value if isinstance(stmt, ast.Expr) and not text.endswith(":") else stmt
    for n in ast.walk(node):
        for a in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(n, a):
                delattr(n, a)
    return node


_SKIPPED = frozenset({"ctx", "type_comment", "kind"})


def _match(pattern, node, found: dict) -> bool:
    if type(pattern) is ast.Name and pattern.id.startswith(_HOLE):
        hole = pattern.id[len(_HOLE):]
        seen = found.get(hole)
        if seen is None:
            found[hole] = node
            return True
        if type(seen) is ast.Name and type(node) is ast.Name:
            return seen.id == node.id
        return ast.dump(seen) == ast.dump(node)
    if type(pattern) is not type(node):
        return False
    for field in pattern._fields:
        if field in _SKIPPED:
            continue
        p, n = getattr(pattern, field, None), getattr(node, field, None)
        if field == "body" and type(pattern) in (ast.If, ast.For, ast.While, ast.With) and _is_head(pattern):
            continue  # a block's head: its body is not the shape's
        if type(p) is list:
            if type(n) is not list or len(p) != len(n) or not all(_match(a, b, found) for a, b in zip(p, n)):
                return False
        elif isinstance(p, ast.AST):
            if not _match(p, n, found):
                return False
        elif type(p) is not type(n) or p != n:
            return False
    return True


def _is_head(pattern) -> bool:
    body = pattern.body
    return len(body) == 1 and type(body[0]) is ast.Pass


class _Fill(ast.NodeTransformer):
    def __init__(self, holes: dict):
        self.holes = holes

    def visit_Name(self, node: ast.Name):
        if node.id.startswith(_HOLE):
            filled = copy_tree(self.holes[node.id[len(_HOLE):]])
            if type(filled) is ast.Name:
                filled.ctx = node.ctx
            return filled
        return node


# ------------------------------------------------------------------ shapes

CALLEE = Shape(
    "callee",
    "({f} if type({f} := {callee}) is _FT else _callable({f}, {desc}))",
    "twin_call_site",
    "A call's callee tested callable before the call (Lua looks up a value's "
    "__call after the arguments: `_callable` makes the function that does). "
    "A twin's call site tests it after the arguments, and only where it calls "
    "it directly. `f` holds the callee after the call, in the twin as well.",
)

YIELD_CALLEE = Shape(
    "yield_callee",
    "({f} if type({f} := {callee}) is _FT else _callable_yield({f}, {desc}))",
    "twin_call_site",
    "`coroutine.yield` read from the globals (the compiler saw the name): as "
    "CALLEE (`_callable_yield` is `_callable`), and in a twin the arguments are "
    "yielded at once while `_GYOK` holds (the global table's raw `coroutine` is "
    "the library and its raw `yield` the state's), without reading the callee.",
)

FIRST_VALUE = Shape(
    "first_value",
    "({r} if type({r} := {call}) is not _Multi else _first({r}))",
    "twin_first_value",
    "A call's first value (`_first` runs a pending tail call). A twin's call "
    "site gives each branch's own first value (its results are final).",
)

TESTED_FIRST = Shape(
    "tested_first",
    "_first({r})",
    "_first({r})",
    "The first value of a call's raw result that an operator's fast path "
    "tested already (`..` of a call: operators.concat), taken on its general "
    "path. A twin's raw result is final, so its form is the same.",
)

ALL_VALUES = Shape(
    "all_values",
    "(({r},) if type({r} := {call}) is not _Multi else _expand({r}))",
    "(({r},) if type({r} := {call}) is not _Multi else {r})",
    "All of a call's values, as a tuple (`_expand` runs a pending tail call; "
    "a twin's results are final, so a Multi is the tuple itself).",
)

DROPPED_VALUES = Shape(
    "dropped_values",
    "if type({r} := {call}) is _Multi and {r}: _first({r})",
    "twin_dropped_values",
    "A call whose values are dropped (a call statement): `_first` runs a "
    "pending tail call. In a twin, the call alone (a dropped yield makes no "
    "Multi; a known yield is `if _GYOK: yield (args)`).",
)

FOR_ITERATOR = Shape(
    "for_iterator",
    "{it} = _giter({f}, {s}, {c}, {close}, {n})",
    "{it} = _ggiter({f}, {s}, {c}, {close}, {n})",
    "A generic for's iterator over its three values and closing value. A "
    "twin's (`_ggiter`) asks an iterator function that may run Lua code for "
    "each item through `yield from`.",
)

FOR_CALL_ITERATOR = Shape(
    "for_call_iterator",
    "{it} = _giter({f}, {s}, {c}, {close}, {n}, {callee})",
    "{it} = _ggiter({f}, {s}, {c}, {close}, {n}, {callee})",
    "The iterator of a generic for over one call (`for k, v in pairs(t)`), "
    "with the function called: when it is the sandbox pairs and gave "
    "`next, t, nil`, the walk fixes t's keys when it starts (docs/reference/lua.md); "
    "`next` walked any other way is Lua's, live.",
)

FOR_LOOP = Shape(
    "for_loop",
    "for {target} in {it}:",
    "twin_for_loop",
    "A generic for's loop over its iterator. A twin takes each item with "
    "`next` (a native walk) or `yield from it.step()` (a GLoop).",
)

LOOP_EXIT = Shape(
    "loop_exit",
    "{it}.close()",
    "(yield from _gloop_end({it}, 'close'))",
    "A generic for left (its end, break, return, goto): the closing value's "
    "__close runs, once; in a twin as any call of a twin.",
)

LOOP_ERROR = Shape(
    "loop_error",
    "{it}.throw({error})",
    "(yield from _gloop_end({it}, 'throw', {error}))",
    "A generic for left by an error: the closing value's __close runs with "
    "it; in a twin as any call of a twin.",
)

#: every shape, by name
SHAPES = {s.name: s for s in (CALLEE, YIELD_CALLEE, FIRST_VALUE, TESTED_FIRST, ALL_VALUES, DROPPED_VALUES, FOR_ITERATOR,
                              FOR_CALL_ITERATOR, FOR_LOOP, LOOP_EXIT, LOOP_ERROR)}

#: text only the table's shapes write: a helper or method name followed by
#: `(`, found anywhere else in the compiler is a shape written by hand
OWNED = {"_callable(": CALLEE, "_callable_yield(": YIELD_CALLEE, "_first(": FIRST_VALUE, "_expand(": ALL_VALUES,
         "_giter(": FOR_ITERATOR, ".close()": LOOP_EXIT, ".throw(": LOOP_ERROR}  # fmt: skip

# ----------------------------------------------------------------- helpers

#: never runs Lua code that could suspend a twin: none at all, or only
#: behind one of the NO_YIELD calls: a twin calls it as it is
DIRECT = "direct"
#: runs Lua code only to finish a pending tail call, which a twin's values
#: never are (its calls run their tail calls): a twin calls it as it is
FINAL = "final"
#: may run Lua code (a metamethod): a twin calls it through `_gop`, which
#: runs it directly and again escalated if it reached a metamethod
OPERATOR = "operator"
#: `return f(args)`: a twin's is `yield from _gtail(f, args)`
TAIL = "tail"
#: written only inside a shape, whose twin form replaces it
SHAPED = "shaped"

#: every name generated code calls, but for Lua locals (resolve.LOCAL_PREFIX),
#: closure factories (`_mk_`) and hoisted functions (`_deep`: a function
#: holding one has no twin); the runtime's namespace defines them
#: (runtime/helpers.base_namespace, state.py) and Python's builtins
HELPERS = {
    **dict.fromkeys(("type", "len", "ord"), DIRECT),
    **dict.fromkeys(("_Table", "_Multi", "_tlist", "_tnamed", "_tmixed", "_adjust", "_callable", "_callable_yield",
                     "_tbc_check", "_forprep", "_refund", "_tick", "_wrap", "_GotoSignal", "_envnow", "_envgive"), DIRECT),
    # inline pattern calls (compiler/strcalls.py): the library's compiled pattern, its regex's calls
    **dict.fromkeys(("_mpat", "_rxfor", "_RXM", "_RXS", "_MSTART", "_MEND", "_MGROUP", "_MGROUPS"), DIRECT),
    **dict.fromkeys(("_first", "_expand", "_fixed"), FINAL),
    **dict.fromkeys(("_index", "_setindex", "_gget", "_gset", "_method", "_method_from", "_smethod", "_add", "_sub",
                     "_mul", "_div", "_idiv", "_mod", "_pow", "_unm", "_band", "_bor", "_bxor", "_shl", "_shr",
                     "_bnot", "_len", "_eq", "_lt", "_le", "_concat", "_concatn", "_tbc_close"), OPERATOR),
    "_tail": TAIL,
    "_giter": SHAPED,
}  # fmt: skip

#: the runtime's calls of Lua code that a DIRECT helper may make ("module:
#: function"), and why: each runs its Lua as C Lua runs a call that may not
#: yield (a yield inside is `attempt to yield across a C-call boundary`, and
#: so is a wait on the inline backend), so nothing in it can suspend the
#: twin that called the helper, and a twin may call it at its step check
NO_YIELD = {
    "runvil.lua.runtime.collector:call_finalizer": "a finalizer at the step check, a safe point (state.py "
                                                   "`_safe_point`), as Lua's GCTM calls it",
}

#: methods generated code calls on the runtime's objects (a table's hash,
#: `_Gh`, `_SIh`: dicts; a table; its array part: a list), none of which
#: runs Lua code; `close` and `throw` are LOOP_EXIT's and LOOP_ERROR's
METHODS = {"get": DIRECT, "set_str": DIRECT, "set_int": DIRECT, "append": DIRECT, "find": DIRECT}


def helper_role(name: str) -> str | None:
    """What a twin does with a call of the name (None: not generated code's)."""
    role = HELPERS.get(name)
    if role is None and name.startswith("_mk_"):
        return DIRECT  # a closure factory: makes the function, runs nothing
    return role
