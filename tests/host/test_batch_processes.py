"""A batch's rows spread over worker processes (runvil/host/batch/processes.py,
issue 24 "Speed"): the same results as in one process, `-j` shared out,
Ctrl-C ends the workers with the batch, a worker that dies costs its rows
only, and where no process starts the batch runs in its own.

the specification: "A row is done when the database holds a successful run of it
for the same prompt text, the same model bindings and the same input;
running the same command again runs only the rows not done. Results are
written as each row ends, so Ctrl-C (exit 130) or a crash loses no
finished row."
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter

import pytest

from runvil.host.batch import processes

from .batch_server import BatchServer, config_for
from .test_batch import SUMMARY, batch, here, runs  # noqa: F401  here is a fixture
from .test_batch_signals import HELD_AFTER, ends_at_once, env, slow_server  # noqa: F401  slow_server is a fixture

SAME = ("row_id", "input", "metadata", "ok", "result", "error_kind", "error_message", "rounds", "prompt_tokens",
        "completion_tokens", "reasoning_tokens", "prompt_path", "prompt_sha256", "bindings")


def events_without_times(log: str) -> list[dict]:
    out = []
    for line in log.splitlines():
        ev = json.loads(line)
        for k in ("time", "seconds", "elapsed", "ms"):
            ev.pop(k, None)
        out.append(ev)
    return out


def stored(db) -> list[tuple]:
    try:
        con = sqlite3.connect(db)
    except sqlite3.Error:
        return []
    try:
        return con.execute("SELECT row_id, ok, error_message FROM runs").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def workers_of(pid: int) -> list[int]:
    """The worker processes a batch process started (its children: forked
    from it, or running runvil.host.batch.worker)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if ppid == pid and (b"runvil.host.batch.worker" in cmd or b"runvil.host.cli" in cmd):
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture
def server(here):
    s = BatchServer(delay=0.05).start()
    (here / "runvil.toml").write_text(config_for(s))
    yield s
    s.stop()


def test_rows_on_two_workers_are_stored_as_one_process_stores_them(here, capsys, server):
    lines = [json.dumps({"id": f"r{i}", "input": f"row {i}" + (" FAIL" if i % 7 == 3 else ""), "n": i})
             for i in range(60)]
    (here / "rows.jsonl").write_text("\n".join(lines) + "\n")
    one = batch(capsys, "p.md", "rows.jsonl", "-j", "8", "--processes", "1", "--db", "one.db", "--jsonl", "one.jsonl")
    two = batch(capsys, "p.md", "rows.jsonl", "-j", "8", "--processes", "2", "--db", "two.db", "--jsonl", "two.jsonl")
    assert one[0] == two[0] == 1  # the FAIL rows failed
    assert SUMMARY.match(one[1].strip()).groups()[:5] == SUMMARY.match(two[1].strip()).groups()[:5]
    a = {r["row_id"]: r for r in runs("one.db")}
    b = {r["row_id"]: r for r in runs("two.db")}
    assert a.keys() == b.keys() == {f"r{i}" for i in range(60)}
    for row_id in a:
        assert {k: a[row_id][k] for k in SAME} == {k: b[row_id][k] for k in SAME}, row_id
        assert events_without_times(a[row_id]["log"]) == events_without_times(b[row_id]["log"]), row_id
    assert Counter(r["ok"] for r in a.values()) == {1: 51, 0: 9}

    def exported(path):
        return [{k: v for k, v in json.loads(line).items() if k not in ("seconds", "run")}
                for line in (here / path).read_text().splitlines()]

    assert exported("one.jsonl") == exported("two.jsonl")
    again = batch(capsys, "p.md", "rows.jsonl", "-j", "8", "--processes", "2", "--db", "two.db")
    assert again[0] == 1 and "runvil: 51 rows already done in two.db" in again[2]
    assert SUMMARY.match(again[1].strip()).group(1) == "0"  # resume: nothing ran again


def test_j_is_shared_out_and_reached_across_the_workers(here, capsys):
    s = BatchServer(delay=0.3).start()
    try:
        (here / "runvil.toml").write_text(config_for(s))
        (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(40)))
        code, out, err = batch(capsys, "p.md", "rows.txt", "-j", "10", "--processes", "2")
    finally:
        s.stop()
    assert code == 0, err
    assert s.peak == 10  # 5 + 5, never more
    assert len(runs()) == 40
    assert processes.shares(10, 2) == [5, 5] and processes.shares(7, 3) == [3, 2, 2]


def test_how_many_workers(monkeypatch):
    monkeypatch.setattr(processes, "usable_cpus", lambda: 2)
    assert processes.worker_count(None, 2000, 100) == 2  # one per CPU
    assert processes.worker_count(None, 150, 100) == 1  # too few rows to pay for a second start
    assert processes.worker_count(None, 2000, 1) == 1  # -j 1: one row at a time, in one place
    assert processes.worker_count(3, 10, 8) == 3  # asked for
    assert processes.worker_count(4, 2, 8) == 2  # never more workers than rows
    for platform in ("emscripten", "win32"):  # Pyodide: no process starts; Windows: no selectors on pipes
        monkeypatch.setattr(sys, "platform", platform)
        assert processes.worker_count(None, 2000, 100) == 1 and processes.worker_count(4, 2000, 100) == 1


def test_a_bad_processes_value_is_a_usage_error(here, capsys):
    (here / "rows.txt").write_text("a\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "--processes", "0")
    assert code == 2 and err == "runvil: --processes must be a whole number of at least 1, got 0\n"


def test_where_no_process_can_start_every_row_runs_here(here, capsys, server, monkeypatch):
    def refused(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    import subprocess as subprocess_module

    monkeypatch.setattr(subprocess_module, "Popen", refused)
    (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(12)))
    code, out, err = batch(capsys, "p.md", "rows.txt", "--processes", "2")
    assert code == 0, err
    assert sorted(int(r["row_id"]) for r in runs()) == list(range(1, 13))


def test_workers_that_cannot_make_their_world_hand_their_rows_back(here, capsys, server, monkeypatch):
    real = processes.bundle_for

    def broken(plan):
        return {**real(plan), "prompt_text": "---\nnot: [a prompt\n"}

    monkeypatch.setattr(processes, "bundle_for", broken)
    (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(12)))
    code, out, err = batch(capsys, "p.md", "rows.txt", "--processes", "2")
    assert code == 0, err
    assert sorted(int(r["row_id"]) for r in runs()) == list(range(1, 13))
    assert all(r["ok"] for r in runs())


def start(tmp_path, rows: int, *extra) -> subprocess.Popen:
    (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(rows)))
    cmd = [sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "6", *extra]
    return subprocess.Popen(cmd, cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_stored(db, n: int, p: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while len(stored(db)) < n and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)


def test_ctrl_c_ends_the_workers_with_the_batch_and_a_rerun_finishes_the_rest(tmp_path, slow_server):
    rows = 80
    db = tmp_path / "p.batch.db"
    slow_server.hold_after = HELD_AFTER  # the rows in flight at Ctrl-C would never end by themselves
    p = start(tmp_path, rows, "--processes", "2")
    wait_stored(db, 12, p)
    workers = workers_of(p.pid)
    assert len(workers) == 2  # the rows run in two worker processes
    p.send_signal(signal.SIGINT)
    out, err = ends_at_once(p)
    slow_server.hold_after = None
    slow_server.released.set()
    assert p.returncode == 130, err
    assert "runvil: interrupted" in err and "Traceback" not in err
    assert not any(alive(w) for w in workers)  # no worker outlives the batch
    first = stored(db)
    assert 12 <= len(first) < rows and all(ok == 1 for _, ok, _ in first)
    assert len({r for r, _, _ in first}) == len(first)
    assert SUMMARY.match(out.strip()).group(1) == str(len(first))
    sent_before = Counter(b["messages"][-1]["content"] for b in slow_server.bodies)

    again = subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "6",
                            "--processes", "2"], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    every = stored(db)
    assert sorted(int(r) for r, _, _ in every) == list(range(1, rows + 1))
    sent_after = Counter(b["messages"][-1]["content"] for b in slow_server.bodies)
    for r, _, _ in first:
        text = f"Say row {int(r) - 1} back."
        assert sent_after[text] == sent_before[text] == 1  # nothing that had succeeded ran twice


def test_a_worker_that_dies_fails_its_rows_only(tmp_path, slow_server):
    rows = 60
    db = tmp_path / "p.batch.db"
    p = start(tmp_path, rows, "--processes", "2")
    wait_stored(db, 6, p)
    victim = workers_of(p.pid)[0]
    os.kill(victim, signal.SIGKILL)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 1, err
    got = stored(db)
    assert sorted(int(r) for r, _, _ in got) == list(range(1, rows + 1))  # every row stored, once
    failed = [m for _, ok, m in got if not ok]
    assert 1 <= len(failed) <= 6  # the rows that worker had (at most twice its share of 3)
    assert set(failed) == {"internal error: the worker process running this row stopped (killed by signal 9)"}
    again = subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "6",
                            "--retry-failed"], cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert SUMMARY.match(again.stdout.strip()).group(2) == str(len(failed))
