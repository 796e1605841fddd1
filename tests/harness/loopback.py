"""A threaded HTTP server on 127.0.0.1 on a free port: the part the test
servers (Chat Completions, web pages) share; each brings its handler."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer


class LoopbackServer:
    def __init__(self, handler):
        self.stopping = threading.Event()  # set at stop: waits inside a reply end
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def start(self):
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
