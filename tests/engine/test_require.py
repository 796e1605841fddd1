"""`require` in prompts (docs/reference/globals.md): modules are read beside the
prompt, and `package.loaded` is the cache a module's result goes into and
is read from, as in Lua."""

from __future__ import annotations

from pathlib import Path

from runvil.engine.run import ModelBinding, Run
from runvil.prompt import read_prompt

from .prompts import head

HEAD = head()


# --- §4: require caches in package.loaded -----------------------------------


def _module_prompt(tmp_path: Path, lua: str) -> str | None:
    (tmp_path / "util").mkdir()
    (tmp_path / "util" / "text.lua").write_text("loads = (loads or 0) + 1\nreturn {n = loads}\n")
    (tmp_path / "util" / "none.lua").write_text("return nil\n")
    (tmp_path / "util" / "self.lua").write_text("package.loaded['util.self'] = 'set by the module'\n")
    path = tmp_path / "p.md"
    path.write_text(HEAD + f"\n## A\n\n```lua\n{lua}\n```\n")
    run = Run(read_prompt(path), bindings={"writer": ModelBinding("w")})
    run.step()
    assert run.done and run.outcome.ok, run.outcome.error
    return run.outcome.result


def test_require_result_is_in_package_loaded(tmp_path):
    lua = (
        "local t = require('util.text')\n"
        "return tostring(package.loaded['util.text'] == t) .. ' ' .. tostring(package.loaded['util.none'])"
        " .. ' ' .. tostring(require('util.none')) .. ' ' .. tostring(package.loaded['util.none'])"
    )
    assert _module_prompt(tmp_path, lua) == "true nil true true"


def test_require_reads_package_loaded(tmp_path):
    lua = "package.loaded['util.text'] = 'preset'\nreturn require('util.text') .. ' ' .. tostring(loads)"
    assert _module_prompt(tmp_path, lua) == "preset nil"


def test_a_module_may_fill_its_own_entry(tmp_path):
    assert _module_prompt(tmp_path, "return require('util.self')") == "set by the module"
