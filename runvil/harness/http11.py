"""A lean HTTP/1.1 client for the provider rounds of a batch.

httpx spends about 1.5 ms of CPU on each request (URL and header models,
httpcore's pool and its locks); a batch sending hundreds of rounds a second
on a 2-core machine spent more on it than on its Engine. This client keeps
the wire protocol in h11, the parser httpcore itself uses (request framing,
status line and headers, Content-Length and chunked bodies, when a
connection may be reused, protocol errors), and does itself only what
httpcore adds around it: plain keep-alive sockets, a pool, the timeouts and
header deadline, and the cap on a reply's head.

It offers what `OpenAIProvider` uses of an httpx client and nothing more:
`stream(method, url, content=, headers=)` as a context manager whose
response has `status_code`, `headers.get()` and `iter_raw()` (the body
after its transfer coding, before its content coding, which `wire.py`
undoes and bounds), and `close()`. It raises exceptions of httpx's names
and hierarchy, defined here: the provider catches `x.TransportError` and
friends of whichever module its client raises from, and importing httpx
costs a tenth of a second of CPU in every worker process. Their texts are
httpcore's (h11's, with a quoted line shown as text).

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
  response read to its end on a connection h11 says may go on goes back to
  the pool; any other is closed.
- A status line and headers longer than `MAX_HEAD` bytes, and anything h11
  refuses in them, are `RemoteProtocolError`s; in a body they end the
  stream (`INCOMPLETE`, `BAD_CHUNK`).
- Bytes of a reply waiting on a connection before its request is written
  (a server that answers what it was never asked, or a reply left over on a
  kept connection) are `EARLY_REPLY`, never taken as the answer
  (`reply_waiting`; wire.py's DeadlineStream asks it for httpx too).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import os
import re
import socket
import sys
import threading
from urllib.parse import urlsplit

import h11

try:
    from h11._headers import Headers as h11_headers  # fields h11 has checked (not public: see `_request`)
except ImportError:  # an h11 that keeps them elsewhere: every request's fields are checked again
    h11_headers = None

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
EARLY_REPLY = "the server replied before the request was sent"
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


@functools.cache
def user_agent() -> str:
    """httpx's User-Agent, `python-httpx/VERSION`, read from the installed
    package's version file without importing httpx."""
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
    return f"python-httpx/{version}"


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

    def __init__(self, fields):
        self._joined: dict[str, str] = {}
        for name, value in fields:
            key, value = name.decode("latin-1"), value.decode("latin-1")  # (h11 gives names lower-cased)
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
    """One socket and h11's state of the exchange on it."""

    __slots__ = ("sock", "origin", "h11")

    def __init__(self, sock, origin: tuple):
        self.sock, self.origin = sock, origin
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)

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

    def reusable(self) -> bool:
        """The exchange ended and h11 says the connection may carry another
        (no `Connection: close`, not HTTP/1.0, nothing sent past the reply)."""
        state = self.h11
        if state.our_state is not h11.DONE or state.their_state is not h11.DONE or state.trailing_data[0]:
            return False
        state.start_next_cycle()
        return True

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class Response:
    """A reply whose status line and headers have arrived."""

    def __init__(self, client: "LeanClient", conn: _Connection, status: int, headers: Headers):
        self._client, self._conn = client, conn
        self.status_code = status
        self.headers = headers

    def iter_raw(self):
        while True:
            event = self._client.event(self._conn, in_body=True)
            if type(event) is h11.Data:
                if event.data:
                    yield event.data
            elif type(event) is h11.EndOfMessage:
                return

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._client.release(conn)


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
        self._heads: dict[tuple, tuple | bool] = {}  # (host, request headers) -> checked fields (`_request`)

    # ------------------------------------------------------------ requests

    @contextlib.contextmanager
    def stream(self, method: str, url: str, content: bytes = b"", headers: dict | None = None):
        origin, target, host = self._target(url)
        request = self._request(method, target, host, headers or {}, len(content))
        conn = self._connection(origin)
        response = None
        try:
            if reply_waiting(conn.sock):
                raise RemoteProtocolError(EARLY_REPLY)
            try:
                head = conn.h11.send(request)
                body = conn.h11.send_with_data_passthrough(h11.Data(data=content)) if content else []
                end = conn.h11.send(h11.EndOfMessage())
            except h11.LocalProtocolError:
                raise LocalProtocolError(BAD_HEADER_VALUE) from None
            if len(content) < PIECE:
                self.send(conn, b"".join([head, *body, end]))
            else:
                self.send(conn, head, *body, end)
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
            got = self._targets[url] = ((name, port, tls), target.encode("ascii"), host)
        return got

    def _request(self, method: str, target: bytes, host: str, headers: dict, length: int) -> h11.Request:
        """The request's head. h11 checks each field of it, which cost more
        than the rest of sending a round: the checked fields before
        Content-Length are kept per host and request headers, and each
        request adds only its length to them."""
        try:
            key = (host, *headers.items())
            checked = self._heads.get(key) if h11_headers is not None else False
        except TypeError:  # (a value that is no text: refused below)
            checked = False
        if checked is None:
            checked = self._heads[key] = self._checked_fields(method, target, host, headers)
        if checked is False:  # fields whose order or checks the length would change
            return self._request_checked(method, target, host, headers, length)
        fields = h11_headers([*checked, (b"Content-Length", b"content-length", b"%d" % length)])
        try:
            return h11.Request(method=method, target=target, headers=fields)
        except h11.LocalProtocolError:
            raise LocalProtocolError(BAD_HEADER_VALUE) from None

    def _checked_fields(self, method: str, target: bytes, host: str, headers: dict):
        """h11's checked fields of a request before its Content-Length, or
        False where they cannot be reused (a field of the request's own
        that Content-Length replaces or h11 weighs against it)."""
        if len(self._heads) > 64:  # (requests' own headers vary: bounded)
            self._heads.clear()
        try:
            full = self._request_checked(method, target, host, headers, 0).headers._full_items
        except LocalProtocolError:
            return False
        if full[-1][1] != b"content-length" or any(name in (b"content-length", b"transfer-encoding")
                                                   for _, name, _ in full[:-1]):
            return False
        return tuple(full[:-1])

    def _request_checked(self, method: str, target: bytes, host: str, headers: dict, length: int) -> h11.Request:
        fields = {"host": ("Host", host), "connection": ("Connection", "keep-alive"),
                  "user-agent": ("User-Agent", user_agent())}
        for name, value in [*self.headers, *headers.items()]:
            fields[name.lower()] = (name, value)
        fields["content-length"] = ("Content-Length", str(length))
        try:  # h11 checks each name and value (no line break, no edge spaces); httpx sends ASCII only
            return h11.Request(method=method, target=target,
                               headers=[(n.encode("ascii"), v.encode("ascii")) for n, v in fields.values()])
        except (h11.LocalProtocolError, UnicodeEncodeError, AttributeError):
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

    def release(self, conn: _Connection) -> None:
        if conn.reusable():
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

    def event(self, conn: _Connection, in_body: bool, seen: list | None = None):
        """h11's next event of the reply, reading as it needs (the bytes read
        go to `seen` too); its protocol errors become ours, with httpcore's
        texts."""
        state = conn.h11
        while True:
            try:
                event = state.next_event()
            except h11.RemoteProtocolError as e:
                raise RemoteProtocolError(_failure_text(e, in_body)) from None
            if event is not h11.NEED_DATA:
                return event
            data = self.recv(conn)
            if not data and state.their_state is h11.SEND_RESPONSE:
                raise RemoteProtocolError(DISCONNECTED)
            if seen is not None:
                seen.append(data)
            state.receive_data(data)

    def _read_head(self, conn: _Connection) -> Response:
        seen: list[bytes] = []  # the bytes read until the head arrived
        while True:  # 1xx informational replies are skipped
            try:
                event = self.event(conn, False, seen)
            except RemoteProtocolError as e:
                if str(e) == UNKNOWN_CODING:  # h11 does not say which coding: the head it refused does
                    raise RemoteProtocolError(UNKNOWN_CODING.format(coding=repr(_codings(seen)[:100]))) from None
                raise
            if type(event) is h11.Response:
                break
        read = sum(map(len, seen))  # (h11 caps only a head still arriving, not one read whole)
        if read > MAX_HEAD and read - len(conn.h11.trailing_data[0]) > MAX_HEAD:
            raise RemoteProtocolError(HEAD_TOO_LONG)
        return Response(self, conn, event.status_code, Headers(event.headers))


def reply_waiting(sock) -> bool:
    """Whether bytes from the server wait on `sock` before a request is
    written on it: a reply to nothing. A closed connection (no bytes, the
    end) is not one, and neither is a TLS record that carries no data (a
    session ticket TLS 1.3 servers send after the handshake)."""
    import select

    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            if not poller.poll(0):
                return False
        elif not select.select([sock], [], [], 0)[0]:
            return False
        if hasattr(sock, "pending"):  # TLS: read a record to see whether it holds data (then refused anyway)
            if sock.pending():
                return True
            timeout = sock.gettimeout()
            sock.setblocking(False)
            try:
                return bool(sock.recv(1))
            finally:
                sock.settimeout(timeout)
        return bool(sock.recv(1, socket.MSG_PEEK | getattr(socket, "MSG_DONTWAIT", 0)))
    except (OSError, ValueError):  # nothing to read now, or a reset the write will report
        return False


def _codings(seen: list[bytes]) -> str:
    """The Transfer-Encoding of the head h11 refused for it (the first
    after any 1xx replies), its fields joined as httpx's headers join them."""
    for head in re.split(rb"\r?\n\r?\n", b"".join(seen)):
        lines = head.split(b"\n")
        if lines[0][9:10] == b"1":  # "HTTP/1.1 1xx": skipped, as h11 skips it
            continue
        codings = [value.strip(b" \t\r").decode("latin-1") for name, _, value in
                   (line.partition(b":") for line in lines[1:]) if name.strip().lower() == b"transfer-encoding"]
        return ", ".join(codings)
    return ""


def _failure_text(e: h11.RemoteProtocolError, in_body: bool) -> str:
    """httpcore's text for h11's refusal `e` of a reply's head, or the end
    of a stream for one of its body (`UNKNOWN_CODING` still unformatted)."""
    text = str(e)
    if in_body:  # (the provider reports either as a stream that ended early)
        return INCOMPLETE if text.startswith("peer") else BAD_CHUNK
    if text == "Receive buffer too long":
        return HEAD_TOO_LONG
    if "Content-Length" in text:
        return BAD_LENGTH
    if "Transfer-Encoding" in text:
        return UNKNOWN_CODING
    m = re.fullmatch(r"illegal (status|header) line: bytearray\((b.*)\)", text, re.S)
    if m:  # the line as text, as the reply sent it
        line = repr(ast.literal_eval(m.group(2)).decode("latin-1")[:100])
        return (BAD_STATUS_LINE if m.group(1) == "status" else BAD_HEADER_LINE).format(line=line)
    return text
