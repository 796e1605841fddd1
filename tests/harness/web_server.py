"""A real HTTP server on 127.0.0.1 for the web Pack's tests: a tiny
SearXNG-like JSON endpoint and pages of every kind a fetch meets (HTML,
plain text, slow, trickling, huge, binary, redirects, errors).

Every request is recorded with its path and the times it started and ended
(`hits`), so tests can see that calls overlapped.
"""

from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from .loopback import LoopbackServer

PAGE = """<!DOCTYPE html><html><head><title>Paris</title><style>p {color: red}</style>
<script>var hidden = "script text";</script></head>
<body><h1>Paris</h1><p>Paris is the <b>capital</b> of France.</p>
<ul><li>Louvre</li><li>Eiffel Tower</li></ul>
<table><tr><th>Year</th><th>People</th></tr><tr><td>2020</td><td>2.1M</td></tr></table>
</body></html>"""

RESULTS = {
    "query": "paris",
    "number_of_results": 2,
    "answers": ["Paris is the capital of France."],
    "results": [
        {"title": "Paris - Wikipedia", "url": "https://en.wikipedia.org/wiki/Paris",
         "content": "Paris is the capital and\nlargest city of France.", "engine": "wikipedia"},
        {"title": "Visit Paris", "url": "https://visit.example/paris", "content": "", "engine": "ddg"},
        "not a result",
    ],
    "suggestions": [],
    "infoboxes": [],
}


class WebServer(LoopbackServer):
    def __init__(self, sleep: float = 0.3):
        self.sleep = sleep  # seconds /slow takes
        self.hits: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                # recorded before the answer is sent: a client that has read
                # it may look at the hits at once (its end follows the send)
                hit = {"path": self.path, "start": time.monotonic(), "end": None}
                with server._lock:
                    server.hits.append(hit)
                try:
                    server.route(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                hit["end"] = time.monotonic()

        super().__init__(Handler)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def route(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        path, query = parts.path, parse_qs(parts.query)
        if path == "/search":
            q = query.get("q", [""])[0]
            data = dict(RESULTS, query=q) if q != "nothing" else dict(RESULTS, query=q, results=[], answers=[])
            return send(h, 200, json.dumps(data).encode(), "application/json")
        if path == "/search-403":  # SearXNG without the json format enabled
            return send(h, 403, b"<html>Forbidden</html>", "text/html")
        if path == "/search-html":
            return send(h, 200, b"<html>not json</html>", "text/html")
        if path == "/search-deep":
            return send(h, 200, b"[" * 150_000 + b"]" * 150_000, "application/json")
        if path == "/search-shape":
            return send(h, 200, b'{"results": "none"}', "application/json")
        if path == "/page.html":
            return send(h, 200, PAGE.encode(), "text/html; charset=utf-8")
        if path == "/latin1.html":
            body = '<html><head><meta charset="iso-8859-1"></head><body><p>café</p></body></html>'
            return send(h, 200, body.encode("latin-1"), "text/html")
        if path == "/plain.txt":
            return send(h, 200, "just text\n".encode(), "text/plain")
        if path == "/slow":
            self.stopping.wait(self.sleep)
            return send(h, 200, f"<p>slow page {query.get('n', ['0'])[0]}</p>".encode(), "text/html")
        if path == "/hang":
            self.stopping.wait(30)
            return send(h, 200, b"late", "text/plain")
        if path == "/trickle":
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Content-Length", "100")
            h.end_headers()
            for _ in range(100):  # 30 s of body: longer than any load stretches a test's deadline
                if self.stopping.wait(0.3):
                    return
                h.wfile.write(b"x")
                h.wfile.flush()
            return
        if path == "/huge":
            return send(h, 200, b"<p>" + b"a" * 3_000_000 + b"</p>", "text/html")
        if path == "/huge-chunked":
            h.send_response(200)
            h.send_header("Content-Type", "text/plain")
            h.send_header("Transfer-Encoding", "chunked")
            h.end_headers()
            piece = b"b" * 65536
            for _ in range(50):  # 3.2 MB, no length announced
                h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            h.wfile.write(b"0\r\n\r\n")
            return
        if path == "/image.png":
            return send(h, 200, b"\x89PNG\r\n\x1a\n", "image/png")
        if path == "/to-file":
            return redirect(h, "file:///etc/passwd")
        if path == "/to-page":
            return redirect(h, "/page.html")
        if path == "/loop":
            return redirect(h, "/loop")
        if path == "/empty.html":
            return send(h, 200, b"", "text/html")
        return send(h, 404, b"not found", "text/plain")


def send(h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str) -> None:
    h.send_response(status)
    h.send_header("Content-Type", ctype)
    h.send_header("Content-Length", str(len(body)))
    h.end_headers()
    h.wfile.write(body)


def redirect(h: BaseHTTPRequestHandler, location: str) -> None:
    h.send_response(302)
    h.send_header("Location", location)
    h.send_header("Content-Length", "0")
    h.end_headers()
