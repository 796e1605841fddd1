"""Generated Python names can never meet a Lua name (issue 10): every Lua
local compiles to `L_<name>_<n>` and nothing else the compiler makes starts
with `L_`. Proven two ways: structurally, over the identifiers of generated
code and the namespace it runs in, and by running programs that declare
locals, globals, fields, labels, upvalues and parameters named after every
internal name, compared with real Lua 5.4."""

from __future__ import annotations

import ast as pyast
import functools
import itertools
import re
from pathlib import Path

import pytest

from runvil.lua import LuaState
from runvil.lua.compiler import codegen as C
from runvil.lua.compiler.codegen import compile_chunk
from runvil.lua.compiler.resolve import LOCAL_PREFIX

from .harness import ours, real

PROGRAMS = Path(__file__).parent / "programs"

LUA_KEYWORDS = frozenset(
    "and break do else elseif end false for function goto if in local nil not or repeat return then true until while".split()
)

#: a program that makes the compiler use every kind of name it has: closures
#: over assigned locals (cells), varargs, goto dispatch, <close>, deep
#: expressions (hoisted functions), numeric and generic loops, methods
SHAPES = """
local acc = {}
local function push(...) acc[#acc + 1] = table.concat({...}, ",") end
local counter = 0
local function bump(n) counter = counter + (n or 1); return counter end
local obj = setmetatable({}, {__index = {get = function(self, k) return k * 2 end}})
for i = 1, 3 do
  local j = i
  push(i, obj:get(i), (function() return j + bump() end)())
end
for k, v in ipairs({"a", "b"}) do push(k, v) end
local function va(...) local a, b = ... ; return select('#', ...), a, b end
push(va(1, 2, 3))
do
  local i = 1
  ::top::
  if i < 3 then i = i + 1; goto top end
  push("goto", i)
end
do
  local c <close> = setmetatable({}, {__close = function() push("closed") end})
  push("in close")
end
local deep = ((((((((((((((((((((((((((((((1 + counter) * 2) - 1) + 1) * 1) + 0) - 0) + 1) - 1) + 2) - 2) + 3) - 3)
  + 4) - 4) + 5) - 5) + 6) - 6) + 7) - 7) + 8) - 8) + 9) - 9) + 0) + 0) + 0) + 0) + 0)
push(deep)
local ok, e = pcall(function() local z = nil; return z.x end)
push(ok, e)
local x, y = 1.5, "s"
push(x // 1, y .. x, x < 2, #acc, -x, ~3, 7 % 3, 2 ^ 2)
print(table.concat(acc, " | "))
"""


def _programs() -> list[str]:
    return [SHAPES] + [p.read_text(encoding="latin-1") for p in sorted(PROGRAMS.glob("*.lua"))]


def _identifiers(src: str) -> set[str]:
    names = set()
    for node in pyast.walk(pyast.parse(src)):
        if isinstance(node, pyast.Name):
            names.add(node.id)
        elif isinstance(node, (pyast.FunctionDef, pyast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, pyast.arg):
            names.add(node.arg)
        elif isinstance(node, pyast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


@functools.lru_cache(maxsize=1)
def _compiled_names() -> tuple[set[str], set[str]]:
    """(identifiers of Lua locals, every other identifier) over the
    generated code of the corpus, plus the namespace compiled code runs in."""
    lua_locals, internal = set(), set()
    for src in _programs():
        try:
            compiled = compile_chunk(src, "=probe")
        except Exception:
            continue  # a program meant to fail compiling
        for name in _identifiers(compiled.source):
            (lua_locals if name.startswith(LOCAL_PREFIX) else internal).add(name)
    st = LuaState()
    internal |= {k for k in st.ns if k != "__builtins__"}
    st.close()
    return lua_locals, internal


def test_lua_locals_and_internal_names_are_disjoint():
    lua_locals, internal = _compiled_names()
    assert lua_locals and internal
    # every L_ name is a Lua identifier with the resolver's unique counter
    pattern = re.compile(re.escape(LOCAL_PREFIX) + r"[A-Za-z_][A-Za-z0-9_]*_\d+")
    assert all(pattern.fullmatch(n) for n in lua_locals)
    assert not [n for n in internal if n.startswith(LOCAL_PREFIX)]


def _lua_names(internal: set[str]) -> list[str]:
    """The internal names a Lua program can spell. Of the numbered families
    (temporaries, hoisted expressions, functions and their factories) the
    low numbers each function uses, and the names the next chunks' own
    functions will get."""
    nxt = next(C._chunk_ids) + 1
    own = [f"c{nxt + d}_{k}" for d in range(3) for k in range(1, 12)]
    own += [f"_mk_{n}" for n in own] + ["_mk_c1", "c1", "_mk_c", "_deep", "_t"]
    numbered = re.compile(r"(_t|_deep)(\d+)|(_mk_)?c\d+_\d+")
    kept = {n for n in internal if not (m := numbered.fullmatch(n)) or (m.group(2) and int(m.group(2)) <= 40)}
    names = sorted(kept | set(own))
    return [n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) and n not in LUA_KEYWORDS]


def _collision_program(names: list[str]) -> str:
    """Each name as a local (also captured and assigned: a cell), an upvalue,
    a parameter, a local function, a global, a field and a label."""
    out = ["local log = {}", "local function say(...) log[#log + 1] = table.concat({...}, ' ') end"]
    for i, n in enumerate(names):
        out.append(f"""do
  local {n} = "local{i}"
  local function up() return {n} end
  local function set(v) {n} = v end
  set("cell{i}")
  local function param({n}, ...) return {n} .. select('#', ...) end
  local function {n}x() return {n} end
  {n} = {n} .. "!"
  say(up(), param("p{i}", 1, 2), {n}x())
  {n} = 'g{i}'
  say({n})
end
{n} = "global{i}"
say({n}, _ENV["{n}"])
do
  local tbl = {{{n} = {i}}}
  tbl.{n} = tbl.{n} + 1
  say(tbl.{n}, tbl["{n}"])
end
do
  local k = 0
  ::{n}::
  k = k + 1
  if k < 2 then goto {n} end
  say("label", k)
end
do
  local function {n}(a) return a and {n}(nil) or "rec{i}" end
  say({n}(1))
end""")
    out.append("print(table.concat(log, '\\n'))")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("part", range(2))
def test_programs_naming_every_internal_name_run_as_in_lua(part):
    _lua_locals, internal = _compiled_names()
    names = _lua_names(internal)
    assert len(names) > 40
    chunk = names[part::2]
    code = _collision_program(chunk)
    assert ours(code) == real(code)


def test_the_reported_escapes():
    # issue 10: a local named like a factory replaced it; a local named
    # like a function made a closure read the wrong value
    code = (
        "local _mk_c1 = 5\nlocal function f() return 1 end\nprint(f())\n"
        "local c1 = 'up'\nlocal function g() return c1 end\nprint(g())\n"
        + "\n".join(f"local _mk_c{i}_{k} = {k}" for i, k in itertools.product(range(1, 4), range(1, 6)))
        + "\nprint((function() return 'still' end)())\n"
    )
    assert ours(code) == real(code) == "1\nup\nstill\n"
