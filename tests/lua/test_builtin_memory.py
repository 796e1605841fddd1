"""Every builtin that builds a result reserves it first (issue 26, item 3):
each builtin of a fresh state, called with large arguments under a small
memory limit, either builds nothing large or stops with `memory limit
exceeded`. A builtin that hands back a large new string or table (or
grows a table it was given) without meeting the limit fails the test.

The builtins are those the audit walks (`_G`, every library table, and the
iterators and wrappers builtins return), so one added later is checked
without a change here; the Engine's own library (`json`) is walked too.
The argument lists are every list of up to two values, every list of three
of the larger set below, and every list of four and five of a table's own
arguments (`table.move(t, 1, #t, 1, {})`).
"""

from __future__ import annotations

import itertools
import tracemalloc

import pytest

from runvil.lua import Limits, LuaState
from runvil.lua.runtime import calls as LC
from runvil.lua.runtime import values as V
from runvil.lua.runtime.tables import LuaTable
from runvil.lua.stdlib.limits import resident_memory

from .test_builtin_audit import LEFT_OUT, builtins_of

#: the memory limit of the state: also the longest string one operation may build
LIMIT = 128 * 1024
#: a result this large, built without the limit being met, is a failure
BIG = 2 * LIMIT
#: the large values: a string of 1 MiB, a table of 2^17 items (1 MiB of slots)
BIG_STRING = "a" * (1 << 20)
ITEMS = 1 << 17
#: large JSON texts (for `json.decode`): a string, a list of numbers
BIG_JSON = ('"' + "a" * (1 << 20) + '"', "[" + "1," * (1 << 19) + "1]")


#: the sizes of the lines `print` handed to the host, since the last call
PRINTED: list[int] = []


def make_state(json: bool = False) -> LuaState:
    state = LuaState(allow_load=True, stdout=lambda text: PRINTED.append(len(text)),
                     limits=Limits(steps=5_000_000, memory=LIMIT, cpu_seconds=30))
    if json:  # the Engine's own library, as every section VM has it
        from runvil.engine.luajson import open_json

        open_json(state)
    return state


class Values:
    """The arguments: large ones, the small ones that make builtins use
    them (counts, positions, formats, patterns), and a fresh empty table
    per call (a destination that may grow)."""

    def __init__(self, state: LuaState, json: bool = False):
        self.json = BIG_JSON if json else ()
        self.table = LuaTable()
        self.restore()
        self.fn = state.execute("return function(...) return ... end")[0]

    def restore(self) -> None:
        """The large table as it was (a builtin may have sorted, grown or
        shrunk it, or given it a metatable)."""
        t = self.table
        if len(t.arr) != ITEMS or t.hash or t.meta is not None:
            t.arr[:] = ["a"] * ITEMS
            t.hash.clear()
            t.meta = None

    def lists(self) -> list[tuple]:
        E = LuaTable  # a fresh table per call: made when the call is (see `fresh`)
        S, T = BIG_STRING, self.table
        pairs = [S, T, E, self.fn, None, True, 0, 1, -1, 2, ITEMS, 1 << 20,
                 "", "x", "%s", ".", "(.)", "%0", "%1", "c1048000", *self.json]
        triples = [S, T, E, self.fn, 1, -1, ITEMS, 1 << 20, "x", "%s", "%0"]
        tails = [T, E, 1, ITEMS]
        lists = [()]
        for n, values in ((1, pairs), (2, pairs), (3, triples), (4, tails), (5, tails)):
            lists += itertools.product(values, repeat=n)
        return lists


def fresh(args: tuple) -> tuple:
    return tuple(LuaTable() if a is LuaTable else a for a in args)


def size(v) -> int:
    """Bytes a value takes, roughly: a string's length, 8 a table slot."""
    if type(v) is str:
        return len(v)
    if type(v) is LuaTable:
        return 8 * (len(v.arr) + len(v.hash))
    return 0


def built(args: tuple, results: tuple, big_table: LuaTable) -> int:
    """What a call built: a slot per result, its results that are not its
    arguments, what the fresh tables it was given grew to, and the lines
    it printed (a copy the host keeps)."""
    given = {id(a) for a in args}
    made = 8 * len(results) + sum(size(r) for r in results if id(r) not in given) + sum(PRINTED)
    return made + sum(size(a) for a in args if type(a) is LuaTable and a is not big_table)


#: builtins whose second argument is a pattern: a pattern of a megabyte
#: costs a minute to compile, a matter of CPU time, not of memory
PATTERNS = {"string.match", "string.gmatch", "string.gsub"}


def check(name: str, f, state: LuaState, values: Values) -> list[str]:
    """Calls f with each list under pcall; returns the calls that built a
    large result and met no limit."""
    pcall = state.G.get("pcall")
    budget = state.memory_budget
    problems = []
    traced = set()
    for shape in values.lists():
        if name in PATTERNS and len(shape) > 1 and shape[1] is BIG_STRING:
            continue
        for attempt in (1, 2):
            args = fresh(shape)
            PRINTED.clear()
            state.reset_limits()
            r = LC.calln(pcall, f, *args)
            values.restore()
            if r[0] is False:
                message = r[1] if type(r[1]) is str else ""
                if attempt == 1 and f"memory limit exceeded ({LIMIT} bytes)" in message:
                    budget.base = resident_memory()  # the process grew: the budget from here, once more
                    continue
                if "memory limit exceeded" in message and kinds(shape) not in traced:
                    traced.add(kinds(shape))  # (once per kind of arguments: tracing is slow)
                    peak = traced_peak(pcall, f, shape, state, values)
                    if peak > BIG:
                        problems.append(f"{name}{show(shape)} took {peak} bytes before meeting the memory limit")
                break
            n = built(args, tuple(r[1:]), values.table)
            if n > BIG:
                problems.append(f"{name}{show(shape)} built {n} bytes without meeting the memory limit")
            break
    return problems


def kinds(shape: tuple) -> tuple:
    """The kinds of a list's values: the large ones by name, the others by type."""
    return tuple("S" if a is BIG_STRING else "E" if a is LuaTable else "J" if a in BIG_JSON else type(a).__name__
                 for a in shape)


def traced_peak(pcall, f, shape: tuple, state: LuaState, values: Values) -> int:
    """The most memory a call that met the limit took (tracemalloc's peak):
    a builtin reserves before it builds, so it stopped before it took much."""
    args = fresh(shape)
    state.reset_limits()
    tracemalloc.start()
    try:
        LC.calln(pcall, f, *args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        values.restore()


def show(args) -> str:
    return "(" + ", ".join("{}" if a is LuaTable else repr(a)[:12] for a in args) + ")"


def checked(name: str, json: bool = False) -> list[str]:
    state = make_state(json)
    values = Values(state, json)
    f = dict(builtins_of(state))[name]
    problems = []

    def run(*_args):
        problems.extend(check(name, f, state, values))
        return V.EMPTY

    state.call(run)
    return problems


def names(json: bool = False) -> list[str]:
    found = [n for n, _ in builtins_of(make_state(json)) if n not in LEFT_OUT]
    return [n for n in found if n.startswith("json.")] if json else found


@pytest.mark.parametrize("name", names())
def test_builtin_reserves_what_it_builds(name):
    problems = checked(name)
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("name", names(json=True))
def test_json_builtin_reserves_what_it_builds(name):
    problems = checked(name, json=True)
    assert not problems, "\n".join(problems[:10])


def test_the_walk_finds_every_library():
    found = names()
    for lib in ("string.", "table.", "math.", "utf8.", "os.", "coroutine."):
        assert sum(n.startswith(lib) for n in found) >= 3, lib
    assert {"json.encode", "json.decode"} <= set(names(json=True))
    assert len(Values(make_state()).lists()) > 2000
