"""The lean HTTP/1.1 client a batch's providers send with (harness/http11.py,
issue 24 "Speed"): every provider test of the modules below runs again here
with each `OpenAIProvider` made `lean=True`, so streaming, retries with
backoff, 429s, timeouts and the header deadline, key scrubbing and the reply
caps are checked on this client exactly as on httpx. Then what is its own:
when it may be used, keep-alive, the framings of a reply, and the texts of
its failures.
"""

from __future__ import annotations

import gzip
import json
import socket
import threading

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.harness import http11
from runvil.harness.openai import OpenAIProvider
from runvil.harness.retries import RetryPolicy

from . import test_hostile_providers, test_openai, test_provider_failures, test_real_servers, test_retries

HTTPX_ONLY = {"test_the_deadline_is_under_every_transport_of_the_client"}  # looks into httpx's transport


def _again(module) -> None:
    """This module collects `module`'s tests (and its own fixtures) again."""
    short = module.__name__.rsplit(".", 1)[1][len("test_"):]
    for name, obj in vars(module).items():
        if name.startswith("test_") and callable(obj) and name not in HTTPX_ONLY:
            globals()[f"{name}__lean_{short}"] = obj
        elif hasattr(obj, "_pytestfixturefunction") or type(obj).__name__ == "FixtureFunctionDefinition":
            globals().setdefault(name, obj)


for _module in (test_openai, test_provider_failures, test_retries, test_hostile_providers, test_real_servers):
    _again(_module)


@pytest.fixture(autouse=True)
def lean_providers(monkeypatch):
    """Every provider made in a test is a lean one (and says so)."""
    init = OpenAIProvider.__init__

    def lean_init(self, *args, **kwargs):
        kwargs.setdefault("lean", True)
        init(self, *args, **kwargs)
        assert self.lean, "the lean client was not used"

    monkeypatch.setattr(OpenAIProvider, "__init__", lean_init)
    return init


def rnd() -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},))


# ------------------------------------------------------------------ where it is used


@pytest.mark.parametrize("url,ok", [
    ("http://127.0.0.1:8080/v1/chat/completions", True),
    ("https://api.example.com/v1/chat/completions", True),
    ("http://[::1]:8080/v1/chat/completions", True),
    ("ftp://example.com/v1", False),
    ("http://user:secret@example.com/v1", False),
    ("http://exämple.com/v1", False),
    ("http://example.com/v1 x", False),
    ("http://example.com:99999/v1", False),
    ("http:///v1", False),
])
def test_it_is_used_only_where_it_sends_as_httpx_would(url, ok, monkeypatch):
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    assert http11.usable(url) is ok


def test_a_proxy_in_the_environment_leaves_the_rounds_to_httpx(monkeypatch, lean_providers):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    assert not http11.usable("https://api.example.com/v1/chat/completions")
    monkeypatch.delenv("HTTPS_PROXY")
    monkeypatch.setenv("NO_PROXY", "example.com")  # no proxy to bypass: the lean client still sends
    assert http11.usable("https://api.example.com/v1/chat/completions")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    p = object.__new__(OpenAIProvider)
    lean_providers(p, "https://api.example.com/v1", None, "m", lean=True)  # the constructor itself
    assert not p.lean and type(p._client).__name__ == "Client"
    p.close()


# ------------------------------------------------------------------ a raw server


class RawServer:
    """Answers each request on a connection with the next of `replies`
    (bytes, sent as they are; None closes the connection); records the
    requests' heads and how many connections were opened. A connection is
    closed after a reply in HTTP/1.0, or after every reply with `close_after`;
    `closed` is released once for each connection the server has closed."""

    def __init__(self, replies, close_after: bool = False):
        self.replies = list(replies)
        self.close_after = close_after
        self.heads: list[bytes] = []
        self.connections = 0
        self.closed = threading.Semaphore(0)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.connections += 1
            threading.Thread(target=self._serve_then_say, args=(conn,), daemon=True).start()

    def _serve_then_say(self, conn):
        try:
            self._serve(conn)
        finally:
            self.closed.release()

    def _serve(self, conn):
        buf = b""
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    more = conn.recv(65536)
                    if not more:
                        return
                    buf += more
                head, _, buf = buf.partition(b"\r\n\r\n")
                n = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                             if line.lower().startswith(b"content-length")))
                while len(buf) < n:
                    buf += conn.recv(65536)
                buf = buf[n:]
                with self.lock:
                    self.heads.append(head)
                    reply = self.replies.pop(0) if self.replies else None
                if reply is None:
                    return
                conn.sendall(reply)
                if self.close_after or reply.startswith(b"HTTP/1.0"):
                    return

    def close(self):
        self.listener.close()


def completion_json(text: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]}).encode()


def sized(body: bytes, extra: str = "") -> bytes:
    return (f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{extra}\r\n"
            .encode() + body)


def chunked(body: bytes, cuts: int = 3) -> bytes:
    step = max(1, len(body) // cuts)
    pieces = [body[i:i + step] for i in range(0, len(body), step)]
    data = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\nX-Trailer: t\r\n\r\n"
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + data


def ask(url: str, **kw):
    with OpenAIProvider(url, "sk-test-key-123456", "m", timeout=kw.pop("timeout", 3.0),
                        retry=RetryPolicy(max_retries=0), **kw) as p:
        return [p.answer(rnd()) for _ in range(kw.pop("times", 1))]


def test_keep_alive_sends_every_round_on_one_connection():
    server = RawServer([sized(completion_json(f"r{i}")) for i in range(5)])
    try:
        with OpenAIProvider(server.url, "sk-test-key-123456", "m", timeout=3.0) as p:
            texts = [p.answer(rnd()).text for _ in range(5)]
    finally:
        server.close()
    assert texts == [f"r{i}" for i in range(5)]
    assert server.connections == 1
    head = server.heads[0].decode()
    assert head.startswith("POST /v1/chat/completions HTTP/1.1\r\n")
    names = [line.split(":")[0] for line in head.split("\r\n")[1:]]
    assert names == ["Host", "Connection", "User-Agent", "Content-Type", "Accept-Encoding", "Authorization", "Accept",
                     "Content-Length"]  # httpx's headers, in httpx's order
    assert f"Host: 127.0.0.1:{server.port}" in head and "Authorization: Bearer sk-test-key-123456" in head


def test_chunked_and_gzipped_replies_and_a_1xx_before_them_are_read():
    body = completion_json("chunked ok")
    gz = gzip.compress(completion_json("gzip ok"))
    server = RawServer([
        chunked(body),
        b"HTTP/1.1 100 Continue\r\n\r\n" + sized(body.replace(b"chunked", b"after 100")),
        sized(gz, "Content-Encoding: gzip\r\n"),
    ])
    try:
        with OpenAIProvider(server.url, None, "m", timeout=3.0) as p:
            texts = [p.answer(rnd()).text for _ in range(3)]
    finally:
        server.close()
    assert texts == ["chunked ok", "after 100 ok", "gzip ok"]
    assert server.connections == 1


def test_a_reply_ending_at_close_is_read_and_its_connection_not_reused():
    body = completion_json("to the end")
    reply = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body
    server = RawServer([reply, reply])
    try:
        with OpenAIProvider(server.url, None, "m", timeout=3.0, retry=RetryPolicy(max_retries=0)) as p:
            texts = [p.answer(rnd()).text for _ in range(2)]
    finally:
        server.close()
    assert texts == ["to the end", "to the end"]
    assert server.connections == 2


def test_a_connection_the_server_closed_while_idle_is_not_used_again():
    body = completion_json("fresh")
    server = RawServer([sized(body), sized(body)], close_after=True)
    try:
        with OpenAIProvider(server.url, None, "m", timeout=3.0, retry=RetryPolicy(max_retries=0)) as p:
            assert p.answer(rnd()).text == "fresh"
            assert server.closed.acquire(timeout=60)  # the server has closed the connection
            second = p.answer(rnd())
    finally:
        server.close()
    assert isinstance(second, ModelReply) and second.text == "fresh"
    assert server.connections == 2


@pytest.mark.parametrize("reply,failure", [
    (None, ModelFailure(unreachable="the connection closed unexpectedly: "
                                    "Server disconnected without sending a response.")),
    (b"HTTP/1.1 2xx OK\r\n\r\n", ModelFailure(unreachable="the connection closed unexpectedly: "
                                                          "illegal status line: 'HTTP/1.1 2xx OK'")),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
     ModelFailure(unreachable="the connection closed unexpectedly: illegal header line: 'no colon here'")),
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"choices\":",
     ModelFailure(message="the model backend's reply stream ended early")),
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
     ModelFailure(message="the model backend's reply stream ended early")),
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0x2\r\n{}\r\n0\r\n\r\n",
     ModelFailure(message="the model backend's reply stream ended early")),
    (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\nxx",
     ModelFailure(unreachable="the connection closed unexpectedly: unsupported Transfer-Encoding: 'gzip'")),
], ids=["closed", "bad-status", "bad-header", "short-body", "bad-chunk", "0x-chunk", "transfer-gzip"])
def test_broken_replies_are_named_failures(reply, failure):
    server = RawServer([reply], close_after=True)
    try:
        got = ask(server.url)[0]
    finally:
        server.close()
    assert got == failure


def test_headers_past_the_cap_are_refused():
    reply = b"HTTP/1.1 200 OK\r\n" + b"X-Big: " + b"a" * (http11.MAX_HEAD + 10) + b"\r\n\r\n"
    server = RawServer([reply])
    try:
        got = ask(server.url)[0]
    finally:
        server.close()
    assert got == ModelFailure(unreachable="the connection closed unexpectedly: the reply's headers are too long")


def test_a_refused_connection_and_an_unknown_host_read_as_with_httpx():
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()
    assert ask(f"http://127.0.0.1:{port}/v1")[0] == ModelFailure(unreachable="connection refused")
    got = ask("http://no-such-host.invalid/v1")[0]
    assert got == ModelFailure(unreachable="the host name could not be resolved")


def test_a_header_value_that_cannot_be_sent_is_not_retried():
    server = RawServer([])
    try:
        with OpenAIProvider(server.url, "sk-bad\nkey", "m", timeout=3.0) as p:
            got = p.answer(rnd())
    finally:
        server.close()
    assert got == ModelFailure(unreachable="the request could not be sent (an invalid header value; check the API key)")
    assert server.heads == []


def test_a_lean_provider_answers_without_importing_httpx():
    """Each worker process of a batch would pay a tenth of a second for it."""
    import subprocess
    import sys

    server = RawServer([sized(completion_json("no httpx"))])
    code = ("import sys; from runvil.harness.openai import OpenAIProvider; from runvil.engine.effects import ModelRound\n"
            f"p = OpenAIProvider({server.url!r}, None, 'm', lean=True)\n"
            "r = p.answer(ModelRound(id=1, role='w', model='m', origin='chat', messages=({'role': 'user', 'content': 'hi'},)))\n"
            "print(r.text, 'httpx' in sys.modules)")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    finally:
        server.close()
    assert out.stdout.strip() == "no httpx False", out.stderr


@pytest.mark.parametrize("headers", [{"Accept": "application/json"}, {"accept": "text/event-stream", "X-Extra": "b"},
                                     {}, {"Content-Length": "5"}, {"Transfer-Encoding": "chunked"},
                                     {"Host": "other"}, {"X-Bad": "a\nb"}, {"X-List": ["a"]}])
def test_a_request_head_is_the_same_from_the_kept_checked_fields(headers):
    """The checked fields kept per host and headers give the bytes (or the
    refusal) of a head checked whole, whatever the length."""
    import h11

    client = http11.LeanClient({"Content-Type": "application/json", "Authorization": "Bearer k"}, 10.0, None)

    def head(make):
        try:
            return h11.Connection(h11.CLIENT).send(make())
        except Exception as e:  # noqa: BLE001 - the refusal must be the same one
            return (type(e), str(e))

    for length in (0, 17, 12345, 17):
        whole = head(lambda: client._request_checked("POST", b"/v1/chat/completions", "h:8", headers, length))
        kept = head(lambda: client._request("POST", b"/v1/chat/completions", "h:8", headers, length))
        assert kept == whole
