"""One worker process of a batch (forked by `processes.py`, or started as
`python -m runvil.host.batch.worker`): it runs the rows the batch's process sends it,
`share` at a time, exactly as that process would (`runner.Runner`), and
sends back each row's record as the row ends. It writes no file of its
own: the batch's process alone writes the database.

The two talk in frames over the worker's stdin and stdout: a 4-byte
big-endian length, then a pickle. In: the bundle (what the world needs;
a forked worker has its world already), then lists of (seq, input) rows, then None (no more rows). Out: ("ready",),
or ("failed", text) when the world cannot be made; ("row", seq, record,
rounds with usage) for each row as it ends; ("done",) at the end.

Ctrl-C is the batch process's to handle (it ends its workers): a worker
ignores SIGINT and runs in a session of its own. Its stdin closing before
the None (the batch's process is gone) ends it at once.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import threading

HEADER = struct.Struct(">I")


def frame(obj) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def read_frame(stream):
    """The next object on a binary stream; EOFError when it has ended."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    size = HEADER.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


class Frames:
    """Frames cut from bytes as they arrive from a pipe."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data: bytes) -> list:
        self.buf += data
        out = []
        while len(self.buf) >= HEADER.size:
            size = HEADER.unpack_from(self.buf)[0]
            end = HEADER.size + size
            if len(self.buf) < end:
                break
            out.append(pickle.loads(bytes(self.buf[HEADER.size:end])))
            del self.buf[:end]
        return out


def make_runner(bundle: dict):
    """The Runner the batch's own process would make, from its bundle."""
    from types import SimpleNamespace

    from ...prompt import parse_text
    from .runner import Runner

    prompt = parse_text(bundle["prompt_text"], bundle["prompt_path"])
    args = SimpleNamespace(**bundle["args"])
    return Runner(args, prompt, bundle["share"])


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print cannot break the frames
    inbox = sys.stdin.buffer
    try:
        bundle = read_frame(inbox)
    except EOFError:
        return 1
    return serve_rows(lambda: make_runner(bundle), inbox, out)


def serve_rows(make, inbox, out) -> int:
    """Makes the Runner (`make()`), says whether it could, then runs the
    rows that arrive on `inbox` and sends back their records on `out`, until
    the None frame: a started worker's life after its bundle, and a forked
    worker's whole life (processes.py). It all runs where the Engine's Lua
    runs (no Ctrl-C to catch here): each hand-over of the runs to step is
    then a plain call, not a switch between two threads."""
    from ...engine.run import step_many

    sys.setswitchinterval(SWITCH_SECONDS)
    return step_many(lambda: _serve_rows(make, inbox, out))


#: how long a thread waiting for the GIL waits before it asks the holder to
#: let go (Python's default: 5 ms). A worker's I/O threads (one a round in
#: flight) all want it when their replies come: at 5 ms each of them woke
#: every 5 ms to ask, which cost a batch row against a 200 ms server about
#: 180 futex calls (on a virtual machine, several microseconds each); at
#: 20 ms about 95 (50 ms: about 77)
SWITCH_SECONDS = 0.02


def _serve_rows(make, inbox, out) -> int:
    try:
        runner = make()
    except Exception as e:  # a world the batch's process could make: a machine problem
        out.write(frame(("failed", f"{type(e).__name__}: {e}")))
        return 1
    out.write(frame(("ready",)))

    import queue

    from .data import Row

    rows: queue.SimpleQueue = queue.SimpleQueue()

    def receive():
        while True:
            try:
                got = read_frame(inbox)
            except (EOFError, OSError, pickle.UnpicklingError):
                os._exit(1)  # the batch's process is gone: so are its rows
            rows.put(got)
            if got is None:
                return

    threading.Thread(target=receive, name="runvil-worker-rows", daemon=True).start()

    def source():
        while True:
            got = rows.get()
            if got is None:
                return
            for seq, text in got:
                yield Row(id=seq, input=text, metadata={}, line=0)

    ended: list = []  # the frames of the rows that ended together: one write, one read, one transaction

    def send_ended():
        if ended:
            out.write(b"".join(ended))
            ended.clear()

    for row, rec, reported in runner.run_rows(source(), on_pass=send_ended):
        ended.append(frame(("row", row.id, rec, reported)))
    send_ended()
    out.write(frame(("done",)))
    return 0


def serve() -> None:
    code = main()
    sys.stderr.flush()
    os._exit(code)  # nothing of this process outlives it: its last collection is skipped


if __name__ == "__main__":
    serve()
