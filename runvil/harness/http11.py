"""A lean HTTP/1.1 client for the provider rounds of a batch (issue 24,
"Speed").

httpx spends about 1.5 ms of CPU on each request (URL and header models,
httpcore's pool, h11's parser, all in Python); a batch sending hundreds of
rounds a second on a 2-core machine spent more on it than on its Engine.
This client sends the same request bytes over plain keep-alive sockets and
reads replies with a few bytes-level scans: about 0.1 ms a request.

It offers what `OpenAIProvider` uses of an httpx client and nothing more:
`stream(method, url, content=, headers=)` as a context manager whose
response has `status_code`, `headers.get()` and `iter_raw()` (the body
after its transfer coding, before its content coding, which `wire.py`
undoes and bounds), and `close()`. It raises exceptions of httpx's names
and hierarchy, defined here (importing httpx costs a tenth of a second
of CPU in every worker process), with httpcore's texts, so the provider's
retries and failure texts are the same whichever client sent the request.

Decisions:
- Used only where it behaves as httpx would: `http` and `https` URLs
  without user info or characters httpx would quote, and no proxy in the
  environment (httpx honours `HTTP_PROXY` and friends); anywhere else the
  provider keeps httpx (`usable`).
- The headers are httpx's, in its order (Host, Connection, User-Agent, the
  client's, the request's, Content-Length), so a provider sees the same
  request from `runvil run` and `runvil batch`. TLS uses httpx's own
  context (certifi, or `SSL_CERT_FILE` / `SSL_CERT_DIR`), ALPN http/1.1.
- Every connect, write and read waits at most `timeout`, and while the
  provider's header `Deadline` is set, never past it (as `wire.py`'s
  `DeadlineBackend` does for httpx).
- An idle connection is reused last-in first-out; one that became readable
  while idle (the server closed it) is dropped first, as httpcore does. A
  response read to its end goes back to the pool; any other is closed.
- A status line and headers longer than `MAX_HEAD` bytes, a malformed
  status line or header, or a bad chunk are `RemoteProtocolError`s.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import threading
from urllib.parse import urlsplit

MAX_HEAD = 100 * 1024  # bytes of a reply's status line and headers (httpcore's limit)
PIECE = 64 * 1024  # bytes read at a time
# (the texts follow httpcore's; a failure shows them after "the connection closed unexpectedly: ")
DISCONNECTED = "Server disconnected without sending a response."
INCOMPLETE = "peer closed connection without sending complete message body"
BAD_STATUS_LINE = "illegal status line: {line}"
BAD_HEADER_LINE = "illegal header line: {line}"
HEAD_TOO_LONG = "the reply's headers are too long"
BAD_CHUNK = "malformed chunked encoding"
BAD_LENGTH = "invalid Content-Length"
UNKNOWN_CODING = "unsupported Transfer-Encoding: {coding}"
BAD_HEADER_VALUE = "Illegal header value"
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
_HEAD_END = re.compile(rb"\n\r?\n")  # where a status line and headers end (h11 reads it so)
SAFE_TARGET = frozenset(map(chr, range(33, 127))) - set('"<>\\^`{|}')


# ------------------------------------------------------------------ httpx's exceptions, by name


class HTTPError(Exception):
    pass


class TransportError(HTTPError):
    pass


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class ReadTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


class NetworkError(TransportError):
    pass


class ConnectError(NetworkError):
    pass


class ReadError(NetworkError):
    pass


class WriteError(NetworkError):
    pass


class ProtocolError(TransportError):
    pass


class LocalProtocolError(ProtocolError):
    pass


class RemoteProtocolError(ProtocolError):
    pass


class InvalidURL(Exception):
    pass


def user_agent() -> str:
    """httpx's User-Agent, `python-httpx/VERSION`, read from the installed
    package's version file without importing httpx."""
    global _USER_AGENT
    if _USER_AGENT is None:
        import importlib.util

        version = None
        try:
            spec = importlib.util.find_spec("httpx")
            where = spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else None
            if where is not None:
                with open(os.path.join(where, "__version__.py"), encoding="utf-8") as f:
                    m = re.search(r"""^__version__\s*=\s*["']([^"']+)["']""", f.read(), re.M)
                version = m.group(1) if m else None
        except (OSError, ImportError, ValueError):
            version = None
        if version is None:
            import httpx

            version = httpx.__version__
        _USER_AGENT = f"python-httpx/{version}"
    return _USER_AGENT


_USER_AGENT: str | None = None


# ------------------------------------------------------------------ the client


def usable(url: str) -> bool:
    """Whether this client sends to `url` exactly as httpx would."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        return False
    if port == 0 or not parts.hostname.isascii() or parts.fragment:
        return False
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if not set(target) <= SAFE_TARGET or not set(parts.hostname) <= SAFE_TARGET:
        return False
    return not _proxies()


def _proxies() -> set:
    """The proxies httpx would read from the environment (NO_PROXY alone
    is none): on Linux the `*_proxy` variables, as urllib reads them."""
    if sys.platform in ("darwin", "win32"):  # urllib reads the system's settings there
        import urllib.request

        return {k for k, v in urllib.request.getproxies().items() if v and k != "no"}
    return {n.lower() for n, v in os.environ.items() if v and n.lower().endswith("_proxy") and n.lower() != "no_proxy"}


class Headers:
    """A reply's headers: `get(name)` ignores case and joins repeated
    fields with ", ", as httpx's does."""

    def __init__(self, fields: list[tuple[str, str]]):
        self._fields = fields
        self._joined: dict[str, str] = {}
        for name, value in fields:
            key = name.lower()
            self._joined[key] = f"{self._joined[key]}, {value}" if key in self._joined else value

    def get(self, name: str, default=None):
        return self._joined.get(name.lower(), default)

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._joined

    def __getitem__(self, name: str) -> str:
        return self._joined[name.lower()]

    def items(self):
        return self._joined.items()


class _Connection:
    """One socket and the bytes read from it but not used yet."""

    __slots__ = ("sock", "origin", "buf")

    def __init__(self, sock, origin: tuple):
        self.sock, self.origin = sock, origin
        self.buf = b""

    def expired(self) -> bool:
        """Readable while idle: the server closed it (or broke the protocol)."""
        import select

        try:
            if hasattr(select, "poll"):
                poller = select.poll()
                poller.register(self.sock, select.POLLIN)
                return bool(poller.poll(0))
            return bool(select.select([self.sock], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Response:
    """A reply whose status line and headers have arrived."""

    def __init__(self, client: "LeanClient", conn: _Connection, status: int, headers: Headers, framing, keep: bool):
        self._client, self._conn = client, conn
        self.status_code = status
        self.headers = headers
        self._framing = framing  # ("length", n), ("chunked", None) or ("close", None)
        self._keep = keep
        self._ended = False

    def iter_raw(self):
        kind, n = self._framing
        body = self._chunked() if kind == "chunked" else self._sized(n) if kind == "length" else self._to_close()
        for piece in body:
            if piece:
                yield piece
        self._ended = True

    def _recv(self) -> bytes:
        return self._client.recv(self._conn)

    def _sized(self, left: int):
        conn = self._conn
        while left > 0:
            if not conn.buf:
                conn.buf = self._recv()
                if not conn.buf:
                    raise RemoteProtocolError(INCOMPLETE)
            piece, conn.buf = conn.buf[:left], conn.buf[left:]
            left -= len(piece)
            yield piece

    def _to_close(self):
        conn = self._conn
        self._keep = False
        while True:
            piece, conn.buf = conn.buf or self._recv(), b""
            if not piece:
                return
            yield piece

    def _chunked(self):
        while True:
            field = self._client.line(self._conn).split(b";", 1)[0].strip(b" \t")
            if not _HEX.fullmatch(field):  # (int() would also take "0x", "_" and a sign)
                raise RemoteProtocolError(BAD_CHUNK)
            size = int(field, 16)
            if size == 0:
                while self._client.line(self._conn):  # the trailer section
                    pass
                return
            yield from self._sized(size)
            if self._client.line(self._conn):
                raise RemoteProtocolError(BAD_CHUNK)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._client.release(conn, reuse=self._ended and self._keep)


class LeanClient:
    """Keep-alive connections to the servers one provider sends to; safe to
    use from many threads at once."""

    def __init__(self, headers: dict, timeout: float, deadline, keep: int = 20):
        self.headers = [(str(k), str(v)) for k, v in headers.items()]
        self.timeout = timeout
        self.deadline = deadline
        self.keep = max(1, keep)
        self._idle: dict[tuple, list[_Connection]] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._ssl = None
        self._targets: dict[str, tuple] = {}

    # ------------------------------------------------------------ requests

    @contextlib.contextmanager
    def stream(self, method: str, url: str, content: bytes = b"", headers: dict | None = None):
        origin, target, host = self._target(url)
        head = self._head(method, target, host, headers or {}, len(content))
        conn = self._connection(origin)
        response = None
        try:
            self.send(conn, head + content if len(content) < PIECE else head, content if len(content) >= PIECE else b"")
            response = self._read_head(conn)
            yield response
        finally:
            if response is not None:
                response.close()
            else:
                conn.close()

    def _target(self, url: str) -> tuple:
        got = self._targets.get(url)
        if got is None:
            parts = urlsplit(url)
            tls = parts.scheme == "https"
            port = parts.port or (443 if tls else 80)
            name = parts.hostname.lower()
            shown = f"[{name}]" if ":" in name else name
            host = shown if port == (443 if tls else 80) else f"{shown}:{port}"
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            got = self._targets[url] = ((name, port, tls), target, host)
        return got

    def _head(self, method: str, target: str, host: str, headers: dict, length: int) -> bytes:
        fields = {"host": ("Host", host), "connection": ("Connection", "keep-alive"),
                  "user-agent": ("User-Agent", user_agent())}
        for name, value in [*self.headers, *headers.items()]:
            fields[name.lower()] = (name, value)
        fields["content-length"] = ("Content-Length", str(length))
        lines = [f"{method} {target} HTTP/1.1"]
        for name, value in fields.values():
            if not isinstance(value, str) or any(c in value for c in "\r\n\0") or value != value.strip():
                raise LocalProtocolError(BAD_HEADER_VALUE)
            lines.append(f"{name}: {value}")
        try:
            return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")
        except UnicodeEncodeError:  # httpx refuses such a header too
            raise LocalProtocolError(BAD_HEADER_VALUE) from None

    # ---------------------------------------------------------- the pool

    def _connection(self, origin: tuple) -> _Connection:
        while True:
            with self._lock:
                idle = self._idle.get(origin)
                conn = idle.pop() if idle else None
            if conn is None:
                return self._connect(origin)
            if not conn.expired():
                return conn
            conn.close()

    def _connect(self, origin: tuple) -> _Connection:
        name, port, tls = origin
        try:
            sock = socket.create_connection((name, port), timeout=self._wait(ConnectTimeout))
        except socket.timeout:
            raise ConnectTimeout("timed out") from None
        except OSError as e:
            raise ConnectError(str(e)) from e
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if tls:
                sock.settimeout(self._wait(ConnectTimeout))
                sock = self._tls().wrap_socket(sock, server_hostname=name)
        except socket.timeout:
            sock.close()
            raise ConnectTimeout("timed out") from None
        except OSError as e:
            sock.close()
            raise ConnectError(str(e)) from e
        return _Connection(sock, origin)

    def _tls(self):
        if self._ssl is None:
            import httpx

            context = httpx.create_ssl_context()
            context.set_alpn_protocols(["http/1.1"])
            self._ssl = context
        return self._ssl

    def release(self, conn: _Connection, reuse: bool) -> None:
        if reuse and not conn.buf:
            with self._lock:
                if not self._closed:
                    idle = self._idle.setdefault(conn.origin, [])
                    if len(idle) < self.keep:
                        idle.append(conn)
                        return
        conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()

    # ------------------------------------------------------------ the wire

    def _wait(self, timeout_class) -> float:
        """How long the next network wait may last: the timeout, cut at the
        header deadline; raises `timeout_class` once it has passed."""
        if self.deadline.passed():
            raise timeout_class("the reply's headers did not arrive in time")
        return self.deadline.limit(self.timeout)

    def send(self, conn: _Connection, *pieces: bytes) -> None:
        for data in pieces:
            if not data:
                continue
            try:
                conn.sock.settimeout(self._wait(WriteTimeout))
                conn.sock.sendall(data)
            except socket.timeout:
                raise WriteTimeout("timed out") from None
            except OSError as e:
                raise WriteError(str(e)) from e

    def recv(self, conn: _Connection) -> bytes:
        try:
            conn.sock.settimeout(self._wait(ReadTimeout))
            return conn.sock.recv(PIECE)
        except socket.timeout:
            raise ReadTimeout("timed out") from None
        except OSError as e:
            raise ReadError(str(e)) from e

    def line(self, conn: _Connection) -> bytes:
        """One line of a chunked body (its size line, an end, a trailer),
        without its line end."""
        while True:
            end = conn.buf.find(b"\n")
            if end >= 0:
                line, conn.buf = conn.buf[:end], conn.buf[end + 1:]
                return line.rstrip(b"\r")
            if len(conn.buf) > MAX_HEAD:
                raise RemoteProtocolError(BAD_CHUNK)
            more = self.recv(conn)
            if not more:
                raise RemoteProtocolError(INCOMPLETE)
            conn.buf += more

    def _read_head(self, conn: _Connection) -> Response:
        while True:  # 1xx informational replies are skipped
            lines = self._head_lines(conn)
            status, fields, version = _parse_head(lines)
            if status >= 200:
                break
        headers = Headers(fields)
        keep = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        codings = headers.get("transfer-encoding")
        if status in (204, 304):
            framing = ("length", 0)
        elif codings is not None:
            if codings.lower().replace(" ", "") != "chunked":  # h11 reads no other transfer coding either
                raise RemoteProtocolError(UNKNOWN_CODING.format(coding=repr(codings[:100])))
            framing = ("chunked", None)
        elif "content-length" in headers:
            try:
                n = int(headers["content-length"].split(",")[0].strip())
            except ValueError:
                raise RemoteProtocolError(BAD_LENGTH) from None
            if n < 0:
                raise RemoteProtocolError(BAD_LENGTH)
            framing = ("length", n)
        else:
            framing, keep = ("close", None), False
        return Response(self, conn, status, headers, framing, keep)

    def _head_lines(self, conn: _Connection) -> list[bytes]:
        while True:
            m = _HEAD_END.search(conn.buf, 0, MAX_HEAD + 2)
            if m is not None:
                head, conn.buf = conn.buf[:m.start()], conn.buf[m.end():]
                return head.split(b"\n")
            if len(conn.buf) > MAX_HEAD:
                raise RemoteProtocolError(HEAD_TOO_LONG)
            more = self.recv(conn)
            if not more:
                raise RemoteProtocolError(DISCONNECTED)
            conn.buf += more


def _parse_head(lines: list[bytes]) -> tuple[int, list[tuple[str, str]], str]:
    first = lines[0].rstrip(b"\r").decode("latin-1")
    version, _, rest = first.partition(" ")
    code = rest[:3]
    if version not in ("HTTP/1.1", "HTTP/1.0") or len(code) != 3 or not code.isdigit() or rest[3:4] not in ("", " "):
        raise RemoteProtocolError(BAD_STATUS_LINE.format(line=repr(first[:100])))
    fields = []
    for raw in lines[1:]:
        line = raw.rstrip(b"\r").decode("latin-1")
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise RemoteProtocolError(BAD_HEADER_LINE.format(line=repr(line[:100])))
        fields.append((name, value.strip(" \t")))
    return int(code), fields, version
