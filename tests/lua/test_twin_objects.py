"""The pieces of a state's generator twins (runtime/generators.Twins) and of
its coroutine library (stdlib/coroutine.CoroutineLibrary), each called
alone: what a twin knows of a callee, how it calls it, and the builtins
that need their state."""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua.errors import LuaError
from runvil.lua.runtime import generators as T
from runvil.lua.runtime.tables import LuaTable
from runvil.lua.runtime.values import TAILCALL, Multi
from runvil.lua.stdlib import coroutine as C

pytestmark = pytest.mark.skipif(not C.TWINS, reason="twins are off (RUNVIL_TWINS=0)")


@pytest.fixture
def st():
    state = LuaState(stdout=lambda s: None)
    state.install_twins()
    yield state
    state.close()


def finish(gen):
    """What a twin's generator returns, when it yields nothing."""
    try:
        made = next(gen)
    except StopIteration as e:
        return e.value
    raise AssertionError(f"yielded {made!r}")


def on_lua(st, fn):
    """Runs fn() on the state's Lua thread, under its machine."""
    return st.call(lambda: Multi((fn(),)))[0]


def test_the_state_keeps_its_twins_and_the_namespace_holds_their_methods(st):
    twins = st.twins
    assert type(twins) is T.Twins
    assert st.ns["_gcall"] == twins.gcall and st.ns["_gop"] == twins.operator
    assert st.ns["_GLoop"] is T.GLoop and st.ns["_YIELD"] is C.yield_


def test_runs_no_lua_tells_builtins_by_their_arguments(st):
    twins = st.twins
    G = st.G.hash
    assert twins.runs_no_lua(G["math"].hash["abs"], (1,))
    assert twins.runs_no_lua(G["string"].hash["gsub"], ("a", "a", "b"))
    assert not twins.runs_no_lua(G["string"].hash["gsub"], ("a", "a", G["print"]))
    assert not twins.runs_no_lua(G["table"].hash["sort"], (LuaTable(),))
    lua_fn, = st.execute("return function() coroutine.yield() end")
    assert not twins.runs_no_lua(lua_fn, ())


def test_safe_builtins_lists_only_what_was_opened():
    safe = T.safe_builtins({"type": type, "math": {"abs": abs}})
    assert safe == {}  # not Python functions: no builtin of ours
    st = LuaState(stdout=lambda s: None)
    libs = {"math": st.G.hash["math"].hash, "tostring": st.G.hash["tostring"]}
    safe = T.safe_builtins(libs)
    assert safe[libs["math"]["abs"]] is None and callable(safe[libs["tostring"]])
    assert len(safe) == len([n for n in T._SAFE_BUILTINS["math"].split() if n in libs["math"]]) + 1
    st.close()


def test_twin_of_and_has_twin(st):
    twins = st.twins
    yielding, leaf, numeric = st.execute(
        "return function(x) return coroutine.yield(x) end, function(t) return t end, "
        "function(a, b) return a + b end")
    twin = twins.twin_of(yielding)
    assert twin is not None and twin.__code__.co_flags & 0x20  # a generator
    assert twins.twin_of(yielding) is twin  # kept on the function
    assert twins.twin_of(leaf) is None and twins.has_twin(leaf) and leaf.lua_twin is T.LEAF_TWIN
    assert twins.twin_of(numeric) is numeric.lua_numeric_twin and numeric.lua_twin is T.NUMERIC_TWIN
    assert twins.twin_of(st.G.hash["print"]) is None and not twins.has_twin(st.G.hash["print"])


def test_known_leaf_marks_a_closure_of_a_leafs_code(st):
    make, = st.execute("return function() return function(a) return a end end")
    first, second = st.call(make)[0], st.call(make)[0]
    assert not T.Twins.known_leaf(first)
    assert st.twins.twin_of(first) is None  # now its code is known to be a leaf's
    assert T.Twins.known_leaf(second) and second.lua_twin is T.LEAF_TWIN


def test_gcall_runs_a_twin_and_its_tail_calls(st):
    twins = st.twins
    f, = st.execute("local function g(a) return a * 2, 'g' end\n"
                    "return function(a) local x = a + 1; if x > 0 then return g(x) end end")
    assert on_lua(st, lambda: finish(twins.gcall(f, (4,)))) == (10, "g")


def test_gcall_passes_a_yield_up_and_the_resume_values_down(st):
    twins = st.twins
    f, = st.execute("return function(a) local b = coroutine.yield(a + 1) return b * 3 end")

    def drive():
        gen = twins.gcall(f, (1,))
        assert next(gen) == (2,)
        try:
            gen.send((5,))
        except StopIteration as e:
            return e.value
    assert on_lua(st, drive) == 15


def test_gtail_makes_a_pending_call_of_a_lua_function(st):
    twins = st.twins
    f, = st.execute("return function() end")
    r = finish(twins.gtail(f, (1, 2)))
    assert type(r) is Multi and r[0] is TAILCALL and r[1] is f and r[2] == (1, 2)
    assert finish(twins.gtail(st.G.hash["select"], ("#", 1, 2))) == 2  # a builtin runs now


def test_gtail_of_yield_yields(st):
    gen = st.twins.gtail(C.yield_, (7, 8))
    assert next(gen) == (7, 8)
    with pytest.raises(StopIteration) as stop:
        gen.send((9,))
    assert stop.value.value == Multi((9,))


def test_call_builtin_runs_a_safe_one_directly_and_yield_as_a_yield(st):
    twins = st.twins
    assert finish(twins.call_builtin(st.G.hash["math"].hash["abs"], (-3,))) == 3
    gen = twins.call_builtin(C.yield_, (1,))
    assert next(gen) == (1,)


def test_call_builtin_calls_a_value_through_its_call_metamethod_as_a_twin(st):
    twins = st.twins
    callable_value, = st.execute("return setmetatable({}, {__call = function(self, a) "
                                 "return coroutine.yield(a) end})")
    from runvil.lua.runtime import calls as LC

    f = LC.resolve_callable(callable_value, None)

    def drive():
        gen = twins.call_builtin(f, (4,))
        assert next(gen) == (4,)
        try:
            gen.send(("back",))
        except StopIteration as e:
            return e.value
    assert on_lua(st, drive) == ("back",)


def test_operator_without_a_metamethod_runs_the_helper_directly(st):
    twins = st.twins
    add = st.ns["_add"]
    assert on_lua(st, lambda: finish(twins.operator(add, (2, 3, None, None)))) == 5


def test_operator_runs_a_final_metamethod_as_a_twins_call(st):
    twins = st.twins
    v, = st.execute("return setmetatable({}, {__add = function(a, b) return coroutine.yield('add') end})")
    add = st.ns["_add"]

    def drive():
        gen = twins.operator(add, (v, 1, None, None))
        assert next(gen) == ("add",)  # the metamethod yields: it runs as a twin
        try:
            gen.send((41,))
        except StopIteration as e:
            return e.value
    assert on_lua(st, drive) == 41


def test_protected_counts_one_c_call_and_lets_errors_through(st):
    twins = st.twins
    bad, = st.execute("return function() error('no') end", "=t")

    def drive():
        m = st.machine
        before = m.depth
        with pytest.raises(LuaError) as e:
            finish(twins.protected(bad, ()))
        assert m.depth == before
        return e.value.value
    assert on_lua(st, drive) == "t:1: no"


def test_pcall_of_a_twin_catches(st):
    twins = st.twins
    bad, = st.execute("return function() error('no') end", "=t")
    assert on_lua(st, lambda: finish(twins.pcall(bad))) == (False, "t:1: no")


def test_loops_no_lua_and_ggiter(st):
    twins = st.twins
    next_fn, ipairs_aux = st.iterators
    plain, with_meta = LuaTable(), LuaTable()
    with_meta.meta = LuaTable()
    assert twins.loops_no_lua(next_fn, with_meta)
    assert twins.loops_no_lua(ipairs_aux, plain) and not twins.loops_no_lua(ipairs_aux, with_meta)
    iterator, = st.execute("return function(s, c) if c < 3 then return c + 1 end end")
    assert not twins.loops_no_lua(iterator, None)
    loop = twins.ggiter(iterator, None, 0, None, 1)
    assert type(loop) is T.GLoop

    def walk():
        got = []
        while (v := finish(loop.step())) is not T.GDONE:
            got.append(v)
        return got
    assert on_lua(st, walk) == [1, 2, 3]
    assert finish(twins.gloop_end(loop, "close")) is None and loop.done


def test_watched_follows_the_raw_coroutine_and_yield(st):
    assert st.ns["_GYOK"] is True
    st.execute("coroutine.yield = print")
    assert st.ns["_GYOK"] is False
    st.execute("coroutine.yield = ...", "=t", C.yield_)
    assert st.ns["_GYOK"] is True
    st.execute("coroutine = {}")
    assert st.ns["_GYOK"] is False


# ------------------------------------------------------ the coroutine library


def test_the_library_of_a_state_and_its_main_coroutine():
    state = LuaState(stdout=lambda s: None)
    lib = C.CoroutineLibrary(state)
    assert C.is_main(lib.main) and lib.main.status == "running"
    assert lib.running() == (lib.main, True)
    assert set(lib.table.hash) == {"create", "resume", "yield", "status", "running", "isyieldable", "wrap", "close"}
    assert lib.table.hash["resume"] is C.resume  # one function for every state
    state.close()


def test_create_and_wrap_check_their_argument():
    state = LuaState(stdout=lambda s: None)
    lib = C.CoroutineLibrary(state)
    f, = state.execute("return function(a) coroutine.yield(a) return 'end' end")
    co = lib.create((f,))
    assert type(co) is C.Coroutine and co.state is state and co.status == "suspended"
    with pytest.raises(LuaError, match=r"bad argument #1 to 'create' \(function expected, got no value\)"):
        lib.create(())
    with pytest.raises(LuaError, match=r"bad argument #1 to 'wrap' \(function expected, got number\)"):
        lib.wrap((1,))
    wrapped = lib.wrap((f,))
    assert wrapped.__code__ is C.WRAPPED_CODE
    assert state.call(wrapped, 5) == (5,) and state.call(wrapped) == ("end",)
    state.close()


def test_the_state_free_builtins():
    state = LuaState(stdout=lambda s: None)
    main = state.G.hash["coroutine"].hash["running"]()[0]
    assert C.status(main) == "running" and not C.isyieldable() and not C.isyieldable(main)
    assert C.resume(main) == (False, "cannot resume non-suspended coroutine")
    with pytest.raises(LuaError, match="attempt to yield from outside a coroutine"):
        C.yield_(1)
    with pytest.raises(LuaError, match="cannot close a running coroutine"):
        C.close(main)
    state.close()
