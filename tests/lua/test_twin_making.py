"""Making generator twins cheaply (compiler/generators.py): the threadless
backend runs every block the Engine calls as a twin, so a run pays for
making them. A chunk's main function (which runs once) calls through
gcall alone, and each twin form is located without looking again inside
the forms already located; the twins behave as before."""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua.compiler import generators as G
from runvil.lua.compiler import pytrees
from runvil.lua.compiler.chunkcache import compile_lua
from runvil.lua.errors import LuaError

#: chunks whose main function calls at its top level, each kind of callee
CHUNKS = [
    # a builtin, a local function, __call, several results, a method, a leaf
    """local t = setmetatable({}, {__call = function(self, a) return a * 2 end})
    local function three() return 1, 2, 3 end
    local s = string.format("%d", 7)
    local a = t(21)
    local b, c, d = three()
    local n = select('#', three())
    local o = {v = 5}
    function o:get(k) return self.v + k end
    local m = o:get(1)
    local ok, e = pcall(function() return undefinedfn(1) end)
    return tostring(nil) .. s .. a .. b .. c .. d .. n .. m .. tostring(ok) .. e, three()""",
    # a tail call, and a call whose values are all passed on
    "local function f(...) return select('#', ...), ... end return f(1, nil, 3)",
    "local function f(x) return x, x end print(f(1)) return (f(2))",
    # errors at the call site: their messages name the callee and the line
    "local x = nil\nx()",
    "\nnofn(1, 2)",
    "local s = 'str'\nlocal r = s(1)",
    "local function f() error('boom', 2) end\n\nf()",
    "local t = {}\nt.a.b()",
    "return ('x'):rep(3), ('%d'):format(4)",
]


def _outcome(st: LuaState, src: str, as_twin: bool):
    """The chunk's results (or error) called plainly, or from a coroutine,
    where its main function runs as a twin."""
    fn = st.load(src, "=c")
    if as_twin:
        driver = st.load("local f = ... return coroutine.wrap(function() return pcall(f) end)()", "=d")
        return st.call(driver, fn)
    return st.call(st.load("return pcall(...)", "=d"), fn)


@pytest.mark.parametrize("src", CHUNKS)
def test_a_main_function_as_a_twin_gives_what_it_gives_plainly(src):
    printed = []
    st = LuaState(stdout=printed.append)
    plain = _outcome(st, src, False)
    twin = _outcome(st, src, True)
    assert twin == plain
    assert printed[: len(printed) // 2] == printed[len(printed) // 2:]


def test_a_main_function_yields_at_its_top_level():
    st = LuaState(allow_load=True)
    r = st.execute("""
        local f = load("local v = coroutine.yield(1) local w = coroutine.yield(v + 1) return w * 2")
        local co = coroutine.create(f)
        local _, a = coroutine.resume(co)
        local _, b = coroutine.resume(co, 10)
        local _, c = coroutine.resume(co, 21)
        return a, b, c, coroutine.status(co)""")
    assert r == (1, 11, 42, "dead")


def _twin_of_main(src: str):
    compiled = compile_lua(src, "=t")
    main = next(c for c in _codes(compiled.code) if c.co_name == compiled.main)
    return G.twin_code(main)


def _codes(code):
    for c in code.co_consts:
        if hasattr(c, "co_consts"):
            yield c
            yield from _codes(c)


def test_a_main_function_calls_through_gcall_alone_outside_loops():
    made = _twin_of_main("print(1) g(2)")
    assert "_gcall" in made.co_names and "_GLEAFT" not in made.co_names
    in_loop = _twin_of_main("for i = 1, 3 do g(i) end")
    assert "_GLEAFT" in in_loop.co_names  # a loop's calls keep their fast branches


def test_locating_twin_forms_is_linear_in_the_nesting(monkeypatch):
    """Each form is located once: nested calls cost in proportion to their
    number, not to its square (fix_missing_locations at each form did)."""
    seen = [0]
    fix = pytrees._fix_fresh

    def counted(*args):
        seen[0] += 1
        return fix(*args)

    monkeypatch.setattr(pytrees, "_fix_fresh", counted)

    def visits(depth: int) -> int:
        seen[0] = 0
        src = "local function f(x) return x end\nlocal function g(y) local z = " + "f(" * depth + "y" + ")" * depth + \
              " return z end\nreturn g"
        compiled = compile_lua(src, f"=n{depth}")
        g = next(c for c in _codes(compiled.code) if c.co_name.startswith("L_g"))
        assert not isinstance(G.twin_code(g), (str, type(None)))
        return seen[0]

    small, large = visits(4), visits(16)
    assert large < 6 * small, (small, large)


def test_an_error_in_a_twin_main_function_keeps_its_position():
    st = LuaState()
    fn = st.load("local a = 1\n\nundefined_fn(a)", "=pos")
    driver = st.load("local f = ... return coroutine.wrap(function() return f() end)()", "=d")
    with pytest.raises(LuaError) as e:
        st.call(driver, fn)
    assert "pos:3: attempt to call a nil value (global 'undefined_fn')" in str(e.value.value)


# ------------------------------------------------ twins made for another chunk


def _main_code(compiled):
    return next(c for c in _codes(compiled.code) if c.co_name == compiled.main)


def _same_digits(src: str):
    """Two chunks of this source whose numbers have as many digits."""
    a, b = compile_lua(src, "=a"), compile_lua(src, "=b")
    while len(str(a.info.chunk_id)) != len(str(b.info.chunk_id)):
        a, b = b, compile_lua(src, "=b")
    return a, b


def _fields(code) -> tuple:
    return (code.co_code, code.co_consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            code.co_filename, code.co_name, code.co_qualname, code.co_firstlineno, code.co_linetable,
            code.co_exceptiontable, list(code.co_positions()))


@pytest.mark.parametrize("src", CHUNKS[:3] + ["local n = 0\nfor i = 1, 3 do n = n + select(i, 4, 5, 6) end\nreturn n"])
def test_a_twin_taken_from_another_chunk_is_the_one_made_for_this_one(src):
    from runvil.lua.compiler.recenttwins import RECENT

    a, b = _same_digits(src)
    G.twin_code(_main_code(a))
    hits = len(RECENT.made)
    taken = G.twin_code(_main_code(b))
    assert len(RECENT.made) == hits  # (b's twin was a's, renamed)
    b.info.twins.clear()
    RECENT.made.clear()
    made = G.twin_code(_main_code(b))
    assert _fields(taken) == _fields(made)
    assert taken.co_filename == b.info.filename and f"c{b.info.chunk_id}_1" in taken.co_name


def test_a_twin_whose_strings_spell_its_chunk_number_is_made_for_each_chunk():
    from runvil.lua.compiler import chunk

    n = next(chunk.chunk_ids)  # the next chunks are n + 1 and n + 2
    if len(str(n + 1)) != len(str(n + 2)):
        n = next(chunk.chunk_ids)
    a = compile_lua(f"return 'c{n + 1}_1', tostring(1)", "=a")
    b = compile_lua(f"return 'c{n + 2}_1', tostring(1)", "=b")
    assert (a.info.chunk_id, b.info.chunk_id) == (n + 1, n + 2)
    assert f"c{n + 1}_1" in G.twin_code(_main_code(a)).co_consts
    assert f"c{n + 2}_1" in G.twin_code(_main_code(b)).co_consts
