"""Bytes from a provider, bounded before they are decoded:
a reply body is capped on the wire and again after its one content
encoding is undone, an event stream's lines and events are capped, text is
decoded only with a charset from a known list, and the wait for a reply's
headers is bounded by the provider's `timeout` as a total.

Decisions:
- At most one content encoding (`gzip`, `x-gzip` or `deflate`, the ones
  asked for); stacked encodings (`gzip, gzip`) or any other are refused
  with a named error. Inflating is done in pieces of at most `PIECE` bytes,
  so a small body that inflates to gigabytes stops at the cap.
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
    """Undoes one gzip or deflate layer, PIECE bytes at a time."""

    def __init__(self, coding: str):
        self.gzip = coding != "deflate"
        self._new(zlib.MAX_WBITS | 16 if self.gzip else zlib.MAX_WBITS)
        self.started = False

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
            out = self.z.decompress(data, PIECE)
            if out:
                yield out
            data = self.z.unconsumed_tail
            if self.z.eof:
                rest = self.z.unused_data
                if not self.gzip or not rest.strip(b"\x00"):
                    return
                self._new(zlib.MAX_WBITS | 16)  # the next member of a multi-member gzip body
                data = rest


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
    inflater = _Inflater(codings[0]) if codings else None
    wire = out = 0
    for raw in resp.iter_raw():
        wire += len(raw)
        for piece in inflater.feed(raw) if inflater is not None else (raw,):
            if out + len(piece) > limit:
                if cut:
                    yield piece[: limit - out]
                    return
                raise WireError(REPLY_TOO_BIG.format(limit=limit))
            out += len(piece)
            yield piece
        if wire > limit:
            if cut:
                return
            raise WireError(REPLY_TOO_BIG.format(limit=limit))


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

    class DeadlineStream(httpcore.NetworkStream):
        """A connection whose reads and writes never wait past the deadline."""

        def __init__(self, stream, deadline: Deadline):
            self.stream, self.deadline = stream, deadline

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            if self.deadline.passed():
                raise httpcore.ReadTimeout("the reply's headers did not arrive in time")
            return self.stream.read(max_bytes, self.deadline.limit(timeout))

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            if self.deadline.passed():
                raise httpcore.WriteTimeout("the request could not be sent in time")
            self.stream.write(buffer, self.deadline.limit(timeout))

        def close(self) -> None:
            self.stream.close()

        def start_tls(self, ssl_context, server_hostname=None, timeout=None):
            return DeadlineStream(self.stream.start_tls(ssl_context, server_hostname, self.deadline.limit(timeout)),
                                  self.deadline)

        def get_extra_info(self, info: str):
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
