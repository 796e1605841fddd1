"""The runvil command as a user meets it (docs/reference/commands.md): exit statuses, stdout
and stderr, `--json` with the scripted world, `runvil check`, `runvil lua`."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from .prompts import head
from .terminal import on_a_terminal as terminal

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


HEAD = head("uses: [web]\n")


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
                                       "finish_reason": "stop", "file": prompt, "line": 16, "section": "A"}


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
    write(tmp_path, "e.lua", 'print("hi", 1/2)\nlocal t = nil\nprint(t.x)\n')
    # a short relative name: Lua shortens a long one to `...` and its end
    code, out, err = runvil("lua", "e.lua", cwd=tmp_path)
    assert (code, out) == (1, "hi\t0.5\n")
    assert err == ("runvil: e.lua:3: attempt to index a nil value (local 't')\n"
                   "stack traceback:\n\te.lua:3: in main chunk\n\t[C]: in ?\n")  # as lua5.4's
    assert runvil("lua", "-e", "x = 2", "-e", "print(x * 21)") == (0, "42\n", "")
    code, out, err = runvil("lua", stdin="1 + 1\nfunction f()\nreturn 3\nend\nprint(f())\n")
    assert code == 0 and out == "2\n3\n"
    assert runvil("lua", "-e", "error({})")[2] == ("runvil: (error object is a table value)\nstack traceback:\n"
                                                  "\t[C]: in function 'error'\n\t(command line):1: in main chunk\n"
                                                  "\t[C]: in ?\n")


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


# ---------------------------------------------------------- the small things


def test_version_prints_the_package_version():
    import runvil

    code, out, err = runvil_cli_version()
    assert (code, out, err) == (0, f"runvil {runvil.__version__}\n", "")
    assert runvil.__version__ == _pyproject_version()


def runvil_cli_version():
    return runvil("--version")


def _pyproject_version() -> str:
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version = "([^"]+)"', text, re.M).group(1)


def test_the_license_matches_pyproject():
    import re

    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = \{ text = "MIT" \}', text, re.M)
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_every_subcommand_has_help_with_a_description_for_every_option():
    import re

    for command in ("run", "check", "lua", "chat", "view", "conformance"):
        code, out, err = runvil(command, "--help")
        assert code == 0 and err == "", command
        assert "unrecognized" not in out and out.startswith("usage: runvil " + command), command
        lines = out.splitlines() + [""]
        for line, after in zip(lines, lines[1:]):
            m = re.match(r"^  (-{1,2}[a-z][a-z-]*)(?: [A-Z.a-z=_]+)?(?:, --[a-z-]+(?: [A-Z.a-z=_]+)?)?(\s*)(.*)$", line)
            if m and m.group(1) not in ("-h", "--help"):
                # the description follows on the option's line, or on the next when the option is long
                described = m.group(3) or (after.strip() if after.startswith(" " * 8) else "")
                assert described.strip(), f"runvil {command}: {line.strip()} has no description"


def test_lua_help_is_not_an_unrecognized_option():
    code, out, err = runvil("lua", "--help")
    assert code == 0 and "--prompt PROMPT.md" in out and "-e CODE" in out
    code, out, err = runvil("lua", "--frobnicate")
    assert code == 2 and "unrecognized option '--frobnicate'" in err


def test_a_closed_pipe_is_not_an_internal_error():
    p = subprocess.run(f"{sys.executable} -m runvil.host.cli lua -e 'for i=1,1e6 do print(i) end' | head -1",
                       shell=True, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.stdout == "1\n"
    assert "internal error" not in p.stderr and "Traceback" not in p.stderr and "Exception" not in p.stderr


def test_a_full_disk_is_not_an_internal_error():
    if not Path("/dev/full").exists():
        import pytest

        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "runvil.host.cli", "lua", "-e", "for i=1,10 do print(i) end"],
                           stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 1
    assert p.stderr == "runvil: cannot write the output: No space left on device\n"


# --------------------------------------------------- errors that point into the file


MY_HEAD = """
        ---
        name: t
        description: A test prompt.
        runvil: 0
        models:
          writer: {}
        ---

        # T
"""  # indented as the bodies below, so that write() dedents them together


def on_a_terminal(*args, cwd=None):
    """Runs runvil with stderr on a pseudo-terminal; returns what it showed."""
    code, _, seen = terminal([sys.executable, "-m", "runvil.host.cli", *args], cwd=cwd or ROOT)
    return code, seen.decode("utf-8", "replace").replace("\r\n", "\n")


def test_a_run_error_on_a_terminal_shows_the_line_with_a_caret(tmp_path):
    path = write(tmp_path, "rt.md", MY_HEAD + """
        ## Chat

        ```lua
        local t = {}
        print(t.x.y)
        ```
    """)
    code, shown = on_a_terminal("run", path, cwd=tmp_path)
    assert code == 1
    first = "error[Lua]: section `Chat` prologue:15: attempt to index a nil value (field 'x')\n"
    assert first in shown
    picture = shown[shown.index(first) + len(first):]
    assert picture.startswith(f"  --> {path}:15:9\n   |\n15 | print(t.x.y)\n   |         ^ attempt to index")


def test_a_parse_error_on_a_terminal_shows_the_line_with_a_caret(tmp_path):
    path = write(tmp_path, "syn.md", MY_HEAD + """
        ## Chat

        ```lua
        local t = {
        x = = 3
        ```
    """)
    for command in ("run", "check"):
        code, shown = on_a_terminal(command, path, cwd=tmp_path)
        assert code == 3
        assert f"error[Parse]: {path}:15: section `Chat` prologue:15: unexpected symbol near '='\n" in shown
        assert "15 | x = = 3\n   |     ^ unexpected symbol near '='" in shown


def test_a_missing_global_in_prose_names_its_line_on_a_terminal(tmp_path):
    path = write(tmp_path, "miss.md", MY_HEAD + """
        ## Chat

        Hello {{nobody}} there.
    """)
    code, shown = on_a_terminal("run", path, cwd=tmp_path)
    assert code == 1
    assert "error[Lua]: global `nobody` is nil\n" in shown
    assert f"--> {path}:13:7\n" in shown and "13 | Hello {{nobody}} there.\n   |       ^^^^^^^^^^" in shown


def test_off_a_terminal_the_error_is_one_line(tmp_path):
    path = write(tmp_path, "rt.md", MY_HEAD + """
        ## Chat

        ```lua
        print(nil .. 'x')
        ```
    """)
    code, out, err = runvil("run", path, cwd=tmp_path)
    assert code == 1
    assert err.splitlines()[-1] == "error[Lua]: section `Chat` prologue:14: attempt to concatenate a nil value"
    assert "-->" not in err


def test_an_error_in_a_required_module_shows_the_modules_line(tmp_path):
    (tmp_path / "util").mkdir()
    (tmp_path / "util" / "text.lua").write_text("local M = {}\nfunction M.shout(s)\n  return s:upper() .. nope.x\n"
                                                "end\nreturn M\n", encoding="utf-8")
    path = write(tmp_path, "p.md", MY_HEAD + """
        ## S

        ```lua
        return require('util.text').shout('hi')
        ```
    """)
    code, shown = on_a_terminal("run", path, cwd=tmp_path)
    assert code == 1
    assert "error[Lua]: util/text.lua:3: attempt to index a nil value (global 'nope')\n" in shown
    assert f" --> {tmp_path / 'util' / 'text.lua'}:3:23\n" in shown and "3 |   return s:upper() .. nope.x" in shown


def test_a_lone_prompt_path_reads_as_argparse_reads_it():
    # `runvil run PROMPT.md` skips building the parser (start-up); the
    # options it then has must be the parser's own, default for default
    from runvil.host.runcmd import RUN_DEFAULTS, run_parser

    parsed = vars(run_parser().parse_args(["p.md"]))
    assert parsed == {"prompt": "p.md", "bind": [], **RUN_DEFAULTS}


def test_a_lone_path_that_looks_like_an_option_still_goes_to_argparse(tmp_path):
    code, out, err = runvil("run", "-p.md", cwd=tmp_path)
    assert code == 2 and "usage: runvil run" in err and "the following arguments are required: PROMPT.md" in err
    code, out, err = runvil("run", "missing.md", cwd=tmp_path)
    assert (code, out, err) == (2, "", "runvil: cannot read missing.md: No such file or directory\n")
