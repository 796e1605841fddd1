"""A builtin whose work grows with its input checks the limits as it goes:
one call on a large input (gsub with an empty pattern on 16 MB, utf8.len
on 300 MB, `load` of a chunk of megabytes) stops with the CPU limit's
error inside the call, not seconds past it. The step countdown brings
the state's check (runvil.lua.state `_tick`), and such work charges its
steps a piece at a time (runvil.lua.runtime.pieces).

The quick tests take the main builtins on smaller inputs under a small CPU
limit; the slow tier walks every builtin of the sandbox (and the Engine's
json) with a large input under a 1 s limit. A tail-call loop is charged
like the calls it makes."""

from __future__ import annotations

import time

import pytest

from runvil.lua import LimitExceeded, Limits, LuaState

from .test_builtin_audit import builtins_of


def state_with(setup: str, cpu: float, json: bool = False) -> LuaState:
    """A state whose globals `setup` made without limits, then limited to
    `cpu` seconds of CPU a call (no step or memory limit: only the CPU
    time can stop it)."""
    st = LuaState(limits=Limits(cpu_seconds=None, steps=None, memory=None), allow_load=True,
                  stdout=lambda text: None)
    if json:
        from runvil.engine.luajson import open_json

        open_json(st)
    st.execute(setup)
    st.limits = Limits(cpu_seconds=cpu, steps=None, memory=None)
    return st


def cpu_stop(st: LuaState, code: str) -> float:
    """The CPU seconds `code` ran before it stopped with the CPU limit's error."""
    cpu = st.limits.cpu_seconds
    start = time.process_time()
    with pytest.raises(LimitExceeded, match=rf"CPU time limit exceeded \({cpu:g} s\)"):
        st.execute(code)
    return time.process_time() - start


# ------------------------------------------------------------------ quick

QUICK = {
    # (setup, one call): each runs for seconds without a check inside it
    "gsub with an empty pattern": ("S = string.rep('a', 1 << 20)", "local r = S:gsub('', 'x')"),
    "gsub with a table": ("S = string.rep('a', 1 << 22)", "local r = S:gsub('.', {a = ''})"),
    "utf8.len": ("U = string.rep('\\u{e9}', 1 << 21)", "local n = utf8.len(U)"),
    "upper of non-ASCII": ("U = string.rep('\\u{e9}', 1 << 23)", "local u = U:upper()"),
    "tonumber with a base": ("D = string.rep('7', 1 << 22)", "local n = tonumber(D, 8)"),
    "load of a big chunk": ("CH = string.rep('x = 1 + 2\\n', 40000)", "local f = load(CH)"),
}


@pytest.mark.parametrize("name", list(QUICK))
def test_a_long_builtin_call_stops_on_the_cpu_limit_inside_the_call(name):
    setup, call = QUICK[name]
    st = state_with(setup, 0.2)
    took = cpu_stop(st, f"{call} done = true")
    assert st.get_global("done") is None  # stopped inside the call
    # a chunk's last stage, CPython's compile, is one call nothing stops:
    # its few seconds of a loaded machine come on top (DECISIONS, "load")
    assert took < 0.2 + (3 if name == "load of a big chunk" else 1), took


@pytest.mark.parametrize("call", ["local s = string.rep('ab', 1 << 23)", "local s = table.concat(T)"])
def test_a_loop_of_long_copies_stops_on_the_cpu_limit(call):
    st = state_with("T = {} for i = 1, 1 << 19 do T[i] = 'ab' end", 0.2)
    assert cpu_stop(st, f"while true do {call} end") < 0.2 + 1


def test_load_of_a_big_chunk_is_refused_by_the_step_and_memory_limits_before_compiling():
    chunk = "x = 1 + 2\n" * 400_000  # 4 MB: compiling it took 2.3 GB and most of a minute
    for limits, text in ((Limits(), "step limit exceeded"),
                         (Limits(steps=None), "memory limit exceeded")):
        st = LuaState(limits=limits, allow_load=True)
        st.set_global("CH", chunk)
        start = time.process_time()
        with pytest.raises(LimitExceeded, match=text):
            st.execute("local f = load(CH)")
        assert time.process_time() - start < 0.5


def test_a_short_chunk_loads_as_before():
    st = LuaState(limits=Limits(steps=100_000), allow_load=True)
    assert st.execute("return load(string.rep('x = 1\\n', 500) .. 'return x')()") == (1,)
    assert st.execute("return load('return ...', 'c', 't', nil)(7)") == (7,)


def test_gsub_on_a_long_subject_is_unchanged_by_its_pieces(monkeypatch):
    # a subject longer than re.subn may take at once is replaced in counted
    # pieces (that length lowered here from 16 MB, so the test takes no 30 s)
    from runvil.lua.runtime import pieces

    monkeypatch.setattr(pieces, "SUBN_AT_ONCE", 1 << 16)
    st = LuaState(limits=Limits(steps=None, cpu_seconds=None, memory=None))
    r = st.execute("local s = string.rep('ab', 3 * 2^15) local r, n = s:gsub('a', 'x\\\\%%')"
                   " return #r, n, r == string.rep('x\\\\%b', 3 * 2^15), select(2, s:gsub('', '-'))")
    assert r == (4 * 3 * 2**15, 3 * 2**15, True, 6 * 2**15 + 1)


def test_a_tail_call_loop_is_charged_like_its_calls():
    # before: about 7 steps an iteration against a while loop's 4, so it ran
    # on past the time the step limit stands for and met the CPU limit instead
    def iterations(code: str) -> int:
        st = LuaState(limits=Limits(steps=1_000_000, cpu_seconds=None))
        with pytest.raises(LimitExceeded, match="step limit exceeded"):
            st.execute(code)
        return st.get_global("i")

    tail = iterations("i = 0 local function f(n) i = i + 1 if n > 0 then return f(n - 1) end end f(1e12)")
    plain = iterations("i = 0 local n = 1e12 while n > 0 do i = i + 1 n = n - 1 end")
    assert 2 * tail <= plain  # (each iteration is a call: charged at least twice a while loop's)


# ---------------------------------------------------------------- the walk

#: the large inputs: 64 MB of ASCII, 64 MB of two-byte UTF-8, 4M-item lists,
#: a 2 MB chunk, the JSON text of a 4M-item list
SETUP = """
S = string.rep('a', 64 * 2^20) U = string.rep('\\u{e9}', 32 * 2^20) D = string.rep('7', 16 * 2^20)
T = {} TN = {} for i = 1, 4 * 2^20 do T[i] = 'ab' TN[i] = i % 250 end
CH = string.rep('x = 1 + 2\\n', 200000) J = json.encode(T) F = string.rep('%Y', 4 * 2^20)
"""

#: a call with a large input per builtin whose work grows with its input
CALLS = {
    "string.byte": "S:byte(1, 999000)", "string.char": "string.char(table.unpack(TN, 1, 999000))",
    "string.find": "S:find('.-b')", "string.format": "string.format('%q', S)",
    "string.gmatch": "(function() for w in S:gmatch('a') do end end)()", "gmatch iterator": "S:gmatch('.-b')()",
    "string.gsub": "S:gsub('', 'x')", "string.lower": "U:lower()", "string.match": "S:match('(.-)b')",
    "string.pack": "string.pack('z', S)", "string.rep": "string.rep(S, 4)", "string.reverse": "S:reverse()",
    "string.sub": "S:sub(2, -2)", "string.unpack": "string.unpack('z', S .. '\\0')", "string.upper": "U:upper()",
    "table.concat": "table.concat(T)", "table.insert": "table.insert(TN, 1, 0)",
    "table.move": "table.move(TN, 1, #TN, 2)", "table.pack": "table.pack(table.unpack(T, 1, 999000))",
    "table.remove": "table.remove(TN, 1)", "table.sort": "table.sort(TN, function(a, b) return a > b end)",
    "table.unpack": "table.unpack(TN, 1, 999000)",
    "utf8.char": "utf8.char(table.unpack(TN, 1, 999000))", "utf8.codepoint": "utf8.codepoint(U, 1, 999000)",
    "utf8.codes": "(function() for p, c in utf8.codes(U) do end end)()", "utf8.len": "utf8.len(U)",
    "utf8.offset": "utf8.offset(U, -20000000)",
    "load": "load(CH)", "print": "print(S)", "select": "select(2, table.unpack(T, 1, 999000))",
    "tonumber": "tonumber(D, 8)", "tostring": "tostring(S .. 'x')",
    "math.max": "math.max(table.unpack(TN, 1, 999000))", "math.min": "math.min(table.unpack(TN, 1, 999000))",
    "os.date": "os.date(F)", "json.encode": "json.encode(T)", "json.decode": "json.decode(J)",
}  # fmt: skip

#: builtins whose work does not grow with their input (or is another
#: function's: pcall, xpcall, coroutine.resume run what they are given)
CONSTANT = {
    "assert", "error", "getmetatable", "setmetatable", "ipairs", "next", "pairs", "pcall", "xpcall", "rawequal",
    "rawget", "rawset", "rawlen", "type", "string.len", "string.packsize", "table.sort natively",
    "coroutine.close", "coroutine.create", "coroutine.isyieldable", "coroutine.resume", "coroutine.running",
    "coroutine.status", "coroutine.wrap", "coroutine.yield", "wrap function", "ipairs iterator",
    "pairs iterator", "os.clock", "os.time", "json.array",
    "math.abs", "math.acos", "math.asin", "math.atan", "math.ceil", "math.cos", "math.deg", "math.exp",
    "math.floor", "math.fmod", "math.log", "math.modf", "math.rad", "math.random", "math.randomseed",
    "math.sin", "math.sqrt", "math.tan", "math.tointeger", "math.type", "math.ult",
    "math.pow", "math.ldexp", "math.frexp", "math.cosh", "math.sinh", "math.tanh", "math.log10",
}  # fmt: skip


def walked_state() -> LuaState:
    return state_with(SETUP, 1.0, json=True)


def test_the_walk_covers_every_builtin():
    from runvil.engine.luajson import open_json

    st = LuaState(allow_load=True)
    open_json(st)
    missing = {name for name, _ in builtins_of(st)} - set(CALLS) - CONSTANT
    assert not missing, f"say how each grows with its input: {sorted(missing)}"


@pytest.fixture(scope="module")
def walked():
    return walked_state()


@pytest.mark.tier
@pytest.mark.parametrize("name", list(CALLS))
def test_every_builtin_stops_on_the_cpu_limit_within_two_seconds(name, walked):
    # most of the second is spent first; the call then runs past the limit,
    # and must stop inside (or be done within half a second: a copy at C speed)
    code = (f"done, took = nil, nil local t0 = os.clock() repeat until os.clock() - t0 > 0.8\n"
            f"local t1 = os.clock() local r = {CALLS[name]} took = os.clock() - t1 done = true\n"
            f"while true do end")
    took = cpu_stop(walked, code)
    assert took < 2, f"{name}: {took:.2f} s of CPU"
    if walked.get_global("done"):
        assert walked.get_global("took") < 0.5, f"{name}: one call of {walked.get_global('took'):.2f} s"
