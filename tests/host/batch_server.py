"""A Chat Completions server on 127.0.0.1 for batch tests and benchmarks:
it answers every request by itself (no scripted queue), so that thousands
of rows can be sent at it.

Each reply is `reply: ` and the last user message's text, with usage
(prompt tokens: the characters sent; completion tokens: 2), sent after
`delay` seconds. The server counts the requests in flight at once
(`peak`). `rate` (requests per `window` seconds) makes it a rate-limited
API: a request over the rate gets a 429 with `retry-after: window`.
A user message containing `FAIL` gets a 400. With `hold_after = N`, every
request after the Nth waits until `released` is set.

Run as a script (`python -m tests.host.batch_server --delay 0.2`), it
prints its base URL and serves until killed: the benchmarks use it so.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # a hundred clients connecting at once are not refused

    def handle_error(self, request, client_address):
        pass  # a client killed mid-request (the Ctrl-C tests) is no news


class BatchServer:
    def __init__(self, delay: float = 0.0, rate: int | None = None, window: float = 1.0):
        self.delay, self.rate, self.window = delay, rate, window
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.requests = 0
        self.refused = 0  # 429s sent
        self.bodies: list = []
        self._recent: deque = deque()
        self.stopping = threading.Event()
        #: requests past this many wait until `released` is set (the Ctrl-C
        #: tests: rows in flight that would never end by themselves)
        self.hold_after: int | None = None
        self.released = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n) or b"{}")
                status, payload, headers = server.answer(body)
                data = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> "BatchServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def _over_rate(self) -> bool:
        if self.rate is None:
            return False
        now = time.monotonic()
        while self._recent and now - self._recent[0] > self.window:
            self._recent.popleft()
        if len(self._recent) >= self.rate:
            return True
        self._recent.append(now)
        return False

    def answer(self, body: dict):
        with self.lock:
            self.requests += 1
            self.bodies.append(body)
            if self._over_rate():
                self.refused += 1
                return 429, {"error": {"message": "Rate limit reached, slow down"}}, {"retry-after": f"{self.window:g}"}
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            held = self.hold_after is not None and self.requests > self.hold_after
        try:
            if held:
                self.released.wait(120)
            if self.delay:
                self.stopping.wait(self.delay)
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            text = users[-1]["content"] if users else ""
            if isinstance(text, str) and "FAIL" in text:
                return 400, {"error": {"message": "this row is refused"}}, {}
            sent = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
            return 200, {
                "id": "chatcmpl-batch", "object": "chat.completion", "model": body.get("model", "m"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": f"reply: {text}"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": sent, "completion_tokens": 2, "total_tokens": sent + 2},
            }, {}
        finally:
            with self.lock:
                self.in_flight -= 1


CONFIG = """
default_model = "local/small"
[providers.local]
base_url = "{url}"
max_retries = {retries}
[models."local/small"]
provider = "local"
name = "small"
context = 8192
"""


def config_for(server: BatchServer, retries: int = 2) -> str:
    return CONFIG.format(url=server.base_url, retries=retries)


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--delay", type=float, default=0.0)
    a = p.parse_args()
    s = BatchServer(delay=a.delay).start()
    print(s.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        s.stop()
