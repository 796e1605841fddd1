"""`runvil run`, `runvil check`, `runvil chat` and the Python API against
docs/reference/commands.md: usage errors exit 2 without a traceback, the input file is read
exactly, check reads every file, bound tools come from the Packs, and the
scripted world streams its fragments to a terminal."""

from __future__ import annotations

import io
import json
import sys
import textwrap

import pytest

import runvil
from runvil.engine.run import ModelBinding
from runvil.host.cli import main

from ..engine.prompts import chat_prompt
from .terminal import on_a_terminal

PROMPT = chat_prompt(uses=('web', 'files'))

TOOLS = PROMPT.replace("messages:user(input or 'hello')", "tools.offer('web/search')\nmessages:user('hello')")


def write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(textwrap.dedent(text), encoding="utf-8", newline="")
    return str(p)


@pytest.mark.parametrize("world", [
    "replies:\n  - {error: boom}\n",
    "replies:\n  - hi\n",
    "replies:\n  writer: {text: hi}\n",
    "models:\n  writer: {context: abc}\n",
    "tools:\n  web/search: hi\n",
    "replies:\n  - {error: {body: oops}}\n",
])
def test_a_bad_world_is_a_usage_error(tmp_path, capsys, world):
    prompt = write(tmp_path, "p.md", PROMPT)
    w = write(tmp_path, "w.yaml", world)
    assert main(["run", prompt, "--script", w, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("runvil: the scripted world ") and "internal error" not in err


def test_an_unwritable_log_is_a_usage_error(tmp_path, capsys):
    prompt = write(tmp_path, "p.md", PROMPT)
    w = write(tmp_path, "w.yaml", "replies: [{text: hi}]\n")
    assert main(["run", prompt, "--script", w, "--log", str(tmp_path / "no" / "such" / "log.jsonl")]) == 2
    assert main(["run", prompt, "--script", w, "--log", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "cannot write the run log" in err and "internal error" not in err


def test_the_input_file_is_read_exactly(tmp_path, capsys):
    prompt = write(tmp_path, "p.md", PROMPT.replace("models.loop()\nreturn messages[#messages].content",
                                                    "return json.encode(input)"))
    w = write(tmp_path, "w.yaml", "input: from the world\n")
    f = write(tmp_path, "in.txt", b"a\r\nb\n")
    assert main(["run", prompt, "--script", w, "--input-file", f]) == 0
    assert capsys.readouterr().out == '"a\\r\\nb\\n"\n'
    latin = write(tmp_path, "latin.txt", b"caf\xe9")
    lua = prompt.replace(".md", "2.md")
    with open(lua, "w", encoding="utf-8") as f:
        f.write(PROMPT.replace("models.loop()\nreturn messages[#messages].content",
                               "return #input .. '|' .. string.byte(input, 4)"))
    assert main(["run", lua, "--script", w, "--input-file", latin]) == 0
    assert capsys.readouterr().out == "4|233\n"


def test_check_reads_every_file(tmp_path, capsys):
    good = write(tmp_path, "good.md", PROMPT)
    bad = write(tmp_path, "bad.md", PROMPT.replace("name: t", "name: T"))
    missing = str(tmp_path / "missing.md")
    assert main(["check", missing, bad, good]) == 3
    err = capsys.readouterr().err
    assert "cannot read" in err and "error[Parse]: " in err and "bad.md:2:" in err
    assert main(["check", good, missing]) == 2
    assert main(["check", good]) == 0


def test_bound_tools_come_from_the_packs_without_a_script(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    prompt = write(tmp_path, "p.md", PROMPT.replace(
        "models.use('writer')\nmessages:user(input or 'hello')\nmodels.loop()\nreturn messages[#messages].content",
        "tools.call('files/write', {path = 'n.txt', content = 'note'})\n"
        "local ok, e = pcall(tools.call, 'web/search', {query = 'x'})\n"
        "return tools.call('files/read', {path = 'n.txt'}) .. '|' .. tostring(e)"))
    assert main(["run", prompt]) == 0
    assert capsys.readouterr().out == "note|tool web/search failed: web/search needs a configured endpoint\n"
    assert runvil.run(runvil.parse_file(prompt)).startswith("note|")


def test_the_python_api_offers_pack_tools_and_takes_partial_bindings(tmp_path):
    prompt = runvil.parse_file(write(tmp_path, "p.md", TOOLS))
    world = {"replies": [{"tool_calls": [{"id": "c1", "name": "web_search", "arguments": {"query": "x"}}]},
                         {"text": "done"}],
             "tools": {"web/search": [{"result": "found"}]}}
    assert runvil.run(prompt, script=world) == "done"
    two = PROMPT.replace("  writer: {}", "  writer: {}\n  reviewer: {}")
    path = write(tmp_path, "two.md", two)
    assert runvil.run(path, script={"replies": [{"text": "hi"}]},
                      bindings={"reviewer": ModelBinding("other")}) == "hi"
    assert runvil.run(path, bindings={"writer": "some-model"}) == "echo: hello"


def test_chat_reads_the_world_input_as_its_system_message(tmp_path, monkeypatch, capsys):
    w = write(tmp_path, "w.yaml", "input: Be brief.\nreplies: [{text: hi}]\n")
    log = tmp_path / "log.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\n"))
    assert main(["chat", "--script", w, "--log", str(log)]) == 0
    sent = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    chat = next(e for e in sent if e["type"] == "chat")
    assert chat["messages"][0] == {"role": "system", "content": "Be brief."}


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_scripted_fragments_are_live_output_on_a_terminal(tmp_path):

    prompt = write(tmp_path, "p.md", PROMPT)
    w = write(tmp_path, "w.yaml", "replies:\n  - {text: bonjour, fragments: [bon, jour]}\n")
    _, out, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "run", prompt, "--script", w], timeout=60)
    assert out == b"bonjour\n"
    assert b"bonjour" in seen.replace(b"\r\x1b[K", b"")


def test_conformance_with_a_missing_folder_or_a_bad_case_is_a_usage_error(tmp_path, capsys):
    assert main(["conformance", str(tmp_path / "missing")]) == 2
    (tmp_path / "bad.yaml").write_text("- 5\n", encoding="utf-8")
    assert main(["conformance", str(tmp_path)]) == 2
    (tmp_path / "bad.yaml").write_text("cases: [\n", encoding="utf-8")
    assert main(["conformance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and "no conformance cases at" in err


def test_numbers_in_tool_call_arguments_reach_lua_as_numbers(tmp_path, capsys):
    prompt = write(tmp_path, "p.md", PROMPT.replace(
        "messages:user(input or 'hello')\nmodels.loop()\nreturn messages[#messages].content",
        "local seen\n"
        "tools.offer_local('probe', 'probe', {type = 'object'}, function(a) seen = math.type(a.limit) return 'ok' end)\n"
        "messages:user('go')\nmodels.loop()\nreturn seen .. '|' .. messages[#messages].content"))
    w = write(tmp_path, "w.yaml", "replies:\n  - tool_calls: [{id: c1, name: probe, arguments: {limit: 3}}]\n"
                                  "  - text: 1.50\n")
    assert main(["run", prompt, "--script", w, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == "integer|1.50"
    assert data["requests"][1]["messages"][1]["tool_calls"][0]["arguments"] == {"limit": 3}


def test_every_json_object_carries_usage(tmp_path, capsys, monkeypatch):
    """the specification: "`--json` also carries `"usage": {"rounds": R, "prompt_tokens": P,
    "completion_tokens": C, "reasoning_tokens": T}`"."""
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    prompt = write(tmp_path, "p.md", PROMPT)
    assert main(["run", prompt, "--json"]) == 0  # the echo model: a round without usage
    data = json.loads(capsys.readouterr().out)
    assert data["result"] == "echo: hello"
    assert data["usage"] == {"rounds": 1, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0,
                             "rounds_without_usage": 1}
    bad = write(tmp_path, "bad.md", PROMPT.replace("name: t", "name: T"))
    assert main(["run", bad, "--json"]) == 3
    out = capsys.readouterr().out
    assert json.loads(out)["usage"] == {"rounds": 0, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0,
                                        "rounds_without_usage": 0}
