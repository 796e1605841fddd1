"""One memory budget per run (issue 26, item 3): every Lua state a run
makes (the H1 pass, sections, tasks, fan-out arms) reserves from the run's
budget, measured from the process's size when the run started, and the
Engine's own copies (printed lines, messages, the requests `--json`
writes) count against it; `[limits] memory` sets it, and past it a run
meets the catchable `memory limit exceeded (N bytes)`.

The runs are real: the CLI in a fresh process, which reports its own peak
resident size, so a run that is not stopped shows in that peak."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from runvil.engine.limits import RunLimits
from runvil.engine.run import Run
from runvil.engine.vm import PRINT_CUT, PRINT_LIMIT
from runvil.harness.drive import drive
from runvil.prompt import parse_text

MiB = 1024 * 1024
#: the runs' memory limit: small, so that a test's processes stay small
LIMIT = 64 * MiB
#: how far past the limit a run's peak may go: the step between two reads
#: of the resident size (8 MB), the value being built, and the noise
SLACK = 48 * MiB

#: runs `runvil` in this process and says its peak resident size on stderr
_CLI = textwrap.dedent("""\
    import resource, sys
    from runvil.host.cli import main
    code = main(sys.argv[1:])
    sys.stdout.flush()
    print("peak", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, file=sys.stderr)
    sys.exit(code)
""")


def runvil(folder: Path, *args: str, limit: int = LIMIT) -> tuple[subprocess.CompletedProcess, int]:
    """`runvil ARGS` with `[limits] memory = limit`; the process and its peak (bytes)."""
    (folder / "runvil.toml").write_text(f"[limits]\nmemory = {limit}\n", encoding="utf-8")
    p = subprocess.run([sys.executable, "-c", _CLI, *args, "--config", str(folder / "runvil.toml")], cwd=folder,
                       capture_output=True, text=True, timeout=300)
    peak = int(p.stderr.rsplit("peak ", 1)[1])
    return p, peak


def prompt(folder: Path, body: str, models: str = "") -> str:
    head = f"---\nname: probe\ndescription: a probe\nrunvil: 0\n{models}---\n\n"
    (folder / "probe.md").write_text(head + textwrap.dedent(body), encoding="utf-8")
    return str(folder / "probe.md")


@pytest.fixture
def idle_peak(tmp_path):
    """The peak of a run that holds nothing: what the others are measured by."""
    folder = tmp_path / "idle"
    folder.mkdir()
    _, peak = runvil(folder, "run", prompt(folder, "# Idle\n\n```lua\nreturn 'ok'\n```\n"))
    return peak


CHAIN = """\
# Chain

```lua
return tasks.await(tasks.spawn("Hold", "1"))
```

## Hold

Each task holds 8 MB and starts the next, which holds 8 MB more.

```lua
local keep = string.rep("x", 8 * 1024 * 1024) .. input
local n = tonumber(input)
if n < 300 then
  return tasks.await(tasks.spawn("Hold", tostring(n + 1)))
end
return "deep " .. #keep
```
"""


def test_a_chain_of_tasks_meets_the_runs_memory_limit(tmp_path, idle_peak):
    """The finding: each state's limit was measured from the process's size
    when the state was made, so a chain of tasks holding 8 MB each never
    met one (2.4 GB here). The run's budget counts them all."""
    p, peak = runvil(tmp_path, "run", prompt(tmp_path, CHAIN))
    assert p.returncode == 1, p.stdout + p.stderr
    assert f"memory limit exceeded ({LIMIT} bytes)" in p.stderr, p.stderr
    assert "section `Hold`" in p.stderr
    assert peak - idle_peak < LIMIT + SLACK, (peak - idle_peak) // MiB


def test_the_memory_limit_is_a_catchable_lua_error(tmp_path):
    body = """\
    # Catch

    ```lua
    local ok, err = pcall(function()
      local keep = {}
      for i = 1, 100 do keep[i] = string.rep("x", 4 * 1024 * 1024) .. i end
    end)
    return tostring(ok) .. " | " .. err
    ```
    """
    p, _ = runvil(tmp_path, "run", prompt(tmp_path, body))
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("false | ") and p.stdout.rstrip().endswith(f"memory limit exceeded ({LIMIT} bytes)")


def test_a_long_printed_line_is_cut_with_a_mark(tmp_path):
    """The events keep every printed line for the run's life: one longer
    than PRINT_LIMIT bytes is cut, at a character's start, with a mark
    saying how much was left out; a short one is kept whole."""
    body = """\
    # Print

    ```lua
    print("short line")
    print(string.rep("x", 3 * 1024 * 1024))
    print("a" .. string.rep("é", 600000))
    return "done"
    ```
    """
    p, _ = runvil(tmp_path, "run", prompt(tmp_path, body), "--log", str(tmp_path / "run.jsonl"))
    assert p.returncode == 0, p.stderr
    events = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()]
    printed = [e["text"] for e in events if e["type"] == "print"]
    assert printed[0] == "short line"
    assert printed[1] == "x" * PRINT_LIMIT + PRINT_CUT.format(n=3 * MiB - PRINT_LIMIT)
    assert printed[1].endswith("… [cut: 2097152 more bytes]")
    # 1 + 1,200,000 bytes: the cut falls inside an `é`, so it moves back to its start
    assert printed[2] == "a" + "é" * ((PRINT_LIMIT - 1) // 2) + PRINT_CUT.format(n=1_200_001 - PRINT_LIMIT + 1)


def test_printed_lines_count_against_the_runs_memory(tmp_path, idle_peak):
    """The finding: 100 lines of 50 MB kept in the events took 3.5 GB under
    a 1 GiB limit. Each is cut to 1 MiB and counted: 200 of them pass a
    64 MB limit, and the run stops there."""
    body = """\
    # Print

    ```lua
    local line = string.rep("y", 4 * 1024 * 1024)
    for i = 1, 200 do print(line) end
    return "printed"
    ```
    """
    p, peak = runvil(tmp_path, "run", prompt(tmp_path, body))
    assert p.returncode == 1 and f"memory limit exceeded ({LIMIT} bytes)" in p.stderr, p.stdout + p.stderr
    assert peak - idle_peak < LIMIT + SLACK, (peak - idle_peak) // MiB


ECHO = """\
# Echo

```lua
models.default("main")
local message = string.rep("z", 8 * 1024 * 1024)
for i = 1, 40 do
  messages:user(message)
  models.loop()
end
return "sent"
```
"""


def test_requests_kept_for_json_count_against_the_runs_memory(tmp_path, idle_peak):
    """The finding: a 100 MB message over 10 rounds, with --json, ran out
    of the machine's memory (each request holds the conversation once
    more, and --json wrote them all as one text). Each request is charged
    as it is sent, and the --json text is written a message at a time."""
    models = "models:\n  main: {context: 1000000000}\n"
    world = tmp_path / "world.yaml"
    world.write_text("models:\n  main: {context: 1000000000}\nreplies:\n" + '  - text: "ok"\n' * 40, encoding="utf-8")
    p, peak = runvil(tmp_path, "run", prompt(tmp_path, ECHO, models), "--json", "--script", str(world))
    assert p.returncode == 1, p.stderr[-2000:]
    out = json.loads(p.stdout)
    assert out["ok"] is False and out["error"]["message"].endswith(f"memory limit exceeded ({LIMIT} bytes)")
    sent = sum(len(m["content"]) for r in out["requests"] for m in r["messages"])
    assert 0 < sent <= LIMIT  # what the requests hold is within the budget
    assert peak - idle_peak < LIMIT + SLACK, (peak - idle_peak) // MiB


#: an Engine API run on the echo model (the CLI gives no config-free way
#: to set the limit): its outcome, the requests' size and its peak
_ECHO_RUN = textwrap.dedent("""\
    import json, resource, sys
    from runvil.engine.limits import RunLimits
    from runvil.engine.run import Run
    from runvil.harness.answerer import Answerer, echo_bindings
    from runvil.harness.drive import drive
    from runvil.prompt import read_prompt
    run = Run(read_prompt(sys.argv[1]), bindings=echo_bindings(["main"]), run_limits=RunLimits(memory=int(sys.argv[2])))
    requests = []
    outcome = drive(run, Answerer(), requests)
    sent = sum(len(m["content"]) for r in requests for m in r["messages"])
    print(json.dumps({"ok": outcome.ok, "error": outcome.error and outcome.error.message, "sent": sent,
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
""")


def test_echo_replies_count_against_the_runs_memory(tmp_path, idle_peak):
    """The echo model's reply is a copy of the last message: the run's
    copies of it (in the conversation, handed to Lua) count too."""
    models = "models:\n  main: {context: 1000000000}\n"
    p = subprocess.run([sys.executable, "-c", _ECHO_RUN, prompt(tmp_path, ECHO, models), str(LIMIT)],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout)
    assert out["ok"] is False and out["error"].endswith(f"memory limit exceeded ({LIMIT} bytes)"), out
    assert 0 < out["sent"] <= LIMIT
    assert out["peak"] - idle_peak < LIMIT + SLACK, (out["peak"] - idle_peak) // MiB


def test_every_state_of_a_run_reserves_from_the_runs_budget():
    """The H1 pass, the walk's sections, a task and fan-out arms: their
    states share the run's one budget, whose base was read once, when the
    run started."""
    text = textwrap.dedent("""\
        ---
        name: states
        description: every kind of state
        runvil: 0
        ---

        # States

        ```lua
        local h = tasks.spawn("Arm", "task")
        tasks.await(h)
        tasks.fanout("Arm", {"a", "b"})
        ```

        ## Walk

        ```lua
        return "walked"
        ```

        ## Arm

        ```lua
        return input
        ```
        """)
    seen = []
    run = Run(parse_text(text, "states.md"), run_limits=RunLimits(memory=LIMIT), on_vm=seen.append)
    budget = run.budget.memory
    outcome = drive(run, lambda effect: None)
    assert outcome.ok, outcome.error
    assert len(seen) >= 5  # the H1, a task, two arms, the walk's section (and the arm the walk enters)
    assert all(vm.state.memory_budget is budget for vm in seen)
    assert all(vm.state.guard is budget for vm in seen)
    assert budget.limit == LIMIT
