"""Code that runs once (ExprCompiler.cold): a chunk's main function outside
its loops reads fields, looks methods up and applies operators through the
helpers' calls; its loops, their conditions, its functions and the chunks
Lua's `load` makes keep the inline paths. The results and the messages are
Lua's either way (tests/lua/test_testes.py runs Lua's own files, whose main
chunks are mostly such code)."""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua.compiler.codegen import compile_chunk
from runvil.lua.debuginfo import chunk_info

from .luacli import same_as_lua

#: the inline read of field `x` (expressions.e_Index), and its helper
INLINE_READ = ".hash.get('x')"
HELPER_READ = "_index(L_t_1, 'x'"


def main_text(source: str, once: bool = True) -> str:
    """The generated text of the chunk's main function."""
    text = compile_chunk(source, "=t", once=once).source
    return text[: text.index("\ndef _mk_c", 1)] if "\ndef _mk_c" in text[1:] else text


def test_the_main_function_outside_loops_calls_the_helpers():
    text = main_text("local t = {x = 1}\nlocal y = t.x + 1\nt:m()\nreturn y .. 'a'")
    assert HELPER_READ in text and INLINE_READ not in text
    assert "_method(L_t_1, 'm'" in text and "_add(" in text and "_concatn(" in text


@pytest.mark.parametrize("source", [
    "local t = {x = 1}\nfor i = 1, 3 do local y = t.x end",
    "local t = {x = 1}\nwhile t.x < 3 do t.x = 3 end",
    "local t = {x = 1}\nrepeat local y = 1 until t.x > 0",
    "local t = {x = 1}\n::top:: local y = t.x if y < 1 then goto top end",
])
def test_loops_and_their_conditions_keep_the_inline_paths(source):
    assert INLINE_READ in main_text(source)


def test_functions_and_chunks_called_again_keep_the_inline_paths():
    assert INLINE_READ in compile_chunk("return function(t) return t.x end", "=t").source
    assert INLINE_READ in main_text("local t = ...\nreturn t.x", once=False)
    st = LuaState(allow_load=True)
    (f,) = st.execute("return load('local t = ... return t.x')")
    assert INLINE_READ in chunk_info(f.__code__).source


def test_code_that_runs_once_gives_lua_s_results_and_messages(tmp_path):
    program = "\n".join([
        "local a, b, t = 7, 2.5, setmetatable({}, {__index = function(_, k) return k .. '!' end,",
        "  __add = function() return 'added' end, __concat = function() return 'cat' end})",
        "print(a + b, a - 3, a * 2, a / 2, a // 2, a % 3, a ^ 2, a & 3, a | 8, a ~ 1, a << 2, a >> 1)",
        "print(-7 % 3, 7 // 0.0, math.maxinteger + 1, 'x' .. 1 .. 2.5, ('s'):upper(), #'abc')",
        "print(t.foo, t + 1, t .. 'x', 1 + t, ('abc'):sub(2))",
        "local o = {n = 1} function o:get() return self.n end print(o:get(), o.get(o))",
        "print(pcall(load('local x = nil; return x.y')))",
        "print(pcall(load('return 1 + {}')))",
        "print(pcall(load('local s = {}; s:nope()')))",
        "local q = {} q.x.y = 1",
    ])
    same_as_lua(tmp_path, {"main.lua": program}, ["main.lua"])
