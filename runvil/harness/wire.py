"""Bytes from a provider, bounded before they are decoded:
a reply body is capped on the wire and again after its one content
encoding is undone, an event stream's lines and events are capped, text is
decoded only with a charset from a known list, and the wait for a reply's
headers is bounded by the provider's `timeout` as a total.

Decisions:
- At most one content encoding (`gzip`, `x-gzip` or `deflate`, the ones
  asked for); stacked encodings (`gzip, gzip`) or any other are refused
  with a named error. Inflating is done in pieces of at most `PIECE` bytes,
  each no bigger than what may still be kept, so a small body that inflates
  to gigabytes stops at the cap. `decoded` undoes stacked layers the same
  way for the web Pack, which takes pages as servers send them.
- An event stream is UTF-8 (the SSE standard says so, whatever the header
  says); other bodies use their charset when it is in `CHARSETS`, else
  UTF-8. Undecodable bytes become U+FFFD.
- A line or an event longer than `MAX_EVENT` characters fails the reply;
  so does a reply longer than `MAX_REPLY` bytes on the wire or decoded.
- The header deadline is a thread-local moment that every network read
  and connect of the provider's client honours (`DeadlineBackend`): each
  read may still wait `timeout`, but never past the deadline, so a server
  that drips its headers a byte at a time cannot hold a round for longer
  than `timeout` in all.
"""

from __future__ import annotations

import codecs
import re
import threading
import time
import zlib
from typing import Iterable, Iterator

MAX_REPLY = 32 * 1024 * 1024  # bytes of one reply, on the wire and decoded
MAX_EVENT = 8 * 1024 * 1024  # characters of one event-stream line or event
PIECE = 64 * 1024  # bytes inflated at a time
CHARSETS = {"utf-8": "utf-8", "utf8": "utf-8", "us-ascii": "ascii", "ascii": "ascii", "iso-8859-1": "latin-1",
            "latin-1": "latin-1", "latin1": "latin-1", "windows-1252": "cp1252", "cp1252": "cp1252"}
ENCODINGS = ("gzip", "x-gzip", "deflate")
ACCEPT_ENCODING = "gzip,deflate"

REPLY_TOO_BIG = "the model backend's reply is larger than {limit} bytes"
STACKED_ENCODINGS = "the model backend sent its reply in stacked encodings ({codings}), which runvil does not unpack"
UNKNOWN_ENCODING = "the model backend sent its reply in the encoding '{coding}', which runvil did not ask for"
BAD_COMPRESSION = "the model backend's compressed reply is corrupt"
EVENT_TOO_BIG = "the model backend sent an event-stream line or event longer than {limit} characters"

_EOL = re.compile(r"\r\n|\r|\n")


class WireError(Exception):
    """A reply refused before or while it was decoded; its text is a message
    for the user."""


# ------------------------------------------------------------------ bodies


class _Inflater:
    """Undoes one gzip or deflate layer, at most `PIECE` bytes at a time
    (fewer when `room()` says fewer may come): a piece is never made bigger
    than what may still be kept."""

    def __init__(self, coding: str, room=None):
        self.gzip = coding != "deflate"
        self._new(zlib.MAX_WBITS | 16 if self.gzip else zlib.MAX_WBITS)
        self.started = False
        self.room = room

    def _new(self, wbits: int) -> None:
        self.z = zlib.decompressobj(wbits)

    def feed(self, data: bytes) -> Iterator[bytes]:
        try:
            yield from self._feed(data)
        except zlib.error:
            raise WireError(BAD_COMPRESSION) from None

    def _feed(self, data: bytes) -> Iterator[bytes]:
        if not self.gzip and not self.started and data:
            self.started = True
            if (data[0] & 0x0F) != 8:  # not a zlib header: a bare deflate stream, as some servers send
                self._new(-zlib.MAX_WBITS)
        while data:
            most = PIECE if self.room is None else max(1, min(PIECE, self.room()))
            out = self.z.decompress(data, most)
            if out:
                yield out
            data = self.z.unconsumed_tail
            if self.z.eof:
                rest = self.z.unused_data
                if not self.gzip or not rest.strip(b"\x00"):
                    return
                self._new(zlib.MAX_WBITS | 16)  # the next member of a multi-member gzip body
                data = rest
            elif not data and len(out) == most:
                data = b""
                more = self.z.decompress(b"", most)  # output zlib still holds for input it took whole
                while more:
                    yield more
                    more = self.z.decompress(b"", most) if len(more) == most else b""


def decoded(raw: Iterable[bytes], codings: list[str], room=None) -> Iterator[bytes]:
    """The pieces of a body with its content codings undone, the last one
    applied first, each layer inflated lazily in pieces of at most PIECE
    bytes, and the outermost never past `room()` bytes more (a callable
    the caller keeps up to date): however the layers are stacked, what is
    held at once is a piece a layer and what the caller keeps."""
    pieces: Iterable[bytes] = raw
    for i, coding in enumerate(reversed(codings)):
        last = i == len(codings) - 1
        pieces = _layer(pieces, _Inflater(coding, room if last else None))
    return iter(pieces)


def _layer(pieces: Iterable[bytes], inflater: _Inflater) -> Iterator[bytes]:
    for piece in pieces:
        yield from inflater.feed(piece)


def codings_of(headers) -> list[str]:
    return [c for c in (p.strip().lower() for p in headers.get("content-encoding", "").split(",")) if c and c != "identity"]


def body_pieces(resp, limit: int | None = None, cut: bool = False) -> Iterator[bytes]:
    """The decoded body of an httpx streaming response in pieces, at most
    `limit` bytes on the wire and decoded: past it, WireError, or with
    `cut` the pieces simply stop there."""
    limit = MAX_REPLY if limit is None else limit
    codings = codings_of(resp.headers)
    if len(codings) > 1:
        raise WireError(STACKED_ENCODINGS.format(codings=", ".join(codings)))
    if codings and codings[0] not in ENCODINGS:
        raise WireError(UNKNOWN_ENCODING.format(coding=codings[0][:40]))
    wire = out = 0

    def counted():
        nonlocal wire
        for raw in resp.iter_raw():
            wire += len(raw)
            yield raw
            if wire > limit:
                if cut:
                    return
                raise WireError(REPLY_TOO_BIG.format(limit=limit))

    for piece in decoded(counted(), codings, lambda: limit - out + 1):
        if out + len(piece) > limit:
            if cut:
                yield piece[: limit - out]
                return
            raise WireError(REPLY_TOO_BIG.format(limit=limit))
        out += len(piece)
        yield piece


def charset_of(headers) -> str:
    """The body's charset when it is one of CHARSETS, else UTF-8."""
    ctype = headers.get("content-type", "")
    m = re.search(r"charset\s*=\s*\"?([A-Za-z0-9_.:-]{1,40})", ctype)
    return CHARSETS.get(m.group(1).lower(), "utf-8") if m else "utf-8"


def read_text(resp, limit: int | None = None, cut: bool = False) -> str:
    """The whole body as text (see body_pieces and charset_of)."""
    data = b"".join(body_pieces(resp, limit, cut))
    return data.decode(charset_of(resp.headers), "replace")


# ------------------------------------------------------------------ event streams


def sse_events(pieces: Iterable[bytes], limit: int | None = None) -> Iterator[str]:
    """The data payloads of a Server-Sent Events stream, in UTF-8: the data
    lines of one event are joined by newlines; comments and other fields
    are skipped. Lines end with CR LF, LF or CR. Linear in the stream's
    length however it is cut into pieces."""
    limit = MAX_EVENT if limit is None else limit
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending: list[str] = []  # the start of a line not yet ended
    pending_size = 0
    data: list[str] = []
    data_size = 0
    after_cr = False
    for raw in pieces:
        text = decoder.decode(raw)
        if after_cr and text.startswith("\n"):
            text = text[1:]
        after_cr = False
        start = 0
        for m in _EOL.finditer(text):
            line = "".join(pending) + text[start:m.start()] if pending else text[start:m.start()]
            pending, pending_size = [], 0
            start = m.end()
            after_cr = m.group() == "\r" and start == len(text)
            if line == "":
                if data:
                    yield "\n".join(data)
                    data, data_size = [], 0
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            if field == "data":
                value = value[1:] if value.startswith(" ") else value
                data_size += len(value) + 1
                if data_size > limit:
                    raise WireError(EVENT_TOO_BIG.format(limit=limit))
                data.append(value)
        rest = text[start:]
        if rest:
            pending.append(rest)
            pending_size += len(rest)
            if pending_size > limit:
                raise WireError(EVENT_TOO_BIG.format(limit=limit))
    tail = "".join(pending) + decoder.decode(b"", True)
    if tail.startswith("data:"):
        value = tail[5:]
        data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


# ------------------------------------------------------------------ the header deadline


class Deadline(threading.local):
    """The moment (time.monotonic) by which the current thread's request
    must have its reply headers; None outside that wait."""

    at: float | None = None

    def limit(self, timeout: float | None) -> float | None:
        if self.at is None:
            return timeout
        left = max(self.at - time.monotonic(), 0.001)
        return left if timeout is None else min(timeout, left)

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at


def _stream_class():
    import httpcore

    from .http11 import EARLY_REPLY, reply_waiting

    class DeadlineStream(httpcore.NetworkStream):
        """A connection whose reads and writes never wait past the deadline."""

        def __init__(self, stream, deadline: Deadline):
            self.stream, self.deadline = stream, deadline
            self.writing = False  # a request is being written: its first write was checked
            self.spent = False  # the server sent bytes past a reply: never to be reused

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            self.writing = False
            if self.deadline.passed():
                raise httpcore.ReadTimeout("the reply's headers did not arrive in time")
            return self.stream.read(max_bytes, self.deadline.limit(timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            if self.deadline.passed():
                raise httpcore.WriteTimeout("the request could not be sent in time")
            if not self.writing:  # a request starts: no reply may be waiting for it already
                self.writing = True
                sock = self.stream.get_extra_info("socket")
                if sock is not None and reply_waiting(sock):
                    raise httpcore.RemoteProtocolError(EARLY_REPLY)
            self.stream.write(buffer, self.deadline.limit(timeout))

        def close(self) -> None:
            self.stream.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            return DeadlineStream(self.stream.start_tls(ssl_context, server_hostname, self.deadline.limit(timeout)),
                                  self.deadline)

        def get_extra_info(self, info: str):
            if info == "is_readable" and self.spent:  # what the pool asks before it reuses a connection
                return True
            return self.stream.get_extra_info(info)

    class DeadlineBackend(httpcore.NetworkBackend):
        """httpcore's network backend with the deadline on every stream."""

        def __init__(self, backend, deadline: Deadline):
            self.backend, self.deadline = backend, deadline

        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
            if self.deadline.passed():
                raise httpcore.ConnectTimeout("the connection timed out")
            stream = self.backend.connect_tcp(host, port, self.deadline.limit(timeout), local_address, socket_options)
            return DeadlineStream(stream, self.deadline)

        def connect_unix_socket(self, path, timeout=None, socket_options=None):
            stream = self.backend.connect_unix_socket(path, self.deadline.limit(timeout), socket_options)
            return DeadlineStream(stream, self.deadline)

        def sleep(self, seconds: float) -> None:
            self.backend.sleep(seconds)

    return DeadlineBackend


def drop_if_leftover(resp) -> None:
    """After a reply read to its end: when the server sent bytes past it
    on a kept connection, marks the connection's DeadlineStream spent, so
    that httpx's pool drops it instead of reading those bytes as the next
    request's reply (h11 keeps them for the next cycle, and httpcore reuses
    the connection without looking; the lean client looks, http11.py).
    Reaches into httpx's and httpcore's response streams, which have no
    public hook."""
    stream, state = getattr(resp, "stream", None), None
    for _ in range(6):  # httpx's streams wrap httpcore's, which wrap the HTTP/1.1 connection's
        state = getattr(getattr(stream, "_connection", None), "_h11_state", None)
        if state is not None or stream is None:
            break
        stream = getattr(stream, "_stream", None) or getattr(stream, "_httpcore_stream", None)
    trailing = getattr(state, "trailing_data", None)
    if trailing and trailing[0]:
        network = resp.extensions.get("network_stream")
        if hasattr(network, "spent"):
            network.spent = True


def install_deadline(client, deadline: Deadline) -> bool:
    """Puts the deadline under every transport of an httpx client (its own
    and those mounted for proxies); False when a transport is not httpx's
    own (a test's), which then runs without it."""
    backend_class = _stream_class()
    transports = [client._transport, *client._mounts.values()]  # noqa: SLF001  httpx has no public hook
    done = True
    for t in transports:
        pool = getattr(t, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is None:
            done = done and t is None
            continue
        pool._network_backend = backend_class(backend, deadline)
    return done
