"""A key a provider sends back, in any field of its reply or its failure,
never reaches a sink (the run log, the viewer's page, the recorded world,
the results database, `--json`, stdout and stderr), through either HTTP
client (`runvil run` sends with httpx, `runvil batch` with the lean one).

The fields are found by looking at the answer classes themselves: a field
added to ModelReply or ModelFailure later fails
`test_every_field_of_the_answers_has_a_hostile_server` until a server here
puts a key in it, and `test_the_scrubber_masks_every_field_whatever_it_holds`
fails if the scrubber does not follow it.

A key is matched without regard to case: each server sends it as it came
and upper-cased."""

from __future__ import annotations

import json
import sqlite3

import pytest

from runvil.engine.effects import ModelFailure, ModelReply
from runvil.harness.errortext import mask_keys
from runvil.harness.scrubber import Scrubber
from runvil.host.cli import main

from .key_echo import KEY, KEY_ENV, leaks, write_files
from .raw_server import RawServer, http_reply

ANSWERS = (ModelReply, ModelFailure)


def both(key: str) -> str:
    return f"{key} {key.upper()}"


def chunk(delta=None, finish=None, **extra) -> dict:
    c = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
         "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}]}
    c.update(extra)
    return c


def events(key: str, *chunks, done: bool = True) -> bytes:
    """An event stream whose headers and ignored fields hold the key too."""
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    body += b"data: [DONE]\n\n" if done else b""
    head = ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
            f"X-Echo: {both(key)}\r\nOpenAI-Organization: {key}\r\n\r\n").encode()
    return head + body


def tool_call(name: str, arguments: str, call_id: str = "call_1") -> dict:
    return {"tool_calls": [{"index": 0, "id": call_id, "type": "function",
                            "function": {"name": name, "arguments": arguments}}]}


#: (answer class, field) -> servers that put the key in that field, each a
#: function of the key sent in the Authorization header
SERVERS = {
    ("ModelReply", "text"): [
        lambda k: events(k, chunk({"role": "assistant", "content": both(k)}, id=k, system_fingerprint=both(k)),
                         chunk({}, "stop", service_tier=k)),
    ],
    ("ModelReply", "tool_calls"): [
        lambda k: events(k, chunk(tool_call("clock", json.dumps({"zone": both(k), k: k.upper()}), call_id=both(k))),
                         chunk({}, "tool_calls")),
        lambda k: events(k, chunk(tool_call(k.upper(), "{}")), chunk({}, "tool_calls")),  # an unknown tool's name
    ],
    ("ModelReply", "finish_reason"): [
        lambda k: events(k, chunk({"content": "hi"}), chunk({}, both(k))),
    ],
    ("ModelReply", "usage"): [
        lambda k: events(k, chunk({"content": "hi"}), chunk({}, "stop"),
                         {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 2, k: 1,
                                                   "completion_tokens_details": {k.upper(): k}}}),
    ],
    ("ModelReply", "reasoning"): [
        lambda k: events(k, chunk({"reasoning_content": both(k)}), chunk({"content": "hi"}, "stop")),
    ],
    ("ModelReply", "model"): [
        lambda k: events(k, chunk({"content": "hi"}, model=both(k)), chunk({}, "stop", model=both(k))),
    ],
    ("ModelReply", "empty_phrase"): [  # the phrase is runvil's own: an empty reply whose other fields hold the key
        lambda k: events(k, chunk({"content": ""}, model=both(k)), chunk({}, "stop")),
    ],
    ("ModelFailure", "status"): [  # the status line's reason phrase
        lambda k: http_reply(json.dumps({"error": {"message": "no"}}).encode(), status=f"400 {both(k)}",
                             headers={"X-Echo": both(k)}),
    ],
    ("ModelFailure", "body"): [
        lambda k: http_reply(json.dumps({"error": {"message": both(k), "param": k}, k: k.upper()}).encode(),
                             status="400 Bad Request"),
        lambda k: http_reply(f"<html><title>{both(k)}</title></html>".encode(), status="502 Bad Gateway",
                             content_type="text/html"),
    ],
    ("ModelFailure", "stream_error"): [
        lambda k: events(k, chunk({"content": "a"}), {"error": {"message": both(k), "code": k}}),
        lambda k: events(k, {"error": {"type": both(k)}}),
    ],
    ("ModelFailure", "unreachable"): [
        lambda k: f"HTTP/1.1 2x0 {both(k)}\r\n\r\n".encode(),  # a status line h11 refuses, quoted
        lambda k: f"HTTP/1.1 200 OK\r\nX-{k}\r\nBearer {k.upper()}\r\n\r\n".encode(),  # a header line, quoted
    ],
    ("ModelFailure", "message"): [
        lambda k: events(k, chunk(tool_call(both(k), '{"x": ')), chunk({}, "tool_calls")),  # malformed: names the tool
    ],
    ("ModelFailure", "partial"): [
        lambda k: events(k, chunk({"content": both(k)}), done=False),
    ],
}

CASES = [(cls, field, i) for (cls, field), servers in SERVERS.items() for i in range(len(servers))]

#: fields runvil builds itself, for the host's help lines, from the fields
#: above and the config (the provider's name and URL): no server writes
#: them, and the scrubber masks them as any field (the test below)
BUILT_HERE = {("ModelReply", "facts"), ("ModelFailure", "facts")}


def test_every_field_of_the_answers_has_a_hostile_server():
    fields = {(cls.__name__, name) for cls in ANSWERS for name in cls._fields}
    assert set(SERVERS) == fields - BUILT_HERE, "a field of a provider's answer has no server putting a key in it here"


def test_the_scrubber_masks_every_field_whatever_it_holds():
    """Every field set to a value that holds the key in a text, a key of an
    object and a list: the scrubbed answer holds no run of it."""
    scrubber = Scrubber([KEY])
    for cls in ANSWERS:
        for name in cls._fields:
            for value in (both(KEY), {"a": [both(KEY)], KEY.upper(): 1}, ({"id": KEY},)):
                answer = cls(**{name: value})
                assert leaks(repr(answer)), (cls.__name__, name)
                assert not leaks(repr(scrubber.answer(answer))), (cls.__name__, name, value)


def test_an_upper_cased_echo_is_masked_whole():
    key = "sk-test-0123456789abcdef"
    assert Scrubber([key]).text(f"got {key.upper()}.") == "got [REDACTED]."
    assert Scrubber([key]).text(f"got {key.title()}") == "got [REDACTED]"
    assert mask_keys(f"got {key.upper()} and {key}", key) == "got [REDACTED] and [REDACTED]"
    assert Scrubber([key]).text("İ" * 3 + key.upper()) == "İİİ[REDACTED]"  # a lower() that lengthens a text


def files(tmp_path, server) -> tuple[str, str, str]:
    prompt, config = write_files(tmp_path, server.base_url)
    data = tmp_path / "rows.txt"
    data.write_text("hello\n", encoding="utf-8")
    return prompt, config, str(data)


def serving(make):
    """A server whose first request gets `make(key)`, the rest a plain reply."""
    seen = []

    def answer(request):
        key = request.headers.get("authorization", "").removeprefix("Bearer ")
        seen.append(key)
        if len(seen) == 1:
            return make(key)
        done = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}
        return http_reply(json.dumps(done).encode())

    return RawServer(answer), seen


def database_text(path) -> str:
    """Every value of every table of a SQLite database, as text."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("select name from sqlite_master where type = 'table'")]
        return "\n".join(repr(row) for t in tables for row in db.execute(f'select * from "{t}"'))


@pytest.mark.parametrize("cls,field,i", CASES, ids=[f"{c}.{f}-{i}" for c, f, i in CASES])
def test_a_key_in_the_field_reaches_no_sink(tmp_path, capsys, monkeypatch, cls, field, i):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    out = {name: tmp_path / name for name in ("log.jsonl", "page.html", "world.yaml", "run.db", "batch.db",
                                             "rows.jsonl")}
    server, seen = serving(SERVERS[cls, field][i])
    with server:
        prompt, config, data = files(tmp_path, server)
        main(["run", prompt, "--config", config, "--json", "--debug", "--log", str(out["log.jsonl"]),
              "--view", str(out["page.html"]), "--record", str(out["world.yaml"]), "--db", str(out["run.db"])])
        ran, ran_err = capsys.readouterr()
        seen_by_run = len(seen)
        main(["batch", prompt, data, "--config", config, "--db", str(out["batch.db"]), "--jsonl", str(out["rows.jsonl"]),
              "-j", "1"])
        batched, batched_err = capsys.readouterr()
    assert seen and set(seen) == {KEY} and len(seen) > seen_by_run, "the key went out by both clients"
    sinks = {"run stdout": ran, "run stderr": ran_err, "batch stdout": batched, "batch stderr": batched_err}
    for name, path in out.items():
        if path.exists():
            sinks[name] = database_text(path) if name.endswith(".db") else path.read_text(encoding="utf-8")
    assert {"log.jsonl", "page.html", "run.db", "batch.db"} <= set(sinks)
    for name, text in sinks.items():
        assert not leaks(text), (name, leaks(text))
