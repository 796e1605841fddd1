"""One nesting limit for recording and replaying tool arguments (issue 26:
"tool arguments nested 450 deep record with a RecursionError and an empty
world file"; "tool arguments nested 101–500 deep record but cannot be
replayed"). What `--record` writes, `--script` reads: a world that would
nest deeper than a world may is refused when recording, by name, and no
file is left."""

from __future__ import annotations

import json
import textwrap

import pytest

from runvil.host.cli import main
from tests.harness.chat_server import ChatServer, Reply

PROMPT = """---
name: deep
description: A tool call with deep arguments.
runvil: 0
models:
  writer: {}
---

# Ask

```lua
models.use('writer')
tools.offer_local('clock', 'the time', {type = 'object'}, function() return '12:00' end)
messages:user('hello')
models.loop()
return messages[#messages].content
```
"""


def nested(levels: int):
    value = 1
    for _ in range(levels):
        value = [value]
    return value


def replies(levels: int) -> list[Reply]:
    call = {"id": "c1", "type": "function", "function": {"name": "clock", "arguments": json.dumps({"x": nested(levels)})}}
    return [Reply(json={"choices": [{"index": 0, "finish_reason": "tool_calls",
                                     "message": {"role": "assistant", "content": None, "tool_calls": [call]}}]}),
            Reply(json={"choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "done"}}]})]


@pytest.fixture
def record(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    (tmp_path / "p.md").write_text(PROMPT, encoding="utf-8")

    def run(levels: int) -> tuple[int, str]:
        server = ChatServer().start().reply(*replies(levels))
        try:
            config = tmp_path / "runvil.toml"
            config.write_text(textwrap.dedent(f"""\
                default_model = "local/m"
                [providers.local]
                base_url = "{server.base_url}"
                [models."local/m"]
                provider = "local"
                name = "m"
                context = 100000
                """), encoding="utf-8")
            code = main(["run", str(tmp_path / "p.md"), "--config", str(config), "--record", str(tmp_path / "w.yaml")])
        finally:
            server.stop()
        out, err = capsys.readouterr()
        assert code == 0 and out == "done\n", err
        return code, err

    return run


def test_arguments_as_deep_as_a_world_holds_record_and_replay(tmp_path, record, capsys):
    _, err = record(93)  # the world is then exactly 100 levels deep
    assert err == ""
    assert main(["run", str(tmp_path / "p.md"), "--script", str(tmp_path / "w.yaml")]) == 0
    assert capsys.readouterr().out == "done\n"


@pytest.mark.parametrize("levels", [94, 450])
def test_deeper_arguments_are_refused_by_the_recorder_with_no_file_left(tmp_path, record, levels):
    _, err = record(levels)
    assert err == (f"runvil: cannot record the world in {tmp_path / 'w.yaml'}: replies[1].tool_calls[1].arguments "
                   "nests deeper than the 100 levels a world can hold, so the run cannot be replayed from a recording\n")
    assert not (tmp_path / "w.yaml").exists()
