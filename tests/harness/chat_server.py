"""A real Chat Completions server on 127.0.0.1 for the harness tests.

Each request pops the next scripted `Reply` (FIFO) and records what it
received (`requests`: method, path, headers, parsed JSON body, the
monotonic `time` it arrived). A reply is either an HTTP error (`status`,
`body`, extra `headers` such as `retry-after`), a plain JSON completion
(`json`), an SSE stream (`chunks`: dicts sent as `data: {...}`, strings
written as raw lines, `threading.Event`s the server waits on before going
on (for at most `GATE_WAIT` seconds), numbers the server sleeps), ended by `data: [DONE]` unless
`done=False`, or a connection closed before any reply byte (`drop`).
A reply may also be a function of the request's JSON body that returns
one (`as_server`): how a real server answers by what it was asked
(streamed or not, with or without `tool_choice`). `raw` is a body sent
as bytes exactly (with `headers` such as `Content-Encoding`), `chunks` may
be any iterable (an endless generator), and `headers` go with a stream too.

`GET` answers from `listing`: path -> a JSON document (a model listing at
`/v1/models`, llama.cpp's `/props`), else 404; each GET is recorded in
`gets` (path, headers).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from .loopback import LoopbackServer


@dataclass
class Reply:
    status: int = 200
    chunks: list | None = None
    json: dict | None = None
    body: str = ""
    delay: float = 0.0  # seconds before the headers
    done: bool = True
    content_type: str | None = None
    headers: dict | None = None
    drop: bool = False  # close the connection without a reply
    raw: bytes | None = None  # a body sent exactly as these bytes


def stream(*chunks, done: bool = True, delay: float = 0.0) -> Reply:
    return Reply(chunks=list(chunks), done=done, delay=delay)


def error(status: int, body, headers: dict | None = None, content_type: str | None = None) -> Reply:
    return Reply(status=status, body=body if isinstance(body, str) else json.dumps(body), headers=headers,
                 content_type=content_type)


def dropped() -> Reply:
    return Reply(drop=True)


def chunk(delta: dict | None = None, finish: str | None = None, model: str = "test-model", **extra) -> dict:
    c = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }
    c.update(extra)
    return c


def usage_chunk(prompt: int, completion: int, reasoning: int | None = None, model: str = "test-model") -> dict:
    u = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    if reasoning is not None:
        u["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": model, "choices": [], "usage": u}


def text_stream(*fragments, finish: str | None = "stop") -> Reply:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": f}) for f in fragments]
    chunks.append(chunk({}, finish=finish))
    return stream(*chunks)


#: how long a stream waits for an Event of its chunks: a test sets it at once, so the wait is
#: long enough that no load on the machine runs it out; a wait run out is counted (`gates_timed_out`)
GATE_WAIT = 30.0


class ChatServer(LoopbackServer):
    def __init__(self):
        self.replies: list[Reply] = []
        self.requests: list[dict] = []
        self.listing: dict[str, object] = {}
        self.gets: list[dict] = []
        self.gates_timed_out = 0  # Events of a stream that were never set: waited out GATE_WAIT
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection; streams end at close

            def log_message(self, *args):
                pass

            def do_GET(self):
                with server._lock:
                    server.gets.append({"path": self.path, "headers": dict(self.headers)})
                    doc = server.listing.get(self.path)
                data = json.dumps(doc).encode() if doc is not None else b'{"error": "not found"}'
                self.send_response(200 if doc is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                with server._lock:
                    server.requests.append(
                        {"method": "POST", "path": self.path, "headers": dict(self.headers), "body": body, "raw": raw,
                         "time": time.monotonic()}
                    )
                    reply = server.replies.pop(0) if server.replies else error(500, "no reply scripted")
                if callable(reply):
                    reply = reply(body if isinstance(body, dict) else {})
                try:
                    server._send(self, reply)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        super().__init__(Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, *replies) -> "ChatServer":
        with self._lock:
            self.replies.extend(replies)
        return self

    def _wait(self, seconds: float) -> None:
        self.stopping.wait(seconds)

    def _send(self, h: BaseHTTPRequestHandler, r: Reply) -> None:
        if r.delay:
            self._wait(r.delay)
            if self.stopping.is_set():
                return
        if r.drop:
            h.close_connection = True
            return
        if r.chunks is None:
            data = r.raw if r.raw is not None else (json.dumps(r.json) if r.json is not None else r.body).encode("utf-8")
            h.send_response(r.status)
            h.send_header("Content-Type", r.content_type or ("application/json" if r.json is not None else "text/plain"))
            h.send_header("Content-Length", str(len(data)))
            for k, v in (r.headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_response(r.status)
        h.send_header("Content-Type", r.content_type or "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        for k, v in (r.headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.flush()
        for c in r.chunks:
            if isinstance(c, threading.Event):
                if not c.wait(GATE_WAIT):
                    self.gates_timed_out += 1
                continue
            if isinstance(c, (int, float)):
                self._wait(c)
                continue
            if isinstance(c, bytes):
                h.wfile.write(c)
                h.wfile.flush()
                continue
            line = c if isinstance(c, str) else "data: " + json.dumps(c) + "\n\n"
            h.wfile.write(line.encode("utf-8"))
            h.wfile.flush()
        if r.done:
            h.wfile.write(b"data: [DONE]\n\n")
            h.wfile.flush()


def completion(text: str = "", finish: str = "stop", tool_calls: list | None = None, usage: dict | None = None) -> Reply:
    """A plain (not streamed) JSON completion."""
    message: dict = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = tool_calls
    data: dict = {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
                  "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    if usage is not None:
        data["usage"] = usage
    return Reply(json=data)


def wait_until(pred, timeout: float = 2.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return pred()
