"""`string.dump` and `load` of its chunks under `runvil lua --allow all`,
compared byte for byte with Debian's lua5.4 (addresses aside): fresh
upvalues with the environment first, Lua's chunk names and lines in
errors, Lua's header and its messages for a chunk cut or corrupted, and
the sandbox without either."""

from __future__ import annotations

from pathlib import Path

from .luacli import runvil_lua, same_as_lua

HERE = Path(__file__).parent / "fidelity"


def program(name: str) -> str:
    return (HERE / name).read_text(encoding="latin-1")


def test_dumped_functions_behave_as_in_lua(tmp_path):
    same_as_lua(tmp_path, {"dump.lua": program("dump.lua")}, ["dump.lua"])


def test_upvalues_of_dumped_functions_are_lua_s(tmp_path):
    same_as_lua(tmp_path, {"dumpupvalues.lua": program("dumpupvalues.lua")}, ["dumpupvalues.lua"])


HEADER = r"""
local c = string.dump(function(a) local t = {a, 'text with function and end'} return #t end)
print(#string.pack('c4BBc6BBB', '', 0, 0, '', 0, 0, 0), c:byte(1, 18))
print(string.unpack('jn', c, 16))
print(load(c)(1))
for i = 1, 15 + 16 do
  local s = c:sub(1, i - 1) .. string.char((c:byte(i) + 1) % 256) .. c:sub(i + 1)
  print(i, load(s, '=corrupt'))
end
local cut = {}
for i = 1, #c - 1 do
  local f, msg = load(c:sub(1, i), '@cut.lua')
  if f ~= nil or msg ~= 'cut.lua: bad binary format (truncated chunk)' then cut[#cut + 1] = i end
end
print(#cut)
print(load(c:sub(1, 3)), load(c:sub(1, 4)))
print(load('\27Lux'), load('\27Lua\x53'), load('\27Lua\x54\1'))
"""


def test_the_header_is_lua_s_and_load_checks_it_as_lua_does(tmp_path):
    same_as_lua(tmp_path, {"header.lua": HEADER}, ["header.lua"])


def test_the_sandbox_has_no_dump_and_no_binary_chunks(tmp_path):
    made = tmp_path / "made"
    make = "local f = io.open('made', 'wb') f:write(string.dump(function() return 7 end)) f:close()"
    assert runvil_lua(["--allow", "all", "-e", make], tmp_path)[0] == 0
    use = "local f = io.open('made', 'rb') local s = f:read('a') f:close() print(load(s))"
    code, out, _err = runvil_lua(["--allow", "io", "-e", use], tmp_path)
    assert (code, out) == (0, b"nil\tbinary string: bad binary format (truncated chunk)\n")
    code, out, _err = runvil_lua(["--allow", "io,base", "-e", use + " print(load(s)())"], tmp_path)
    assert code == 0 and out.endswith(b"\n7\n")
    code, out, err = runvil_lua(["-e", "print(string.dump)", "-e", "string.dump(print)"], tmp_path)
    assert (code, out) == (1, b"nil\n")
    assert err.splitlines()[0] == "runvil: (command line):1: attempt to call a nil value (field 'dump')"
    assert err.splitlines()[-1].startswith("help: runvil lua --allow base grants collectgarbage")
    assert made.exists()


def test_lua_bytecode_is_refused_by_name(tmp_path):
    import shutil
    import subprocess

    import pytest

    if shutil.which("luac5.4") is None and shutil.which("lua5.4") is None:
        pytest.skip("no lua5.4 binary")
    (tmp_path / "mk.lua").write_text("io.open('lua.out', 'wb'):write(string.dump(function() return 1 end))")
    subprocess.run(["lua5.4", "mk.lua"], cwd=tmp_path, check=True)
    code, out, _err = runvil_lua(["--allow", "all", "-e", "print(load(io.open('lua.out', 'rb'):read('a'), '=x'))"],
                                 tmp_path)
    assert out == b"nil\tx: bad binary format (Lua bytecode: runvil loads only the chunks of its own string.dump)\n"
    # and Lua refuses runvil's without reading it as bytecode
    assert runvil_lua(["--allow", "all", "-e", "io.open('rv.out', 'wb'):write(string.dump(function() end))"],
                      tmp_path)[0] == 0
    (tmp_path / "use.lua").write_text("print(load(io.open('rv.out', 'rb'):read('a'), '=y'))")
    p = subprocess.run(["lua5.4", "use.lua"], cwd=tmp_path, capture_output=True, check=True)
    assert p.stdout == b"nil\ty: bad binary format (integer overflow)\n"
