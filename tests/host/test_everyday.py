"""Everyday mistakes through the CLI (issue 27): usage errors for what
would pass silently, messages listing what exists with a "did you mean",
and `--json` errors that say where they happened."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .prompts import head

ROOT = Path(__file__).resolve().parents[2]

HEAD = head(roles=("writer", "reviewer"))

CONFIG = """
[providers.local]
base_url = "http://127.0.0.1:9/v1"

[models."local/small"]
provider = "local"
context = 8192

[models."local/big"]
provider = "local"
context = 32768
"""



def write(tmp_path, name, text):
    (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n") if not text.startswith("---") else text,
                                 encoding="utf-8")
    return name


def hello(tmp_path, body="## A\n\n```lua\nmodels.use('writer')\nmessages:user('hi')\nmodels.loop()\n"
                          "return messages[#messages].content\n```\n"):
    return write(tmp_path, "p.md", HEAD + body)


# ------------------------------------------------------------ usage errors


def test_bind_of_a_role_that_does_not_exist_is_a_usage_error_everywhere(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "w.yaml", "replies:\n  - text: hi\n")
    write(tmp_path, "runvil.toml", CONFIG)
    want = ("runvil: --bind writr=...: the prompt declares no model role 'writr' "
            "(declared: writer, reviewer; did you mean 'writer'?)\n")
    assert cli("run", p, "--bind", "writr=local/small") == (2, "", want)
    assert cli("run", p, "--script", "w.yaml", "--bind", "writr=local/small") == (2, "", want)


def test_bind_and_model_do_not_apply_with_a_script(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "w.yaml", "replies:\n  - text: hi\n")
    code, out, err = cli("run", p, "--script", "w.yaml", "-m", "local/small")
    assert (code, out) == (2, "") and err.startswith("runvil: -m/--model does not apply with --script")


def test_input_and_input_file_together_are_a_usage_error(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "in.txt", "from the file")
    assert cli("run", p, "--input", "a", "--input-file", "in.txt") == (
        2, "", "runvil: --input and --input-file both give the run's input: pass one of them\n")


def test_an_unknown_catalog_model_lists_the_catalog(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "runvil.toml", CONFIG)
    code, out, err = cli("run", p, "--bind", "writer=local/smal")
    assert code == 2 and err == ("runvil: model role 'writer' is bound by --bind to 'local/smal', which is not a "
                                 "catalog model in runvil.toml (catalog: local/small, local/big; "
                                 "did you mean 'local/small'?)\n")


def test_an_unknown_role_in_models_use_lists_the_declared_roles(tmp_path, cli):
    p = hello(tmp_path, "## A\n\n```lua\nmodels.use('writr')\n```\n")
    code, out, err = cli("run", p, "--json")
    error = json.loads(out)["error"]
    assert code == 1 and error == {
        "kind": "Lua", "file": "p.md", "line": 15, "section": "A",
        "message": "section `A` prologue:15: models.use: unknown model role 'writr' "
                   "(declared: writer, reviewer; did you mean 'writer'?)"}


def test_a_tool_not_in_scope_lists_the_tools_in_scope(tmp_path, cli):
    p = hello(tmp_path, "## A\n\n```lua\nmodels.use('writer')\n"
                        "tools.offer_local('fetch', 'a tool', {}, function(args) return 'x' end)\n"
                        "messages:user('hi')\nmodels.loop()\n```\n")
    write(tmp_path, "w.yaml", "replies:\n  - tool_calls: [{id: c1, name: fetcj, arguments: {}}]\n")
    code, out, err = cli("run", p, "--script", "w.yaml", "--json")
    error = json.loads(out)["error"]
    assert error["message"] == ("the model called the tool 'fetcj', which is not in scope for this section "
                                "(in scope: fetch; did you mean 'fetch'?)")
    assert (error["kind"], error["section"], error["line"]) == ("Tool", "A", 18)  # the models.loop() line


# ------------------------------------------------------------ errors with a place


def test_a_prose_fill_error_names_its_section_and_line(tmp_path, cli):
    p = write(tmp_path, "p.md", HEAD + "```lua\nvar.plan = 'x'\n```\n\n## Plan\n\nWrite about {{var.plann}} please."
                                       "\n\n```lua\nreturn prose\n```\n")
    code, out, err = cli("run", p)
    assert code == 1
    assert err.endswith("error[Lua]: global `var.plann` is nil\n  --> p.md:18 (section `Plan`)\n"
                        "help: did you mean `var.plan`? (set: plan)\n")
    code, out, err = cli("run", p, "--json")
    assert json.loads(out)["error"] == {"kind": "Lua", "message": "global `var.plann` is nil", "file": "p.md",
                                       "line": 18, "section": "Plan", "help": ["did you mean `var.plan`? (set: plan)"]}


def test_a_lua_error_in_the_h1_body_has_no_section(tmp_path, cli):
    p = write(tmp_path, "p.md", HEAD + "```lua\nlocal x = nil\nx.y = 1\n```\n")
    code, out, err = cli("run", p, "--json")
    error = json.loads(out)["error"]
    assert (error["file"], error["line"], error.get("section", "absent")) == ("p.md", 14, None)


def test_a_parse_error_in_json_has_its_file_and_line(tmp_path, cli):
    p = write(tmp_path, "p.md", "---\nname: x\n---\n\n# A\n")
    code, out, err = cli("run", p, "--json")
    error = json.loads(out)["error"]
    assert code == 3 and (error["kind"], error["file"], error["line"]) == ("Parse", "p.md", 1)


def test_a_world_error_is_a_usage_error_with_nothing_on_stdout(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "w.yaml", "replies:\n  - txt: hi\n")
    code, out, err = cli("run", p, "--script", "w.yaml", "--json")
    assert (code, out) == (2, "") and err.startswith("runvil: the scripted world w.yaml: line 2: unknown key 'txt'")


# ------------------------------------------------------------ the prompt REPL and `runvil lua`


def runvil_process(*args, cwd, stdin=""):
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "runvil.host.cli", *args], capture_output=True, text=True, cwd=cwd,
                       input=stdin, timeout=120)
    return p.returncode, p.stdout, p.stderr


TWO = head() + """## Chat

```lua
return 'chat done'
```

## Other

```lua
return 'other done: ' .. tostring(var.x)
```
"""


def test_the_prompt_repl_shows_records_like_tables(tmp_path):
    write(tmp_path, "two.md", TWO)
    chunks = ("messages:user('hi')\nmessages[1]\nvar.x = {a = 1, b = {2, 3}}\nvar\n"
              "{1, 2, a = {b = 'x'}, ['not a name'] = true}\nlocal t = {} t.self = t return t\nmessages[1].content\n")
    code, out, err = runvil_process("lua", "--prompt", "two.md", cwd=tmp_path, stdin=chunks)
    assert code == 0, err
    assert out.splitlines() == ['{{role = "user", content = "hi"}}', '{role = "user", content = "hi"}',
                                "{x = {a = 1, b = {2, 3}}}", '{1, 2, a = {b = "x"}, ["not a name"] = true}',
                                "{self = <cycle>}", "hi"]


def test_the_prompt_repl_says_a_jump_ended_it(tmp_path):
    write(tmp_path, "two.md", TWO)
    code, out, err = runvil_process("lua", "--prompt", "two.md", cwd=tmp_path, stdin="var.x = 7\njump('Other')\n")
    assert (code, out) == (0, "other done: 7\n")
    assert err.endswith("runvil: jump(\"Other\") ended the REPL; the run went on at section `Other` "
                        "and ended with its result\n")


def test_runvil_lua_has_arg_and_require_as_lua(tmp_path):
    (tmp_path / "lib" / "util").mkdir(parents=True)
    (tmp_path / "lib" / "util" / "text.lua").write_text(
        "local M = {}\nfunction M.hi(n) return 'hi ' .. n end\nloads = (loads or 0) + 1\nreturn M\n")
    (tmp_path / "lib" / "main.lua").write_text(
        "local t = require('util.text')\nprint(t.hi(arg[1]), arg[0], arg[-1], arg[-2], #arg, ...)\n"
        "print(require('util.text') == t, loads, package.loaded['util.text'] == t)\n")
    code, out, err = runvil_process("lua", "-e", "x = 1", "lib/main.lua", "a", "b", cwd=tmp_path)
    assert (code, err) == (0, "")
    assert out == "hi a\tlib/main.lua\tx = 1\t-e\t2\ta\tb\ntrue\t1\ttrue\n"
    code, out, err = runvil_process("lua", "-e", "print(arg[0], arg[1], arg[2], #arg)", cwd=tmp_path)
    from runvil.host.luacmd import interpreter_words

    assert out == f"{interpreter_words()[-1]}\t-e\tprint(arg[0], arg[1], arg[2], #arg)\t2\n"


def lua54(*args, cwd):
    import shutil
    import subprocess

    if shutil.which("lua5.4") is None:
        pytest.skip("no lua5.4 binary")
    p = subprocess.run(["lua5.4", *args], capture_output=True, text=True, cwd=cwd, timeout=60)
    return p.returncode, p.stdout, p.stderr


@pytest.mark.parametrize("chunk", [
    "print(pairs({}) == next, select('#', pairs({})))",
    "print(pairs({a = 1}) == next, select('#', pairs({a = 1})), select(3, pairs({a = 1})))",
    # a walk with `next` that deletes and adds keys: Lua's live walk, its error included
    "local t = {a = 1, b = 2, c = 3, d = 4} local f, s, c = pairs(t) print(f == next, pcall(function() local n = 0"
    " for k in f, s, c do n = n + 1 t[k] = nil t['new' .. n] = n if n > 50 then break end end return n end))",
])
def test_runvil_lua_pairs_returns_next_as_lua(tmp_path, chunk):
    # issue 27: "`pairs(t)` returns a function other than `next` (`pairs({}) == next` is false; Lua: true)"
    assert runvil_process("lua", "-e", chunk, cwd=tmp_path) == lua54("-e", chunk, cwd=tmp_path)


def test_runvil_lua_for_over_pairs_fixes_the_keys(tmp_path):
    # docs/reference/lua.md: keys added during the walk are not visited, keys removed are skipped
    chunk = ("local t = {} t.a = 1 t.b = 2 t.c = 3 local seen = {}"
             " for k, v in pairs(t) do seen[#seen + 1] = k t.c = nil t[k .. k] = v end print(table.concat(seen, ' '))")
    assert runvil_process("lua", "-e", chunk, cwd=tmp_path) == (0, "a b\n", "")


@pytest.mark.parametrize("args, status, message", [
    (["nofile.lua"], 1, "runvil: cannot open nofile.lua: No such file or directory\n"),
    (["."], 1, "runvil: cannot read .: Is a directory\n"),
    (["-e", "error('boom', 0)"], 1, "runvil: boom\n"),
    (["-e", "require('nope')"], 1, "runvil: (command line):1: module 'nope' not found:\n\tno field package.preload['nope']\n\tno file './nope.lua'"),
    (["-x"], 2, "runvil: unrecognized option '-x'"),
])
def test_runvil_lua_exit_statuses_are_those_the_reference_states(tmp_path, args, status, message):
    code, out, err = runvil_process("lua", *args, cwd=tmp_path)
    assert code == status and err.startswith(message), err
    reference = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    section = reference.split("## runvil lua", 1)[1].split("\n## ", 1)[0]
    assert "Exit status: 0 success; 1 an error in a chunk, or a FILE that cannot be opened (as `lua`); " \
           "2 an option it does not know" in " ".join(section.split())


# ------------------------------------------------------------ help, models


@pytest.mark.parametrize("command", ["run", "check", "lua", "chat", "view", "conformance", "models"])
def test_every_help_page_shows_examples(cli, command):
    code, out, err = cli(command, "--help")
    assert code == 0
    examples = out.split("examples:\n", 1)[1]
    lines = [line for line in examples.splitlines() if line.startswith(f"  runvil {command}")]
    assert 1 <= len(lines) <= 3, out


@pytest.mark.parametrize("command", ["run", "check", "models", "lua", "chat", "conformance", "view", "batch",
                                     "playground", "logs"])
def test_every_option_of_every_command_is_in_the_command_reference(cli, command):
    import re

    reference = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    code, out, err = cli(command, "--help")
    assert code == 0
    listed = re.findall(r"^\s+(-{1,2}[a-zA-Z][a-z_-]*)", out, re.M)  # the options' own lines
    options = set(listed) | set(re.findall(r"[\[ ,](--[a-z][a-z-]*)", out))  # and the usage line's
    options -= {"-h", "--help"}
    assert options, out
    missing = sorted(o for o in options if f"`{o}" not in reference)
    assert missing == [], f"runvil {command}: options not in the reference"


def test_models_lists_the_catalog_and_how_each_role_is_bound(tmp_path, cli):
    write(tmp_path, "runvil.toml", CONFIG + '\n[bind]\nreviewer = "local/big"\n')
    p = hello(tmp_path)
    code, out, err = cli("models", p, "--bind", "writer=local/small")
    assert (code, err) == (0, "")
    assert out == ("config: runvil.toml\n\n"
                   "model        provider  name   context  max_tokens\n"
                   "local/small  local     small  8,192    -\n"
                   "local/big    local     big    32,768   -\n\n"
                   "default_model: (none)\n"
                   "[bind]: reviewer = local/big\n\n"
                   "role      bound to     by\n"
                   "writer    local/small  --bind\n"
                   "reviewer  local/big    [bind]\n")
    code, out, err = cli("models", p, "-m", "local/small", "--json")
    data = json.loads(out)
    assert [m["context"] for m in data["models"]] == [8192, 32768]
    assert data["roles"] == [{"role": "writer", "model": "local/small", "by": "-m/--model"},
                             {"role": "reviewer", "model": "local/small", "by": "-m/--model"}]


def test_models_without_a_config_says_the_echo_model_is_used(tmp_path, cli):
    code, out, err = cli("models")
    assert code == 0 and out.startswith("no config file (--config, RUNVIL_CONFIG or ./runvil.toml)")


def test_model_flag_binds_every_role_and_bind_still_wins(tmp_path, cli, server):
    """`-m` reaches the provider: the loopback server sees each role's model name."""
    from ..harness.chat_server import text_stream

    write(tmp_path, "runvil.toml", CONFIG.replace("http://127.0.0.1:9/v1", server.base_url))
    p = hello(tmp_path, "## A\n\n```lua\nfor _, role in ipairs({'writer', 'reviewer'}) do\n"
                        "  models.use(role)\n  messages:user('hi')\n  models.loop()\nend\nreturn 'done'\n```\n")
    server.reply(text_stream("a"), text_stream("b"), text_stream("c"), text_stream("d"))
    assert cli("run", p, "-m", "local/big")[0:2] == (0, "done\n")
    assert cli("run", p, "--model", "local/big", "--bind", "reviewer=local/small")[0:2] == (0, "done\n")
    assert [r["body"]["model"] for r in server.requests] == ["big", "big", "big", "small"]


# ------------------------------------------------------------ the reference is complete

CONFIGURATION = ROOT / "docs" / "reference" / "configuration.md"


def _sections(text: str) -> dict[str, str]:
    """Heading line -> the text under it, for `###` headings."""
    parts = text.split("\n### ")[1:]
    return {p.split("\n", 1)[0]: p.split("\n", 1)[1] for p in parts}


def test_every_config_key_the_code_reads_is_in_the_reference():
    from runvil.host.config import CONFIG_KEYS

    sections = _sections(CONFIGURATION.read_text(encoding="utf-8"))
    for table, keys in CONFIG_KEYS.items():
        heading = "The top level" if table == "" else f"[{table}]"
        (text,) = [body for h, body in sections.items() if heading in h] or [None]
        assert text is not None, f"no section for {heading} in configuration.md"
        for key in keys:
            assert f"| `{key}` |" in text or f"`{key} " in text, f"{table}.{key} is not in configuration.md"


def test_every_environment_variable_the_code_reads_is_in_the_reference():
    import re

    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "runvil").rglob("*.py"))
    read = set(re.findall(r'environ(?:\.get)?[\[(]\s*"([A-Z][A-Z0-9_]*)"', source))
    read |= set(re.findall(r'^[A-Z_]+_ENV\s*=\s*"([A-Z][A-Z0-9_]*)"', source, re.MULTILINE))
    assert {"RUNVIL_CONFIG", "RUNVIL_TRACEBACK", "XDG_DATA_HOME"} <= read  # the scan finds them
    text = CONFIGURATION.read_text(encoding="utf-8").split("## Environment variables", 1)[1]
    for name in sorted(read):
        assert f"| `{name}` |" in text, f"{name} is not in configuration.md"


def test_the_reference_config_examples_are_valid_and_name_openai_and_a_local_server():
    import re
    import tomllib

    from runvil.host.config import parse_config

    blocks = re.findall(r"```toml\n(.*?)```", CONFIGURATION.read_text(encoding="utf-8"), re.DOTALL)
    configs = [parse_config(tomllib.loads(b), "example") for b in blocks]
    urls = {p.base_url for c in configs for p in c.providers.values()}
    assert "https://api.openai.com/v1" in urls and any(u.startswith("http://127.0.0.1") for u in urls)


def test_every_exit_status_is_in_the_reference():
    text = CONFIGURATION.read_text(encoding="utf-8").split("## Exit statuses", 1)[1]
    for status in (0, 1, 2, 3, 130, 141, 143):
        assert f"| `{status}` |" in text


# ------------------------------------------------------------ the viewer


def test_the_viewer_draws_the_h1_body_task_inputs_and_results_and_rounds_per_task(tmp_path, cli):
    import re

    p = write(tmp_path, "p.md", HEAD.replace("# T\n", "# T\n\nAsk about each city.\n") + """```lua
models.default('writer')
return table.concat(tasks.fanout('City', {'Paris', 'Oslo'}), ' | ')
```

## City

```lua
models.use('writer')
messages:user('tell me about ' .. input)
models.loop()
messages:user('and its river?')
models.loop()
return 'done ' .. input
```
""")
    write(tmp_path, "w.yaml", "replies:\n" + "".join(f"  - text: r{i}\n" for i in range(4)))
    assert cli("run", p, "--script", "w.yaml", "--log", "run.jsonl")[:2] == (0, "done Paris | done Oslo\n")
    assert cli("view", "run.jsonl")[0] == 0
    page = (tmp_path / "run.html").read_text(encoding="utf-8")
    h1 = page.split("the H1 body</summary>", 1)[1].split("</details>", 1)[0]
    assert "Ask about each city." in h1 and "tasks.fanout(&#x27;City&#x27;" in h1
    tasks = page.split("<section class=\"entry\">")[2:]
    assert len(tasks) == 2
    for task, city in zip(tasks, ("Paris", "Oslo")):
        assert f"task input</span><pre>{city}</pre>" in task
        assert f"task result</span><pre>done {city}</pre>" in task
        assert re.findall(r"<summary>round (\d+)", task) == ["1", "2"]  # numbered per task, not across the run
