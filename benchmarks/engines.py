"""Engine adapters: how each implementation loads a benchmark program.

Every loader takes the Lua (or Python) source text, does all the loading and
compiling, and returns a Python callable `bench(n)` whose call is what gets
timed.  These run inside the per-benchmark child process (benchmarks.child),
never in the parent.

The runvil adapter is the one small function `load_runvil` below (and its
convenience wrapper `run_runvil(source, n)`): adjust it when runvil's public
API changes.  An ImportError from it makes the runvil column show `n/a`.
"""

from __future__ import annotations

import sys


# ----------------------------------------------------------------- runvil
def load_runvil(source: str):
    """Compiles and runs the chunk (defining global `bench`), returns bench."""
    from runvil.lua import LuaState  # ImportError -> the column shows n/a

    try:
        st = LuaState()
    except ModuleNotFoundError as e:  # while runvil's stdlib is being written
        if "runvil.lua.stdlib." not in str(e):
            raise
        st = LuaState(libs=_runvil_available_libs())
    if "debug.traceback" in source:  # a test framework's message handler, as under `runvil lua --allow debug`
        from runvil.lua.api import open_grants

        open_grants(st, {"debug"})
    st.execute(source, "=bench")
    fn = st.G.get("bench")

    def bench(n):
        results = st.call(fn, n)  # a tuple of all the results
        return results[0] if results else None

    return bench


def _runvil_available_libs() -> tuple:
    """The standard libraries runvil has so far (a stop-gap: a benchmark that
    needs a missing one fails with `error`)."""
    import importlib

    from runvil.lua.stdlib import LIBRARIES

    have = []
    for name in LIBRARIES:
        try:
            importlib.import_module(f"runvil.lua.stdlib.{name}")
        except ModuleNotFoundError:
            continue
        have.append(name)
    missing = [x for x in LIBRARIES if x not in have]
    if missing:
        print(f"runvil: stdlib lacks {', '.join(missing)}", file=sys.stderr)
    return tuple(have)


def explain_runvil(source: str) -> str:
    """Which library functions used by `source` runvil does not have yet."""
    from runvil.lua import LuaState, LuaTable

    try:
        st = LuaState()
    except ModuleNotFoundError:
        st = LuaState(libs=_runvil_available_libs())
    missing = []
    for lib, fn in _used_library_functions(source):
        t = st.G.get(lib)
        if not isinstance(t, LuaTable) or t.get(fn) is None:
            missing.append(f"{lib}.{fn}")
    return f"runvil lacks {', '.join(missing)}" if missing else ""


def run_runvil(source: str, n):
    """One-shot form of the adapter: load the program, call bench(n)."""
    return load_runvil(source)(n)


def parser_runvil():
    from runvil.lua.syntax.parser import parse

    return lambda source: parse(source, "bench")


#: parsed once while loading, untimed, so lazily built tables are ready
WARMUP_SOURCE = "local t = {1, 'a', x = 2.5}\nfor i = 1, #t do print(t[i]) end\n"


def probe_runvil() -> str | None:
    """None if runvil can run Lua code, else the reason it cannot."""
    try:
        from runvil.lua import LuaState

        st = LuaState()
        st.execute("return 1", "probe")
    except Exception as e:  # noqa: BLE001 - any failure means "not ready"
        return f"{type(e).__name__}: {e}"
    return None


# ----------------------------------------------------------------- plain Python
def load_python(source: str):
    ns: dict = {"__name__": "bench_program"}
    exec(compile(source, "bench.py", "exec"), ns)
    return ns["bench"]


# ----------------------------------------------------------------- lupa (C Lua 5.4)
_lupa_runtime = None


def _lupa():
    global _lupa_runtime
    if _lupa_runtime is None:
        from lupa import lua54

        _lupa_runtime = lua54.LuaRuntime(unpack_returned_tuples=True)
    return _lupa_runtime


def load_lupa(source: str):
    rt = _lupa()
    chunk = rt.compile(source)
    chunk()
    return rt.globals().bench


def parser_lupa():
    # load() = parse + compile to bytecode, without running the chunk
    return _lupa().compile


# ----------------------------------------------------------------- abstra-lua
def _abstra_session():
    from abstra_lua import LuaSession

    # The sandbox limits would stop the benchmarks: lift them.
    return LuaSession(max_instructions=10**18, max_call_depth=10**6,
                      max_output_bytes=10**9)


def load_abstra(source: str):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    session = _abstra_session()
    session.execute(source)
    fn = session.get("bench")
    if fn is None:
        raise RuntimeError("abstra-lua: the program did not define bench")
    return fn


def parser_abstra():
    from abstra_lua.parser import Parser

    return lambda source: Parser(source).parse()


def _used_library_functions(source: str) -> list[tuple[str, str]]:
    import re

    return sorted(set(re.findall(
        r"\b(coroutine|string|table|math|utf8|os|io|debug)\.([A-Za-z_]\w*)", source)))


def explain_abstra(source: str) -> str:
    """Which library functions used by `source` abstra-lua does not have."""
    session = _abstra_session()
    missing = []
    for lib, fn in _used_library_functions(source):
        try:
            ok = session.eval(f"type({lib}) == 'table' and {lib}.{fn} ~= nil")
        except Exception:  # noqa: BLE001
            ok = False
        if not ok:
            missing.append(f"{lib}.{fn}")
    return f"abstra-lua lacks {', '.join(missing)}" if missing else ""


# ----------------------------------------------------------------- luaparser
def parser_luaparser():
    from luaparser import ast

    return ast.parse


#: engine name -> loader for the micro-benchmarks (lua5.4 is run by the parent
#: as a separate binary with benchmarks/lua_driver.lua)
LOADERS = {
    "runvil": load_runvil,
    "python": load_python,
    "lupa": load_lupa,
    "abstra-lua": load_abstra,
}

#: engine name -> factory (does the imports) returning parse(source)
PARSERS = {
    "runvil": parser_runvil,
    "luaparser": parser_luaparser,
    "abstra-lua": parser_abstra,
    "lupa": parser_lupa,
}

#: engine name -> explain(source) -> str, called when a benchmark fails
EXPLAIN = {
    "runvil": explain_runvil,
    "abstra-lua": explain_abstra,
}
