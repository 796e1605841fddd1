"""`runvil-lua`, and `arg`'s negative indices as a command a Lua program
can run: lua.c puts the interpreter at the lowest index and the options
before the script between it and 0; runvil puts its `runvil-lua` there,
so a child started from those words (quoted, as Penlight's `app.lua()`
and its tests do, or not) runs with the same grants. Real processes."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: a program's view of arg, and a child run from arg's negative indices the
#: way Penlight's utils.quote_arg quotes each word for a POSIX shell
PARENT = r"""
local function quote(s)
  if s == '' or s:find('[^%w_@%+=:,./-]') then return "'" .. s:gsub("'", "'\\''") .. "'" end
  return s
end
local low = 0
while arg[low - 1] do low = low - 1 end
local words = {}
for i = low, -1 do words[#words + 1] = quote(arg[i]) end
print('below 0:', #words, 'options:', table.concat(arg, ' ', low + 1, -1))
local p = io.popen(table.concat(words, ' ') .. ' child.lua one', 'r')
io.write(p:read('a'))
print('child closed:', (p:close()))
local bare = io.popen(quote(arg[low]) .. ' child.lua two', 'r')
io.write(bare:read('a'))
bare:close()
"""

CHILD = "print('child', ..., io ~= nil, os.getenv ~= nil, arg[-1], arg[0])\n"


def launcher(folder: Path) -> Path:
    """`runvil-lua` as an installer writes it: this Python running
    luacmd.console_main."""
    folder.mkdir()
    script = folder / "runvil-lua"
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom runvil.host.luacmd import console_main\n"
                      "sys.exit(console_main())\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def run(command: list, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell quoting")
def test_runvil_lua_names_itself_and_a_child_keeps_the_grants(tmp_path):
    script = launcher(tmp_path / "bin")
    (tmp_path / "parent.lua").write_text(PARENT)
    (tmp_path / "child.lua").write_text(CHILD)
    p = run([str(script), "--allow", "all", "--cpu", "off", "parent.lua"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == ("below 0:\t5\toptions:\t--allow all --cpu off\n"
                        "child\tone\ttrue\ttrue\toff\tchild.lua\n"
                        "child closed:\ttrue\n"
                        # the interpreter alone is the sandbox, as a bare `lua` drops `-l` and `-W`
                        "child\ttwo\tfalse\tfalse\t" + str(script) + "\tchild.lua\n")


@pytest.mark.skipif(os.name == "nt", reason="POSIX shell quoting")
def test_runvil_lua_through_the_runvil_command_names_a_runnable_interpreter(tmp_path):
    (tmp_path / "parent.lua").write_text(PARENT)
    (tmp_path / "child.lua").write_text(CHILD)
    p = run([sys.executable, "-m", "runvil.host.cli", "lua", "--allow", "all", "parent.lua"], tmp_path)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].endswith("--allow all")  # after `-m runvil.host.luacmd` where no runvil-lua is installed
    assert lines[1] == "child\tone\ttrue\ttrue\tall\tchild.lua"
    assert lines[2] == "child closed:\ttrue"


def test_arg_has_lua_s_shape(tmp_path):
    """The same indices and words as lua5.4's `arg`, the interpreter aside."""
    if shutil.which("lua5.4") is None:
        pytest.skip("no lua5.4 binary")
    script = launcher(tmp_path / "bin")
    show = "local t = {} for i = -9, #arg do t[#t + 1] = i .. '=' .. tostring(arg[i]) end print(table.concat(t, ' '))"
    (tmp_path / "s.lua").write_text(show)
    for args in (["s.lua", "a", "b"], ["-e", "x=1", "s.lua", "a"], ["-e", show], ["-e", "x=1", "-e", show, "--", "s.lua"]):
        ours = run([str(script), *args], tmp_path)
        theirs = subprocess.run(["lua5.4", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert ours.stdout.replace(str(script), "LUA") == theirs.stdout.replace("lua5.4", "LUA"), ours.stderr
        assert ours.returncode == theirs.returncode == 0


def test_v_prints_the_version_line_as_lua_c_does(tmp_path):
    """`-v` alone prints one line and exits 0 (Penlight runs `lua -v` to
    see that it can call Lua); with a script, the line comes first, the
    script runs, and `-v` is one of arg's options."""
    script = launcher(tmp_path / "bin")
    (tmp_path / "s.lua").write_text("print(arg[-1], arg[0], ...)")
    alone = run([str(script), "-v"], tmp_path)
    assert (alone.returncode, alone.stderr) == (0, "")
    assert alone.stdout.startswith("Lua 5.4.4  runvil ") and alone.stdout.count("\n") == 1
    both = run([str(script), "-v", "s.lua", "x"], tmp_path)
    assert both.returncode == 0, both.stderr
    assert both.stdout == alone.stdout + "-v\ts.lua\tx\n"
