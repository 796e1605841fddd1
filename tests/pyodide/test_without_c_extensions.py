"""runvil without its C extensions, as on Pyodide (docs/DECISIONS.md "The
browser"): greenlet and inscriptis (with lxml) carry the marker
`sys_platform != "emscripten"`, and runvil imports and runs without them.
Runs in the default suite: a subprocess whose imports of those modules
fail, driven through `runvil.host.cli.main`. It also checks that rich,
httpx and the Packs are imported only by a run that uses them."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ("greenlet", "inscriptis", "lxml")

# A child Python where importing NATIVE fails; it runs the CLI, then says
# which of the watched modules got imported.
CHILD = """
import json, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in %r:
            raise ImportError('not on this platform: ' + name)
sys.meta_path.insert(0, Refuse())
from runvil.host.cli import main
code = main(sys.argv[1:])
watched = ('greenlet', 'inscriptis', 'lxml', 'httpx', 'rich', 'runvil.harness.packs', 'runvil.harness.web')
sys.stdout.flush()
print(json.dumps({'code': code, 'imported': [m for m in watched if m in sys.modules]}), file=sys.stderr)
""" % (NATIVE,)


def cli(*argv: str) -> tuple[str, str, dict]:
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    *err, last = done.stderr.rstrip("\n").split("\n")
    return done.stdout, "\n".join(err), json.loads(last)


def test_the_c_extensions_carry_the_emscripten_marker():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for name in ("greenlet", "inscriptis"):
        [spec] = [d for d in deps if d.startswith(name)]
        assert spec.split(";")[1].strip() == 'sys_platform != "emscripten"', spec


def test_lua_with_coroutines_runs_without_greenlet():
    chunk = ("local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) "
             "for i = 1, 2 do coroutine.yield(b * i) end return 'end' end) "
             "print(co(1), co(10), co(), co())")
    out, err, info = cli("lua", "-e", chunk)
    assert (out, err, info["code"]) == ("2\t10\t20\tend\n", "", 0)
    assert info["imported"] == []


def test_a_run_on_the_echo_model_imports_no_provider_code_and_no_pack():
    out, err, info = cli("run", "examples/hello.md")
    assert out == "echo: hello\n" and info["code"] == 0
    assert info["imported"] == []  # neither rich (stderr is no terminal), httpx nor the Packs


def test_a_run_that_uses_a_pack_imports_it(tmp_path):
    prompt = tmp_path / "uses.md"
    prompt.write_text("---\nname: uses\ndescription: Offers a pack's tool.\nrunvil: 0\nmodels:\n  writer: {}\n"
                      "uses: [web]\n---\n\n# Uses\n\n## Ask\n\n```lua\nmodels.use('writer')\n"
                      "tools.offer('web/search')\nreturn 'offered'\n```\n")
    out, err, info = cli("run", str(prompt))
    assert (out, info["code"]) == ("offered\n", 0), err
    assert "runvil.harness.packs" in info["imported"]
    assert "httpx" not in info["imported"]  # the web Pack connects on its first call only


def test_conformance_passes_without_greenlet():
    out, err, info = cli("conformance", "-k", "task")
    assert out.strip().splitlines()[-1] == "10 passed, 0 failed", out[-2000:]
    assert info["code"] == 0
