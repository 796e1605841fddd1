"""`runvil batch` throughput and memory (issue 24), each batch a fresh
`runvil batch` process, timed from outside (start-up included):

- rows: the CPU of a row's Engine and record alone (the echo model, in
  one process, no database or HTTP, start-up left out);
- echo: the offline echo model, a two-section prompt, 1,000 rows, `-j 50`
  (the goal: at least 1,500 rows per second);
- server: a loopback Chat Completions server answering each request after
  200 ms, 1,000 rows, `-j 100` (the goal: within 1.2x of 1,000 x 0.2 s /
  100 = 2 s, the first request out within 0.2 s of the start); the
  server is benchmarks/chat_loopback.py (one asyncio loop), and once more
  tests/host/batch_server.py (threaded, itself 1.2x the limit); each line also says how long a bare client takes;
- memory: the peak RSS of the batch process for 2,000 and 100,000 echo
  rows (it must stay flat);
- ray: the server batch again, in one process and on a two-node local Ray
  cluster started for the benchmark (needs `runvil[ray]`).

    .venv/bin/python -m benchmarks.batch [--only rows,echo,server,memory,ray] [--rows N] [--big N] [--output PATH]

The results go to benchmarks/BATCH_RESULTS.md (`--output -`: stdout).
Each line carries the load average when it was measured (the machine may
be shared: the CPU seconds of the batch, its worker processes included,
are then the fairer figure). runvil's modules are compiled to bytecode
first, as an installed package's are (PYTHONDONTWRITEBYTECODE would make
every process, each worker too, compile them at start). The server runs in
a process of its own, so its CPU is not the batch's; it is reported too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TWO_SECTIONS = """---
name: two-sections
description: A two-section prompt, a draft then a review.
runvil: 0
models:
  writer: {}
---

# Two sections

```lua
models.default('writer')
var.topic = input
```

## Draft

Write about {{var.topic}}.

```lua
messages:user(prose)
models.loop()
var.draft = messages[#messages].content
```

## Review

Review: {{var.draft}}
"""

ONE_ROUND = """---
name: one-round
description: One model round a row.
runvil: 0
models:
  writer: {}
---

# One round

```lua
models.default('writer')
```

## Ask

Say {{input}} back.

```lua
messages:user(prose)
models.loop()
return messages[#messages].content
```
"""


def load() -> str:
    """The load average now, as `uptime` shows it."""
    return "load %.2f, %.2f, %.2f" % os.getloadavg()


def bench_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("RUNVIL_CONFIG", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def compile_runvil() -> None:
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "runvil")], env=bench_env(), check=True,
                   stdout=subprocess.DEVNULL)


class ServerProcess:
    """The benchmark's Chat Completions server (benchmarks/chat_loopback.py,
    or with `threaded` tests/host/batch_server.py) in a process of its own."""

    def __init__(self, delay: float, threaded: bool = False):
        module = "tests.host.batch_server" if threaded else "benchmarks.chat_loopback"
        self.first_file = None if threaded else tempfile.mktemp(prefix="rvfirst-")
        extra = [] if threaded else ["--first", self.first_file]
        self.proc = subprocess.Popen([sys.executable, "-m", module, "--delay", str(delay), *extra],
                                     cwd=ROOT, env=bench_env(), stdout=subprocess.PIPE, text=True)
        self.base_url = self.proc.stdout.readline().strip()

    def first_request(self) -> float | None:
        """When the first request arrived (time.monotonic, the same clock in
        every process), None if the server does not say."""
        if self.first_file is None:
            return None
        try:
            with open(self.first_file) as f:
                return float(f.read())
        except (OSError, ValueError):
            return None

    def floor(self, rows: int, j: int) -> float:
        """A bare client's wall time against this server (its own floor)."""
        out = subprocess.run([sys.executable, "-m", "benchmarks.chat_loopback", "--floor", self.base_url,
                              "--requests", str(rows), "-j", str(j)], cwd=ROOT, env=bench_env(),
                             capture_output=True, text=True, check=True)
        return float(out.stdout)

    def cpu(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def config(self) -> str:
        from tests.host.batch_server import CONFIG

        return CONFIG.format(url=self.base_url, retries=2)

    def stop(self) -> float:
        cpu = self.cpu()
        self.proc.kill()
        self.proc.wait()
        if self.first_file is not None:
            with contextlib.suppress(OSError):
                os.remove(self.first_file)
        return cpu


def run_batch(folder: Path, prompt: str, rows: int, j: int, extra=()) -> dict:
    """Runs one batch in a fresh process; its wall time, peak RSS, summary."""
    (folder / "p.md").write_text(prompt)
    data = folder / f"rows-{rows}.txt"
    if not data.exists():
        with open(data, "w") as f:
            for i in range(rows):
                f.write(f"row number {i}\n")
    db = folder / "out.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    env = bench_env()
    cmd = [sys.executable, "-m", "runvil.host.cli", "batch", "p.md", data.name, "-j", str(j), "--db", "out.db",
           *extra]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, cwd=folder, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak RSS, not the largest child's
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        summary, errors = out.read().decode().strip(), err.read().decode()
    if p.returncode != 0:
        raise SystemExit(f"the batch failed ({p.returncode}): {errors[-2000:]}")
    m = re.search(r"· (\d+\.\d) s$", summary)
    return {"wall": wall, "inside": float(m.group(1)) if m else None, "rss_mb": usage.ru_maxrss / 1024,
            "cpu": usage.ru_utime + usage.ru_stime, "summary": summary, "load": load(), "t0": t0}


def processes_label(extra) -> str:
    return "one process" if "--processes" in extra else "as by default"


def bench_echo(folder: Path, rows: int, extra=()) -> str:
    r = run_batch(folder, TWO_SECTIONS, rows, 50, extra)
    return (f"| echo, two sections, {rows:,} rows, -j 50, {processes_label(extra)} | {r['wall']:.2f} s | "
            f"{rows / r['wall']:.0f} rows/s wall ({rows / r['inside']:.0f} rows/s after start-up; CPU "
            f"{r['cpu']:.2f} s: {rows / r['cpu']:.0f} rows per CPU second) | >= 1,500 rows/s | {r['load']} | "
            f"`{r['summary']}` |")


def bench_server(folder: Path, rows: int, extra=(), threaded: bool = False) -> str:
    server = ServerProcess(delay=0.2, threaded=threaded)
    try:
        (folder / "runvil.toml").write_text(server.config())
        r = run_batch(folder, ONE_ROUND, rows, 100, ["--config", "runvil.toml", *extra])
        first = server.first_request()
        bare = server.floor(rows, 100)
    finally:
        server_cpu = server.stop()
        (folder / "runvil.toml").unlink()
    limit = rows * 0.2 / 100
    since = "" if first is None else f"; first request {first - r['t0']:.2f} s after the start"
    kind = "threaded server (tests/host/batch_server.py)" if threaded else "loopback server"
    return (f"| {kind} 200 ms, {rows:,} rows, -j 100, {processes_label(extra)} | {r['wall']:.2f} s | "
            f"{r['wall'] / limit:.2f}x the {limit:g} s limit (a bare client: {bare:.2f} s; batch CPU "
            f"{r['cpu']:.2f} s, {1000 * r['cpu'] / rows:.2f} ms a row; server CPU {server_cpu:.1f} s"
            f"{since})"
            f" | <= 1.2x | "
            f"{r['load']} | `{r['summary']}` |")


@contextlib.contextmanager
def ray_cluster():
    """A local two-node Ray cluster (`ray start --head` with 2 CPUs, a
    second node with 1), ended with its own process groups."""
    import signal
    import socket

    ray = str(Path(sys.executable).with_name("ray"))
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    temp = tempfile.mkdtemp(prefix="rvray-", dir="/tmp")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"127.0.0.1:{port}"
    log = open(os.path.join(temp, "ray.log"), "w")
    nodes = [subprocess.Popen([ray, "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                               "--include-dashboard=false", f"--temp-dir={temp}"], env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        _wait_nodes(address, 1, env)
        nodes.append(subprocess.Popen([ray, "start", "--block", f"--address={address}", "--num-cpus=1"], env=env,
                                      stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
        _wait_nodes(address, 2, env)
        yield address, env
    finally:
        for p in reversed(nodes):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(10 if sig == signal.SIGTERM else 1)
            p.wait(timeout=30)
        log.close()


def _wait_nodes(address: str, n: int, env: dict) -> None:
    code = ("import ray, logging; ray.init(address=%r, logging_level=logging.ERROR); "
            "print(sum(1 for n in ray.nodes() if n['Alive']))" % address)
    for _ in range(90):
        p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if p.returncode == 0 and int(p.stdout.strip() or 0) >= n:
            return
        time.sleep(2)
    raise SystemExit(f"the Ray cluster at {address} did not get {n} nodes")


def bench_ray(folder: Path, rows: int) -> list[str]:
    """The loopback-server batch on a two-node local Ray cluster, against
    the same batch in one process."""
    out = []
    with ray_cluster() as (address, env):
        os.environ.update({"RAY_AUTH_MODE": env["RAY_AUTH_MODE"]})
        for label, extra in (("local, workers: one per CPU", []), ("local, one process", ["--processes", "1"]),
                             ("--ray (2 nodes, 3 CPUs)", ["--ray", address])):
            server = ServerProcess(delay=0.2)
            try:
                (folder / "runvil.toml").write_text(server.config())
                r = run_batch(folder, ONE_ROUND, rows, 100, ["--config", "runvil.toml", *extra])
            finally:
                server.stop()
            out.append(f"| loopback server 200 ms, {rows:,} rows, -j 100, {label} | {r['wall']:.2f} s | "
                       f"{r['wall'] / (rows * 0.2 / 100):.2f}x the limit; batch CPU {r['cpu']:.1f} s (with "
                       f"--ray: the driver's alone) | Ray's overhead: the difference | {r['load']} | "
                       f"`{r['summary']}` |")
    return out


def bench_exit(trials: int, busy: int = 6) -> list[str]:
    """The way out after Ctrl-C (tests/host/test_batch_signals.py's
    scenario: 60 rows, -j 6, a server answering after 0.25 s, SIGINT once
    12 rows are stored), timed from the signal to the process's end, with
    `busy` processes spinning on the 2 cores meanwhile (a parallel test
    run's load)."""
    import signal
    import sqlite3

    from tests.host.batch_server import BatchServer, config_for
    from tests.host.test_batch import PROMPT

    def stored(db) -> int:
        try:
            con = sqlite3.connect(db)
            try:
                return con.execute("SELECT count(*) FROM runs").fetchone()[0]
            finally:
                con.close()
        except sqlite3.Error:
            return 0

    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    times = []
    try:
        time.sleep(1)
        during = load()
        for _ in range(trials):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                server = BatchServer(delay=0.25).start()
                try:
                    (folder / "runvil.toml").write_text(config_for(server))
                    (folder / "p.md").write_text(PROMPT)
                    (folder / "rows.txt").write_text("".join(f"row {i}\n" for i in range(60)))
                    p = subprocess.Popen([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j",
                                          "6"], cwd=folder, env=bench_env(), stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
                    deadline = time.monotonic() + 120
                    while stored(folder / "p.batch.db") < 12 and p.poll() is None and time.monotonic() < deadline:
                        time.sleep(0.05)
                    p.send_signal(signal.SIGINT)
                    sent = time.monotonic()
                    p.wait(timeout=60)
                    times.append(time.monotonic() - sent)
                finally:
                    server.stop()
    finally:
        for s in spinners:
            s.kill()
            s.wait()
    times.sort()
    return [f"| Ctrl-C: SIGINT to exit, 60 rows, -j 6, {busy} busy processes, {trials} times | median "
            f"{times[len(times) // 2]:.2f} s | max {times[-1]:.2f} s (all: {', '.join(f'{t:.2f}' for t in times)}) | "
            f"< 2.0 s (the test's bound) | {during} | |"]


ROWS_CPU = """
import sys, time, types
from runvil.host.batch.data import Row
from runvil.host.batch.runner import Runner
from runvil.prompt import read_prompt

runner = Runner(types.SimpleNamespace(script=None, config=None, bind=[], workspace=None), read_prompt(sys.argv[1]), 50)
rows = lambda n: (Row(id=i, input=f"row number {i}", metadata={}, line=i) for i in range(n))
for _ in runner.run_rows(rows(100)):
    pass
for _ in range(3):
    t = time.process_time()
    for _ in runner.run_rows(rows(int(sys.argv[2]))):
        pass
    print((time.process_time() - t) / int(sys.argv[2]))
"""


def bench_rows(folder: Path, rows: int) -> list[str]:
    """The CPU of a row's Engine and record in one process, without the
    database, the provider's HTTP or start-up: the echo model, `-j 50`,
    rows driven by `Runner.run_rows` as a batch drives them (best of 3)."""
    out = []
    for name, prompt in (("one round", ONE_ROUND), ("two sections", TWO_SECTIONS)):
        (folder / "rows.md").write_text(prompt)
        got = subprocess.run([sys.executable, "-c", ROWS_CPU, "rows.md", str(rows)], cwd=folder, env=bench_env(),
                             capture_output=True, text=True, check=True)
        each = [float(line) * 1000 for line in got.stdout.split()]
        out.append(f"| Engine and record of a row, echo, {name}, {rows:,} rows, one process | | "
                   f"{min(each):.3f} ms of CPU a row (runs: {', '.join(f'{x:.3f}' for x in each)}) | | "
                   f"{load()} | |")
    return out


def bench_memory(folder: Path, rows: int) -> str:
    r = run_batch(folder, TWO_SECTIONS, rows, 50)
    return (f"| echo, two sections, {rows:,} rows, -j 50 | {r['wall']:.1f} s | peak RSS {r['rss_mb']:.0f} MB "
            f"(CPU {r['cpu']:.0f} s) | "
            f"flat | {r['load']} | `{r['summary']}` |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.batch")
    p.add_argument("--only", default="rows,echo,server,memory", help="any of rows,echo,server,memory,ray,exit")
    p.add_argument("--exit-trials", type=int, default=8, help="Ctrl-C timings of the exit benchmark")
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--default-only", action="store_true",
                   help="only the batches as `runvil batch` runs them by default (for a tree without --processes)")
    p.add_argument("--repeat", type=int, default=1, help="runs of the echo and server batches")
    p.add_argument("--big", type=int, default=100_000, help="rows of the large memory batch")
    p.add_argument("--output", default=str(ROOT / "benchmarks" / "BATCH_RESULTS.md"))
    a = p.parse_args(argv)
    only = set(a.only.split(","))
    compile_runvil()
    lines = ["# runvil batch", "", f"`python -m benchmarks.batch` on {os.cpu_count()} CPUs, {load()} at the start. "
             "Wall times are of the whole `runvil batch` process; CPU is its user + system time, its worker "
             "processes included (what idle cores would take).", "",
             "| batch | wall | measured | goal | load average | summary line |", "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if "rows" in only:
            lines.extend(bench_rows(folder, a.rows))
        for _ in range(a.repeat):
            if "echo" in only:
                lines.append(bench_echo(folder, a.rows))
                if not a.default_only:
                    lines.append(bench_echo(folder, a.rows, ["--processes", "1"]))
            if "server" in only:
                lines.append(bench_server(folder, a.rows))
                if not a.default_only:
                    lines.append(bench_server(folder, a.rows, ["--processes", "1"]))
                lines.append(bench_server(folder, a.rows, threaded=True))
        if "ray" in only:
            lines.extend(bench_ray(folder, a.rows))
        if "memory" in only:
            lines.append(bench_memory(folder, a.rows))
            lines.append(bench_memory(folder, a.big))
        if "exit" in only:
            lines.extend(bench_exit(a.exit_trials))
    text = "\n".join(lines) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        Path(a.output).write_text(text)
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
