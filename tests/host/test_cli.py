"""The runvil command as a user meets it (host.md): exit statuses, stdout
and stderr, `--json` with the scripted world, `runvil check`, `runvil lua`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]


def runvil(*args, cwd=None, stdin=None):
    p = subprocess.run(
        [sys.executable, "-m", "runvil.host.cli", *args], capture_output=True, text=True, cwd=cwd or ROOT,
        input=stdin, timeout=120,
    )
    return p.returncode, p.stdout, p.stderr


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(p)


HEAD = """\
---
name: t
description: A test prompt.
runvil: 0
models:
  writer: {}
uses: [web]
---

# T

"""


def test_hello_on_the_echo_model():
    code, out, err = runvil("run", "examples/hello.md")
    assert (code, out) == (0, "echo: hello\n")
    assert "echo model" in err


def test_scripted_world_and_json(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + textwrap.dedent("""\
        ## Ask

        ```lua
        models.use('writer')
        tools.offer('web/search')
        messages:user('Find the tallest building in Paris.')
        models.loop()
        local roles = {}
        for i = 1, #messages do roles[i] = messages[i].role end
        return table.concat(roles, ',')
        ```
        """))
    world = write(tmp_path, "w.yaml", """
        models:
          writer: {context: 4096}
        replies:
          - tool_calls:
              - {id: call_1, name: web_search, arguments: {query: "Paris"}}
          - text: "Tour Montparnasse."
        tools:
          web/search:
            - result: "Tour Montparnasse, 210 m"
        """)
    code, out, err = runvil("run", prompt, "--script", world, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["ok"] is True and data["result"] == "user,assistant,tool,assistant" and data["error"] is None
    r1, r2 = data["requests"]
    assert r1 == {"role": "writer", "model": "writer", "origin": "chat",
                  "messages": [{"role": "user", "content": "Find the tallest building in Paris."}],
                  "tools": ["web_search"]}
    assert r2["messages"][1:] == [
        {"role": "assistant", "content": "",
         "tool_calls": [{"id": "call_1", "name": "web_search", "arguments": {"query": "Paris"}}]},
        {"role": "tool", "content": "Tour Montparnasse, 210 m", "tool_call_id": "call_1"},
    ]


def test_a_failed_run_exits_1_with_its_kind(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + "## A\n\n```lua\nmodels.use('writer')\nreturn models.infer('x')\n```\n")
    world = write(tmp_path, "w.yaml", "replies:\n  - text: ''\n    finish_reason: stop\n")
    code, out, err = runvil("run", prompt, "--script", world)
    assert code == 1 and out == ""
    assert err.strip().endswith("error[Completion]: the model replied with no text and no tool calls")
    code, out, _ = runvil("run", prompt, "--script", world, "--json")
    assert json.loads(out)["error"] == {"kind": "Completion", "message": "the model replied with no text and no tool calls",
                                       "finish_reason": "stop"}


def test_no_reply_left_in_the_script(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + "## A\n\n```lua\nmodels.use('writer')\nreturn models.infer('x')\n```\n")
    world = write(tmp_path, "w.yaml", "replies: []\n")
    code, _, err = runvil("run", prompt, "--script", world)
    assert code == 1 and "error[Completion]: the script has no reply left for writer" in err


def test_parse_errors_exit_3_and_check_lists_all(tmp_path):
    bad = write(tmp_path, "bad.md", """
        ---
        name: Bad Name
        description: x
        runvil: 0
        ---

        # T

        ## A

        ```lua
        local x = = 1
        ```
        """)
    code, out, err = runvil("run", bad)
    assert code == 3 and "invalid frontmatter" in err
    code, out, err = runvil("check", bad)
    assert code == 3
    lines = [l for l in err.splitlines() if l.startswith("error[Parse]")]
    assert len(lines) == 2
    assert "section `A` prologue:12: unexpected symbol near '='" in lines[1]
    assert runvil("check", "examples/hello.md")[0] == 0


def test_a_runaway_block_ends_cleanly(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + "## A\n\n```lua\nlocal function f() return f() + 1 end\nf()\n```\n")
    code, _, err = runvil("run", prompt)
    assert code == 1 and "stack overflow" in err and "Traceback" not in err


def test_an_unbound_role_is_a_usage_error(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + "## A\n\n```lua\nreturn 1\n```\n")
    cfg = write(tmp_path, "runvil.toml", "")
    code, _, err = runvil("run", prompt, "--config", cfg)
    assert code == 2 and "writer" in err and "Traceback" not in err


def test_lua_command(tmp_path):
    f = write(tmp_path, "e.lua", 'print("hi", 1/2)\nlocal t = nil\nprint(t.x)\n')
    code, out, err = runvil("lua", f)
    assert (code, out) == (1, "hi\t0.5\n")
    assert err == f"runvil: {f}:3: attempt to index a nil value (local 't')\n"
    assert runvil("lua", "-e", "x = 2", "-e", "print(x * 21)") == (0, "42\n", "")
    code, out, err = runvil("lua", stdin="1 + 1\nfunction f()\nreturn 3\nend\nprint(f())\n")
    assert code == 0 and out == "2\n3\n"
    assert runvil("lua", "-e", "error({})")[2] == "runvil: (error object is a table value)\n"


def test_log_and_debug_capture(tmp_path):
    prompt = write(tmp_path, "p.md", HEAD + "## A\n\n```lua\nmodels.use('writer')\nmessages:user('hi')\nmodels.loop()\n```\n")
    world = write(tmp_path, "w.yaml", "replies:\n  - text: hello\n")
    log = tmp_path / "run.jsonl"
    code, _, err = runvil("run", prompt, "--script", world, "--log", str(log), "--debug")
    assert code == 0, err
    events = [json.loads(line) for line in log.read_text().splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "run_started" and types[-1] == "run_ended"
    assert types.index("debug_request") < types.index("debug_response") < types.index("model_turn_completed")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    req = next(e for e in events if e["type"] == "debug_request")
    assert req["messages"] == [{"role": "user", "content": "hi"}] and req["section"] == "A"
    code, _, _ = runvil("run", prompt, "--script", world, "--log", str(log))
    assert "debug_request" not in log.read_text()
