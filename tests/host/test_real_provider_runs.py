"""`runvil run --config ... --json --log ... --debug` against a real
loopback Chat Completions server (docs/reference/configuration.md,
docs/reference/commands.md "runvil run"): retries, honest failures,
usage summed over rounds, `time` on every run-log event, and the API key
nowhere in stdout, stderr or the log."""

from __future__ import annotations

import json
import os
import re
import sys

import pytest

from runvil.host.cli import main

from ..harness.chat_server import chunk, error, stream, text_stream, usage_chunk
from ..harness.key_echo import provider_toml
from .terminal import on_a_terminal

KEY = "sk-test-CLI-SECRET-9f8e7d6c5b4a"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROMPT = """\
---
name: t
description: A test prompt.
runvil: 0
models:
  writer: {}
---

# T

## A

```lua
models.use('writer')
tools.offer_local('clock', 'the time', {type = 'object'}, function() return '12:00' end)
messages:user(input or 'hello')
models.loop()
return messages[#messages].content
```
"""


@pytest.fixture
def files(tmp_path, server, monkeypatch):
    monkeypatch.setenv("RUNVIL_TEST_KEY", KEY)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    prompt = tmp_path / "p.md"
    prompt.write_text(PROMPT, encoding="utf-8")
    config = tmp_path / "runvil.toml"
    config.write_text(provider_toml(server.base_url, "RUNVIL_TEST_KEY", max_retries=None), encoding="utf-8")
    return str(prompt), str(config), tmp_path / "log.jsonl"


def run(files, capsys, *extra):
    prompt, config, log = files
    code = main(["run", prompt, "--config", config, "--json", "--log", str(log), "--debug", *extra])
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for text in (out, err, log.read_text(encoding="utf-8")):
        assert KEY not in text and KEY[8:] not in text  # the key, or its tail, nowhere
    assert all(TIME.match(e["time"]) for e in events)  # time on every run-log event
    return code, json.loads(out), err, events


def test_429_with_retry_after_then_success(server, files, capsys):
    server.reply(error(429, {"error": {"message": f"Rate limit reached (key {KEY})"}}, headers={"retry-after": "1"}),
                 text_stream("bonjour"))
    code, data, err, events = run(files, capsys)
    assert code == 0 and data["ok"] and data["result"] == "bonjour"
    times = [r["time"] for r in server.requests]
    assert len(times) == 2 and times[1] - times[0] >= 1.0
    (retry,) = [e for e in events if e["type"] == "model_retry"]
    assert {k: retry[k] for k in ("attempt", "status", "wait", "role", "model")} == {
        "attempt": 1, "status": 429, "wait": 1.0, "role": "writer", "model": "local/m"}
    assert len(data["requests"]) == 1 and data["usage"]["rounds"] == 1


def test_503_then_success(server, files, capsys):
    server.reply(error(503, "Service Unavailable"), text_stream("ok"))
    code, data, _, events = run(files, capsys)
    assert code == 0 and data["result"] == "ok"
    (retry,) = [e for e in events if e["type"] == "model_retry"]
    assert retry["status"] == 503 and 0.375 <= retry["wait"] <= 0.5  # the first backoff of retries.py, with jitter


def test_endless_429s_fail_after_a_bounded_number_of_tries(server, files, capsys):
    for _ in range(6):
        server.reply(error(429, {"error": {"message": "Rate limit reached for requests per min"}},
                           headers={"retry-after-ms": "20"}))
    code, data, err, events = run(files, capsys)
    assert code == 1 and len(server.requests) == 3
    msg = "the model backend rejected the request (status 429): Rate limit reached for requests per min"
    assert data["error"]["kind"] == "Completion" and data["error"]["message"] == msg  # an uncaught `internal`
    assert f"error[Completion]: {msg}" in err
    assert [e["attempt"] for e in events if e["type"] == "model_retry"] == [1, 2]


def test_a_cut_stream_fails(server, files, capsys):
    server.reply(stream(chunk({"content": "half an ans"}), done=False))
    code, data, err, events = run(files, capsys)
    assert code == 1 and not data["ok"] and data["result"] is None
    # docs/reference/commands.md: the streamed part is kept, in
    # `error.partial` and `model_reply_partial`, never as a reply
    assert data["error"] == {"kind": "Completion", "message": "the model backend's reply stream ended early",
                             "partial": "half an ans", "file": files[0], "line": 17, "section": "A"}  # the models.loop() line
    assert len(data["requests"]) == 1 and len(server.requests) == 1  # reached the provider; never retried
    (partial,) = [e for e in events if e["type"] == "model_reply_partial"]
    assert partial["text"] == "half an ans" and partial["round"] == 1
    assert not [e for e in events if e["type"] in ("assistant_reply", "reply")]


def test_in_lua_the_failure_is_an_internal_error_value(server, files, capsys):
    prompt = files[0]
    with open(prompt, "w", encoding="utf-8") as f:
        f.write(PROMPT.replace("models.loop()\nreturn messages[#messages].content",
                               "local ok, err = pcall(models.loop)\nreturn err.kind .. '|' .. tostring(err)"))
    server.reply(stream(chunk({"content": "half"}), done=False))
    code, data, _, _ = run(files, capsys)
    assert data["result"] == "internal|the model backend's reply stream ended early"


def test_a_plain_400s_text_is_in_the_error(server, files, capsys):
    server.reply(error(400, "Invalid value for 'temperature'."))
    code, data, err, _ = run(files, capsys)
    assert code == 1
    assert data["error"]["message"] == "the model backend rejected the request (status 400): Invalid value for 'temperature'."
    assert data["error"]["status"] == 400


def test_a_key_echoed_in_an_error_is_masked_everywhere(server, files, capsys):
    server.reply(error(401, {"error": {"message": f"Incorrect API key provided: {KEY}."}}))
    code, data, err, events = run(files, capsys)
    assert code == 1 and "[REDACTED]" in data["error"]["message"]
    assert any(e["type"] == "debug_response" for e in events)


def test_usage_summed_over_rounds(server, files, capsys):
    server.reply(
        stream(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "clock", "arguments": "{}"}}]}),
               chunk({}, finish="tool_calls"), usage_chunk(10, 5, reasoning=3)),
        stream(chunk({"content": "noon"}, finish="stop"), usage_chunk(20, 7, reasoning=1)),
    )
    code, data, _, _ = run(files, capsys)
    assert code == 0 and data["result"] == "noon"
    assert data["usage"] == {"rounds": 2, "prompt_tokens": 30, "completion_tokens": 12, "reasoning_tokens": 4,
                             "rounds_without_usage": 0}


def test_a_round_without_usage_adds_to_rounds_only(server, files, capsys):
    server.reply(error(500, "boom"), error(500, "boom"), error(500, "boom"))
    code, data, _, _ = run(files, capsys)
    assert code == 1 and data["usage"] == {"rounds": 1, "prompt_tokens": 0, "completion_tokens": 0,
                                           "reasoning_tokens": 0, "rounds_without_usage": 1}


def test_an_unreachable_backend_adds_no_round(files, capsys, tmp_path):
    prompt, config, log = files
    text = open(config).read()
    with open(config, "w") as f:
        f.write(re.sub(r'base_url = "[^"]+"', 'base_url = "http://127.0.0.1:9/v1"', text)
                .replace("timeout = 5", "timeout = 5\nmax_retries = 0"))
    code, data, _, _ = run(files, capsys)
    assert code == 1 and data["error"]["message"].startswith("the model backend could not be reached")
    assert data["requests"] == [] and data["usage"]["rounds"] == 0


def test_usage_in_a_scripted_world_comes_from_the_replies(tmp_path, capsys):
    prompt = tmp_path / "p.md"
    prompt.write_text(PROMPT, encoding="utf-8")
    world = tmp_path / "w.yaml"
    world.write_text("replies:\n"
                     "  - {tool_calls: [{id: c1, name: clock, arguments: {}}], usage: {prompt_tokens: 3, completion_tokens: 2}}\n"
                     "  - {text: noon, usage: {prompt_tokens: 9, completion_tokens: 4, reasoning_tokens: 2}}\n",
                     encoding="utf-8")
    assert main(["run", str(prompt), "--script", str(world), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["usage"] == {"rounds": 2, "prompt_tokens": 12, "completion_tokens": 6, "reasoning_tokens": 2,
                             "rounds_without_usage": 0}


# ------------------------------------------------------------------ on a terminal


def run_on_a_terminal(args, env, stdout_too: bool = False):
    """Runs `runvil` with stderr (and stdout when asked) on a pty; returns
    (stdout bytes, what the terminal showed)."""
    code, out, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", *args],
                                    streams=("stdout", "stderr") if stdout_too else ("stderr",), env=env, timeout=60)
    return out, re.sub(rb"\x1b\[[0-9;]*[A-Za-z]|\r", b"", seen).decode("utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_terminal_shows_retries_prints_and_the_closing_line(server, files):
    prompt, config, _ = files
    with open(prompt, "w", encoding="utf-8") as f:
        f.write(PROMPT.replace("models.loop()", "print('looking it up')\nmodels.loop()"))
    server.reply(error(503, "busy", headers={"retry-after-ms": "10"}),
                 stream(chunk({"content": "bon"}), chunk({"content": "jour"}, finish="stop"), usage_chunk(30, 12, 4)))
    env = {**os.environ, "RUNVIL_TEST_KEY": KEY}
    out, shown = run_on_a_terminal(["run", prompt, "--config", config], env)
    assert out == b"bonjour\n"  # stdout is a pipe: the result is printed there
    assert "looking it up\n" in shown
    assert "↻ writer: status 503, retry 1 in 0.0 s\n" in shown
    assert "bonjour\n" in shown
    assert re.search(r"^1 round · 30 prompt \+ 12 completion tokens \(4 reasoning\) · \d+\.\d s$", shown, re.M)
    assert shown.rstrip("\n").splitlines()[-1].startswith("1 round · ")
    assert KEY not in shown


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_the_answer_is_shown_once_when_stdout_is_the_same_terminal(server, files):
    prompt, config, _ = files
    server.reply(stream(chunk({"content": "only "}), chunk({"content": "once"}, finish="stop")))
    env = {**os.environ, "RUNVIL_TEST_KEY": KEY}
    _, shown = run_on_a_terminal(["run", prompt, "--config", config], env, stdout_too=True)
    assert shown.count("only once") == 1
    # no usage reported (docs/reference/commands.md)
    assert re.search(r"^1 round · tokens unknown · \d+\.\d s$", shown, re.M)


def test_error_bodies_of_every_shape_never_crash_a_run(server, files, capsys):
    deep = "[" * 150_000 + "]" * 150_000
    bodies = [({"error": {"message": "Invalid value for 'temperature'."}}, "Invalid value for 'temperature'."),
              ({"message": "flat"}, "flat"), ([{"error": {"message": "listed"}}], "listed"),
              ("<html><title>502 Bad Gateway</title></html>", "502 Bad Gateway"), ("{broken", "{broken"),
              (deep, "[[[[")]
    for body, said in bodies:
        server.reply(error(400, body))
        code, data, err, _ = run(files, capsys)
        assert code == 1 and "internal error" not in err
        assert data["error"]["message"].startswith(f"the model backend rejected the request (status 400): {said}")
    server.reply(stream("data: " + '{"choices":' * 150_000 + "1" + "}" * 150_000 + "\n\n",
                        chunk({"content": "still fine"}, finish="stop")))
    code, data, _, _ = run(files, capsys)
    assert code == 0 and data["result"] == "still fine"


def test_timeout_and_max_retries_come_from_the_config(server, files, capsys):
    from ..harness.chat_server import Reply

    prompt, config, log = files
    text = open(config).read().replace("timeout = 5", "timeout = 0.3\nmax_retries = 1")
    with open(config, "w") as f:
        f.write(text)
    server.reply(Reply(delay=60.0, chunks=[chunk({"content": "late"}, finish="stop")]),  # the server's stop ends them
                 Reply(delay=60.0, chunks=[chunk({"content": "late"}, finish="stop")]))
    code, data, _, events = run(files, capsys)
    assert code == 1
    assert data["error"]["message"] == "the model backend could not be reached: no reply within 0.3 seconds"
    assert len(server.requests) == 2 and [e["status"] for e in events if e["type"] == "model_retry"] == [None]
