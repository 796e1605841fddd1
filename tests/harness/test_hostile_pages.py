"""Raw-socket servers on 127.0.0.1 playing hostile web pages for
`web/fetch`, and servers that answer before they are asked, for both
provider clients (httpx and the lean one) and the fetch: each ends in a
named error within its limits of time and memory."""

from __future__ import annotations

import gzip
import json
import select
import socket
import struct
import time
import tracemalloc
import zlib

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.harness.openai import OpenAIProvider
from runvil.harness.packbase import PackError
from runvil.harness.retries import RetryPolicy
from runvil.harness.web import WebPack

from .raw_server import RawServer, http_reply


class Settings:
    def __init__(self, fetch_max_bytes: int = 1_000_000, fetch_timeout: float = 5.0):
        self.search_url = None
        self.fetch_max_bytes, self.fetch_timeout = fetch_max_bytes, fetch_timeout


def fetch(server: RawServer, path: str = "/page", **settings):
    pack = WebPack(Settings(**settings))
    try:
        return pack.fetch(server.url(path))
    finally:
        pack.close()


def page(body: bytes, content_type: str = "text/plain", **headers) -> bytes:
    return http_reply(body, content_type=content_type, headers={k.replace("_", "-"): v for k, v in headers.items()})


def zeros_gzip(size: int) -> bytes:
    """A gzip member of `size` zero bytes made without compressing them:
    one fully flushed deflate block of a MiB of zeros repeated (each block
    stands alone after a full flush), so 5 GiB costs milliseconds; its
    trailer is not checked before the limit stops the reading."""
    z = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    block = z.compress(b"\0" * (1 << 20)) + z.flush(zlib.Z_FULL_FLUSH)
    end = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS).flush()
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + block * (size >> 20) + end
            + struct.pack("<II", 0, size & 0xFFFFFFFF))


# ------------------------------------------------------------------ codings


def test_a_9_kb_page_gzipped_twice_into_5_gib_stops_at_fetch_max_bytes_holding_about_it():
    inner = zeros_gzip(5 << 30)
    bomb = gzip.compress(inner, 9)
    assert len(bomb) < 40_000
    replies = iter([page(b"warm"), page(bomb, Content_Encoding="gzip, gzip")])
    pack = WebPack(Settings(fetch_max_bytes=2_000_000))
    with RawServer(lambda request: next(replies)) as server:
        assert pack.fetch(server.url("/warm")) == "warm"  # the client made (its TLS context is a few MB)
        tracemalloc.start()
        cpu = time.process_time()
        try:
            with pytest.raises(PackError) as e:
                pack.fetch(server.url("/page"))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            pack.close()
        cpu = time.process_time() - cpu
    assert str(e.value) == f"web/fetch: {server.url('/page')} is more than the 2000000 bytes a fetch may read"
    assert peak < 3_000_000, peak  # the limit, a piece a layer and what the client holds
    assert cpu < 5


@pytest.mark.parametrize("codings", ["gzip", "deflate", "x-gzip", "gzip, deflate", "deflate, gzip, gzip"])
def test_pages_in_stacked_codings_of_a_sane_size_are_read(codings):
    text = "plain words " * 1000
    body = text.encode()
    for coding in (c.strip() for c in codings.split(",")):
        body = zlib.compress(body) if coding == "deflate" else gzip.compress(body)
    with RawServer(lambda request: page(body, Content_Encoding=codings)) as server:
        assert fetch(server) == text
        assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


def test_an_encoding_not_asked_for_and_too_many_layers_are_refused_by_name():
    with RawServer(lambda request: page(b"\0" * 50, Content_Encoding="br")) as server:
        with pytest.raises(PackError) as e:
            fetch(server)
    assert str(e.value) == f"web/fetch: {server.url('/page')} came in the encoding 'br', which a fetch does not unpack"
    with RawServer(lambda request: page(b"\0" * 50, Content_Encoding="gzip, gzip, gzip, gzip")) as server:
        with pytest.raises(PackError, match="came in the encoding 'gzip, gzip, gzip, gzip'"):
            fetch(server)


def test_a_corrupt_compressed_page_is_named():
    with RawServer(lambda request: page(b"\x1f\x8b\x08\x00garbage" * 10, Content_Encoding="gzip")) as server:
        with pytest.raises(PackError) as e:
            fetch(server)
    assert str(e.value) == f"web/fetch: {server.url('/page')} sent a corrupt compressed body"


# ------------------------------------------------------------------ charsets


def test_a_page_declared_punycode_is_read_as_utf_8_in_linear_time():
    body = ("xn--" + "a" * 900_000 + "é").encode()
    with RawServer(lambda request: page(body, "text/plain; charset=punycode")) as server:
        cpu = time.process_time()
        text = fetch(server)
        cpu = time.process_time() - cpu
    assert text == body.decode() and cpu < 2


@pytest.mark.parametrize("charset,text", [("windows-1251", "Привет"), ("shift_jis", "こんにちは"),
                                          ("iso-8859-15", "€uro"), ("gb18030", "你好"), ("windows-874", "สวัสดี")])
def test_the_charsets_browsers_decode_are_used(charset, text):
    python = {"windows-874": "cp874"}.get(charset, charset)
    with RawServer(lambda request: page(text.encode(python), f"text/plain; charset={charset}")) as server:
        assert fetch(server) == text


@pytest.mark.parametrize("charset", ["utf-7", "idna", "punycode", "rot13", "zlib", "nonsense"])
def test_other_charsets_read_as_utf_8(charset):
    with RawServer(lambda request: page("café +AGE-".encode(), f"text/plain; charset={charset}")) as server:
        assert fetch(server) == "café +AGE-"


# ------------------------------------------------------------------ time


def test_headers_dripped_one_a_moment_are_stopped_by_fetch_timeout():
    """Each header comes well within the per-read wait; only a deadline on
    the whole response stops them. After the drip the server sends a
    whole page, so a client without the deadline would read it. The drip
    lasts a minute, so no load on the machine lets the headers end before
    the deadline is seen; the server's stop ends it."""
    drip = [b"HTTP/1.1 200 OK\r\n"]
    for i in range(200):  # 60 s of headers against a 1 s fetch_timeout
        drip += [0.3, f"X-Drip-{i}: {i}\r\n".encode()]
    drip.append(b"Content-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nlate")
    with RawServer(lambda request: drip) as server:
        with pytest.raises(PackError) as e:
            fetch(server, fetch_timeout=1.0)
    assert str(e.value) == f"web/fetch: {server.url('/page')} took longer than 1 s"
    assert server.sent[0] < 200, server.sent  # stopped in the headers, not after them


def test_a_body_dripped_in_is_stopped_by_fetch_timeout_too():
    drip = [b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 200\r\n\r\n"]
    drip += [x for _ in range(200) for x in (0.3, b"x")]  # a minute of body: longer than any load stretches 1 s
    with RawServer(lambda request: drip) as server:
        with pytest.raises(PackError, match="took longer than 1 s"):
            fetch(server, fetch_timeout=1.0)


# ------------------------------------------------------------------ a reply before the request


COMPLETION = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "unasked"},
                                      "finish_reason": "stop"}]}).encode()


@pytest.fixture
def slow_connect(monkeypatch):
    """A client that connects, then is slow to write (a loaded machine):
    whatever the server sends at once is waiting before the request goes."""
    connect = socket.create_connection

    def slow(*args, **kwargs):
        sock = connect(*args, **kwargs)
        select.select([sock], [], [], 0.5)
        return sock

    monkeypatch.setattr(socket, "create_connection", slow)


def rnd() -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},))


@pytest.mark.parametrize("lean", [False, True], ids=["httpx", "lean"])
def test_a_reply_sent_before_the_request_is_refused(slow_connect, lean):
    with RawServer(lambda request: http_reply(COMPLETION), early=True) as server:
        with OpenAIProvider(server.base_url, None, "m", timeout=5, retry=RetryPolicy(max_retries=2), lean=lean) as p:
            assert p.lean is lean
            answer = p.answer(rnd())
    assert answer == ModelFailure(message="the model backend sent a reply before runvil sent its request")
    assert len(server.sent) == 1  # not retried: a server that answers unasked does so again


@pytest.mark.parametrize("lean", [False, True], ids=["httpx", "lean"])
def test_a_server_that_answers_after_the_request_is_read_as_ever(slow_connect, lean):
    with RawServer(lambda request: http_reply(COMPLETION)) as server:
        with OpenAIProvider(server.base_url, None, "m", timeout=5, retry=RetryPolicy(max_retries=0), lean=lean) as p:
            answer = p.answer(rnd())
    assert isinstance(answer, ModelReply) and answer.text == "unasked"


def test_a_page_sent_before_the_request_is_refused_by_the_fetch(slow_connect):
    with RawServer(lambda request: page(b"unasked"), early=True) as server:
        with pytest.raises(PackError) as e:
            fetch(server)
    assert str(e.value) == (f"web/fetch: cannot reach {server.url('/page')}: "
                            "the server replied before the request was sent")


def completion(text: str, close: bool = False) -> bytes:
    body = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}]}).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (len(body), body))


@pytest.mark.parametrize("lean", [False, True], ids=["httpx", "lean"])
def test_a_reply_left_over_on_a_kept_connection_is_never_the_next_answer(lean):
    """The server sends, with its first reply, a second one nobody asked
    for: the next request goes on a fresh connection and gets its own."""
    count = iter(range(1, 100))

    def answer(request):
        n = next(count)
        return completion(f"answer {n}") + (completion("stale, unasked") if n == 1 else b"")

    with RawServer(answer, keep=True) as server:
        with OpenAIProvider(server.base_url, None, "m", timeout=5, retry=RetryPolicy(max_retries=0), lean=lean) as p:
            assert p.answer(rnd()).text == "answer 1"
            assert p.answer(rnd()).text == "answer 2"
    assert len(server.sent) == 2  # the second request on a connection of its own


def test_a_page_left_over_on_a_kept_connection_is_never_the_next_page():
    count = iter(range(1, 100))

    def answer(request):
        n = next(count)
        extra = page(b"stale, unasked") if n == 1 else b""
        return http_reply(f"page {n}".encode(), content_type="text/plain").replace(b"Connection: close\r\n", b"") + extra

    with RawServer(answer, keep=True) as server:
        pack = WebPack(Settings())
        try:
            assert pack.fetch(server.url("/a")) == "page 1"
            assert pack.fetch(server.url("/b")) == "page 2"
        finally:
            pack.close()
