"""Bound tool calls of one batch are performed concurrently (the
specification: "Bound tool calls of one batch are performed concurrently.";
the specification: "When one reply asks for several bound tools ... the loop
issues those calls at once so they run in parallel").

Measured through `runvil run` against real loopback servers: a Chat
Completions server whose model asks for five `web/fetch` calls, and a web
server whose pages each take 300 ms.
"""

from __future__ import annotations

import json
import threading

import pytest

from runvil.engine.effects import ToolCall, ToolResult
from runvil.harness.packs import PackTools, WithPackTools
from runvil.harness.providers import answer_concurrently
from runvil.harness.workspace import Workspace
from runvil.host.cli import main

from .chat_server import ChatServer, chunk, stream, text_stream
from .web_server import WebServer

PROMPT = """---
name: fetch-five
description: Five slow pages fetched in one batch.
runvil: 0
models:
  writer: {}
uses: [web, files]
---

# Fetch

## Go

```lua
models.use('writer')
packs.offer('web')
tools.offer('files/write')
messages:user('fetch them')
models.loop()
return messages[#messages].content
```
"""

CONFIG = """
default_model = "local/small"
[providers.local]
base_url = "{url}"
[models."local/small"]
provider = "local"
context = 8192
"""


def fetch_calls(urls) -> list:
    return [{"index": i, "id": f"call_{i}", "type": "function",
             "function": {"name": "web_fetch", "arguments": json.dumps({"url": u})}} for i, u in enumerate(urls)]


@pytest.fixture
def servers():
    chat, web = ChatServer().start(), WebServer(sleep=0.3).start()
    yield chat, web
    chat.stop()
    web.stop()


def run_cli(tmp_path, chat, *extra) -> tuple[int, dict]:
    (tmp_path / "p.md").write_text(PROMPT)
    (tmp_path / "runvil.toml").write_text(CONFIG.format(url=chat.base_url))
    out = tmp_path / "out.json"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["run", str(tmp_path / "p.md"), "--config", str(tmp_path / "runvil.toml"), "--json", *extra])
    out.write_text(buf.getvalue())
    return code, json.loads(buf.getvalue())


def test_five_slow_fetches_of_one_batch_overlap(tmp_path, servers):
    chat, web = servers
    urls = [web.url(f"/slow?n={i}") for i in range(5)]
    chat.reply(stream(chunk({"role": "assistant", "tool_calls": fetch_calls(urls)}), chunk({}, finish="tool_calls")),
               text_stream("fetched"))
    code, out = run_cli(tmp_path, chat)
    assert (code, out["ok"], out["result"]) == (0, True, "fetched")
    slow = [h for h in web.hits if h["path"].startswith("/slow")]
    assert len(slow) == 5
    # at once: every fetch had started before the first one ended (one after
    # another, each would start after the one before it ended); no wall-clock
    # bound, which a loaded machine stretches
    first_end = min(h["end"] for h in slow)
    assert all(h["start"] < first_end for h in slow), [(h["start"], h["end"]) for h in slow]
    tool_records = [m for m in out["requests"][1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_records] == [f"call_{i}" for i in range(5)]  # the model's order
    assert [m["content"].strip() for m in tool_records] == [f"slow page {i}" for i in range(5)]


def test_a_batch_mixing_failures_and_writes_keeps_each_answer_in_place(tmp_path, servers):
    chat, web = servers
    calls = fetch_calls([web.url("/slow?n=0"), "file:///etc/passwd", web.url("/slow?n=2")])
    calls.append({"index": 3, "id": "call_3", "type": "function",
                  "function": {"name": "files_write", "arguments": json.dumps({"path": "a.txt", "content": "x"})}})
    chat.reply(stream(chunk({"role": "assistant", "tool_calls": calls}), chunk({}, finish="tool_calls")),
               text_stream("ok"))
    code, out = run_cli(tmp_path, chat, "--workspace", str(tmp_path / "ws"))
    assert code == 0
    contents = [m["content"] for m in out["requests"][1]["messages"] if m["role"] == "tool"]
    assert contents[0].strip() == "slow page 0" and contents[2].strip() == "slow page 2"
    assert "only http and https URLs can be fetched (got file:)" in contents[1]
    assert contents[1].startswith("<untrusted_input_")
    assert contents[3] == "wrote 1 bytes to a.txt"
    assert (tmp_path / "ws" / "a.txt").read_text() == "x"


def test_pack_tools_on_the_echo_model_are_concurrent(tmp_path):
    """runvil.run and `runvil run` without a config wrap the echo model in
    WithPackTools, which answers a batch concurrently."""
    gate = threading.Barrier(3, timeout=2.0)

    class Waiting:
        name, tools = "wait", {"here": {"description": "", "parameters": {"type": "object"}}}

        def perform(self, tool, arguments):
            gate.wait()  # only three calls at once pass the barrier
            return "passed"

    tools = PackTools(Workspace.at(tmp_path))
    tools.packs["wait"] = Waiting()
    answer = WithPackTools(lambda e: None, tools)
    assert answer.concurrent
    answers = answer_concurrently([ToolCall(i, "wait/here", {}) for i in range(3)], answer)
    assert answers == {0: ToolResult("passed"), 1: ToolResult("passed"), 2: ToolResult("passed")}


def test_answer_concurrently_threads_are_daemons():
    """A slow call must never hold the process at exit (Ctrl-C, SIGTERM)."""
    seen = []

    def answer(e):
        seen.append(threading.current_thread().daemon)
        return e.id

    assert answer_concurrently([ToolCall(i, "x/y", {}) for i in range(20)], answer, max_workers=4) == \
        {i: i for i in range(20)}
    assert seen == [True] * 20
