"""`runvil batch --ray ADDRESS` on a real local Ray cluster: `ray start
--head` plus a second node on the same machine (skipped when Ray is not
installed: `pip install 'runvil[ray]'`).

Issue 24: "chunks of rows run as Ray tasks ... results streamed back to
the driver, which alone writes the database. A worker that dies mid-chunk
costs nothing but time: its rows run again (Ray's task retries) and each
row is stored once. Results are the same as a local batch's."
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

from .batch_server import BatchServer, config_for  # noqa: E402
from .test_batch import PROMPT, SUMMARY  # noqa: E402

RAY = str(Path(sys.executable).with_name("ray"))
# a cluster of the tests' own: no token to share, no usage report
RAY_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def env() -> dict:
    return {**{k: v for k, v in os.environ.items() if k not in ("RUNVIL_CONFIG", "RAY_ADDRESS")}, **RAY_ENV}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive_nodes(address: str) -> int:
    code = ("import ray, logging; ray.init(address=%r, logging_level=logging.ERROR); "
            "print(sum(1 for n in ray.nodes() if n['Alive']))" % address)
    p = subprocess.run([sys.executable, "-c", code], env=env(), capture_output=True, text=True, timeout=120)
    return int(p.stdout.strip() or 0) if p.returncode == 0 else 0


@pytest.fixture(scope="module")
def cluster():
    """A head node (2 CPUs) and a second node (1 CPU), each `ray start
    --block` in a session of its own, so that teardown ends exactly the
    processes they started."""
    if not Path(RAY).exists():
        pytest.skip("the ray command is not installed beside this Python")
    temp = tempfile.mkdtemp(prefix="rvray-", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
    port = free_port()
    address = f"127.0.0.1:{port}"
    logs = open(os.path.join(temp, "ray-start.log"), "w")
    head = subprocess.Popen([RAY, "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                             "--include-dashboard=false", f"--temp-dir={temp}"], env=env(), stdout=logs,
                            stderr=subprocess.STDOUT, start_new_session=True)
    nodes = [head]
    try:
        deadline = time.monotonic() + 180
        while alive_nodes(address) < 1:
            assert time.monotonic() < deadline and head.poll() is None, "the head node did not start"
            time.sleep(2)
        nodes.append(subprocess.Popen([RAY, "start", "--block", f"--address={address}", "--num-cpus=1"], env=env(),
                                      stdout=logs, stderr=subprocess.STDOUT, start_new_session=True))
        while alive_nodes(address) < 2:
            assert time.monotonic() < deadline, "the second node did not join"
            time.sleep(2)
        yield address
    finally:
        for p in reversed(nodes):
            _end_group(p)
        logs.close()
        shutil.rmtree(temp, ignore_errors=True)


def _end_group(p: subprocess.Popen) -> None:
    """SIGTERM to the node's process group, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                p.wait(timeout=5)
                return
            time.sleep(0.2)
    p.wait(timeout=5)


def batch(folder: Path, *argv, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", *argv], cwd=folder, env=env(),
                          capture_output=True, text=True, timeout=timeout)


def results(db: Path) -> dict:
    con = sqlite3.connect(db)
    try:
        return {r: (ok, res) for r, ok, res in con.execute("SELECT row_id, ok, result FROM runs")}
    finally:
        con.close()


def test_results_on_ray_are_the_same_as_a_local_batchs(tmp_path, cluster):
    (tmp_path / "p.md").write_text(PROMPT)
    (tmp_path / "rows.jsonl").write_text("".join(f'{{"id": "r{i}", "input": "value {i}"}}\n' for i in range(40)))
    here = batch(tmp_path, "p.md", "rows.jsonl", "--db", "local.db", "-j", "4")
    assert here.returncode == 0, here.stderr
    there = batch(tmp_path, "p.md", "rows.jsonl", "--db", "ray.db", "-j", "4", "--ray", cluster)
    assert there.returncode == 0, there.stderr
    assert SUMMARY.match(there.stdout.strip()).group(1, 2) == ("40", "40")
    assert results(tmp_path / "ray.db") == results(tmp_path / "local.db")
    assert len(results(tmp_path / "ray.db")) == 40
    again = batch(tmp_path, "p.md", "rows.jsonl", "--db", "ray.db", "--ray", cluster)
    assert again.returncode == 0 and "40 rows already done in ray.db" in again.stderr


def ray_task_pids() -> list[int]:
    """Ray's worker processes running one of our chunks (Ray names a
    worker's process after the task it runs)."""
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "cmdline").read_bytes().startswith(b"ray::run_chunk"):
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


def test_a_worker_killed_mid_chunk_costs_only_time_and_each_row_is_stored_once(tmp_path, cluster):
    server = BatchServer(delay=0.2).start()
    try:
        (tmp_path / "p.md").write_text(PROMPT)
        (tmp_path / "runvil.toml").write_text(config_for(server))
        rows = 48
        (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(rows)))
        p = subprocess.Popen([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "2",
                              "--ray", cluster], cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        killed = None
        while killed is None and time.monotonic() < deadline and p.poll() is None:
            pids = ray_task_pids()
            if pids and server.requests >= 3:
                killed = pids[0]
                os.kill(killed, signal.SIGKILL)
            time.sleep(0.05)
        out, err = p.communicate(timeout=300)
    finally:
        server.stop()
    assert killed is not None, "no worker was seen running a chunk"
    assert p.returncode == 0, err
    assert SUMMARY.match(out.strip()), out
    assert SUMMARY.match(out.strip()).group(1, 2, 3) == (str(rows), str(rows), "0")
    got = results(tmp_path / "p.batch.db")
    con = sqlite3.connect(tmp_path / "p.batch.db")
    assert con.execute("SELECT count(*) FROM runs").fetchone()[0] == rows  # each row stored once
    con.close()
    assert sorted(int(r) for r in got) == list(range(1, rows + 1))
    assert all(ok == 1 for ok, _ in got.values())
    assert "the task will be retried" in err  # Ray ran the killed chunk again
    assert server.requests >= rows


def test_a_cluster_that_cannot_be_reached_is_a_usage_error(tmp_path):
    (tmp_path / "p.md").write_text(PROMPT)
    (tmp_path / "rows.txt").write_text("a\n")
    port = free_port()
    p = batch(tmp_path, "p.md", "rows.txt", "--ray", f"127.0.0.1:{port}", timeout=120)
    assert p.returncode == 2, p.stderr
    assert f"runvil: cannot start or join the Ray cluster 127.0.0.1:{port}: Connection refused" in p.stderr
    assert "Traceback" not in p.stderr
