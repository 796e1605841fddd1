"""A batch's rows spread over worker processes on this machine.

One Python process runs Python on one core at a time: a batch's Engine
(about 1.5 ms of CPU a row) and its provider rounds could not keep up with
a 200 ms server at `-j 100`, nor the echo model with 300 rows a second.
So a batch with enough rows starts one worker process per CPU
(`worker.py`), each running its share of the `-j` rows at a time exactly
as this process would; this process reads the rows, hands them out as the
workers free up, and alone writes the database, each row as its record
comes back (the records of one read from a worker in one transaction).

Decisions:
- Workers when `--processes` says so, else when there are at least
  WORKER_ROWS rows to run per worker and more than one CPU: a worker
  costs a start of Python and of the prompt's world (a few tenths of a
  second of CPU).
- On Linux a worker is forked from this process once it has made the
  plan (the prompt parsed, the world checked), so that its rows start at
  once; this process's Lua thread is ended first, and a process running
  other threads (a host embedding runvil, a test's server) starts its
  workers instead (`python -m runvil.host.batch.worker`), as every
  other platform does: a fork there would copy a lock some thread holds.
- `-j N` is shared out: N rows run at once across the workers; each has
  its own provider connections and its own 429 window (a storm halves
  each).
- Each worker is sent at most twice its share of rows ahead, so the data
  set is streamed, not sent at once.
- Ctrl-C or SIGTERM ends the workers at once (SIGKILL): rows they had not
  sent back are not stored, as rows in flight in one process are not.
- A worker that ends before its rows came back stores those rows as
  failed (kind `internal`), and the others go on; one that could not make
  its world (it never said it was ready) hands its rows back to the
  others. When no worker is left, the rest run in this process. Where no process can be started (Pyodide, a
  frozen build), every row runs in this process.
"""

from __future__ import annotations

import os
import sys

WORKER_ROWS = 100  # rows to run per worker before workers are worth their start
AHEAD = 2  # rows sent to a worker ahead, per row of its share
WORKER_STOPPED = "internal error: the worker process running this row stopped ({how})"


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_start_processes() -> bool:
    """Pyodide starts no process; on Windows the pipes cannot be waited on
    with `selectors`; a frozen build has no interpreter to start."""
    return (sys.platform not in ("emscripten", "wasi", "win32") and not getattr(sys, "frozen", False)
            and bool(sys.executable))


def worker_count(requested: int | None, todo: int, concurrency: int) -> int:
    """How many worker processes run the rows (1: this process alone)."""
    if not can_start_processes():
        return 1
    if requested is not None:
        return max(1, min(requested, concurrency, max(todo, 1)))
    return max(1, min(usable_cpus(), concurrency, todo // WORKER_ROWS))


def shares(concurrency: int, count: int) -> list[int]:
    """-j N shared out over `count` workers, as evenly as it goes."""
    return [concurrency // count + (1 if i < concurrency % count else 0) for i in range(count)]


class _Worker:
    def __init__(self, proc, share: int):
        from .worker import Frames

        self.proc = proc
        self.share = share
        self.frames = Frames()
        self.sent: dict = {}  # seq -> the Row it stands for
        self.ready = False  # it made its world
        self.ended = False  # its output has closed
        self.told_end = False

    def send(self, obj) -> bool:
        from .worker import frame

        try:
            self.proc.stdin.write(frame(obj))
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def tell_end(self) -> None:
        if not self.told_end:
            self.told_end = True
            self.send(None)
            try:
                self.proc.stdin.close()
            except OSError:
                pass

    def how_it_stopped(self) -> str:
        import subprocess

        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "it stopped answering"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"


#: the worker's start: the runvil this process runs, found first only if
#: the interpreter would find another (a source tree run by path)
BOOT = """import os, sys
import importlib.util
root = sys.argv[1]
spec = importlib.util.find_spec("runvil")
if spec is None or os.path.dirname(os.path.dirname(os.path.abspath(spec.origin))) != root:
    sys.path.insert(0, root)
from runvil.host.batch.worker import serve
serve()
"""


def _start(bundle: dict, share: int) -> _Worker:
    import subprocess

    from ...threads import start_child

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))  # holds runvil/
    proc = start_child([sys.executable, "-c", BOOT, root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, start_new_session=True)
    worker = _Worker(proc, share)
    worker.send({**bundle, "share": share})
    return worker


def bundle_for(plan) -> dict:
    args = plan.args
    return {"prompt_path": args.prompt, "prompt_text": plan.prompt_text,
            "args": {"script": args.script, "config": args.config, "bind": list(args.bind),
                     "workspace": args.workspace}}


def can_fork() -> bool:
    """Whether workers may be forked from this process: on Linux (macOS's
    system libraries are not safe to use in a forked child), once this
    process runs no thread but its own (the Lua thread is ended first; a
    process that runs others, as a test's server, starts its workers)."""
    if sys.platform != "linux" or not hasattr(os, "fork"):
        return False
    import threading

    from ...lua.api import stop_lua_thread

    main = threading.main_thread()
    if any(t is not main and t.name != LUA_THREAD for t in threading.enumerate()):
        return False  # (and the Lua thread is left running)
    return stop_lua_thread() and threading.active_count() == 1


LUA_THREAD = "runvil Lua thread"  # (runvil.lua.stack: the thread Lua runs on)


class _Forked:
    """A forked worker, as the driver uses a started one's Popen: its
    stdin and stdout pipes, poll, wait, kill."""

    def __init__(self, pid: int, stdin_fd: int, stdout_fd: int):
        self.pid = pid
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                self.returncode = -9
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None):
        import subprocess
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
            time.sleep(0.005)
        return self.returncode

    def kill(self) -> None:
        import signal

        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)


def _fork(plan, share: int, others: list) -> _Worker:
    """A worker forked from this process: it has the parsed prompt and
    every module already, so its rows start at once (a started worker
    first imports runvil and parses the prompt: a few tenths of a second
    of CPU, before its first request)."""
    rows_r, rows_w = os.pipe()
    out_r, out_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    pid = os.fork()
    if pid == 0:  # the worker: it never returns
        code = 1
        try:
            code = _forked_worker(plan, share, others, rows_r, out_w, (rows_w, out_r))
        finally:
            os._exit(code)
    os.close(rows_r)
    os.close(out_w)
    return _Worker(_Forked(pid, rows_w, out_r), share)


def _forked_worker(plan, share: int, others: list, rows_r: int, out_w: int, parents: tuple) -> int:
    """A forked worker's life: as a started one (worker.py), in a session
    of its own, with none of the batch's files (its outputs, the other
    workers' pipes) and its standard streams on the null device."""
    import signal

    from ...threads import HOST_SIGNALS
    from .runner import Runner
    from .worker import serve_rows

    os.setsid()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HOST_SIGNALS)  # (forked from a thread that blocks them, it would keep them blocked)
    for fd in parents:
        os.close(fd)
    for w in others:
        for stream in (w.proc.stdin, w.proc.stdout):
            try:
                os.close(stream.fileno())
            except (OSError, ValueError):
                pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    inbox = os.fdopen(rows_r, "rb")
    out = os.fdopen(out_w, "wb", buffering=0)
    return serve_rows(lambda: Runner(plan.args, plan.prompt, share), inbox, out)


def run_in_processes(plan, count: int) -> None:
    """Runs the plan's rows on `count` worker processes, storing each row as
    it comes back; in this process when no worker can be started."""
    workers: list = []
    fork = can_fork()
    for share in shares(plan.concurrency, count):
        try:
            workers.append(_fork(plan, share, workers) if fork else _start(bundle_for(plan), share))
        except (OSError, RuntimeError, NotImplementedError):  # no process starts here
            break
    if not workers:  # this process runs them all
        plan.run_here()
        return
    try:
        _drive(plan, workers)
    finally:
        _end(workers)


class _Rows:
    """The rows to hand out: any handed back by a worker that never
    started first, then the data set's, read as they are needed."""

    def __init__(self, fresh):
        self.fresh = fresh
        self.again: list = []
        self.seq = 0
        self.fresh_ended = False

    def next(self):
        if self.again:
            return self.again.pop(0)
        if not self.fresh_ended:
            row = next(self.fresh, None)
            if row is not None:
                return row
            self.fresh_ended = True
        return None

    @property
    def left(self) -> bool:
        return bool(self.again) or not self.fresh_ended

    def rest(self):
        while (row := self.next()) is not None:
            yield row


def _drive(plan, workers: list) -> None:
    import selectors

    plan.begin()
    rows = _Rows(plan.rows_to_run())
    selector = selectors.DefaultSelector()
    for w in workers:
        selector.register(w.proc.stdout, selectors.EVENT_READ, w)
        _feed(w, rows)
    live = len(workers)
    while live:
        for key, _ in selector.select():
            w = key.data
            data = os.read(w.proc.stdout.fileno(), 1 << 20)
            if not data:
                selector.unregister(w.proc.stdout)
                w.ended = True
                live -= 1
                if w.ready:
                    _lost(plan, w)
                else:  # it never started: its rows go to the others
                    rows.again.extend(w.sent.values())
                    w.sent.clear()
                    for other in workers:
                        _feed(other, rows)
                continue
            ended = []
            for message in w.frames.feed(data):
                if message[0] == "ready":
                    w.ready = True
                elif message[0] == "row":
                    ended.append(message)
            if ended:  # the rows that came together are stored in one transaction
                with plan.store.together():
                    for _, seq, rec, reported in ended:
                        row = w.sent.pop(seq)
                        rec.update(plan.row_fields(row))
                        plan.store_row(row, rec, reported)
                _feed(w, rows)
    if rows.left:  # no worker could take them: this process runs the rest
        for row, rec, reported in plan.runner.run_rows(rows.rest()):
            rec.update(plan.row_fields(row))
            plan.store_row(row, rec, reported)


def _feed(w: _Worker, rows: _Rows) -> None:
    """Sends the worker rows until it has twice its share ahead (once at
    least half a share can be sent); tells it the end once every row is out."""
    if w.ended or w.told_end:
        return
    if rows.left and len(w.sent) > AHEAD * w.share - max(1, w.share // 2):
        return  # topped up in larger pieces: fewer writes, and fewer wake-ups of the worker
    batch = []
    while len(w.sent) + len(batch) < AHEAD * w.share:
        row = rows.next()
        if row is None:
            break
        rows.seq += 1
        w.sent[rows.seq] = row
        batch.append((rows.seq, row.input))
    if batch and not w.send(batch):
        return  # its output will close: its rows are seen to there
    if not rows.left:
        w.tell_end()


def _lost(plan, w: _Worker) -> None:
    """A worker's output closed: the rows it still had are stored as
    failed (none when it ended as it should)."""
    if not w.sent:
        return
    from .onray import _failed_record
    from .stored_run import RunClock

    how = w.how_it_stopped()
    for row in w.sent.values():
        rec = _failed_record(RunClock(), WORKER_STOPPED.format(how=how))
        rec.update(plan.row_fields(row))
        plan.store_row(row, rec, 0)
    w.sent.clear()


def _end(workers: list) -> None:
    """Every worker ends now: at once when rows are still out (Ctrl-C),
    else it has ended by itself."""
    import subprocess

    for w in workers:
        if w.proc.poll() is None and (w.sent or not w.ended):
            try:
                w.proc.kill()
            except OSError:
                pass
    for w in workers:
        for stream in (w.proc.stdin, w.proc.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        try:
            w.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
