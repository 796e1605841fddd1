"""The contract between the code generator and the twin compiler (issue 23,
item 3): runvil/lua/compiler/shapes.py names the shapes of generated code
the twin compiler makes something else of, and what a twin does with each
helper generated code calls.

- each shape's template is the one place its text is written: the code
  generator emits it through the table, and the twin compiler finds it by
  the pattern made from that same text (a shape written by hand anywhere
  else in the compiler fails here);
- the helpers' classes are read from the helpers' own code: a helper a twin
  calls directly runs no Lua code, one it calls through `_gop` can, and
  every name generated code calls is in the table."""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
from pathlib import Path

import pytest

from runvil.lua import LuaState
from runvil.lua.compiler import generators as twins
from runvil.lua.compiler import shapes as S
from runvil.lua.compiler.codegen import compile_chunk
from runvil.lua.compiler.contract import INLINE_STRING_METHODS
from runvil.lua.compiler.resolve import LOCAL_PREFIX
from runvil.lua.errors import LuaSyntaxError
from runvil.lua.runtime import values as V
from runvil.lua.runtime import indexing as LI
from runvil.lua.runtime.calls import meta_call

from .purity import LUA, NONE, TAIL, Purity, describe, runtime_classes

ROOT = Path(__file__).resolve().parents[2]
COMPILER = ROOT / "runvil" / "lua" / "compiler"

#: a program whose generated code holds every shape of the table
EVERY_SHAPE = """
local t = setmetatable({}, {__index = function(_, k) return k end})
local function f(...) return ... end
local g = f
local first = g(1, 2)                              -- first_value
print(g(1, 2))                                     -- all_values
g(3)                                               -- dropped_values
local s = g("a") .. first                          -- tested_first
local co = coroutine.wrap(function(a) local b = coroutine.yield(a) return b end)  -- yield_callee
for k, v in pairs({a = 1}) do print(k, v) end      -- for_call_iterator, for_loop, loop_exit, loop_error
for k, v in next, {b = 2} do print(k, v) end       -- for_iterator
return first, co, t, s
"""


def _program_sources() -> dict[str, str]:
    out = {"every shape": EVERY_SHAPE}
    for folder in (ROOT / "tests" / "lua" / "programs", ROOT / "benchmarks" / "lua"):
        for p in sorted(folder.glob("*.lua")):
            out[f"{folder.name}/{p.name}"] = p.read_text(encoding="latin-1")
    return out


@functools.lru_cache(maxsize=None)
def generated_trees() -> dict[str, ast.Module]:
    """The generated Python of the corpus, parsed."""
    trees = {}
    for name, source in _program_sources().items():
        try:
            compiled = compile_chunk(source, "=" + name)
        except LuaSyntaxError:
            continue
        trees[name] = ast.parse(compiled.info.source)
    return trees


# ----------------------------------------------------------------- shapes


def _parsed(shape: S.Shape, text: str):
    if text.endswith(":"):
        return ast.parse(text + " pass").body[0]
    stmt = ast.parse(text).body[0]
    return stmt.value if isinstance(stmt, ast.Expr) else stmt


@pytest.mark.parametrize("name", sorted(S.SHAPES))
def test_a_shape_emitted_is_found_by_the_pattern_of_its_own_text(name):
    shape = S.SHAPES[name]
    holes = {h: f"_h{i}" for i, h in enumerate(shape.holes)}
    found = shape.match(_parsed(shape, shape.emit(**holes)))
    assert found is not None
    assert {h: ast.unparse(n) for h, n in found.items()} == holes


def test_a_pattern_finds_nothing_but_its_shape():
    first = S.FIRST_VALUE.emit(r="_t1", call="f(x)")
    assert S.ALL_VALUES.match(_parsed(S.ALL_VALUES, first)) is None
    assert S.FIRST_VALUE.match(_parsed(S.FIRST_VALUE, first.replace("_first(_t1)", "_first(_t2)"))) is None  # one r
    assert S.CALLEE.match(_parsed(S.CALLEE, S.YIELD_CALLEE.emit(f="_t1", callee="g", desc="None"))) is None


@pytest.mark.parametrize("name", sorted(S.SHAPES))
def test_every_shape_has_its_twin_form(name):
    shape = S.SHAPES[name]
    if shape.twin.startswith("twin_"):
        assert callable(getattr(twins._Twin, shape.twin, None)), f"no _Twin.{shape.twin}"
        return
    holes = {h: ast.Name(f"_h{i}", ast.Load()) for i, h in enumerate(shape.holes)}
    like = ast.parse("x").body[0]
    form = shape.twin_form(holes, like)
    assert "__hole_" not in ast.unparse(form)


def test_the_compiler_emits_every_shape():
    seen = set()
    for node in ast.walk(generated_trees()["every shape"]):
        for shape in S.SHAPES.values():
            if shape.match(node) is not None:
                seen.add(shape.name)
    assert seen == set(S.SHAPES)


def hand_written_shapes(sources: dict[str, str]) -> list[tuple[str, int, str]]:
    """(file, line, shape) for each text of the compiler (a string or an
    f-string, its formatted values read as `{}`) that writes a shape, or a
    name only shapes write, outside compiler/shapes.py."""
    normal = {s.name: s.template.format_map({h: "{}" for h in s.holes}) for s in S.SHAPES.values()}
    found = []
    for file, source in sources.items():
        tree = ast.parse(source)
        docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
        parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            elif isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in docs | parts:
                text = node.value
            else:
                continue
            names = {shape.name for token, shape in S.OWNED.items() if token in text}
            names |= {name for name, t in normal.items() if t in text}
            found += [(file, node.lineno, name) for name in sorted(names)]
    return found


def test_the_compiler_writes_every_shape_through_the_table():
    sources = {p.name: p.read_text(encoding="utf-8") for p in sorted(COMPILER.glob("*.py")) if p.name != "shapes.py"}
    assert hand_written_shapes(sources) == []


def test_a_shape_written_by_hand_is_found():
    # the compiler's e_Call before the table: the shape's text in an f-string of its own
    by_hand = (
        "class ExprCompiler:\n"
        "    def e_Call(self, n):\n"
        "        r = self.temp()\n"
        '        return f"({r} if type({r} := {self.raw_call(n)}) is not _Multi else _first({r}))"\n'
    )
    # (its `_first(...)` is tested_first's text too)
    assert hand_written_shapes({"expressions.py": by_hand}) == [("expressions.py", 4, "first_value"),
                                                                ("expressions.py", 4, "tested_first")]
    # the same text built another way is still found by the name only the shape writes
    other = 'def f(r, call):\n    return "(" + r + " if type(" + r + " := " + call + ") is _Multi else _expand(" + r + "))"\n'
    assert hand_written_shapes({"x.py": other}) == [("x.py", 2, "all_values")]


# ---------------------------------------------------------------- helpers


def _called_names(tree: ast.Module):
    """(kind, name) of every call in generated code: ('name', f) or ('method', m)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                yield "name", node.func.id
            elif isinstance(node.func, ast.Attribute):
                yield "method", node.func.attr


def test_every_name_generated_code_calls_is_in_the_table():
    unknown = set()
    for name, tree in generated_trees().items():
        for kind, called in _called_names(tree):
            if kind == "name":
                if not (called.startswith((LOCAL_PREFIX, "_deep")) or S.helper_role(called) is not None):
                    unknown.add((name, called))
            elif called not in S.METHODS and called not in ("close", "throw"):
                unknown.add((name, "." + called))
    assert unknown == set()


def test_every_helper_of_the_namespace_is_in_the_table():
    st = LuaState(stdout=lambda s: None)
    try:
        helpers = {k for k, v in st.ns.items() if callable(v) and not k.startswith("__")}
    finally:
        st.close()
    # `_FT` (the type of functions) is compared with, never called; the
    # names of `s:upper()`'s inline answers are a flag and a table
    assert not any(callable(st.ns[name]) for names in INLINE_STRING_METHODS.values() for name in names)
    assert helpers - {"_FT"} == {k for k in S.HELPERS if not hasattr(builtins, k)}


#: dynamic calls of the runtime that the reading cannot follow, and why
#: none of them runs Lua code
NOT_LUA = {
    ("LuaTable.set_str", "w"): "the weak reference to a watcher of a watched key (tables.watch)",
    ("LuaTable.set_str", "f"): "the watcher: runtime/generators.Twins.watched, which sets `_GYOK`, or "
                               "stdlib/string._watch_index's, which sets `_SIh`",
    ("_sites_at", "hit[0]"): "a weak reference to a code object",
    ("_sites_at", "ref"): "a weak reference to a chunk's ChunkInfo (debuginfo.CHUNKS)",
    ("lua_position", "ref"): "a weak reference to a chunk's ChunkInfo (debuginfo.CHUNKS)",
    ("up", "hop"): "a stack hop of debuginfo.add_stack_hop: reads a frame's locals",
}


def _no_yield() -> list:
    """The functions shapes.NO_YIELD names."""
    found = []
    for where in S.NO_YIELD:
        module, name = where.split(":")
        found.append(getattr(importlib.import_module(module), name))
    return found


@functools.lru_cache(maxsize=None)
def reading(own=("runvil.",)) -> Purity:
    return Purity(tail_runners=(V.first, V.expand), not_lua=NOT_LUA, classes=runtime_classes(), own=own,
                  no_yield=_no_yield())


EXPECTED = {S.DIRECT: NONE, S.FINAL: TAIL, S.OPERATOR: LUA, S.TAIL: LUA}


@pytest.mark.parametrize("name", sorted(k for k, role in S.HELPERS.items() if role in EXPECTED))
def test_each_helper_runs_what_the_table_says(name):
    st = LuaState(stdout=lambda s: None)
    try:
        helper = st.ns[name] if name in st.ns else getattr(builtins, name)
        result = reading().of(helper)
    finally:
        st.close()
    assert result[0] == EXPECTED[S.HELPERS[name]], f"{name} ({S.HELPERS[name]}) may run {describe(result)}"


@pytest.mark.parametrize("method", sorted(S.METHODS))
def test_the_methods_generated_code_calls_run_no_lua_code(method):
    result = reading().method(method)
    assert result[0] == NONE, describe(result)


# deliberate helpers, to show the reading finds what they may run


def _calls_a_metamethod(t):
    return meta_call(V.getmetamethod(t, "__index"), t, "k")


def _indexes(t):
    return LI.index(t, "k")


def _calls_its_argument(f):
    return f()


def _runs_a_tail_call(r):
    return V.first(r)


def _raw(t):
    return t.get("k") if t.meta is None else None


def test_the_reading_finds_lua_code_in_a_helper_that_can_run_it():
    read = reading(("runvil.", __name__))
    assert read.of(_calls_a_metamethod)[0] == LUA
    assert read.of(_indexes)[0] == LUA
    assert read.of(_calls_its_argument)[0] == LUA
    assert read.of(_runs_a_tail_call)[0] == TAIL
    assert read.of(_raw)[0] == NONE


def test_an_unknown_helper_gives_no_twin():
    # a name the table does not know: the function runs on a context of its own, never as a wrong twin
    fn = ast.parse("def c1_1(*_):\n    return _unknown_helper(1)\n").body[0]
    with pytest.raises(twins.NoTwin):
        twins._Twin().function(fn)


def test_a_direct_helper_runs_lua_code_only_behind_a_call_that_may_not_yield():
    """Read without NO_YIELD, a direct helper that may run Lua code (the
    step check: its finalizers) reaches it only through those calls."""
    plain = Purity(tail_runners=(V.first, V.expand), not_lua=NOT_LUA, classes=runtime_classes())
    behind = {f.__qualname__ for f in _no_yield()}
    st = LuaState(stdout=lambda s: None)
    try:
        found = {}
        for name, role in S.HELPERS.items():
            if role == S.DIRECT and name in st.ns:
                level, path = plain.of(st.ns[name])
                if level == LUA:
                    found[name] = path
    finally:
        st.close()
    assert "_tick" in found
    assert all(behind & set(path) for path in found.values()), found
