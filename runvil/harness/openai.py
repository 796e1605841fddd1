"""The OpenAI-compatible provider: one model round (a `ModelRound` effect)
sent as a Chat Completions request over httpx (or, for a batch's rows,
the lean client of http11.py, which raises exceptions of the same names),
answered with a
`ModelReply` or a `ModelFailure`.

Decisions (docs/reference/configuration.md):

- The request streams (`stream: true`, with `stream_options.include_usage`
  unless the provider's `stream_usage` is false) unless the provider's
  `stream` is false. A provider that answers a streaming request with one
  plain JSON completion instead is read as such. `tool_choice` (default
  "auto"; "" sends none) goes with every request that offers tools: some
  servers (llama.cpp's) take a missing one as "none".
- A 2xx stream that ends before its first event is asked once more without
  streaming, and that answer stands (llama.cpp's server answers a streamed
  request it cannot serve, an overflow among them, with an empty 200). The
  second ask is part of the same try: it is no retry and waits nothing.
- Retries follow `retries.py`; each one is reported through `on_retry`
  before its wait. Once a reply's status line has arrived nothing is
  retried, so no streamed text is ever shown twice.
- An HTTP status >= 400 is `ModelFailure(status, body, message)`: the body
  is the response text (cut to `MAX_BODY` characters, for the Engine's
  overflow check) and the message is `the model backend rejected the
  request (status N): <the provider's own message>` (`errortext.py`).
- A connection error or a timeout before the reply is
  `ModelFailure(unreachable=<short detail>)`. A stream that ends without
  `[DONE]`, or whose connection breaks, is `STREAM_ENDED`; one that ends
  with `[DONE]` but no finish reason is `STREAM_UNFINISHED` (llama.cpp's
  server ends a stream so when another request interrupts it). The text
  streamed before such a failure is the failure's `partial`, never a
  reply. An error object inside a started stream is
  `ModelFailure(stream_error=<its message>)`. The Engine classifies
  overflows.
- Every byte is bounded before it is decoded (`wire.py`); the reply's
  shapes are checked as it is built (`replies.py`). A reply that was
  waiting before the request was written is `EARLY_REPLY`, not retried.
- The API key only ever travels in the Authorization header. Every text a
  failure carries has the key (and anything that looks like a key) masked,
  so a server that echoes the key back cannot leak it into errors, the run
  log or `--json`.
- JSON a provider sends is decoded by `safe_loads`: too deep a document is
  refused, never a crash.
- Request text is sent as UTF-8; a lone surrogate (a Lua byte that was not
  UTF-8, kept by the Engine as surrogateescape) goes out as U+FFFD.
"""

from __future__ import annotations

import errno
import json
import re
import time
from typing import Callable

from ..engine.effects import ModelFailure, ModelRound
from ..engine.models import REJECTED
from ..structs import Struct, replace
from .errortext import REDACTED, detail, mask_keys, safe_loads  # noqa: F401  REDACTED is read from here (recorder.py)
from .replies import ReplyBuilder, Refused
from .retries import RetryPolicy, retryable_status
from .wire import (ACCEPT_ENCODING, Deadline, WireError, body_pieces, drop_if_leftover, install_deadline, read_text,
                   sse_events)

DEFAULT_TIMEOUT = 600.0  # seconds to connect, and to wait for the next bytes of a reply
MAX_BODY = 64 * 1024  # characters of an error body kept in a failure
STREAM_ENDED = "the model backend's reply stream ended early"
STREAM_UNFINISHED = ("the model backend ended the reply stream without finishing the reply "
                     "(no finish reason; llama.cpp's server does this when another request interrupts a reply)")
NOT_A_REPLY = "the model backend sent a reply that is not JSON or an event stream"
NO_REPLY_WITHIN = "no reply within {timeout:g} seconds"
NO_BYTES_WITHIN = STREAM_ENDED + ": no reply bytes within {timeout:g} seconds"
CONNECT_TIMEOUT = "the connection timed out"
REFUSED = "connection refused"
NO_SUCH_HOST = "the host name could not be resolved"
CANNOT_CONNECT = "cannot connect: {detail}"
BAD_HEADER = "the request could not be sent (an invalid header value; check the API key)"
CLOSED = "the connection closed unexpectedly"
EARLY_REPLY = "the model backend sent a reply before runvil sent its request"
THINKING_EFFORT = {"low": "low", "medium": "medium", "high": "high"}  # off: nothing

_SURROGATE = re.compile("[\ud800-\udfff]")


# ------------------------------------------------------------------ the request


def _compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def wire_message(m: dict) -> dict:
    """A composed message (record form) in the Chat Completions wire form."""
    out = {"role": m["role"], "content": m.get("content")}
    calls = m.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {
                "id": c.get("id"),
                "type": "function",
                "function": {
                    "name": c.get("name"),
                    "arguments": a if isinstance(a := c.get("arguments", {}), str) else _compact(a),
                },
            }
            for c in calls
        ]
    if m.get("tool_call_id") is not None:
        out["tool_call_id"] = m["tool_call_id"]
    return out


def wire_tool(t: dict) -> dict:
    fn = {"name": t["name"]}
    if t.get("description") is not None:
        fn["description"] = t["description"]
    fn["parameters"] = t.get("parameters") or {"type": "object", "properties": {}}
    return {"type": "function", "function": fn}


class WireSettings(Struct, frozen=True):
    """A provider's settings for the request's shape (docs/reference/configuration.md)."""

    stream: bool = True
    tool_choice: str = "auto"  # "": no tool_choice field
    stream_usage: bool = True


def request_body(effect: ModelRound, model_name: str, settings: WireSettings = WireSettings(),
                 stream: bool | None = None) -> dict:
    """The JSON body of the request for one round (`stream` overrides the
    settings' for the second, plain ask after a silent stream)."""
    body: dict = {"model": model_name, "messages": [wire_message(m) for m in effect.messages]}
    if effect.tools:
        body["tools"] = [wire_tool(t) for t in effect.tools]
        if settings.tool_choice:
            body["tool_choice"] = settings.tool_choice
    opts = effect.options or {}
    for k in ("temperature", "top_p", "max_tokens"):
        if opts.get(k) is not None:
            body[k] = opts[k]
    effort = THINKING_EFFORT.get(opts.get("thinking"))
    if effort is not None:
        body["reasoning_effort"] = effort
    streaming = settings.stream if stream is None else stream
    body["stream"] = streaming
    if streaming and settings.stream_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def encode_body(body: dict) -> bytes:
    return _SURROGATE.sub("\ufffd", json.dumps(body, ensure_ascii=False)).encode("utf-8")


# ------------------------------------------------------------------ failures


def unreachable_detail(e: Exception, timeout: float, errors=None) -> str:
    """A short, key-free description of a transport failure; `errors` is
    the module whose exception classes the client raises (httpx's by
    default, or http11's)."""
    if errors is None:
        import httpx as errors
    if isinstance(e, errors.ConnectTimeout):
        return CONNECT_TIMEOUT
    if isinstance(e, errors.TimeoutException):
        return NO_REPLY_WITHIN.format(timeout=timeout)
    if isinstance(e, errors.ConnectError):
        cause: BaseException | None = e
        while cause is not None:
            if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
                return REFUSED
            cause = cause.__cause__ or cause.__context__
        text = str(e)
        if "refused" in text.lower():
            return REFUSED
        if "name or service not known" in text.lower() or "nodename nor servname" in text.lower():
            return NO_SUCH_HOST
        return CANNOT_CONNECT.format(detail=text) if text else "cannot connect"
    if isinstance(e, errors.LocalProtocolError):  # its text may quote a header: never shown
        return BAD_HEADER
    if isinstance(e, errors.RemoteProtocolError):
        return f"{CLOSED}: {e}" if str(e) else CLOSED
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def rejected_message(status: int, body: str, key: str | None) -> str:
    """`the model backend rejected the request (status 400): <message>`."""
    said = detail(body, key)
    return REJECTED.format(status=status) + (f": {said}" if said else "")


class _Retry:
    """A try that failed in a way worth another: the failure to report if
    no retry is left, and the wait the reply's headers asked for."""

    def __init__(self, failure: ModelFailure, headers=None):
        self.failure = failure
        self.headers = headers


class _Silent:
    """A 2xx stream that ended before its first event: ask again, plainly."""


# ------------------------------------------------------------------ the provider


class OpenAIProvider:
    """One OpenAI-compatible endpoint and model; `answer` may be called from
    several threads at once (both clients are thread-safe). `lean` (a
    batch's rows) sends with `http11.LeanClient` where it behaves as httpx
    would, keeping `connections` connections open; else httpx sends."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model_name: str,
        timeout: float = DEFAULT_TIMEOUT,
        on_fragment: Callable[[str], None] | None = None,
        transport=None,
        retry: RetryPolicy | None = None,
        settings: WireSettings | None = None,
        lean: bool = False,
        connections: int = 20,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model_name = model_name
        self.timeout = timeout
        self.on_fragment = on_fragment
        self.retry = retry or RetryPolicy()
        self.settings = settings or WireSettings()
        self._key = api_key or None
        headers = {"Content-Type": "application/json", "Accept-Encoding": ACCEPT_ENCODING}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._deadline = Deadline()  # the reply's headers must arrive within `timeout` in all
        self._tools_ignored: bool | None = None  # _ignores_tools, asked once
        self.lean = lean and transport is None and _lean_usable(self.url)
        if self.lean:
            from . import http11

            self._client = http11.LeanClient(headers, timeout, self._deadline, keep=connections)
            self._errors = http11  # (httpx is not imported: a tenth of a second a process)
        else:
            import httpx

            self._errors = httpx
            if transport is None and connections != 20:
                transport = httpx.HTTPTransport(limits=httpx.Limits(max_connections=100,
                                                                    max_keepalive_connections=connections))
            self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout), transport=transport)
            install_deadline(self._client, self._deadline)

    def __repr__(self) -> str:  # never the key
        return f"OpenAIProvider({self.url!r}, model={self.model_name!r})"

    def close(self) -> None:
        self._client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def redact(self, text: str) -> str:
        """The text with the key, its escaped spellings and anything that
        looks like a key masked."""
        return mask_keys(text, self._key)

    def _redacted(self, f: ModelFailure) -> ModelFailure:
        return ModelFailure(
            status=f.status,
            body=self.redact(f.body),
            stream_error=None if f.stream_error is None else self.redact(f.stream_error),
            unreachable=None if f.unreachable is None else self.redact(f.unreachable),
            message=None if f.message is None else self.redact(f.message),
            partial=None if f.partial is None else self.redact(f.partial),
            facts=f.facts,
        )

    def answer(
        self,
        effect: ModelRound,
        on_fragment: Callable[[str], None] | None = None,
        on_retry: Callable[[int, int | None, float], None] | None = None,
    ):
        """Sends one round, retrying as retries.py decides; returns a ModelReply or
        a ModelFailure (never raises for network or protocol trouble).
        `on_retry(attempt, status, wait)` is called before each retry's wait
        (status None for a connection that failed)."""
        stream = self.settings.stream
        body = encode_body(request_body(effect, self.model_name, self.settings, stream))
        retries = 0
        while True:
            outcome = self._try(body, stream, on_fragment or self.on_fragment)
            if isinstance(outcome, _Silent):  # asked once more, without streaming
                stream = False
                body = encode_body(request_body(effect, self.model_name, self.settings, stream))
                continue
            if not isinstance(outcome, _Retry):
                if isinstance(outcome, ModelFailure):
                    return self._redacted(outcome)
                if stream and effect.tools and not outcome.tool_calls and self._ignores_tools():
                    return replace(outcome, facts={"hint": "tools_ignored"})
                return outcome
            if retries >= self.retry.max_retries:
                return self._redacted(outcome.failure)
            retries += 1
            wait = self.retry.wait(retries, outcome.headers)
            if on_retry is not None:
                on_retry(retries, outcome.failure.status, wait)
            time.sleep(wait)

    def _ignores_tools(self) -> bool:
        """Whether the server is llama-cpp-python's without a tool-aware chat
        format: it streamed a reply to a request that offered tools (with
        such a format it answers that with an empty 200), and its model
        listing says `owned_by: me`. Asked once per provider."""
        if self._tools_ignored is None:
            self._tools_ignored = False
            if not self.lean:
                try:
                    listing = self._client.get(self.url[: -len("/chat/completions")] + "/models", timeout=2.0)
                    data = safe_loads(listing.text) if listing.status_code == 200 else {}
                    owners = {m.get("owned_by") for m in data.get("data", []) if isinstance(m, dict)}
                    self._tools_ignored = owners == {"me"}
                except Exception:  # noqa: BLE001 - a hint only: any trouble means no hint
                    pass
        return self._tools_ignored

    def _try(self, body: bytes, stream: bool, on_fragment):
        """One request: a ModelReply, a ModelFailure, a _Retry or _Silent."""
        builder = ReplyBuilder(on_fragment)
        replied = False  # the status line arrived: nothing is retried after it
        accept = {"Accept": "text/event-stream" if stream else "application/json"}
        x = self._errors
        self._deadline.at = time.monotonic() + self.timeout
        try:
            with self._client.stream("POST", self.url, content=body, headers=accept) as resp:
                self._deadline.at = None
                replied = True
                try:
                    if resp.status_code >= 400:
                        return self._status_failure(resp)
                    return self._read_reply(resp, builder, stream)
                finally:
                    if not self.lean:
                        drop_if_leftover(resp)
        except Refused as f:
            return _with_partial(f.failure, builder)
        except WireError as e:
            return _with_partial(ModelFailure(message=str(e)), builder)
        except x.TimeoutException as e:
            if replied:
                return _with_partial(ModelFailure(message=NO_BYTES_WITHIN.format(timeout=self.timeout)), builder)
            return _Retry(ModelFailure(unreachable=unreachable_detail(e, self.timeout, x)))
        except x.TransportError as e:
            if replied:
                return _with_partial(ModelFailure(message=STREAM_ENDED), builder)
            if isinstance(e, x.RemoteProtocolError) and _early(e):  # a reply to nothing: never the answer
                return ModelFailure(message=EARLY_REPLY)
            failure = ModelFailure(unreachable=unreachable_detail(e, self.timeout, x))
            return failure if isinstance(e, x.LocalProtocolError) else _Retry(failure)
        except (x.HTTPError, x.InvalidURL) as e:  # e.g. a malformed URL
            return ModelFailure(unreachable=f"{type(e).__name__}: {e}")
        finally:
            self._deadline.at = None

    def _status_failure(self, resp):
        try:
            text = read_text(resp, 4 * MAX_BODY, cut=True)[:MAX_BODY]
        except (self._errors.TransportError, WireError):  # the status is what counts; its body was lost or refused
            text = ""
        said = detail(text, self._key)  # the server's own words, for the Host's help lines too
        failure = ModelFailure(status=resp.status_code, body=text,
                               message=rejected_message(resp.status_code, text, self._key),
                               facts={"server": said} if said else None)
        return _Retry(failure, resp.headers) if retryable_status(resp.status_code, text) else failure

    def _read_reply(self, resp, builder: ReplyBuilder, stream: bool):
        if "text/event-stream" not in resp.headers.get("content-type", ""):  # a plain JSON completion
            text = read_text(resp)
            if stream and not text.strip():
                return _Silent()
            try:
                data = safe_loads(text)
            except (ValueError, RecursionError):
                return ModelFailure(message=NOT_A_REPLY)
            builder.chunk(data)
            return builder.reply()
        done = False
        events = 0
        for payload in sse_events(body_pieces(resp)):
            events += 1
            if payload.strip() == "[DONE]":
                done = True
                break
            try:
                data = safe_loads(payload)
            except (ValueError, RecursionError):
                continue  # a keep-alive or a line we do not know
            builder.chunk(data)
        if not done:
            if stream and events == 0:
                return _Silent()
            return _with_partial(ModelFailure(message=STREAM_ENDED), builder)
        if builder.finish_reason is None:  # the Host names the server option that avoids it
            return _with_partial(ModelFailure(message=STREAM_UNFINISHED, facts={"hint": "interrupted"}), builder)
        return builder.reply()


def _early(e: Exception) -> bool:
    from .http11 import EARLY_REPLY as early  # (both clients raise it: wire.py's DeadlineStream for httpx)

    return str(e) == early


def _lean_usable(url: str) -> bool:
    from .http11 import usable

    return usable(url)


def _with_partial(failure: ModelFailure, builder: ReplyBuilder) -> ModelFailure:
    """The failure with the text streamed before it."""
    partial = builder.partial
    return failure if partial is None else replace(failure, partial=partial)
