"""Everyday mistakes through the CLI (issue 27): usage errors for what
would pass silently, messages listing what exists with a "did you mean",
and `--json` errors that say where they happened."""

from __future__ import annotations

import json
import textwrap

import pytest

from runvil.host.cli import main

HEAD = """---
name: t
description: A test prompt.
runvil: 0
models:
  writer: {}
  reviewer: {}
---

# T

"""

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


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    """runvil in tmp_path: (exit status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


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
    assert err.endswith("error[Lua]: global `var.plann` is nil\n  --> p.md:18 (section `Plan`)\n")
    code, out, err = cli("run", p, "--json")
    assert json.loads(out)["error"] == {"kind": "Lua", "message": "global `var.plann` is nil", "file": "p.md",
                                       "line": 18, "section": "Plan"}


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


def test_a_world_error_in_json_has_its_file_and_line(tmp_path, cli):
    p = hello(tmp_path)
    write(tmp_path, "w.yaml", "replies:\n  - txt: hi\n")
    code, out, err = cli("run", p, "--script", "w.yaml", "--json")
    error = json.loads(out)["error"]
    assert code == 2 and (error["kind"], error["file"], error["line"]) == ("Usage", "w.yaml", 2)
    assert error["message"] == err.strip().removeprefix("runvil: ")
