"""`runvil lua --allow all --cpu off` as a drop-in `lua5.4`: programs that
use `require`, `package`, the granted libraries and Lua's error reports
the way public libraries do, each compared byte for byte with Debian's
lua5.4 5.4.4 (addresses aside); NaN as x86-64 Lua prints it, also against
lupa's Lua 5.4."""

from __future__ import annotations

from pathlib import Path

import pytest

from .luacli import comparable, lua54, runvil_lua, same_as_lua, write_tree

HERE = Path(__file__).parent / "fidelity"


def program(name: str) -> str:
    return (HERE / name).read_text(encoding="latin-1")


def tree(folder: str) -> dict[str, str]:
    root = HERE / folder
    return {str(p.relative_to(root)): p.read_text(encoding="latin-1") for p in root.rglob("*.lua")}


# ------------------------------------------------------------- require

HELPER = "local name, file = ...\nprint('loading', name, file)\nlocal M = {}\nfunction M.boom() error('boom') end\nreturn M\n"
MODULES = {
    "helper_mod.lua": HELPER,
    "bad_mod.lua": "return {x = 1\n",
    "pkgdir/init.lua": "return 'init of pkgdir', ...\n",
    "deep/er/mod.lua": "return {name = ..., file = select(2, ...)}\n",
    "nothing.lua": "x_loaded = true\n",
    "self_set.lua": "package.loaded[...] = 'set by itself'\n",
}

REQUIRE = """
local m, d = require('helper_mod')
print(m ~= nil, d, select('#', require('helper_mod')))
print(pcall(m.boom))
print(pcall(require, 'bad_mod'))
print(require('pkgdir'))
local deep = require('deep.er.mod') print(deep.name, deep.file)
print(require('nothing'), x_loaded, package.loaded.nothing)
print(require('self_set'))
print(require('math') == math, require('string') == string, package.loaded._G == _G, package.loaded.package == package)
local names = {} for k in pairs(package.loaded) do names[#names + 1] = k end table.sort(names)
print(table.concat(names, ' '))
package.preload.pre = function(...) print('preload loader', ...) return 'P' end
print(require('pre'))
print(package.searchpath('helper_mod', package.path))
print(package.searchpath('a.b', 'x/?.lua;;y/?'))
print(package.searchpath('a_b', './?.lua', '_', '/'))
print(package.config == '/\\n;\\n?\\n!\\n-\\n', #package.searchers, type(package.loadlib))
table.insert(package.searchers, 2, function(n)
  if n:match('^virtual%.') then return function(...) print('custom loader', ...) return {n} end, 'vdata' end
  return '\\n\\tno virtual module ' .. n
end)
print(require('virtual.x')[1], select(2, require('virtual.y')))
print(pcall(require))
print(pcall(require, 'nope.at.all'))
package.path = 5
print(pcall(require, 'qq'))
package.path = nil
print(pcall(require, 'qq'))
package.searchers = nil
print(pcall(require, 'zz'))
"""


def test_require_as_lua_with_every_grant(tmp_path):
    same_as_lua(tmp_path, {**MODULES, "main.lua": REQUIRE}, ["main.lua"])


def test_require_in_the_sandbox_reads_the_scripts_folder(tmp_path):
    # the folder of the script is the boundary, and the templates are relative to it
    write_tree(tmp_path / "app", {**MODULES, "main.lua": REQUIRE})
    code, out, err = runvil_lua(["app/main.lua"], tmp_path)
    lines = out.decode("latin-1").splitlines()
    assert (code, lines[0]) == (0, "loading\thelper_mod\t./helper_mod.lua"), err
    assert lines[2] == "false\t./helper_mod.lua:4: boom"
    assert "\n".join(lines[3:5]) == ("false\terror loading module 'bad_mod' from file './bad_mod.lua':\n"
                                     "\t./bad_mod.lua:2: '}' expected (to close '{' at line 1) near <eof>")
    assert "false\tmodule 'nope.at.all' not found:\n\tno field package.preload['nope.at.all']\n" \
           "\t\n\tno virtual module nope.at.all\n\tno file './nope/at/all.lua'\n\tno file './nope/at/all/init.lua'\n" \
           "\tno file './nope/at/all.so'\n\tno file './nope.so'\n" in out.decode("latin-1")
    # no io, os.exit or debug in the sandbox: package.loaded holds what is open
    assert "_G coroutine deep.er.mod helper_mod math nothing os package pkgdir self_set string table utf8\n" \
        in out.decode("latin-1")


def test_module_tree_with_init_files_and_path_edits(tmp_path):
    same_as_lua(tmp_path, tree("modtree"), ["main.lua"])


def test_a_module_error_and_its_traceback(tmp_path):
    files = {"helper_mod.lua": HELPER, "main.lua": "local m = require('helper_mod')\nm.boom()\n"}
    code, out, err = same_as_lua(tmp_path, files, ["main.lua"])
    assert code == 1 and err.startswith("LUA: ./helper_mod.lua:4: boom\nstack traceback:\n\t[C]: in function 'error'\n")


# ------------------------------------------------- granted libraries, shapes


@pytest.mark.parametrize("name", ["iolib.lua", "debuglib.lua", "mathcompat.lua", "hashing.lua", "testframework.lua",
                                  "collector.lua", "debugfunc.lua", "tracebacks.lua", "lecompat.lua", "andornames.lua"])
def test_programs_print_what_lua_prints(tmp_path, name):
    files = {name: program(name), "helper_mod.lua": HELPER}
    # in a process of their own: the collector's automatic collections walk
    # Python's whole heap (23 s in a worker that earlier tests had filled, 1 s
    # alone), and iolib.lua reads what is the process's own (its locale, its
    # environment, its standard streams), which earlier tests in it may have changed
    same_as_lua(tmp_path, files, [name], own_process=name in ("collector.lua", "iolib.lua"))


def test_getinfo_of_a_level_does_not_walk_the_heap_each_time():
    """A test framework asks debug.getinfo(level) for each level of each
    failed assertion; its `func` is found without a walk of Python's heap
    each time (that cost luassert's own suite a thousand times Lua's time)."""
    import time

    from runvil.lua.state import LuaState
    from runvil.lua.stdlib.grants import open_grants

    heap = [[i] for i in range(300_000)]
    st = LuaState()
    open_grants(st, {"debug"})
    start = time.process_time()
    st.execute("""
        local function level() return debug.getinfo(2).func end
        local function helper(x) local f = level() return f end
        for i = 1, 300 do assert(helper(i) == helper) end
        local fs = {}
        for i = 1, 300 do fs[i] = function() return debug.getinfo(1, "f").func, i end end
        for i = 1, 300 do assert(fs[i]() == fs[i]) end
    """)
    assert time.process_time() - start < 6  # (a walk of the heap at each of the 600 calls takes over 15 s)
    del heap


def test_a_cli_parser_with_arg_and_stderr(tmp_path):
    files = {"cli.lua": program("cliparser.lua")}
    same_as_lua(tmp_path, files, ["cli.lua", "-v", "--name=Lua", "-n", "2", "a.txt", "--", "-x"])
    same_as_lua(tmp_path, files, ["cli.lua", "-n", "many"])
    same_as_lua(tmp_path, files, ["cli.lua", "--bogus"])
    same_as_lua(tmp_path, files, ["cli.lua"])


def test_io_read_from_stdin(tmp_path):
    chunk = ("print(io.read('n', 'n')) print(io.read()) print(io.read('L')) print(io.read(3), io.read(0))"
             " for l in io.lines() do io.write('[', l, ']') end print(io.read('a') == '', io.read())")
    same_as_lua(tmp_path, {}, ["-e", chunk], stdin="12 3.5e1 rest\nnext line\nabcdef\nx\ny\n")


@pytest.mark.parametrize("chunk", [
    "local function f() error('boom') end f()",
    "local t = {} function t.m() local x = nil; return x.y end t.m()",
    "error({})",
    "error(setmetatable({}, {__tostring = function() return 'custom' end}))",
    "error('no position', 0)",
    "local function r(n) if n == 0 then error('deep') end return 1 + r(n - 1) end r(40)",
    "string.rep()",
    "local function f() for i = 1, 3 do local g = function() return i end\n if g() == 2 then\n"
    " error('in a loop') end end end\nfor k in pairs({1}) do\n f() end",
    "coroutine.wrap(function() error('in a coroutine') end)()",
    "local function leaf() error('deep') end local function mid() return leaf() end"
    " local function top() local r = mid() return r end top()",
])
def test_uncaught_errors_print_lua_traceback(tmp_path, chunk):
    same_as_lua(tmp_path, {}, ["-e", chunk])


def test_os_exit_status_and_close(tmp_path):
    for chunk in ("os.exit(7)", "os.exit(true)", "os.exit(false)", "io.write('x') os.exit(0, true)"):
        same_as_lua(tmp_path, {}, ["-e", chunk])


def test_a_help_line_names_the_grant_a_script_needed(tmp_path):
    code, out, err = runvil_lua(["-e", "io.write('x')"], tmp_path)
    assert code == 1
    assert err.endswith("(command line):1: in main chunk\n\t[C]: in ?\n"
                        "help: runvil lua --allow io grants Lua's io library\n")
    code, out, err = runvil_lua(["--allow", "io", "-e", "print(os.getenv('HOME'))"], tmp_path)
    assert err.splitlines()[-1].startswith("help: runvil lua --allow os grants the rest of Lua's os library")
    code, out, err = runvil_lua(["--allow", "io", "-e", "io.popen('ls')"], tmp_path)
    assert err.splitlines()[-1] == "help: runvil lua --allow process grants io.popen and os.execute"
    code, out, err = runvil_lua(["-e", "if io then print('io') else print('no io') end"], tmp_path)
    assert (code, out) == (0, b"no io\n")


def test_allow_is_checked_and_refused_in_prompts(tmp_path):
    code, out, err = runvil_lua(["--allow", "net", "-e", "print(1)"], tmp_path)
    assert (code, err) == (2, "runvil: '--allow' takes io, os, debug, base, process or all (comma-separated), "
                              "got 'net'\n")
    (tmp_path / "p.md").write_text("---\nname: p\ndescription: d\nruntime: 0\n---\n# P\n", encoding="utf-8")
    code, out, err = runvil_lua(["--allow", "io", "--prompt", "p.md"], tmp_path)
    assert (code, err) == (2, "runvil: --prompt takes no --allow: prompts never get grants\n")


def test_cpu_off_lifts_the_step_budget(tmp_path, monkeypatch):
    import runvil.host.luacmd as luacmd
    from runvil.structs import replace

    monkeypatch.setattr(luacmd, "STANDALONE_LIMITS", replace(luacmd.STANDALONE_LIMITS, steps=10_000))
    chunk = "local n = 0 for i = 1, 100000 do n = n + i % 7 end print(n)"
    code, out, err = runvil_lua(["-e", chunk], tmp_path)
    assert code == 1 and "step limit exceeded (10000 steps)" in err
    assert runvil_lua(["--cpu", "off", "-e", chunk], tmp_path) == (0, b"300000\n", "")


# ------------------------------------------------------------------- NaN


def test_nan_prints_as_x86_lua(tmp_path):
    same_as_lua(tmp_path, {"nan.lua": program("nan.lua")}, ["nan.lua"])


def test_nan_table_against_lupa():
    from lupa import lua54

    lua = lua54.LuaRuntime()
    source = program("nan.lua").replace("print(e[1], e[2]())", "out[#out + 1] = e[1] .. '\\t' .. tostring((e[2]()))")
    source = source.replace('{"io.write"', '-- {"io.write"')
    theirs = lua.execute("local out = {}\n" + source + "\nreturn table.concat(out, '\\n')")
    from runvil.lua.api import LuaState

    state = LuaState()
    ours = state.call(state.load("local out = {}\n" + source + "\nreturn table.concat(out, '\\n')"))[0]
    # lupa's Lua has no 5.3 compatibility functions, and its wheel's libm
    # gives log of a negative number a positive NaN where Debian's lua5.4 (glibc) prints -nan
    skip = ("pow(", "frexp(", "ldexp(", "cosh(", "log10(", "tanh(", "log(")
    pairs = [(a, b) for a, b in zip(theirs.split("\n"), ours.split("\n")) if not a.startswith(skip)]
    assert [a for a, b in pairs] == [b for a, b in pairs]


def test_sandbox_runs_the_nan_table_too(tmp_path):
    # no grant: io is absent, the NaNs print the same
    write_tree(tmp_path, {"nan.lua": program("nan.lua")})
    ours = comparable(runvil_lua(["nan.lua"], tmp_path))
    theirs = comparable(lua54(["nan.lua"], tmp_path))
    assert ours[1].replace("io.write\tnil", "") == theirs[1].replace("-nan nan\nio.write\t", "")


def test_a_shell_command_runs_as_c_runs_it_named_sh(tmp_path):
    """os.execute and io.popen run /bin/sh as system() and popen() do,
    named `sh`: the shell's own errors read `sh: 1: ...` on stderr, as
    under lua5.4 (Penlight's tests run a missing command)."""
    program = """
print(os.execute("runvil-no-such-command-1"))
local p = io.popen("runvil-no-such-command-2; echo out")
print(p:read("a"), p:close())
"""
    code, out, err = same_as_lua(tmp_path, {"sh.lua": program}, ["sh.lua"], own_process=True)
    assert "sh: 1: runvil-no-such-command-1: not found" in err.splitlines()


def test_an_error_in_a_message_handler_calls_it_again_as_lua_does(tmp_path):
    """Lua calls xpcall's message handler again for each error it raises
    itself, with that error's value, until one call returns (its value is
    xpcall's) or the C stack is spent ("error in error handling")."""
    program = """
local n = 0
print(xpcall(function() error("boom") end, function(m) n = n + 1; error("again " .. n) end))
print(n)
local k = 0
print(xpcall(function() error("boom") end,
  function(m) k = k + 1; if k < 3 then error("h" .. k) end return "handled " .. tostring(m) end))
print(k)
print(xpcall(function() local x = nil; return x.y end, function(m) return m .. "!" end))
print(select('#', xpcall(error, function() end)))
"""
    same_as_lua(tmp_path, {"handler.lua": program}, ["handler.lua"])
