"""Honest failures from a real loopback server
(docs/reference/configuration.md): a cut stream fails, and every failure
status carries the provider's own message, cut to 300 characters, keys masked,
whatever shape its error body has."""

from __future__ import annotations

import json
import sys
import threading

import pytest

from runvil.engine.effects import ModelFailure, ModelRound
from runvil.engine.models import failure_message
from runvil.harness.errortext import REDACTED, detail, mask_keys, provider_message
from runvil.harness.openai import STREAM_ENDED, STREAM_UNFINISHED, OpenAIProvider
from runvil.harness.retries import RetryPolicy

from .chat_server import chunk, error, stream, text_stream

KEY = "sk-test-FAIL-0123456789abcdef"
REJECTED_400 = "the model backend rejected the request (status 400)"


def rnd() -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},))


def ask(server, **kw):
    with OpenAIProvider(server.base_url, KEY, "m", timeout=5.0, retry=RetryPolicy(max_retries=0), **kw) as p:
        return p.answer(rnd())


# ------------------------------------------------------------------ cut streams


@pytest.mark.parametrize("reply", [
    stream(chunk({"content": "partial"}), done=False),  # no [DONE], no finish reason
    stream(chunk({"content": "partial"}), chunk({}, finish="stop"), done=False),  # a finish reason, no [DONE]
], ids=["neither", "no-done"])
def test_a_stream_that_ends_early_is_a_failure_not_a_reply(server, reply):
    server.reply(reply)
    answer = ask(server)
    assert answer == ModelFailure(message=STREAM_ENDED, partial="partial")
    assert failure_message(answer) == "the model backend's reply stream ended early"


def test_done_without_a_finish_reason_says_the_server_did_not_finish(server):
    """the specification: "A stream that ends with `[DONE]` but no finish reason fails
    the round, saying that the server ended the stream without finishing
    the reply" (llama.cpp's server, interrupted by another request)."""
    server.reply(stream(chunk({"content": "partial"})))
    answer = ask(server)
    assert answer == ModelFailure(message=STREAM_UNFINISHED, partial="partial")
    assert failure_message(answer) == (
        "the model backend ended the reply stream without finishing the reply (no finish reason; "
        "llama.cpp's server does this when another request interrupts a reply)")
    assert len(server.requests) == 1


def test_a_chunked_stream_cut_inside_a_chunk_is_a_failure():
    """The connection closes in the middle of a chunk of a chunk-encoded
    body: httpx sees a broken reply, after content arrived."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    event = ("data: " + json.dumps(chunk({"content": "par"})) + "\n\n").encode()

    def serve():
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + f"{len(event):x}\r\n".encode() + event + b"\r\n" + b"400\r\ndata: {")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    seen = []
    with OpenAIProvider(f"http://127.0.0.1:{port}/v1", KEY, "m", timeout=5.0) as p:
        answer = p.answer(rnd(), on_fragment=seen.append)
    t.join(5)
    listener.close()
    assert answer == ModelFailure(message=STREAM_ENDED, partial="par") and seen == ["par"]


def test_a_complete_stream_still_replies(server):
    server.reply(text_stream("whole"))
    assert ask(server).text == "whole"


# ------------------------------------------------------------------ error bodies


DEEP = "[" * 150_000 + "]" * 150_000
SHAPES = [
    ({"error": {"message": "Invalid value for 'temperature'.", "type": "invalid_request_error"}},
     "Invalid value for 'temperature'."),
    ({"error": "Invalid value for 'temperature'."}, "Invalid value for 'temperature'."),
    ({"message": "Invalid value for 'temperature'."}, "Invalid value for 'temperature'."),
    ({"detail": [{"loc": ["body", "temperature"], "msg": "Input should be less than 2", "type": "x"}]},
     "Input should be less than 2"),
    ([{"error": {"code": 400, "message": "Invalid value for 'temperature'.", "status": "INVALID_ARGUMENT"}}],
     "Invalid value for 'temperature'."),
    ({"errors": [{"message": "first"}, {"message": "second"}]}, "first"),
    ("Invalid value for 'temperature'.", "Invalid value for 'temperature'."),
    ("<html><head><title>400 Bad Request</title></head><body><h1>400</h1></body></html>", "400 Bad Request"),
    ("<html><body><h1>Bad\n  request</h1><script>var x = 1;</script><p>temperature &amp; top_p</p></body></html>",
     "Bad request temperature & top_p"),
    ("{not json", "{not json"),
    ({"code": 17}, '{"code": 17}'),
]


@pytest.mark.parametrize("body,said", SHAPES)
def test_error_body_shapes_give_the_providers_message(server, body, said):
    server.reply(error(400, body, content_type="text/html" if str(body).startswith("<") else None))
    answer = ask(server)
    assert answer.status == 400
    assert answer.message == f"{REJECTED_400}: {said}"


def test_an_empty_body_leaves_the_status_alone(server):
    server.reply(error(400, ""))
    assert ask(server).message == REJECTED_400


def test_json_nested_150000_levels_is_read_as_text(server):
    server.reply(error(400, DEEP))
    answer = ask(server)
    assert answer.message.startswith(f"{REJECTED_400}: [[[[") and len(answer.message) < 400


def test_deep_json_with_the_runs_recursion_limit_raised_never_crashes(server):
    """A run raises the recursion limit for Lua; CPython's JSON decoder would
    then overflow a thread's C stack on a deep document instead of raising."""
    deep_chunk = "data: " + '{"choices":' * 150_000 + "1" + "}" * 150_000 + "\n\n"
    deep_args = json.dumps({"a": 1})[:-1] + ', "b": ' + DEEP + "}"
    server.reply(error(400, '{"error":' * 150_000 + '"x"' + "}" * 150_000),
                 stream(deep_chunk, chunk({"content": "ok"}, finish="stop")),
                 stream(chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": deep_args}}]}),
                        chunk({}, finish="tool_calls")))
    answers = []
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)
    try:
        with OpenAIProvider(server.base_url, KEY, "m", timeout=5.0, retry=RetryPolicy(max_retries=0)) as p:
            t = threading.Thread(target=lambda: answers.extend(p.answer(rnd()) for _ in range(3)))
            t.start()
            t.join()
    finally:
        sys.setrecursionlimit(old)
    rejected, skipped, malformed = answers
    assert rejected.status == 400 and rejected.message.startswith(REJECTED_400 + ': {"error":{"error":')
    assert skipped.text == "ok"  # a chunk that cannot be read is skipped
    assert malformed.message == "the model sent a malformed tool call: the arguments of 'f' nest too deeply"


def test_the_message_is_cut_to_300_characters(server):
    server.reply(error(400, {"error": {"message": "x" * 1000}}))
    said = ask(server).message[len(REJECTED_400) + 2:]
    assert len(said) == 300 and said.endswith("…")


def test_the_key_and_key_like_text_are_masked(server):
    other = "sk-proj-OTHERabcdefghijklmnop"
    server.reply(error(401, {"error": {"message": f"Incorrect API key provided: {KEY}. Also {other}, "
                                                  f"Bearer abcdefghij123 and AIzaSyA-0123456789abcdefghij."}}))
    answer = ask(server)
    assert answer.message == ("the model backend rejected the request (status 401): Incorrect API key provided: "
                              f"{REDACTED}. Also {REDACTED}, Bearer {REDACTED} and {REDACTED}.")
    assert KEY not in repr(answer) and other not in repr(answer)


def test_a_key_at_the_cut_is_masked_before_cutting():
    text = "y" * 290 + KEY
    assert KEY[:8] not in detail(text, KEY) and detail(text, KEY).endswith(REDACTED)


def test_readers_never_raise():
    for body in ["", " ", "null", "[]", "{}", '""', "[[[", DEEP, "<", "<html>", "\x00\xff", '{"error": null}',
                 '{"error": {"message": 5}}', '"' + "a" * 10 + '"']:
        assert isinstance(provider_message(body), str)
        assert isinstance(mask_keys(body, KEY), str)
