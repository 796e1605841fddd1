"""Loopback servers that play hostile providers (issue 26): a Chat
Completions endpoint that sends the request's `Authorization` header back,
in the ways a debugging proxy or a broken gateway would."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

from tests.harness.loopback import LoopbackServer


def sse(delta: dict, finish: str | None = None) -> bytes:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


class KeyEchoServer(LoopbackServer):
    """Answers each POST by the next of its `modes`, the key being the
    Authorization header's value without `Bearer `:

    - "stream": the reply text `echo <header>` streamed `size` characters
      at a time (the key split across many fragments);
    - "tool": a tool call to `clock` whose arguments hold the key;
    - "cut": status 400, an error body whose message ends in the first half
      of the key (a body cut in the middle of it);
    - "json": a plain JSON completion whose text, reasoning and model hold
      the key.
    """

    def __init__(self, modes: list[str], size: int = 3):
        self.modes = list(modes)
        self.size = size
        self.seen_keys: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                header = self.headers.get("Authorization", "")
                key = header.removeprefix("Bearer ")
                with server._lock:
                    server.seen_keys.append(key)
                    mode = server.modes.pop(0) if server.modes else "stream"
                try:
                    server.answer(self, mode, header, key)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        super().__init__(Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, h: BaseHTTPRequestHandler, mode: str, header: str, key: str) -> None:
        if mode in ("cut", "json"):
            if mode == "cut":
                status = 400
                body = {"error": {"message": "invalid request; your credentials were " + key[: len(key) // 2]}}
            else:
                status = 200
                body = {"model": key, "choices": [{"index": 0, "finish_reason": "stop", "message": {
                    "role": "assistant", "content": f"the key: {key}", "reasoning_content": key}}]}
            data = json.dumps(body).encode()
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        if mode == "tool":
            call = {"index": 0, "id": "call_1", "type": "function",
                    "function": {"name": "clock", "arguments": json.dumps({"zone": key, key: 1})}}
            h.wfile.write(sse({"role": "assistant", "tool_calls": [call]}))
            h.wfile.write(sse({}, "tool_calls"))
        else:
            text = "echo " + header
            h.wfile.write(sse({"role": "assistant", "content": ""}))
            for i in range(0, len(text), self.size):
                h.wfile.write(sse({"content": text[i:i + self.size]}))
                h.wfile.flush()
            h.wfile.write(sse({}, "stop"))
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()

