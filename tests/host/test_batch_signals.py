"""`runvil batch` as a process: Ctrl-C (a real SIGINT) stops it at once
with every finished row kept (exit 130), and running it again finishes the
rest without running a finished row twice; in a pipe no carriage return is
written; on a terminal a progress bar shows.

the specification: "Results are written as each row ends, so Ctrl-C (exit 130) or a
crash loses no finished row."
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter

import pytest

from .batch_server import BatchServer, config_for
from .terminal import on_a_terminal
from .test_batch import PROMPT, SUMMARY


def env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("RUNVIL_CONFIG", "RUNVIL_TRACEBACK")}


def stored(db) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT row_id, ok, batch_id FROM runs").fetchall()
    except sqlite3.OperationalError:  # not made yet
        return []
    finally:
        con.close()


@pytest.fixture
def slow_server(tmp_path):
    s = BatchServer(delay=0.25).start()
    (tmp_path / "runvil.toml").write_text(config_for(s))
    (tmp_path / "p.md").write_text(PROMPT)
    yield s
    s.stop()


#: requests the server answers before it holds every later one
HELD_AFTER = 14
#: "at once": the rows in flight are held for 120 s, so a batch that waited
#: for them would take that long; this bound leaves a loaded machine (or a
#: first run that compiles everything) a wide margin
AT_ONCE_SECONDS = 20.0


def ends_at_once(p) -> tuple[str, str]:
    """The output of a process signalled just now, which must end without
    waiting for its rows in flight: measured from the signal to its exit,
    against the server holding those rows for 120 s."""
    sent = time.monotonic()
    try:
        out, err = p.communicate(timeout=AT_ONCE_SECONDS)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError(f"still running {AT_ONCE_SECONDS} s after the signal: it waited for the rows in flight")
    assert time.monotonic() - sent < AT_ONCE_SECONDS
    return out, err


def test_ctrl_c_stops_at_once_keeps_finished_rows_and_a_rerun_finishes_the_rest(tmp_path, slow_server):
    rows = 60
    (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(rows)))
    db = tmp_path / "p.batch.db"
    cmd = [sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "6"]
    slow_server.hold_after = HELD_AFTER  # the rows in flight at Ctrl-C would never end by themselves
    p = subprocess.Popen(cmd, cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(stored(db)) < 12 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    out, err = ends_at_once(p)
    slow_server.hold_after = None
    slow_server.released.set()
    assert p.returncode == 130, err
    assert "runvil: interrupted" in err and "Traceback" not in err
    first = stored(db)
    assert 12 <= len(first) < rows
    assert all(ok == 1 for _, ok, _ in first)
    assert len({r for r, _, _ in first}) == len(first)  # each finished row once
    assert SUMMARY.match(out.strip()).group(1) == str(len(first))
    con = sqlite3.connect(db)
    assert con.execute("SELECT ended, rows FROM batches").fetchone()[1] == len(first)
    con.close()
    sent_before = Counter(b["messages"][-1]["content"] for b in slow_server.bodies)

    again = subprocess.run(cmd, cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert f"runvil: {len(first)} rows already done in p.batch.db" in again.stderr
    every = stored(db)
    assert sorted(int(r) for r, _, _ in every) == list(range(1, rows + 1))  # every row once
    assert all(ok == 1 for _, ok, _ in every)
    sent = Counter(b["messages"][-1]["content"] for b in slow_server.bodies)
    finished_first = {f"Say row {int(r) - 1} back." for r, _, _ in first}
    for text in finished_first:
        assert sent[text] == sent_before[text] == 1  # nothing that had succeeded ran twice


def test_sigterm_stops_it_too(tmp_path, slow_server):
    (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(40)))
    p = subprocess.Popen([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "4"],
                         cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(stored(tmp_path / "p.batch.db")) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 143, err
    assert "runvil: terminated" in err
    assert len(stored(tmp_path / "p.batch.db")) >= 4


def test_in_a_pipe_no_carriage_return_and_one_summary_line(tmp_path):
    (tmp_path / "p.md").write_text(PROMPT)
    (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(30)))
    p = subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt"], cwd=tmp_path,
                       env=env(), capture_output=True, timeout=120)
    assert p.returncode == 0
    assert b"\r" not in p.stdout and b"\r" not in p.stderr
    assert SUMMARY.match(p.stdout.decode().strip())
    assert p.stderr.decode() == "runvil: no config: every model role runs on the offline echo model\n"


def test_on_a_terminal_a_progress_bar_shows(tmp_path, slow_server):
    (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(12)))
    code, out, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "2"],
                                    env={**env(), "COLUMNS": "120", "TERM": "xterm"}, cwd=tmp_path)
    assert code == 0, seen
    shown = seen.decode("utf-8", "replace")
    assert "/12" in shown and "failed" in shown and "rows/s" in shown and "tokens" in shown
    assert SUMMARY.match(out.decode().strip())
