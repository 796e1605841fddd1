"""A compaction that fails the size rules: docs/reference/conversations.md "The rules a
compaction must pass" says a list that did not shrink, or a retry that
overflows again, raises context_exhausted with the overflow's reason. The
message is the spec's `context exhausted: {detail}`, exactly (a prompt may
compare `tostring(err)`); which compactor, where it is defined, and the two
estimates go on `help:` lines under the error and into `--json`'s `help`.
Through the CLI, on a scripted world."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAD = """---
name: long-notes
description: Sends notes far longer than the model's context window.
runvil: 0
models:
  writer: {}
---

# Long notes

## Send

```lua
models.use('writer')
messages:user(string.rep('x', 100000))
"""
WORLD = "models:\n  writer:\n    context: 4096\nreplies:\n  - {text: ok}\n"
PRECHECK = "context exhausted: the request precheck overflowed the model's context window"


def run(tmp_path, body: str, *flags: str):
    (tmp_path / "p.md").write_text(HEAD + body + "```\n", encoding="utf-8")
    (tmp_path / "w.yaml").write_text(WORLD, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "runvil.host.cli", "run", "p.md", "--script", "w.yaml", *flags],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_a_compactor_that_grows_the_list_is_named_with_its_line(tmp_path):
    # the spec's grown-list case: a compaction that adds records does not shrink
    code, out, err = run(tmp_path, "local function keep_all(reason)\n"   # line 16
                                   "  messages:assistant('noted')\n"
                                   "  messages:user('more')\n"
                                   "end\n"
                                   "models.loop(keep_all)\n")
    assert (code, out) == (1, "")
    assert err.splitlines()[:2] == [f"error[ContextExhausted]: {PRECHECK}",
                                    "help: the compactor defined at section `Send` prologue:16 did not shrink the list "
                                    "(estimated 25004 tokens before it ran, 25014 after)"]
    assert err.splitlines()[2] == ("help: the request was estimated at 25004 tokens against the window of 4096 of "
                                   "the model writer, with 512 kept for the reply: give models.loop a compactor that "
                                   "shrinks the list, or send less")


def test_json_keeps_the_reason_and_the_place_of_the_loop_call(tmp_path):
    code, out, _ = run(tmp_path, "models.loop(function(reason) end)\n", "--json")  # line 16
    error = json.loads(out)["error"]
    assert code == 1
    assert error["kind"] == "ContextExhausted" and error["reason"] == "precheck"
    assert error["message"] == PRECHECK
    assert error["help"][0] == ("the compactor defined at section `Send` prologue:16 did not shrink the list "
                                "(estimated 25004 tokens before it ran, 25004 after)")
    assert (error["line"], error["section"]) == (16, "Send")


def test_a_library_function_as_the_compactor_is_named_by_its_global_name(tmp_path):
    code, out, err = run(tmp_path, "models.loop(tostring)\n")  # returns a string, leaves the list
    assert (code, out) == (1, "")
    assert err.splitlines()[:2] == [f"error[ContextExhausted]: {PRECHECK}",
                                    "help: the compactor tostring did not shrink the list "
                                    "(estimated 25004 tokens before it ran, 25004 after)"]


def test_caught_the_error_keeps_its_kind_and_reason_and_the_list_is_restored(tmp_path):
    code, out, err = run(tmp_path, "local ok, e = pcall(models.loop, function(reason)\n"
                                   "  messages:replace(1, 1, {role = 'user', content = string.rep('y', 100000)})\n"
                                   "end)\n"
                                   "return e.kind .. '|' .. e.reason .. '|' .. messages[1].content:sub(1, 1) .. '|'"
                                   " .. tostring(e)\n")
    assert (code, err) == (0, "")
    assert out == "context_exhausted|precheck|x|" + PRECHECK + "\n"  # the spec's text, nothing appended


def test_a_retry_that_overflows_again_names_the_compactor(tmp_path):
    # 20,000 bytes estimate to 5004 tokens: smaller, yet still past 4096 - 512
    code, out, err = run(tmp_path, "models.loop(function(reason)\n"  # line 16
                                   "  messages:replace(1, 1, {role = 'user', content = string.rep('y', 20000)})\n"
                                   "end)\n")
    assert (code, out) == (1, "")
    assert err.splitlines()[:2] == [f"error[ContextExhausted]: {PRECHECK}",
                                    "help: the list the compactor defined at section `Send` prologue:16 left "
                                    "overflowed again"]
