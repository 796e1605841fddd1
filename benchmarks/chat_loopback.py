"""A lean Chat Completions server on 127.0.0.1 for the batch benchmark: one
asyncio loop, keep-alive HTTP/1.1, each request answered `delay` seconds
after it arrived, as tests/host/batch_server.py answers it (`reply: ` and
the last user message; usage: the characters sent as prompt tokens, 2
completion tokens).

tests/host/batch_server.py (a thread a connection, http.server's parser)
is itself slow to answer a hundred requests at once: a bare client sending
2,000 requests at 100 at a time took 5.0 s of it against 4.2 s of this one,
a quarter of the 1.3x budget gone before runvil sent a byte. This one
measures runvil, not the server.

    python -m benchmarks.chat_loopback [--delay 0.2] [--first FILE]
        (prints its base URL, serves until killed; writes when the first request came to FILE)
    python -m benchmarks.chat_loopback --floor URL [--requests 2000] [-j 100]
        (a bare client's wall time against a server: the server's own floor)
    python -m benchmarks.chat_loopback --lean URL [--requests 2000] [-j 100]
        (the CPU a request of runvil's lean client, harness/http11.py, against a server)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time


async def _handle(reader, writer, delay: float, first: list) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if first[0] is None and first[1]:  # when the first request began to arrive (CLOCK_MONOTONIC)
                first[0] = time.monotonic()
                with open(first[1], "w") as f:
                    f.write(f"{first[0]!r}\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = json.loads(await reader.readexactly(length) or b"{}")
            arrived = time.monotonic()
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            text = users[-1]["content"] if users else ""
            sent = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
            payload = json.dumps({
                "id": "chatcmpl-batch", "object": "chat.completion", "model": body.get("model", "m"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": f"reply: {text}"},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": sent, "completion_tokens": 2, "total_tokens": sent + 2},
            }).encode()
            await asyncio.sleep(max(0.0, arrived + delay - time.monotonic()))
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                         % len(payload) + payload)
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    writer.close()


async def _serve(delay: float, first_file: str | None = None) -> None:
    first = [None, first_file]
    server = await asyncio.start_server(lambda r, w: _handle(r, w, delay, first), "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    await server.serve_forever()


def floor(url: str, requests: int, j: int) -> float:
    """A bare client's wall time for `requests` requests, `j` at once, on
    keep-alive connections: what the server itself allows."""
    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    body = json.dumps({"model": "small", "messages": [{"role": "user", "content": "Say row 1 back."}]}).encode()
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body)) + body
    left = iter(range(requests))
    lock = threading.Lock()

    def work():
        with socket.create_connection((host, int(port))) as s, s.makefile("rb") as f:
            while True:
                with lock:
                    if next(left, None) is None:
                        return
                s.sendall(request)
                length = 0
                f.readline()
                while (line := f.readline()) not in (b"\r\n", b""):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                f.read(length)

    t0 = time.monotonic()
    threads = [threading.Thread(target=work) for _ in range(j)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - t0


def lean_cpu(url: str, requests: int, j: int) -> float:
    """The CPU seconds of this process per request of `requests` sent by
    harness/http11.py's client, `j` threads at a time."""
    from runvil.harness.http11 import LeanClient

    class NoDeadline:
        def passed(self) -> bool:
            return False

        def limit(self, timeout: float) -> float:
            return timeout

    client = LeanClient({"Content-Type": "application/json"}, 30.0, NoDeadline(), keep=j)
    body = json.dumps({"model": "small", "messages": [{"role": "user", "content": "Say row 1 back."}]}).encode()
    left = iter(range(requests))
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                if next(left, None) is None:
                    return
            with client.stream("POST", url + "/chat/completions", content=body,
                               headers={"Accept": "application/json"}) as r:
                assert r.status_code == 200 and b"".join(r.iter_raw())

    c0 = time.process_time()
    threads = [threading.Thread(target=work) for _ in range(j)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client.close()
    return (time.process_time() - c0) / requests


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.chat_loopback")
    p.add_argument("--delay", type=float, default=0.2)
    p.add_argument("--floor", metavar="URL")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("-j", type=int, default=100)
    p.add_argument("--lean", metavar="URL")
    p.add_argument("--first", metavar="FILE", help="write the monotonic time the first request arrived to FILE")
    a = p.parse_args(argv)
    if a.lean:
        print(f"{lean_cpu(a.lean, a.requests, a.j) * 1000:.3f} ms a request")
        return 0
    if a.floor:
        print(f"{floor(a.floor, a.requests, a.j):.2f}")
        return 0
    try:
        asyncio.run(_serve(a.delay, a.first))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
