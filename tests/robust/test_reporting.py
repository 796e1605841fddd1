"""Lua code never runs outside a VM (issue 26, item 7): an uncaught error
value's `__tostring` runs in its VM, in its context, while the VM is alive,
so `models.*` and `tasks.*` work there and `jump` is refused with a Lua
error; the same for errors raised by a tool handler, a compactor and a
task. A waiting builtin called outside any context of the run is a Lua
error, not an AssertionError. Through `runvil run` and the sans-IO API, on
the default backend and inline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runvil.engine.vm import JUMP_ENDED, JUMP_REPORTING
from runvil.lua.runtime.contexts import C_BOUNDARY

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["default", "inline"]

HEAD = "---\nname: t\ndescription: A test prompt.\nrunvil: 0\nmodels:\n  writer: {}\n---\n\n# T\n"


def prompt(*sections: tuple[str, str]) -> str:
    return HEAD + "".join(f"\n## {name}\n\n```lua\n{textwrap.dedent(code).strip()}\n```\n" for name, code in sections)


#: section B: reached only when a jump was (wrongly) taken
B = ("B", "return 'in B'")
#: section C: a task's body
C = ("C", "return 'task ' .. input")


def env_for(backend: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "RUNVIL_CONTEXTS"}
    if backend == "inline":
        env["RUNVIL_CONTEXTS"] = "inline"
    return env


def run_cli(tmp_path: Path, backend: str, text: str, world: str | None = None,
            log: bool = False) -> subprocess.CompletedProcess:
    path = tmp_path / "p.md"
    path.write_text(text)
    argv = [sys.executable, "-c", "from runvil.host.cli import main; raise SystemExit(main())", "run", str(path)]
    if world is not None:
        (tmp_path / "w.yaml").write_text(world)
        argv += ["--script", str(tmp_path / "w.yaml")]
    if log:
        argv += ["--log", str(tmp_path / "run.log")]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env_for(backend))
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    assert "in B" not in out.stdout, out.stdout
    return out


def error_line(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 1, (out.stdout, out.stderr)
    return next(line for line in out.stderr.splitlines() if line.startswith("error["))


#: a __tostring that jumps, unguarded and through pcall (which shows the refusal)
JUMPS = "setmetatable({}, {__tostring = function() jump('B') end})"
SAYS_REFUSAL = "setmetatable({}, {__tostring = function() local ok, e = pcall(jump, 'B'); return 'refused: ' .. tostring(e) end})"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_jump_in_the_tostring_of_an_uncaught_error_is_refused(tmp_path, backend):
    out = run_cli(tmp_path, backend, prompt(("A", f"error({JUMPS})"), B))
    assert error_line(out) == "error[Lua]: (error object is a table value)"
    out = run_cli(tmp_path, backend, prompt(("A", f"error({SAYS_REFUSAL})"), B))
    assert error_line(out) == f"error[Lua]: refused: {JUMP_REPORTING}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_models_and_tasks_work_in_the_tostring_of_an_uncaught_error(tmp_path, backend):
    code = "models.use('writer')\nerror(setmetatable({}, {__tostring = function() return models.infer('hi') end}))"
    out = run_cli(tmp_path, backend, prompt(("A", code), B))
    assert error_line(out) == "error[Lua]: echo: hi"
    code = "error(setmetatable({}, {__tostring = function() return tasks.await(tasks.spawn('C', 'x')) end}))"
    out = run_cli(tmp_path, backend, prompt(("A", code), B, C))
    assert error_line(out) == "error[Lua]: task x"


@pytest.mark.parametrize("backend", BACKENDS)
def test_errors_from_a_tool_handler_and_a_compactor_are_reported_in_their_vm(tmp_path, backend):
    world = "replies:\n  - tool_calls: [{id: c1, name: f, arguments: {}}]\n  - text: done\n"
    for value, expected in ((JUMPS, "(error object is a table value)"), (SAYS_REFUSAL, f"refused: {JUMP_REPORTING}")):
        tool = f"models.use('writer')\ntools.offer_local('f', 'a tool', {{}}, function() error({value}) end)\n" \
               "messages:user('hi')\nmodels.loop()"
        out = run_cli(tmp_path, backend, prompt(("A", tool), B), world)
        assert error_line(out) == f"error[Lua]: {expected}"
        compactor = f"models.use('writer')\nmessages:user('hi')\nmodels.compact(function() error({value}) end, 'r')"
        out = run_cli(tmp_path, backend, prompt(("A", compactor), B))
        assert error_line(out) == f"error[Lua]: {expected}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_failed_task_is_reported_in_its_vm_and_its_jump_refused_once_it_ended(tmp_path, backend):
    task = ("C", f"error({SAYS_REFUSAL})")
    # the task's failure text was made in its VM, with jump refused there
    code = ("local id = tasks.spawn('C', 'x')\npcall(tasks.await, id)\n"
            "models.use('writer')\nmessages:user('go')\nmodels.loop()\nreturn 'done'")
    walked_on = ("C", f"if not input then return 'walked' end\nerror({SAYS_REFUSAL})")  # the walk goes on into C
    out = run_cli(tmp_path, backend, prompt(("A", code), walked_on), log=True)
    assert out.returncode == 0 and out.stdout == "walked\n", out.stderr
    notices = [json.loads(line) for line in (tmp_path / "run.log").read_text().splitlines()]
    notices = [e["text"] for e in notices if e["type"] == "task_notice"]
    assert len(notices) == 1 and f"refused: {JUMP_REPORTING}" in notices[0], notices
    # its error value re-raised in the parent: __tostring runs again, now in the parent's VM
    out = run_cli(tmp_path, backend, prompt(("A", "tasks.await(tasks.spawn('C', 'x'))"), B, task))
    assert error_line(out) == f"error[Lua]: refused: {JUMP_ENDED}"
    # the parent's own tostring of it: the task's jump cannot move the parent
    code = "local ok, e = pcall(tasks.await, tasks.spawn('C', 'x'))\nreturn 'caught: ' .. tostring(e)"
    out = run_cli(tmp_path, backend, prompt(("A", code), B, ("C", f"error({JUMPS})")))
    assert error_line(out).endswith(JUMP_ENDED)


SANS_IO = """\
import json, sys
from runvil.engine.effects import ModelReply
from runvil.engine.run import ModelBinding, Run
from runvil.lua import LuaError
from runvil.prompt import parse_text

vms = []
run = Run(parse_text(sys.argv[1], path="t.md"), bindings={"writer": ModelBinding("w")}, on_vm=vms.append)
while not run.done:
    effects = run.step()
    run.resume({e.id: ModelReply(text="reply to " + e.messages[-1]["content"]) for e in effects})
print(json.dumps(run.outcome.error.as_json()))
try:  # a waiting builtin called with no context of the run running it
    vms[-1].state.execute("models.use('writer'); return models.infer('late')")
except LuaError as e:
    print(json.dumps(str(e.value)))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_sans_io_api_reports_in_the_vm_and_refuses_a_wait_outside_the_run(backend):
    code = ("models.use('writer')\n"
            "error(setmetatable({}, {__tostring = function()\n"
            "  local ok, e = pcall(jump, 'B')\n"
            "  return models.infer('why') .. ' / ' .. tostring(e)\n"
            "end}))")
    out = subprocess.run([sys.executable, "-c", SANS_IO, prompt(("A", code), B)], capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=env_for(backend))
    assert out.returncode == 0, out.stderr
    error, late = out.stdout.splitlines()
    assert error == '{"kind": "Lua", "message": "reply to why / ' + JUMP_REPORTING + '"}'
    assert late == f'"{C_BOUNDARY}"'
