"""A raw-socket server on 127.0.0.1 that answers each connection with
bytes a test builds: for replies no HTTP library would send (a status line
or header that holds a key, a reply sent before the request, headers that
drip in).

`answer(request)` gets the request (`RawRequest`: its head as text, its
headers by lower-cased name, its body) and returns the bytes to send, or an
iterable of pieces (bytes are sent, a number is a pause in seconds). With
`early`, the answer is sent as soon as the connection is accepted, before
the request is read (the request then is None). The connection is closed
after the answer, unless `keep`: then each request on it is answered. `sent` counts the pieces each connection got before the
client went away or the server stopped: how far a drip got.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field


@dataclass
class RawRequest:
    head: str
    headers: dict = field(default_factory=dict)
    body: bytes = b""


class RawServer:
    def __init__(self, answer, early: bool = False, keep: bool = False):
        self.answer = answer
        self.early = early
        self.keep = keep  # answer every request on a connection, not only its first
        self.requests: list[RawRequest] = []
        self.sent: list[int] = []  # byte pieces sent on each connection, in the order they were accepted
        self._threads: list[threading.Thread] = []
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self._port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> "RawServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)
        for t in self._threads:
            t.join(5)
        self.listener.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._one, args=(conn, len(self.sent)), daemon=True)
            self.sent.append(0)
            self._threads.append(t)
            t.start()

    def _one(self, conn: socket.socket, n: int) -> None:
        with conn:
            conn.settimeout(5)
            try:
                if self.early:
                    self._send(conn, n, self.answer(None))
                    read_request(conn)
                    return
                while True:
                    request = read_request(conn)
                    if request is None:
                        return
                    self.requests.append(request)
                    self._send(conn, n, self.answer(request))
                    if not self.keep:
                        return
            except OSError:
                pass

    def _send(self, conn: socket.socket, n: int, reply) -> None:
        for piece in [reply] if isinstance(reply, (bytes, bytearray)) else reply:
            if isinstance(piece, (int, float)):
                if self.stopping.wait(piece):
                    return
                continue
            conn.sendall(piece)
            self.sent[n] += 1


def read_request(conn: socket.socket) -> RawRequest | None:
    data = b""
    while b"\r\n\r\n" not in data:
        piece = conn.recv(65536)
        if not piece:
            return None
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length") or 0)
    while len(body) < length:
        piece = conn.recv(65536)
        if not piece:
            break
        body += piece
    return RawRequest(head.decode("latin-1"), headers, body)


def http_reply(body: bytes, status: str = "200 OK", content_type: str = "application/json",
               headers: dict | None = None) -> bytes:
    """A whole HTTP/1.1 reply with its length, closing the connection."""
    lines = [f"HTTP/1.1 {status}", f"Content-Type: {content_type}", f"Content-Length: {len(body)}",
             "Connection: close", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
