"""The OpenAI-compatible provider against a real loopback server."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.engine.models import EMPTY_REPLY, is_overflow
from runvil.harness.errortext import REDACTED
from runvil.harness.openai import STREAM_ENDED, OpenAIProvider, request_body
from runvil.harness.retries import RetryPolicy
from runvil.harness.providers import ProviderSet, answer_concurrently
from runvil.host.config import parse_config

from .chat_server import Reply, chunk, error, stream, text_stream, usage_chunk

KEY = "sk-test-SECRET-0123456789"


@pytest.fixture
def provider(server):
    p = OpenAIProvider(server.base_url, KEY, "gpt-test", timeout=60.0)  # past a gate's wait (GATE_WAIT)
    yield p
    p.close()


def rnd(messages=None, tools=(), options=None, id=1, model="openai/gpt-test") -> ModelRound:
    return ModelRound(
        id=id, role="writer", model=model, origin="chat",
        messages=tuple(messages or [{"role": "user", "content": "hello"}]),
        tools=tuple(tools), options=options or {},
    )


def no_key_anywhere(answer) -> None:
    assert KEY not in repr(answer)


# ------------------------------------------------------------------ replies


def test_text_streamed_in_fragments(server, provider):
    server.reply(text_stream("Bon", "jour", " à ", "tous"))
    seen = []
    r = provider.answer(rnd(), on_fragment=seen.append)
    assert seen == ["Bon", "jour", " à ", "tous"]
    assert r == ModelReply(text="Bonjour à tous", finish_reason="stop", model="test-model", empty_phrase=EMPTY_REPLY)


def test_fragments_arrive_live(server, provider):
    """The server holds the rest of the stream until the first fragment has
    reached the callback: the reply is read as it streams, not buffered."""
    gate = threading.Event()
    server.reply(stream(chunk({"content": "first "}), gate, chunk({"content": "second"}, finish="stop")))
    seen = []

    def on(text):
        seen.append(text)
        gate.set()

    r = provider.answer(rnd(), on_fragment=on)
    assert r.text == "first second" and seen == ["first ", "second"]
    assert server.gates_timed_out == 0  # the gate opened on the first fragment, not at its wait's end


def test_tool_calls_split_across_chunks(server, provider):
    server.reply(stream(
        chunk({"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "web_search", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"que'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'ry": "Par'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function",
                               "function": {"name": "clock", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'is é"}'}}]}),
        chunk({}, finish="tool_calls"),
    ))
    r = provider.answer(rnd())
    assert r.text == ""
    assert r.finish_reason == "tool_calls"
    assert r.tool_calls == (
        {"id": "call_a", "name": "web_search", "arguments": {"query": "Paris é"}},
        {"id": "call_b", "name": "clock", "arguments": {}},
    )


def test_malformed_tool_arguments(server, provider):
    server.reply(stream(
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}]}),
        chunk({}, finish="tool_calls"),
    ))
    r = provider.answer(rnd())
    assert isinstance(r, ModelFailure)
    assert r.message == "the model sent a malformed tool call: the arguments of 'f' end before their JSON does"
    server.reply(stream(
        chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "[1]"}}]}),
        chunk({}, finish="tool_calls"),
    ))
    r = provider.answer(rnd())
    assert r.message == "the model sent a malformed tool call: the arguments of 'f' are not a JSON object"


def test_usage_with_reasoning_tokens(server, provider):
    server.reply(stream(
        chunk({"reasoning_content": "Let me "}),
        chunk({"reasoning_content": "think."}),
        chunk({"content": "42"}, finish="stop"),
        usage_chunk(120, 30, reasoning=25),
    ))
    r = provider.answer(rnd())
    assert r.text == "42"
    assert r.reasoning == "Let me think."
    assert r.usage == {"prompt_tokens": 120, "completion_tokens": 30, "reasoning_tokens": 25}


def test_usage_without_details(server, provider):
    server.reply(stream(chunk({"content": "x"}, finish="stop"), usage_chunk(5, 1)))
    assert provider.answer(rnd()).usage == {"prompt_tokens": 5, "completion_tokens": 1}


def test_reasoning_only_reply(server, provider):
    server.reply(stream(chunk({"reasoning": "only thoughts"}), chunk({}, finish="stop")))
    r = provider.answer(rnd())
    assert r == ModelReply(text="", finish_reason="stop", reasoning="only thoughts", model="test-model", empty_phrase=EMPTY_REPLY)


def test_finish_reason_length(server, provider):
    server.reply(stream(chunk({"content": "part"}), chunk({}, finish="length")))
    r = provider.answer(rnd())
    assert (r.text, r.finish_reason) == ("part", "length")


def test_sse_comments_and_multiline_events(server, provider):
    last = json.dumps(chunk({"content": "b"}, finish="stop"))
    cut = last.index('"object"')  # an event's data split over two lines, between JSON tokens
    server.reply(stream(
        ": keep-alive\n\n",
        "event: message\ndata: " + json.dumps(chunk({"content": "a"})) + "\n\n",
        "data: " + last[:cut] + "\ndata:" + last[cut:] + "\n\n",
    ))
    r = provider.answer(rnd())
    assert (r.text, r.finish_reason) == ("ab", "stop")


def test_plain_json_completion(server, provider):
    server.reply(Reply(json={
        "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"},
                                   "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 2, "completion_tokens": 1},
    }))
    r = provider.answer(rnd())
    assert r == ModelReply(text="whole", finish_reason="stop", model="m",
                           usage={"prompt_tokens": 2, "completion_tokens": 1},
                           empty_phrase=EMPTY_REPLY)


# ------------------------------------------------------------------ failures


def test_http_400_overflow(server, provider):
    body = json.dumps({"error": {"message": "This model's maximum context length is 4096 tokens.",
                                 "code": "context_length_exceeded"}})
    server.reply(error(400, body))
    r = provider.answer(rnd())
    assert r == ModelFailure(status=400, body=body, message="the model backend rejected the request (status 400): "
                                                            "This model's maximum context length is 4096 tokens.")
    assert is_overflow(r)


def test_http_400_not_overflow_and_500(server):
    server.reply(error(400, "bad request: unknown field"), error(500, "upstream exploded"))
    with OpenAIProvider(server.base_url, KEY, "m", timeout=2.0, retry=RetryPolicy(max_retries=0)) as p:
        r = p.answer(rnd())
        assert r.body == "bad request: unknown field" and not is_overflow(r)
        assert r.message == "the model backend rejected the request (status 400): bad request: unknown field"
        assert p.answer(rnd()) == ModelFailure(
            status=500, body="upstream exploded",
            message="the model backend rejected the request (status 500): upstream exploded")


def test_connection_refused():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with OpenAIProvider(f"http://127.0.0.1:{port}/v1", KEY, "m", timeout=1.0, retry=RetryPolicy(backoff_start=0.01)) as p:
        r = p.answer(rnd())
    assert r == ModelFailure(unreachable="connection refused")


def test_timeout_before_headers(server):
    """The reply's headers would come after 60 s (the server's stop ends the
    wait): a client that waited for them would get `late`, and a minute's
    margin holds on any loaded machine."""
    server.reply(Reply(delay=60.0, chunks=[chunk({"content": "late"}, finish="stop")]))
    with OpenAIProvider(server.base_url, KEY, "m", timeout=0.3, retry=RetryPolicy(max_retries=0)) as p:
        t0 = time.monotonic()
        r = p.answer(rnd())
    assert time.monotonic() - t0 < 30.0
    assert r == ModelFailure(unreachable="no reply within 0.3 seconds")


def test_timeout_inside_stream(server):
    # the first piece must come within the timeout, so it leaves a loaded machine seconds for it
    server.reply(stream(chunk({"content": "a"}), 60.0, chunk({"content": "b"}, finish="stop")))  # stop ends the pause
    with OpenAIProvider(server.base_url, KEY, "m", timeout=3.0) as p:
        r = p.answer(rnd())
    assert r == ModelFailure(message=f"{STREAM_ENDED}: no reply bytes within 3 seconds", partial="a")
    assert len(server.requests) == 1  # content was streamed: never retried


def test_error_inside_started_stream(server, provider):
    server.reply(stream(chunk({"content": "partial"}), {"error": {"message": "context length exceeded", "code": 400}},
                        done=False))
    r = provider.answer(rnd())
    assert r == ModelFailure(stream_error="context length exceeded", partial="partial")
    assert is_overflow(r)


# ------------------------------------------------------------------ the request


def test_request_body_exact(server, provider):
    server.reply(text_stream("ok"))
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                     {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_1", "name": "web/search", "arguments": {"query": "Paris", "n": 2}}]},
        {"role": "tool", "content": "Tour Montparnasse, 210 m", "tool_call_id": "call_1"},
    ]
    tools = [{"name": "web_search", "description": "Search the web",
              "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}]
    options = {"temperature": 0.2, "top_p": 0.9, "max_tokens": 256, "thinking": "high"}
    provider.answer(rnd(messages, tools, options))
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["body"] == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "look"},
                                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "web/search", "arguments": '{"query":"Paris","n":2}'}}]},
            {"role": "tool", "content": "Tour Montparnasse, 210 m", "tool_call_id": "call_1"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "web_search", "description": "Search the web",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}}],
        "tool_choice": "auto",
        "temperature": 0.2, "top_p": 0.9, "max_tokens": 256, "reasoning_effort": "high",
        "stream": True, "stream_options": {"include_usage": True},
    }


def test_request_minimal_no_tools_thinking_off(server, provider):
    server.reply(text_stream("ok"))
    provider.answer(rnd(options={"thinking": "off"}))
    assert server.requests[0]["body"] == {
        "model": "gpt-test", "messages": [{"role": "user", "content": "hello"}],
        "stream": True, "stream_options": {"include_usage": True},
    }


def test_lone_surrogate_goes_out_as_replacement_char():
    body = request_body(rnd([{"role": "user", "content": "a\udcffb"}]), "m")
    from runvil.harness.openai import encode_body

    assert json.loads(encode_body(body))["messages"][0]["content"] == "a\ufffdb"


# ------------------------------------------------------------------ the key


def test_authorization_header_carries_the_key(server, provider):
    server.reply(text_stream("ok"))
    provider.answer(rnd())
    headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in repr(provider)


def test_no_key_no_authorization(server):
    server.reply(text_stream("ok"))
    with OpenAIProvider(server.base_url, None, "m", timeout=2.0) as p:
        assert p.answer(rnd()).text == "ok"
    assert "authorization" not in {k.lower() for k in server.requests[0]["headers"]}


def test_key_is_redacted_from_every_failure(server, provider):
    server.reply(
        error(401, f"Incorrect API key provided: {KEY}. You can find your key at ..."),
        stream({"error": {"message": f"bad key {KEY}"}}, done=False),
    )
    r = provider.answer(rnd())
    assert r.status == 401 and r.body == f"Incorrect API key provided: {REDACTED}. You can find your key at ..."
    assert r.message == ("the model backend rejected the request (status 401): "
                         f"Incorrect API key provided: {REDACTED}. You can find your key at ...")
    no_key_anywhere(r)
    r = provider.answer(rnd())
    assert r == ModelFailure(stream_error=f"bad key {REDACTED}")


def test_key_with_a_bad_header_character_never_leaks(server):
    bad = "sk-bad\nkey"
    with OpenAIProvider(server.base_url, bad, "m", timeout=1.0) as p:
        r = p.answer(rnd())
    assert isinstance(r, ModelFailure)
    assert r.unreachable == "the request could not be sent (an invalid header value; check the API key)"
    assert "sk-bad" not in repr(r)
    assert p.redact("x sk-bad\\nkey y") == f"x {REDACTED} y"  # an escaped spelling is redacted too


# ------------------------------------------------------------------ the provider set


CONFIG = """
default_model = "local/small"
[providers.local]
base_url = "{url}"
api_key_env = "LOCAL_KEY"
[models."local/small"]
provider = "local"
name = "small-1"
context = 4096
"""


def test_provider_set_routes_and_runs_concurrently(server):
    import tomllib

    config = parse_config(tomllib.loads(CONFIG.format(url=server.base_url)))
    gates = [threading.Event(), threading.Event()]
    # each stream waits for the other's first fragment: only concurrent rounds finish before a gate's wait runs out
    # (fragments with no character of KEY: the key scrubber holds back an end that may start it)
    server.reply(
        stream(chunk({"content": "and"}), gates[1], chunk({}, finish="stop")),
        stream(chunk({"content": "two"}), gates[0], chunk({}, finish="stop")),
    )
    seen = []

    def on(effect, text):
        seen.append((effect.id, text))
        gates[0 if text == "and" else 1].set()

    with ProviderSet(config, environ={"LOCAL_KEY": KEY}, timeout=60.0, on_fragment=on) as ps:
        answers = answer_concurrently([rnd(id=7, model="local/small"), rnd(id=3, model="local/small")], ps.answer)
    # each stream waited for the other's fragment: both ran at once, or a gate would have timed out
    assert server.gates_timed_out == 0
    assert list(answers) == [7, 3]
    assert sorted(a.text for a in answers.values()) == ["and", "two"]
    assert sorted(seen, key=lambda x: x[1]) in ([(7, "and"), (3, "two")], [(3, "and"), (7, "two")])
    assert {r["body"]["model"] for r in server.requests} == {"small-1"}


def test_provider_set_failures(server):
    import tomllib

    config = parse_config(tomllib.loads(CONFIG.format(url=server.base_url)))
    with ProviderSet(config, environ={}) as ps:
        r = ps.answer(rnd(model="local/small"))
        assert r == ModelFailure(message="provider 'local' needs an API key: the environment variable LOCAL_KEY is not set")
        r = ps.answer(ModelRound(id=1, role="x", model="nowhere", origin="infer", messages=()))
        assert r == ModelFailure(message="no provider is configured for the model 'nowhere'")


def test_answer_concurrently_reraises_in_effect_order():
    def answer(e):
        if e.id == 2:
            raise ValueError("boom")
        return e.id

    assert answer_concurrently([rnd(id=1)], answer) == {1: 1}
    with pytest.raises(ValueError, match="boom"):
        answer_concurrently([rnd(id=1), rnd(id=2), rnd(id=3)], answer)
