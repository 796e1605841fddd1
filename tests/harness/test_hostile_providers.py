"""Loopback servers playing hostile providers (issue 26, items 5 and 6):
every byte is bounded before it is decoded, and every shape is checked at
the door. Each case ends in a named failure (or a reply) within seconds and
within a bounded amount of memory: never a MemoryError, a traceback or a
hang."""

from __future__ import annotations

import gzip
import json
import resource
import time
import zlib

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.harness import wire
from runvil.harness.openai import OpenAIProvider
from runvil.harness.replies import MAX_TOOL_CALLS, ReplyBuilder, Refused
from runvil.harness.retries import RetryPolicy

from .chat_server import Reply, chunk, stream
from .raw_server import RawServer

MALFORMED = "the model sent a malformed tool call: "


def rnd() -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},))


def ask(server, timeout: float = 5.0):
    with OpenAIProvider(server.base_url, None, "m", timeout=timeout, retry=RetryPolicy(max_retries=0)) as p:
        return p.answer(rnd())


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def gzip_bomb(size: int, layers: int = 1) -> bytes:
    """`size` zero bytes gzipped `layers` times (a few KB for gigabytes)."""
    data = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = b"".join(data.compress(b"\0" * (1 << 20)) for _ in range(size >> 20)) + data.flush()
    for _ in range(layers - 1):
        out = gzip.compress(out, 9)
    return out


# ------------------------------------------------------------------ sizes and encodings


def test_an_endless_event_stream_stops_at_the_reply_cap(server, monkeypatch):
    monkeypatch.setattr(wire, "MAX_REPLY", 2 * 1024 * 1024)
    line = ("data: " + json.dumps(chunk({"content": "x" * 1000})) + "\n\n").encode()

    def endless():
        while True:
            yield line

    server.reply(Reply(chunks=endless()))
    t0 = time.process_time()  # CPU time (the server is a thread of this process): load does not stretch it
    answer = ask(server)
    assert time.process_time() - t0 < 10
    assert answer.message == "the model backend's reply is larger than 2097152 bytes"
    assert answer.partial and len(answer.partial) < 2 * 1024 * 1024  # what was shown is kept


def test_one_data_line_without_a_newline_stops_at_the_event_cap(server, monkeypatch):
    monkeypatch.setattr(wire, "MAX_EVENT", 1024 * 1024)
    part = b"x" * 65536

    def no_newline():
        yield b'data: {"choices": [{"index": 0, "delta": {"content": "'
        for _ in range(40):  # 2.5 MB
            yield part

    server.reply(Reply(chunks=no_newline(), done=False))
    answer = ask(server)
    assert answer.message == "the model backend sent an event-stream line or event longer than 1048576 characters"


def test_many_data_lines_of_one_event_stop_at_the_event_cap(server, monkeypatch):
    monkeypatch.setattr(wire, "MAX_EVENT", 100_000)
    server.reply(Reply(chunks=["data: " + "y" * 1000 + "\n" for _ in range(200)], done=False))
    assert ask(server).message == "the model backend sent an event-stream line or event longer than 100000 characters"


@pytest.mark.parametrize("as_error", [False, True], ids=["reply", "error-body"])
def test_stacked_gzip_is_refused_before_it_inflates(server, as_error):
    """A 5 KB `Content-Encoding: gzip, gzip` body that would inflate to
    3 GiB: refused by its header (as a reply), or read as no body (as an
    error, whose status still counts)."""
    bomb = gzip_bomb(64 << 20, layers=2)
    assert len(bomb) < 200_000
    before = max_rss_mb()
    server.reply(Reply(status=400 if as_error else 200, raw=bomb, content_type="application/json",
                       headers={"Content-Encoding": "gzip, gzip"}))
    answer = ask(server)
    if as_error:
        assert answer.status == 400 and answer.body == ""
        assert answer.message == "the model backend rejected the request (status 400)"
    else:
        assert answer == ModelFailure(
            message="the model backend sent its reply in stacked encodings (gzip, gzip), which runvil does not unpack")
    assert max_rss_mb() - before < 50


def test_one_gzip_layer_inflating_past_the_cap_stops_there(server, monkeypatch):
    monkeypatch.setattr(wire, "MAX_REPLY", 4 * 1024 * 1024)
    bomb = gzip_bomb(128 << 20)  # 128 MB of zeros in about 128 KB
    before = max_rss_mb()
    server.reply(Reply(raw=bomb, content_type="application/json", headers={"Content-Encoding": "gzip"}))
    assert ask(server).message == "the model backend's reply is larger than 4194304 bytes"
    assert max_rss_mb() - before < 40


def test_an_error_body_inflating_far_past_its_cut_is_cut(server):
    bomb = zlib.compressobj(9, zlib.DEFLATED, 31)
    body = bomb.compress(b'{"error": {"message": "slow down"}}' + b" " * (32 << 20)) + bomb.flush()
    before = max_rss_mb()
    server.reply(Reply(status=400, raw=body, content_type="application/json", headers={"Content-Encoding": "gzip"}))
    answer = ask(server)
    assert answer.status == 400 and len(answer.body) == 64 * 1024
    assert answer.message == "the model backend rejected the request (status 400): slow down"
    assert max_rss_mb() - before < 40


def test_a_gzipped_reply_of_a_sane_size_is_read(server):
    data = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "bonjour"},
                                    "finish_reason": "stop"}]}).encode()
    server.reply(Reply(raw=gzip.compress(data), content_type="application/json", headers={"Content-Encoding": "gzip"}))
    assert ask(server).text == "bonjour"
    events = b"".join(("data: " + json.dumps(c) + "\n\n").encode()
                      for c in (chunk({"content": "bon"}), chunk({"content": "jour"}, finish="stop"))) + b"data: [DONE]\n\n"
    server.reply(Reply(raw=zlib.compress(events), content_type="text/event-stream", headers={"Content-Encoding": "deflate"}))
    assert ask(server).text == "bonjour"


def test_an_encoding_not_asked_for_is_refused(server):
    server.reply(Reply(raw=b"\x00" * 100, content_type="application/json", headers={"Content-Encoding": "br"}))
    assert ask(server).message == "the model backend sent its reply in the encoding 'br', which runvil did not ask for"
    assert server.requests[0]["headers"]["Accept-Encoding"] == "gzip,deflate"


def test_a_corrupt_gzip_body_is_named(server):
    server.reply(Reply(raw=b"\x1f\x8b\x08\x00garbage" * 10, content_type="application/json",
                       headers={"Content-Encoding": "gzip"}))
    assert ask(server).message == "the model backend's compressed reply is corrupt"


def test_a_punycode_charset_is_not_used(server):
    """Python's punycode decoder is quadratic: a charset outside the known
    list is read as UTF-8."""
    body = json.dumps({"error": {"message": "xn--" + "a" * 100_000}})
    server.reply(Reply(status=400, body=body, content_type="application/json; charset=punycode"))
    t0 = time.process_time()  # CPU time: a quadratic decode is work, not waiting
    answer = ask(server)
    assert time.process_time() - t0 < 3
    assert answer.status == 400 and answer.body.startswith('{"error": {"message": "xn--aaaa')
    events = ("data: " + json.dumps(chunk({"content": "é"}, finish="stop")) + "\n\ndata: [DONE]\n\n").encode()
    server.reply(Reply(raw=events, content_type="text/event-stream; charset=punycode"))
    assert ask(server).text == "é"  # an event stream is UTF-8 whatever its header says
    assert wire.charset_of({"content-type": "text/plain; charset=ISO-8859-1"}) == "latin-1"
    assert wire.charset_of({"content-type": "text/plain; charset=utf-7"}) == "utf-8"


def test_sse_lines_split_anywhere_are_read_alike():
    """CR LF, LF and CR line ends, cut at any byte (a CR LF across two
    pieces, a UTF-8 character across two pieces)."""
    text = 'data: {"a": "é"}\r\n\r\n: comment\rdata: 1\ndata: 2\n\ndata: [DONE]\n\n'.encode()
    whole = list(wire.sse_events([text]))
    assert whole == ['{"a": "é"}', "1\n2", "[DONE]"]
    for cut in range(1, len(text)):
        assert list(wire.sse_events([text[:cut], text[cut:]])) == whole, cut
    assert list(wire.sse_events([bytes([b]) for b in text])) == whole


# ------------------------------------------------------------------ a header drip


def test_headers_dripped_in_are_bounded_by_the_timeout_as_a_total():
    """A server that sends its status line and headers a byte every 0.2 s
    never lets a read wait out the timeout of 1.5 s; the whole wait is still
    cut there. The drip would last 200 s, so a minute's margin holds on any
    loaded machine and still tells that the deadline held."""
    drip = [b"HTTP/1.1 200 OK\r\nX-Slow: ", *(x for _ in range(1000) for x in (0.2, b"a"))]
    with RawServer(lambda request: drip) as server:
        t0 = time.monotonic()
        with OpenAIProvider(server.base_url, None, "m", timeout=1.5, retry=RetryPolicy(max_retries=0)) as p:
            answer = p.answer(rnd())
        waited = time.monotonic() - t0
    assert waited < 60.0
    assert answer == ModelFailure(unreachable="no reply within 1.5 seconds")


def test_the_deadline_is_under_every_transport_of_the_client():
    with OpenAIProvider("http://127.0.0.1:9/v1", None, "m") as p:
        assert type(p._client._transport._pool._network_backend).__name__ == "DeadlineBackend"


# ------------------------------------------------------------------ shapes at the door


@pytest.mark.parametrize("delta,why", [
    ({"tool_calls": 5}, "tool_calls is a number, not a list"),
    ({"tool_calls": {"index": 0}}, "tool_calls is an object, not a list"),
    ({"tool_calls": ["call"]}, "a tool call is a string, not an object"),
    ({"tool_calls": [{"index": 0, "id": "c", "function": "clock()"}]},
     "the function of a tool call is a string, not an object"),
    ({"tool_calls": [{"index": 0, "id": "c", "function": ["clock"]}]},
     "the function of a tool call is a list, not an object"),
    ({"tool_calls": [{"index": 0, "id": "c", "function": {"name": 7, "arguments": "{}"}}]},
     "the name of a tool call is a number, not a string"),
    ({"tool_calls": [{"index": "0", "id": "c", "function": {"name": "f", "arguments": "{}"}}]},
     "the index of a tool call is a string, not an integer"),
    ({"tool_calls": [{"index": 0, "id": ["c"], "function": {"name": "f", "arguments": "{}"}}]},
     "the id of a tool call is a list, not a string"),
    ({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": 5}}]},
     "the arguments of 'f' are a number, not a string"),
], ids=["number", "object", "string-call", "function-string", "function-list", "name-number", "index-string",
        "id-list", "arguments-number"])
def test_tool_calls_of_wrong_shapes_are_named(server, delta, why):
    server.reply(stream(chunk(delta), chunk({}, finish="tool_calls")))
    answer = ask(server)
    assert answer == ModelFailure(message=MALFORMED + why)


@pytest.mark.parametrize("arguments,why", [
    ('{"x": NaN}', "the arguments of 'f' hold NaN, which JSON does not allow"),
    ('{"x": Infinity}', "the arguments of 'f' hold Infinity, which JSON does not allow"),
    ('{"x": [-Infinity]}', "the arguments of 'f' hold -Infinity, which JSON does not allow"),
    ('{"x": 9223372036854775808}', "the arguments of 'f' hold an integer beyond 64 bits (19 digits)"),
    ('{"x": -' + "9" * 5000 + "}", "the arguments of 'f' hold an integer beyond 64 bits (5000 digits)"),
    ('{"x": 1,}', "the arguments of 'f' are not valid JSON: a key is not a string in double quotes (at character 9)"),
    ('{"x": [1, ]}', "the arguments of 'f' are not valid JSON: a value is missing (at character 11)"),
    ('{"x" 1}', "the arguments of 'f' are not valid JSON: a colon is missing (at character 6)"),
    ('{"x": 1} trailing', "the arguments of 'f' are not valid JSON: more text follows the JSON value (at character 10)"),
    ('{"x": "a', "the arguments of 'f' end before their JSON does"),
    ("", "the arguments of 'f' end before their JSON does"),
], ids=["nan", "infinity", "minus-infinity", "int64-plus-one", "5000-digits", "trailing-comma", "trailing-comma-in-array", "no-colon", "extra",
        "cut", "empty"])
def test_arguments_json_cannot_hold_are_refused_with_a_named_error(server, arguments, why):
    server.reply(stream(chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f",
                                                                                 "arguments": arguments}}]}),
                        chunk({}, finish="tool_calls")))
    assert ask(server) == ModelFailure(message=MALFORMED + why)


def test_64_bit_integers_and_plain_floats_pass():
    b = ReplyBuilder()
    b.delta({"tool_calls": [{"index": 0, "id": "c", "function": {
        "name": "f", "arguments": '{"big": 9223372036854775807, "small": -9223372036854775808, "f": 1e308}'}}]})
    assert b.reply().tool_calls[0]["arguments"] == {"big": 2**63 - 1, "small": -2**63, "f": 1e308}


def test_arguments_sent_as_an_object_with_nan_are_refused_too():
    """Some servers send the arguments object itself: it is checked as
    text would be."""
    b = ReplyBuilder()
    b.delta({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": {"x": float("nan")}}}]})
    with pytest.raises(Refused) as e:
        b.reply()
    assert e.value.failure.message == MALFORMED + "the arguments of 'f' hold NaN, which JSON does not allow"


def test_usage_counts_beyond_64_bits_or_of_the_wrong_type_are_left_out(server):
    server.reply(stream(chunk({"content": "x"}, finish="stop"),
                        {"choices": [], "usage": {"prompt_tokens": 2**70, "completion_tokens": 3,
                                                  "completion_tokens_details": {"reasoning_tokens": "many"}}}))
    assert ask(server).usage == {"completion_tokens": 3}


def test_60000_tool_call_deltas_build_in_linear_time():
    b = ReplyBuilder()
    t0 = time.process_time()
    for i in range(60_000):  # one call's arguments in 60,000 pieces
        b.delta({"tool_calls": [{"index": 0, "function": {"arguments": "" if i else '{"x": "'}}]})
        if i % 2:
            b.delta({"tool_calls": [{"index": 0, "function": {"arguments": "a"}}]})
    b.delta({"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": '"}'}}]})
    assert b.reply().tool_calls[0]["arguments"] == {"x": "a" * 30_000}
    t1 = time.process_time()
    many = ReplyBuilder()
    for i in range(MAX_TOOL_CALLS):  # a thousand distinct calls, each in three deltas
        many.delta({"tool_calls": [{"index": i, "id": f"c{i}", "function": {"name": "f", "arguments": ""}}]})
        many.delta({"tool_calls": [{"index": i, "function": {"arguments": "{"}}]})
        many.delta({"tool_calls": [{"index": i, "function": {"arguments": "}"}}]})
    assert len(many.reply().tool_calls) == MAX_TOOL_CALLS
    t2 = time.process_time()
    assert t1 - t0 < 2.0 and t2 - t1 < 1.0
    with pytest.raises(Refused) as e:
        many.delta({"tool_calls": [{"index": MAX_TOOL_CALLS, "id": "one-more", "function": {"name": "f"}}]})
    assert e.value.failure.message == MALFORMED + "the reply holds more than 1000 tool calls"


def test_60000_distinct_calls_from_a_server_fail_quickly(server):
    events = [chunk({"tool_calls": [{"index": i, "id": f"c{i}", "function": {"name": "f", "arguments": "{}"}}]})
              for i in range(60_000)]
    server.reply(stream(*events, chunk({}, finish="tool_calls")))
    t0 = time.process_time()  # CPU time, server thread included: load does not stretch it
    answer = ask(server, timeout=20)
    assert time.process_time() - t0 < 15
    assert answer.message == MALFORMED + "the reply holds more than 1000 tool calls"


def test_a_reply_of_odd_shapes_elsewhere_is_still_read(server):
    """Fields runvil does not need may have any shape: a numeric model, a
    list finish reason, choices that are not objects."""
    server.reply(stream({"model": 5, "choices": ["x", 3, None]}, chunk({"content": "ok"}),
                        {"choices": [{"index": 0, "delta": "text", "finish_reason": ["stop"]}]},
                        chunk({}, finish="stop")))
    answer = ask(server)
    assert isinstance(answer, ModelReply) and answer.text == "ok" and answer.finish_reason == "stop"
