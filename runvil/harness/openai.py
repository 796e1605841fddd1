"""The OpenAI-compatible provider: one model round (a `ModelRound` effect)
sent as a streaming Chat Completions request over httpx, answered with a
`ModelReply` or a `ModelFailure`.

Decisions (spec/runvil.md §12 "Provider failures", host.md "Talking to
real providers" and "keys never appear"):

- The request always streams (`stream: true`, `stream_options.include_usage`).
  A provider that answers a streaming request with one plain JSON
  completion instead is read as such.
- Retries follow `retries.py`; each one is reported through `on_retry`
  before its wait. Once a reply's status line has arrived nothing is
  retried, so no streamed text is ever shown twice.
- An HTTP status >= 400 is `ModelFailure(status, body, message)`: the body
  is the response text (cut to `MAX_BODY` characters, for the Engine's
  overflow check) and the message is `the model backend rejected the
  request (status N): <the provider's own message>` (`errortext.py`).
- A connection error or a timeout before the reply is
  `ModelFailure(unreachable=<short detail>)`. A stream that ends without a
  finish reason or without `[DONE]`, or whose connection breaks, is
  `ModelFailure(message="the model backend's reply stream ended early")`:
  the text received is not a reply. An error object inside a started
  stream is `ModelFailure(stream_error=<its message>)`. The Engine
  classifies overflows.
- Malformed tool call arguments from the model are
  `ModelFailure(message="the model sent malformed tool call arguments: ...")`.
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

import httpx

from ..engine.effects import ModelFailure, ModelReply, ModelRound
from ..engine.models import EMPTY_REPLY, REJECTED
from .errortext import REDACTED, detail, mask_keys, safe_loads
from .retries import RetryPolicy, retryable_status

DEFAULT_TIMEOUT = 600.0  # seconds to connect, and to wait for the next bytes of a reply
MAX_BODY = 64 * 1024  # characters of an error body kept in a failure
STREAM_ENDED = "the model backend's reply stream ended early"
MALFORMED_ARGUMENTS = "the model sent malformed tool call arguments: {detail}"
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


def request_body(effect: ModelRound, model_name: str) -> dict:
    """The JSON body of the request for one round."""
    body: dict = {"model": model_name, "messages": [wire_message(m) for m in effect.messages]}
    if effect.tools:
        body["tools"] = [wire_tool(t) for t in effect.tools]
    opts = effect.options or {}
    for k in ("temperature", "top_p", "max_tokens"):
        if opts.get(k) is not None:
            body[k] = opts[k]
    effort = THINKING_EFFORT.get(opts.get("thinking"))
    if effort is not None:
        body["reasoning_effort"] = effort
    body["stream"] = True
    body["stream_options"] = {"include_usage": True}
    return body


def encode_body(body: dict) -> bytes:
    return _SURROGATE.sub("\ufffd", json.dumps(body, ensure_ascii=False)).encode("utf-8")


# ------------------------------------------------------------------ the reply


class _Failed(Exception):
    def __init__(self, failure: ModelFailure):
        self.failure = failure


class ReplyBuilder:
    """Accumulates the chunks of one streamed reply."""

    def __init__(self, on_fragment: Callable[[str], None] | None = None):
        self.on_fragment = on_fragment
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[dict] = []  # {index, id, name, args: [str]}
        self.finish_reason: str | None = None
        self.usage: dict | None = None
        self.model: str | None = None

    def chunk(self, data) -> None:
        if not isinstance(data, dict):
            return
        if data.get("error") is not None:
            raise _Failed(ModelFailure(stream_error=_error_message(data["error"])))
        if data.get("model"):
            self.model = str(data["model"])
        if isinstance(data.get("usage"), dict):
            self.usage = _usage(data["usage"])
        choices = data.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or (choice.get("index") or 0) != 0:
                continue
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                delta = choice.get("message") if isinstance(choice.get("message"), dict) else {}
            self.delta(delta)
            if choice.get("finish_reason") is not None:
                self.finish_reason = str(choice["finish_reason"])

    def delta(self, delta: dict) -> None:
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text.append(content)
            if self.on_fragment is not None:
                self.on_fragment(content)
        for key in ("reasoning_content", "reasoning"):
            r = delta.get(key)
            if isinstance(r, str) and r:
                self.reasoning.append(r)
                break
        for i, tc in enumerate(delta.get("tool_calls") or ()):
            if isinstance(tc, dict):
                self.tool_call_delta(i, tc)

    def tool_call_delta(self, position: int, tc: dict) -> None:
        index = tc.get("index")
        entry = None
        if index is not None:
            entry = next((c for c in self.calls if c["index"] == index), None)
        elif tc.get("id"):
            entry = next((c for c in self.calls if c["id"] == tc["id"]), None)
            index = len(self.calls)
        elif self.calls:
            entry = self.calls[-1]
        else:
            index = position
        if entry is None:
            entry = {"index": index, "id": None, "name": "", "args": []}
            self.calls.append(entry)
        if tc.get("id") and not entry["id"]:
            entry["id"] = str(tc["id"])
        fn = tc.get("function") or {}
        if fn.get("name") and not entry["name"]:
            entry["name"] = str(fn["name"])
        args = fn.get("arguments")
        if isinstance(args, str):
            entry["args"].append(args)
        elif isinstance(args, dict):  # some servers send the object itself
            entry["args"].append(_compact(args))

    def reply(self) -> ModelReply:
        calls = []
        for c in self.calls:
            text = "".join(c["args"]).strip()
            if not c["args"]:  # no arguments at all: the Engine refuses the call as malformed
                calls.append({"id": c["id"] or "", "name": c["name"], "arguments": None})
                continue
            try:
                args = safe_loads(text)
            except (ValueError, RecursionError) as e:
                detail = f"{c['name'] or 'a tool call'}: {e}"
                raise _Failed(ModelFailure(message=MALFORMED_ARGUMENTS.format(detail=detail))) from None
            if not isinstance(args, dict):
                detail = f"{c['name'] or 'a tool call'}: the arguments are not a JSON object"
                raise _Failed(ModelFailure(message=MALFORMED_ARGUMENTS.format(detail=detail)))
            calls.append({"id": c["id"] or "", "name": c["name"], "arguments": args})
        return ModelReply(
            text="".join(self.text),
            tool_calls=tuple(calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            reasoning="".join(self.reasoning) or None,
            model=self.model,
            empty_phrase=EMPTY_REPLY,
        )


def _usage(u: dict) -> dict:
    details = u.get("completion_tokens_details") or {}
    return {
        "prompt_tokens": _int(u.get("prompt_tokens")),
        "completion_tokens": _int(u.get("completion_tokens")),
        "reasoning_tokens": _int(details.get("reasoning_tokens") if isinstance(details, dict) else 0),
    }


def _int(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _error_message(err) -> str:
    if isinstance(err, dict):
        msg = err.get("message")
        if msg is not None:
            return str(msg)
        return _compact(err)
    return str(err)


def _sse_events(lines):
    """The data payloads of a Server-Sent Events stream (data lines of one
    event are joined by newlines; comments and other fields are skipped)."""
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


# ------------------------------------------------------------------ failures


def unreachable_detail(e: httpx.TransportError, timeout: float) -> str:
    """A short, key-free description of a transport failure."""
    if isinstance(e, httpx.ConnectTimeout):
        return "the connection timed out"
    if isinstance(e, httpx.TimeoutException):
        return f"no reply within {timeout:g} seconds"
    if isinstance(e, httpx.ConnectError):
        cause: BaseException | None = e
        while cause is not None:
            if isinstance(cause, ConnectionRefusedError) or getattr(cause, "errno", None) == errno.ECONNREFUSED:
                return "connection refused"
            cause = cause.__cause__ or cause.__context__
        text = str(e)
        if "refused" in text.lower():
            return "connection refused"
        if "name or service not known" in text.lower() or "nodename nor servname" in text.lower():
            return "the host name could not be resolved"
        return f"cannot connect: {text}" if text else "cannot connect"
    if isinstance(e, httpx.LocalProtocolError):  # its text may quote a header: never shown
        return "the request could not be sent (an invalid header value; check the API key)"
    if isinstance(e, httpx.RemoteProtocolError):
        return f"the connection closed unexpectedly: {e}" if str(e) else "the connection closed unexpectedly"
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


def _read_capped(resp: httpx.Response, limit: int) -> str:
    """At most `limit` characters of a response body (a huge error page is
    not read whole)."""
    buf = bytearray()
    for part in resp.iter_bytes():
        buf += part
        if len(buf) >= 4 * limit:
            break
    try:
        text = bytes(buf).decode(resp.encoding or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        text = bytes(buf).decode("utf-8", "replace")
    return text[:limit]


# ------------------------------------------------------------------ the provider


class OpenAIProvider:
    """One OpenAI-compatible endpoint and model; `answer` may be called from
    several threads at once (httpx's client is thread-safe)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        model_name: str,
        timeout: float = DEFAULT_TIMEOUT,
        on_fragment: Callable[[str], None] | None = None,
        transport: httpx.BaseTransport | None = None,
        retry: RetryPolicy | None = None,
    ):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model_name = model_name
        self.timeout = timeout
        self.on_fragment = on_fragment
        self.retry = retry or RetryPolicy()
        self._key = api_key or None
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout), transport=transport)

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
        )

    def answer(
        self,
        effect: ModelRound,
        on_fragment: Callable[[str], None] | None = None,
        on_retry: Callable[[int, int | None, float], None] | None = None,
    ):
        """Sends one round, retrying as host.md says; returns a ModelReply or
        a ModelFailure (never raises for network or protocol trouble).
        `on_retry(attempt, status, wait)` is called before each retry's wait
        (status None for a connection that failed)."""
        body = encode_body(request_body(effect, self.model_name))
        retries = 0
        while True:
            outcome = self._try(body, on_fragment or self.on_fragment)
            if not isinstance(outcome, _Retry):
                return self._redacted(outcome) if isinstance(outcome, ModelFailure) else outcome
            if retries >= self.retry.max_retries:
                return self._redacted(outcome.failure)
            retries += 1
            wait = self.retry.wait(retries, outcome.headers)
            if on_retry is not None:
                on_retry(retries, outcome.failure.status, wait)
            time.sleep(wait)

    def _try(self, body: bytes, on_fragment):
        """One request: a ModelReply, a ModelFailure, or a _Retry."""
        builder = ReplyBuilder(on_fragment)
        replied = False  # the status line arrived: nothing is retried after it
        try:
            with self._client.stream("POST", self.url, content=body) as resp:
                replied = True
                if resp.status_code >= 400:
                    return self._status_failure(resp)
                return self._read_reply(resp, builder)
        except _Failed as f:
            return f.failure
        except httpx.TimeoutException as e:
            if replied:
                return ModelFailure(message=f"{STREAM_ENDED}: no reply bytes within {self.timeout:g} seconds")
            return _Retry(ModelFailure(unreachable=unreachable_detail(e, self.timeout)))
        except httpx.TransportError as e:
            if replied:
                return ModelFailure(message=STREAM_ENDED)
            failure = ModelFailure(unreachable=unreachable_detail(e, self.timeout))
            return failure if isinstance(e, httpx.LocalProtocolError) else _Retry(failure)
        except (httpx.HTTPError, httpx.InvalidURL) as e:  # e.g. a malformed URL
            return ModelFailure(unreachable=f"{type(e).__name__}: {e}")

    def _status_failure(self, resp: httpx.Response):
        try:
            text = _read_capped(resp, MAX_BODY)
        except httpx.TransportError:  # the status is what counts; its body was lost
            text = ""
        failure = ModelFailure(status=resp.status_code, body=text,
                               message=rejected_message(resp.status_code, text, self._key))
        return _Retry(failure, resp.headers) if retryable_status(resp.status_code, text) else failure

    def _read_reply(self, resp: httpx.Response, builder: ReplyBuilder):
        if "text/event-stream" not in resp.headers.get("content-type", ""):  # a plain JSON completion
            resp.read()
            try:
                data = safe_loads(resp.text)
            except (ValueError, RecursionError):
                return ModelFailure(message="the model backend sent a reply that is not JSON or an event stream")
            builder.chunk(data)
            return builder.reply()
        for payload in _sse_events(resp.iter_lines()):
            if payload.strip() == "[DONE]":
                break
            try:
                data = safe_loads(payload)
            except (ValueError, RecursionError):
                continue  # a keep-alive or a line we do not know
            builder.chunk(data)
        else:  # the stream ended without [DONE]
            return ModelFailure(message=STREAM_ENDED)
        if builder.finish_reason is None:
            return ModelFailure(message=STREAM_ENDED)
        return builder.reply()
