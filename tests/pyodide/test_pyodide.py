"""runvil on Pyodide, for real (docs/DECISIONS.md "The browser"): the
pinned `pyodide` npm package, run by Node (run_pyodide.mjs), loads
runvil's wheel (built here by pip) and the pure-Python wheels of the
dependencies declared for `sys_platform == "emscripten"` (from this
environment, native files dropped), and runs through
`runvil.host.cli.main`: a Lua chunk with coroutines of every shape,
`examples/hello.md`, the conformance suite, and infinite recursion.

Opt-in (tier.py): RUNVIL_PYODIDE=1 runs it. The conformance suite's time
under Pyodide and under CPython is printed and appended to
`times.log` in the cache folder.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runvil.host.playground.pins import PYODIDE_ENV, PYODIDE_VERSION
from runvil.host.playground.wheels import NATIVE_SUFFIXES, dependency_wheel, needed

from ..lua.deep_callbacks import KINDS, LUA_SAYS, chunk
from ..lua.deep_callbacks import outcome as deep_outcome
from .tier import HERE, ROOT, cache_folder, pyodide_folder, skip_unless_enabled

CHUNK = (HERE / "coroutines.lua").read_text(encoding="utf-8")
# what Lua 5.4 prints for coroutines.lua (test_the_expected_output_is_lua_s checks it against lupa)
CHUNK_OUT = """pcall true 42
meta 105
iter 10
iter 20
iter 30
sort false attempt to yield across a C-call boundary
sorted 3,2,1
nested inner deep!
done true end after 2 resumes
"""
#: `runvil check examples/hello.md`: its summary line, status 0
CHECKED = (0, "ok: 1 file, 0 warnings\n", "")
RECURSION = "local function f(n) return 1 + f(n + 1) end "
#: the %%runvil magic's core (JupyterLite's own bundle is out of reach here)
NOTEBOOK_CELL = """
from runvil.host.notebook import run_cell
cell = open("/work/examples/hello.md", encoding="utf-8").read()
ran = run_cell("--input q", cell, {"q": "from a variable"})
print(ran.ok, ran.result, "<html" in ran.page.lower())
"""
RUNS = {
    "version": ["--version"],
    "check": ["check", "examples/hello.md"],
    "coroutines": ["lua", "-e", CHUNK],
    "hello": ["run", "examples/hello.md"],
    "conformance": ["conformance"],
    "yields": ["lua", "/repo/tests/lua/programs/yield_in_callbacks.lua"],
    "notebook": ["@python", NOTEBOOK_CELL],
    # late: a crash of the interpreter would spoil the runs after it
    **{f"deep {kind}": ["lua", "-e", chunk(kind)] for kind in KINDS},
    "recursion-pcall": ["lua", "-e", RECURSION + "print(pcall(f, 1))"],
    "recursion": ["lua", "-e", RECURSION + "f(1)"],
}


def build_wheels(folder: Path) -> list[Path]:
    """runvil's wheel as pip builds it from the repository, then the
    dependencies' pure wheels."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(ROOT)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [runvil] = folder.glob("runvil-*.whl")
    return [runvil, *(dependency_wheel(d, folder) for d in needed(PYODIDE_ENV))]


@pytest.fixture(scope="module")
def pyodide_runs(tmp_path_factory):
    """Every run of RUNS in one Pyodide: name -> its JSON line."""
    skip_unless_enabled()
    pyodide = pyodide_folder()
    wheels = build_wheels(tmp_path_factory.mktemp("wheels"))
    config = tmp_path_factory.mktemp("config") / "config.json"
    config.write_text(json.dumps({"pyodide": str(pyodide), "wheels": [str(w) for w in wheels], "repo": str(ROOT),
                                  "runs": list(RUNS.values())}))
    done = subprocess.run(["node", str(HERE / "run_pyodide.mjs"), str(config)], capture_output=True, text=True,
                          timeout=3600)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, f"node ended with status {done.returncode}:\n{done.stderr[-3000:]}"
    where, *results = lines
    return {"runvil": where["runvil"], "wheels": wheels,
            **{name: (results[i] if i < len(results) else {"crash": done.stderr[-3000:]})
               for i, name in enumerate(RUNS)}}


def outcome(line: dict) -> tuple:
    assert "crash" not in line, line["crash"]
    return line["code"], line["stdout"], line["stderr"]


def test_runvil_comes_from_the_wheel_and_the_wheels_are_pure(pyodide_runs):
    assert "/site-packages/runvil/" in pyodide_runs["runvil"]
    names = {w.name.split("-")[0].lower() for w in pyodide_runs["wheels"]}
    assert {"runvil", "lark", "attrs", "pyyaml", "httpx", "rich"} <= names
    assert not names & {"greenlet", "inscriptis", "lxml"}
    import zipfile

    for wheel in pyodide_runs["wheels"]:
        assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(NATIVE_SUFFIXES)], wheel.name
    shipped = zipfile.ZipFile(pyodide_runs["wheels"][0]).namelist()  # the package data pyproject.toml declares
    for asset in ("index.html", "playground.js", "worker.js", "playground.css", "examples.json"):
        assert f"runvil/host/playground/site/{asset}" in shipped, asset
    assert "runvil/_grammar/lua.lark" in shipped


def test_the_version_and_a_check(pyodide_runs):
    from runvil import __version__

    assert outcome(pyodide_runs["version"]) == (0, f"runvil {__version__}\n", "")
    assert outcome(pyodide_runs["check"]) == CHECKED


def test_a_lua_chunk_with_coroutines_of_every_shape(pyodide_runs):
    assert outcome(pyodide_runs["coroutines"]) == (0, CHUNK_OUT, "")


def test_the_expected_output_is_lua_s():
    """CHUNK_OUT is what real Lua 5.4 prints (lupa) and what runvil prints
    on CPython."""
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    printed = []
    lua.globals().print = lambda *values: printed.append("\t".join(str(v) for v in values))
    lua.execute(CHUNK)
    assert printed[0] + "\n" == CHUNK_OUT


def test_hello(pyodide_runs):
    assert outcome(pyodide_runs["hello"]) == (
        0, "echo: hello\n", "runvil: no config: every model role runs on the offline echo model\n")


def test_the_notebook_magic_runs_a_cell(pyodide_runs):
    assert outcome(pyodide_runs["notebook"]) == (0, "True echo: hello True\n", "")


def test_infinite_recursion_is_lua_s_stack_overflow(pyodide_runs):
    """Caught, Lua's message; uncaught, what runvil prints on CPython (the
    message, then its stack traceback)."""
    assert outcome(pyodide_runs["recursion-pcall"]) == (0, "false\t(command line):1: stack overflow\n", "")
    argv = [sys.executable, "-c", "import sys; from runvil.host.cli import main; sys.exit(main(sys.argv[1:]))",
            *RUNS["recursion"]]
    native = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert native.stderr.startswith("runvil: (command line):1: stack overflow\n")
    assert outcome(pyodide_runs["recursion"]) == (1, "", native.stderr)


def test_yields_inside_callbacks_go_through_or_fail_as_in_lua(pyodide_runs):
    expected = (ROOT / "tests/lua/programs/expected/yield_in_callbacks.out").read_text(encoding="utf-8")
    assert outcome(pyodide_runs["yields"]) == (0, expected, "")


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_runaway_inside_a_callback_ends_in_lua_s_error_and_the_interpreter_lives(pyodide_runs, kind):
    """WebAssembly's stack is small: Lua run directly by a builtin or an
    operator once ran past the recursion limit there and crashed Pyodide
    (`RangeError: Maximum call stack size exceeded`). The runs after this
    one show that the interpreter lives on."""
    code, out, err = outcome(pyodide_runs[f"deep {kind}"])
    first, depth, last = deep_outcome(out)
    assert (code, first, last, err) == (0, LUA_SAYS[kind], "alive", "")
    assert depth > 1000
    print(f"Pyodide: a runaway inside {kind} stopped {depth} deep")


def test_the_conformance_suite_passes(pyodide_runs):
    code, out, err = outcome(pyodide_runs["conformance"])
    last = out.strip().splitlines()[-1] if out.strip() else ""
    cpython, cpython_last = cpython_conformance()
    assert (code, last) == (0, cpython_last), last + "\n" + err[-2000:]
    assert last.endswith(" passed, 0 failed")
    seconds = pyodide_runs["conformance"]["seconds"]
    line = (f"{time.strftime('%Y-%m-%d %H:%M')} conformance ({last}): Pyodide {PYODIDE_VERSION} {seconds:.1f} s, "
            f"CPython {sys.version.split()[0]} {cpython:.1f} s ({seconds / cpython:.1f}x)")
    print(line)
    with open(cache_folder() / "times.log", "a", encoding="utf-8") as f:
        f.write(line + "\n")


def cpython_conformance() -> tuple[float, str]:
    """The same suite on this CPython, timed the same way (inside the
    process, start-up excluded): its seconds and its closing line."""
    code = ("import contextlib, io, time; from runvil.host.cli import main\n"
            "t = time.perf_counter(); out = io.StringIO()\n"
            "with contextlib.redirect_stdout(out): main(['conformance', '-j', '1'])\n"
            "print(time.perf_counter() - t); print(out.getvalue().strip().splitlines()[-1])")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=900)
    seconds, last = done.stdout.strip().splitlines()[-2:]
    return float(seconds), last
