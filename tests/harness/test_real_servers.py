"""Real servers as they are (docs/reference/configuration.md): a loopback
server plays each behaviour found in llama.cpp's server and others, and
`runvil run` or the provider meets it.

- A streamed request the server cannot serve is answered with an empty
  200; asked without streaming, the same request is a 400 (an overflow).
- A missing `tool_choice` is taken as "none".
- A stream interrupted by another request ends with `[DONE]` and no
  finish reason.
- No usage at all, or usage of zeros.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap

import pytest

from runvil.engine.effects import ModelFailure, ModelRound
from runvil.harness.openai import OpenAIProvider, WireSettings
from runvil.harness.retries import RetryPolicy
from runvil.host.cli import main
from runvil.host.config import ConfigError, parse_config, provider_key

from .chat_server import Reply, chunk, completion, error, stream, text_stream, usage_chunk

OVERFLOW = {"error": {"message": "Requested tokens (834) exceed context window of 512", "type": "invalid_request_error",
                      "code": 400}}


def silent_stream_then(plain: Reply):
    """llama.cpp's server: a streamed request it cannot serve gets HTTP 200
    and an empty body; the same request not streamed gets `plain`. Two
    entries of the server's queue: the streamed ask and the plain one."""
    def answer(body):
        return Reply(chunks=[], done=False) if body.get("stream") else plain
    return answer, answer


def tools_only_with_tool_choice(body):
    """llama.cpp's server takes a missing `tool_choice` as "none"."""
    if body.get("tools") and body.get("tool_choice") not in (None, "none"):
        return stream(chunk({"role": "assistant", "tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]}),
            chunk({}, finish="tool_calls"))
    return text_stream("I have no tools.")


def rnd(tools=()) -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},),
                      tools=tuple(tools))


CLOCK = {"name": "clock", "description": "the time", "parameters": {"type": "object"}}


def provider(server, **settings) -> OpenAIProvider:
    return OpenAIProvider(server.base_url, None, "m", timeout=5.0, retry=RetryPolicy(max_retries=1, backoff_start=0.01),
                          settings=WireSettings(**settings))


# ------------------------------------------------------------------ a silent stream


def test_a_silent_stream_is_asked_again_without_streaming(server):
    """the specification: "A 2xx response whose stream ends before its first event is
    asked once more without streaming, and that answer stands"."""
    server.reply(*silent_stream_then(completion("bonjour", usage={"prompt_tokens": 9, "completion_tokens": 2})))
    seen = []
    with provider(server) as p:
        reply = p.answer(rnd(), on_fragment=seen.append)
    assert reply.text == "bonjour" and reply.usage == {"prompt_tokens": 9, "completion_tokens": 2}
    assert seen == ["bonjour"]  # live output still shows the reply
    first, second = server.requests
    assert first["body"]["stream"] is True and first["headers"]["Accept"] == "text/event-stream"
    assert second["body"]["stream"] is False and "stream_options" not in second["body"]
    assert second["headers"]["Accept"] == "application/json"
    assert {k: v for k, v in first["body"].items() if k not in ("stream", "stream_options")} == \
        {k: v for k, v in second["body"].items() if k != "stream"}


def test_the_plain_answer_stands_an_overflow_400(server):
    server.reply(*silent_stream_then(error(400, OVERFLOW)))
    with provider(server) as p:
        answer = p.answer(rnd())
    assert answer.status == 400 and "exceed context window of 512" in answer.body
    assert answer.message == ("the model backend rejected the request (status 400): "
                              "Requested tokens (834) exceed context window of 512")
    assert len(server.requests) == 2  # a 400 is never retried


def test_the_plain_answer_stands_a_5xx_retried_as_any(server):
    server.reply(*silent_stream_then(error(503, "busy")), completion("late"))
    with provider(server) as p:
        assert p.answer(rnd()).text == "late"
    assert [r["body"]["stream"] for r in server.requests] == [True, False, False]


def test_a_stream_of_only_comments_is_silent_too(server):
    server.reply(Reply(chunks=[": ping\n\n", ": ping\n\n"], done=False), completion("ok"))
    with provider(server) as p:
        assert p.answer(rnd()).text == "ok"


def test_a_stream_that_said_something_is_never_asked_again(server):
    server.reply(stream(chunk({"content": "par"}), done=False), completion("never"))
    with provider(server) as p:
        answer = p.answer(rnd())
    assert answer == ModelFailure(message="the model backend's reply stream ended early", partial="par")
    assert len(server.requests) == 1


PROMPT = """\
---
name: overflow
description: Two questions; the second overflows the server's window.
runvil: 0
models:
  writer: {}
---

# Overflow

## Ask

```lua
local reasons = {}
local function drop_oldest(reason)
  reasons[#reasons + 1] = reason
  if #messages < 4 then return compactors.fail(reason) end
  messages:replace(2, 3)
end
models.use('writer')
messages:system('Be brief.')
messages:user('first question')
models.loop(drop_oldest)
messages:user('second question')
models.loop(drop_oldest)
return table.concat(reasons, ',') .. '|' .. #messages .. '|' .. messages[#messages].content
```
"""


def config_file(tmp_path, server, extra: str = "") -> str:
    path = tmp_path / "runvil.toml"
    path.write_text(textwrap.dedent(f"""\
        default_model = "local/m"
        [providers.local]
        base_url = "{server.base_url}"
        timeout = 10
        max_retries = 0
        """) + extra + textwrap.dedent("""\
        [models."local/m"]
        provider = "local"
        context = 8192
        """), encoding="utf-8")
    return str(path)


def run_json(tmp_path, capsys, server, prompt: str, *extra, config_extra: str = ""):
    p = tmp_path / "p.md"
    p.write_text(prompt, encoding="utf-8")
    log = tmp_path / "log.jsonl"
    code = main(["run", str(p), "--config", config_file(tmp_path, server, config_extra), "--json", "--log", str(log),
                 *extra])
    data = json.loads(capsys.readouterr().out)
    return code, data, [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_streamed_overflow_reaches_the_compactor(tmp_path, capsys, server):
    """Issue 25: the overflow llama.cpp's server hides behind an empty 200
    reaches the compactor with reason `provider`, exactly as a 400 would."""
    server.reply(text_stream("first answer"), *silent_stream_then(error(400, OVERFLOW)), text_stream("second answer"))
    code, data, events = run_json(tmp_path, capsys, server, PROMPT)
    assert code == 0, data
    assert data["result"] == "provider|3|second answer"
    assert [r["body"]["stream"] for r in server.requests] == [True, True, False, True]
    failed = [e for e in events if e["type"] == "model_turn_failed"]
    assert [(e["status"], e["message"]) for e in failed] == [
        (400, "the model backend rejected the request (status 400): Requested tokens (834) exceed context window of 512")]
    # the compacted retry sends the system message and the second question only
    assert server.requests[3]["body"]["messages"] == [{"role": "system", "content": "Be brief."},
                                                      {"role": "user", "content": "second question"}]


# ------------------------------------------------------------------ [DONE] without a finish reason


def test_done_without_a_finish_reason_names_the_interrupted_stream(tmp_path, capsys, server):
    server.reply(stream(chunk({"role": "assistant", "content": "The capital"}), chunk({"content": " of"})))
    code, data, events = run_json(tmp_path, capsys, server, PROMPT)
    assert code == 1
    assert data["error"] == {
        "kind": "Completion",
        "message": "the model backend ended the reply stream without finishing the reply (no finish reason; "
                   "llama.cpp's server does this when another request interrupts a reply)",
        "partial": "The capital of", "file": str(tmp_path / "p.md"), "line": 23, "section": "Ask",
        "help": ["start llama.cpp's server with --interrupt_requests False, so that it serves concurrent requests "
                 "one after the other"]}
    (partial,) = [e for e in events if e["type"] == "model_reply_partial"]
    assert partial["text"] == "The capital of"
    assert len(server.requests) == 1


# ------------------------------------------------------------------ tool_choice


def test_tool_choice_auto_is_sent_with_tools_so_the_tool_is_called(server):
    server.reply(tools_only_with_tool_choice)
    with provider(server) as p:
        reply = p.answer(rnd([CLOCK]))
    assert reply.tool_calls == ({"id": "call_1", "name": "clock", "arguments": {}},)
    assert server.requests[0]["body"]["tool_choice"] == "auto"


def test_an_empty_tool_choice_sends_none_and_such_a_server_calls_no_tool(server):
    server.reply(tools_only_with_tool_choice)
    with provider(server, tool_choice="") as p:
        reply = p.answer(rnd([CLOCK]))
    assert "tool_choice" not in server.requests[0]["body"]
    assert reply.text == "I have no tools." and reply.tool_calls == ()


def test_tool_choice_goes_only_with_tools_and_as_given(server):
    server.reply(text_stream("a"), text_stream("b"))
    with provider(server, tool_choice="required") as p:
        p.answer(rnd())
        p.answer(rnd([CLOCK]))
    assert "tool_choice" not in server.requests[0]["body"] and "tools" not in server.requests[0]["body"]
    assert server.requests[1]["body"]["tool_choice"] == "required"


def test_the_tools_prompt_calls_its_tool_through_runvil_run(tmp_path, capsys, server):
    prompt = PROMPT.split("## Ask")[0] + textwrap.dedent("""\
        ## Ask

        ```lua
        models.use('writer')
        tools.offer_local('clock', 'the time', {type = 'object'}, function() return '12:00' end)
        messages:user('what time is it?')
        models.loop()
        return messages[#messages].content
        ```
        """)
    server.reply(tools_only_with_tool_choice, text_stream("It is noon."))
    code, data, _ = run_json(tmp_path, capsys, server, prompt)
    assert code == 0 and data["result"] == "It is noon."
    assert server.requests[1]["body"]["messages"][-1] == {"role": "tool", "content": "12:00", "tool_call_id": "call_1"}


# ------------------------------------------------------------------ stream, stream_usage


def test_stream_false_sends_plain_requests(tmp_path, capsys, server):
    server.reply(completion("bonjour", usage={"prompt_tokens": 9, "completion_tokens": 2}))
    code, data, _ = run_json(tmp_path, capsys, server, PROMPT.replace("messages:user('second question')\nmodels.loop(drop_oldest)\n", ""),
                             config_extra="stream = false\n")
    assert code == 0 and data["result"] == "|3|bonjour"
    (req,) = server.requests
    assert req["body"]["stream"] is False and "stream_options" not in req["body"]
    assert data["usage"] == {"rounds": 1, "prompt_tokens": 9, "completion_tokens": 2, "reasoning_tokens": 0,
                             "rounds_without_usage": 0}


def test_stream_usage_false_asks_for_no_usage(server):
    server.reply(text_stream("a"))
    with provider(server, stream_usage=False) as p:
        p.answer(rnd())
    body = server.requests[0]["body"]
    assert body["stream"] is True and "stream_options" not in body


def test_the_settings_in_the_config():
    """docs/reference/configuration.md: `stream` (default true), `tool_choice` (default "auto"),
    `stream_usage` (default true), per provider."""
    base = {"providers": {"a": {"base_url": "http://127.0.0.1:1/v1"}}}
    p = parse_config(base).providers["a"]
    assert (p.stream, p.tool_choice, p.stream_usage) == (True, "auto", True)
    p = parse_config({"providers": {"a": {"base_url": "http://x/v1", "stream": False, "tool_choice": "",
                                          "stream_usage": False}}}).providers["a"]
    assert (p.stream, p.tool_choice, p.stream_usage) == (False, "", False)
    for key, value, said in [("stream", "no", "providers.a.stream must be true or false"),
                             ("stream_usage", 1, "providers.a.stream_usage must be true or false"),
                             ("tool_choice", True, 'providers.a.tool_choice must be a string such as "auto", '
                                                   '"required" or "" (none sent)')]:
        with pytest.raises(ConfigError) as e:
            parse_config({"providers": {"a": {"base_url": "http://x/v1", key: value}}})
        assert str(e.value) == f"runvil.toml: {said}"


@pytest.mark.parametrize("key,fault", [
    ("sk-abc\u2013def12345", "holds the character U+2013 at position 7, which an API key cannot hold "
                             "(a typographic dash or quote pasted with it?)"),
    ("sk-abc\x07def12345", "holds spaces or control characters, which an API key cannot"),
])
def test_a_key_httpx_cannot_send_is_refused_at_config_time(key, fault):
    """Issue 26: a key with a non-ASCII character (a pasted typographic
    dash) or a control character is refused, never shown."""
    config = parse_config({"providers": {"a": {"base_url": "http://x/v1", "api_key_env": "K"}}})
    with pytest.raises(ConfigError) as e:
        provider_key(config, "a", {"K": key})
    assert str(e.value) == f"provider 'a': the environment variable K {fault}"
    assert key not in str(e.value) and "def12345" not in str(e.value)


# ------------------------------------------------------------------ usage that can be unknown


def test_no_usage_at_all_is_unknown_not_zero(tmp_path, capsys, server):
    server.reply(text_stream("one"), text_stream("two"))
    code, data, _ = run_json(tmp_path, capsys, server, PROMPT)
    assert code == 0
    assert data["usage"] == {"rounds": 2, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0,
                             "rounds_without_usage": 2}


def precheck_tokens(tmp_path, capsys, server, first_usage: dict) -> int:
    server.reply(stream(chunk({"content": "one"}, finish="stop"), {"id": "x", "choices": [], "usage": first_usage}),
                 text_stream("two"))
    code, data, events = run_json(tmp_path, capsys, server, PROMPT)
    assert code == 0
    return [e["precheck"]["tokens"] for e in events if e["type"] == "chat"][1]


def test_the_precheck_anchors_only_on_usage_that_was_sent(tmp_path, capsys, server):
    """Usage of zeros is no usage: the second round's precheck counts by the
    estimate; real usage anchors it (docs/reference/conversations.md "The provider anchor")."""
    estimated = precheck_tokens(tmp_path, capsys, server, {"prompt_tokens": 0, "completion_tokens": 0})
    server.requests.clear()
    anchored = precheck_tokens(tmp_path, capsys, server, {"prompt_tokens": 3000, "completion_tokens": 100})
    assert estimated < 100 and anchored >= 3100


def test_usage_of_zeros_counts_as_a_round_without_usage(tmp_path, capsys, server):
    server.reply(stream(chunk({"content": "one"}, finish="stop"),
                        {"id": "x", "choices": [], "usage": {"prompt_tokens": 0, "completion_tokens": 0}}),
                 stream(chunk({"content": "two"}, finish="stop"), usage_chunk(40, 3)))
    code, data, _ = run_json(tmp_path, capsys, server, PROMPT)
    assert data["usage"] == {"rounds": 2, "prompt_tokens": 40, "completion_tokens": 3, "reasoning_tokens": 0,
                             "rounds_without_usage": 1}


# ------------------------------------------------------------------ live output


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_a_length_reply_is_marked_on_the_terminal(tmp_path, server):
    from ..host.terminal import on_a_terminal

    prompt = tmp_path / "p.md"
    prompt.write_text(PROMPT.replace("messages:user('second question')\nmodels.loop(drop_oldest)\n", ""),
                      encoding="utf-8")
    server.reply(text_stream("Once upon", " a time", finish="length"))
    code, _, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "run", str(prompt), "--config",
                                   config_file(tmp_path, server)], timeout=60)
    shown = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]|\r", b"", seen).decode("utf-8")
    assert "Once upon a time\n[cut short: the reply reached its length limit (finish reason length)]\n" in shown
    assert re.search(r"^1 round · tokens unknown · \d+\.\d s$", shown, re.M)


def test_the_command_references_provider_examples_are_valid_configs():
    """docs/reference/commands.md: one example per server, each a config
    runvil reads."""
    import tomllib
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    section = text[text.index("### Provider settings"):]
    blocks = re.findall(r"```toml\n(.*?)```", section, re.S)
    assert len(blocks) == 4
    names = set()
    for block in blocks:
        config = parse_config(tomllib.loads(block))
        names |= set(config.providers)
        assert config.models
    assert names == {"openai", "llama", "vllm", "ollama"}


def test_the_provider_set_refuses_a_key_beyond_ascii_without_showing_it(server):
    """The Harness reads a key itself when the Host did not: the same
    refusal, as the round's failure."""
    from runvil.harness.providers import ProviderSet

    config = parse_config({"providers": {"a": {"base_url": server.base_url, "api_key_env": "K"}},
                           "models": {"a/m": {"provider": "a", "context": 100}}})
    with ProviderSet(config, environ={"K": "sk-abc\u2014def12345"}) as providers:
        answer = providers(ModelRound(id=1, role="w", model="a/m", origin="chat", messages=()))
    assert answer == ModelFailure(message="provider 'a' needs an API key: the environment variable K holds the "
                                          "character U+2014 at position 7, which an API key cannot hold (a typographic "
                                          "dash or quote pasted with it?)")
    assert server.requests == []
