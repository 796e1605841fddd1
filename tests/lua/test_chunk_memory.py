"""A compiled chunk owns what it compiled (runvil.lua.debuginfo.ChunkInfo:
its line map, call sites, generated source, twin caches), and all of it
goes with the chunk: loads in a batch, a chat or any embedding do not grow
the process. Nothing of a chunk stays in a module-level registry."""

from __future__ import annotations

import gc
import importlib
import os
import pkgutil
import tracemalloc
from types import CodeType, FunctionType

import pytest

import runvil.lua
from runvil.lua import LuaState
from runvil.lua.compiler.chunkcache import compile_lua
from runvil.lua.debuginfo import ChunkInfo, live_chunks, lua_position

#: a run: Lua's `load` of fresh chunks (with TWINS, one of them runs a
#: coroutine as a generator twin: a leaf, a numeric leaf, a yield), a twin
#: of the run's own chunk, an error with its position
PROGRAM = """
local n = 0
for i = 1, LOADS - 1 do
  local f = load('local a = ... return a + ' .. i, '=loaded')
  n = n + f(i)
end
n = n + load(not TWINS and 'return 0' or [[
  local function leaf(x) return x end
  local function add(a, b) return a + b end
  local s = 0
  for v in coroutine.wrap(function() for i = 1, 3 do coroutine.yield(add(leaf(i), 1)) end end) do s = s + v end
  return s]], '=loaded')()
for v in coroutine.wrap(function() coroutine.yield(1) end) do n = n + v end
local ok, e = pcall(function() local t; return t.x end)
assert(not ok and e:find('memory:14:', 1, true), e)
return n
"""
_compiled = []


def program():
    """PROGRAM, compiled once for the whole test session."""
    if not _compiled:
        _compiled.append(compile_lua(PROGRAM, "memory"))
    return _compiled[0]


def one_run(loads: int, twins: bool = True) -> None:
    """A run as a host makes it: a state of its own, the program compiled
    once and instantiated in it, the state closed and released."""
    st = LuaState(stdout=lambda s: None, allow_load=True)
    st.G.set_str("LOADS", loads)
    st.G.set_str("TWINS", twins)
    st.call(st.instantiate(program()))
    st.close()
    st.release()


def chunk_infos() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is ChunkInfo)


def test_loads_then_release_leave_no_chunk_behind():
    gc.collect()
    base, base_objects = live_chunks(), chunk_infos()
    st = LuaState(stdout=lambda s: None)
    st.execute("fs = {}")
    for i in range(300):  # each chunk's function kept in a global
        assert st.execute(f"fs[{i}] = function() return {i} end return fs[{i}]()", f"=c{i}") == (i,)
    assert live_chunks() == base + 300
    st.close()
    st.release()
    del st
    gc.collect()
    assert live_chunks() == base and chunk_infos() == base_objects


def test_a_chunk_lives_as_long_as_one_of_its_functions():
    gc.collect()
    base = live_chunks()
    st = LuaState(stdout=lambda s: None)
    f, = st.execute("return function(t) return t.x end", "=kept")
    st.close()
    del st
    gc.collect()
    assert live_chunks() == base + 1  # f's code holds its chunk's info
    code = f.__code__
    assert lua_position(code.co_filename, code.co_firstlineno + 1) == "kept:1"
    del f, code
    gc.collect()
    assert live_chunks() == base


def _registries():
    """(module name, attribute name, its keys) of each module-level dict or
    set of runvil.lua."""
    for info in pkgutil.walk_packages(runvil.lua.__path__, "runvil.lua."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (greenlet, ...)
            continue
        for name, value in vars(module).items():
            if type(value) in (dict, set):
                yield info.name, name, list(value)


def test_no_module_level_registry_keeps_a_chunk():
    from runvil.lua import debuginfo

    program()  # (compiled once, and kept: its own chunk is alive)
    debuginfo._FREE_NAMES.clear()  # (file names of chunks that are gone, to be used again)
    one_run(4)
    gc.collect()
    files = set(debuginfo._FREE_NAMES)  # the run's chunks' (and their twins') file names, all gone
    assert files  # (a name is used again as soon as its chunk is gone)
    chunk_names = {"loaded"}
    held = []
    for module, name, keys in _registries():
        for k in keys:
            if type(k) is CodeType and k.co_filename in files:
                held.append(f"{module}.{name}: the code {k.co_qualname} of {k.co_filename}")
            elif type(k) is FunctionType and k.__code__.co_filename in files:
                held.append(f"{module}.{name}: the function {k.__qualname__} of {k.__code__.co_filename}")
            elif type(k) is str and (k in chunk_names or k in files):
                held.append(f"{module}.{name}: {k!r}")
    assert held == []


def _statm_resident() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.tier
@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the resident size from /proc")
def test_memory_stays_flat_over_100000_loads_and_10000_runs():
    runs, loads, warm_up, every = 10_000, 10, 1_000, 1_000
    for i in range(warm_up):
        one_run(loads, i % 10 == 0)  # (a chunk's twins cost as much as 80 small loads)
    tracemalloc.start()
    objects, traced, resident = [], [], []
    try:
        for i in range(runs - warm_up + 1):
            if i % every == 0:
                gc.collect()
                objects.append(len(gc.get_objects()))
                traced.append(tracemalloc.get_traced_memory()[0])
                resident.append(_statm_resident() - tracemalloc.get_tracemalloc_memory())  # (less the tracer's)
            if i < runs - warm_up:
                one_run(loads, i % 10 == 0)
    finally:
        tracemalloc.stop()
    report = f"objects {objects}, traced {traced}, resident {resident}"
    print(report)  # (shown with -s: the numbers behind the asserts)
    half = len(objects) // 2  # (the first samples may still take a table's one-off growth)
    assert max(objects) - min(objects) < 2_000, report
    # (one string kept for each load, 60 bytes, adds 600 KB each 1,000 runs)
    assert traced[-1] - traced[half] < 250_000, report
    # The resident size moves in steps of about 2 MB as the allocators take and give back memory, so a
    # slope over a few samples would read one step as a leak. What the registries leaked was about 870
    # bytes a load: 60 MB over the 70,000 loads after the first samples. Allowed: 5 MB, 75 bytes a load.
    assert resident[-1] - min(resident[2:]) < 5_000_000, report
