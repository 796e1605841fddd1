"""Resuming a batch (docs/reference/commands.md "Batches"): "A row is done when the database
holds a successful run of it with the same key: the prompt's text; the
text of every module that run required (stored with the run, compared on
resume); each bound model's provider URL, model name and request settings
(not timeouts, retries or keys); the scripted world's content; the input.
... Two batches on one database claim rows in blocks, so no row runs
twice." And: "Unknown usage is stored as NULL, with
`rounds_without_usage`."
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import time

from .batch_server import BatchServer, config_for
from .test_batch import PROMPT, batch, here, runs, server  # noqa: F401  (fixtures)

MODULE_PROMPT = PROMPT.replace("return messages[#messages].content",
                               "return require('lib').tag .. messages[#messages].content")


def env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("RUNVIL_CONFIG", "RUNVIL_TRACEBACK")}


def world(text: str) -> str:
    return f"replies:\n  - text: '{text}'\n"


def test_another_world_makes_new_runs(here, capsys):
    (here / "rows.txt").write_text("a\nb\nc\n")
    (here / "w1.yaml").write_text(world("one"))
    (here / "w2.yaml").write_text(world("two"))
    assert batch(capsys, "p.md", "rows.txt", "--script", "w1.yaml")[0] == 0
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w2.yaml")
    assert code == 0 and out.startswith("3 rows: 3 ok"), err
    assert sorted(r["result"] for r in runs()) == ["one"] * 3 + ["two"] * 3
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w1.yaml")
    assert out.startswith("0 rows: 0 ok") and "3 rows already done" in err


def test_an_edited_module_makes_new_runs_and_an_unchanged_one_does_not(here, capsys):
    (here / "p.md").write_text(MODULE_PROMPT)
    (here / "lib.lua").write_text("return {tag = 'v1 '}\n")
    (here / "rows.txt").write_text("a\nb\n")
    (here / "w.yaml").write_text(world("hi"))
    assert batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")[0] == 0
    assert [r["modules"] for r in runs()] == ['{"lib.lua":"%s"}' % _sha(here / "lib.lua")] * 2
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
    assert out.startswith("0 rows") and "2 rows already done" in err
    (here / "lib.lua").write_text("return {tag = 'v2 '}\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
    assert code == 0 and out.startswith("2 rows: 2 ok"), err
    assert [r["result"] for r in runs()] == ["v1 hi", "v1 hi", "v2 hi", "v2 hi"]
    (here / "lib.lua").write_text("return {tag = 'v1 '}\n")  # back as it was: the first runs hold again
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
    assert out.startswith("0 rows")


def _sha(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


CATALOG = """
default_model = "local/small"
[providers.local]
base_url = "{url}"
timeout = {timeout}
max_retries = {retries}
[models."local/small"]
provider = "local"
name = "small"
context = 8192
max_tokens = {max_tokens}
"""


def test_the_provider_url_and_request_settings_are_in_the_key_timeouts_and_retries_are_not(here, capsys):
    first, second = BatchServer().start(), BatchServer().start()
    try:
        (here / "rows.txt").write_text("a\nb\n")

        def config(server, timeout=30, retries=2, max_tokens=100):
            (here / "runvil.toml").write_text(CATALOG.format(url=server.base_url, timeout=timeout, retries=retries,
                                                             max_tokens=max_tokens))

        config(first)
        assert batch(capsys, "p.md", "rows.txt")[0] == 0
        config(first, timeout=99, retries=5)
        assert batch(capsys, "p.md", "rows.txt")[1].startswith("0 rows")
        config(second)
        assert batch(capsys, "p.md", "rows.txt")[1].startswith("2 rows: 2 ok")
        assert (first.requests, second.requests) == (2, 2)
        config(second, max_tokens=200)
        assert batch(capsys, "p.md", "rows.txt")[1].startswith("2 rows: 2 ok")
        assert second.requests == 4
    finally:
        first.stop()
        second.stop()


# ------------------------------------------------------------------ earlier failures


def test_rows_that_failed_earlier_keep_the_status_and_the_summary_says_so(here, capsys, server):
    (here / "rows.txt").write_text("one\ntwo FAIL\nthree\nfour FAIL\nfive\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 1
    (here / "rows.txt").write_text("one\ntwo FAIL\nthree\nfour FAIL\nfive\nsix\n")
    code, out, err = batch(capsys, "p.md", "rows.txt")
    assert code == 1
    assert out.startswith("1 row: 1 ok, 0 failed")
    assert err.endswith("runvil: 2 rows of this data set failed earlier: --retry-failed runs them\n")


# ------------------------------------------------------------------ usage


OLD_SCHEMA = """
CREATE TABLE batches (id INTEGER PRIMARY KEY, prompt_path TEXT NOT NULL, prompt_sha256 TEXT NOT NULL,
    data_path TEXT NOT NULL, bindings TEXT NOT NULL, started TEXT NOT NULL, ended TEXT,
    rows INTEGER NOT NULL DEFAULT 0, ok INTEGER NOT NULL DEFAULT 0, failed INTEGER NOT NULL DEFAULT 0);
CREATE TABLE runs (id INTEGER PRIMARY KEY, batch_id INTEGER REFERENCES batches(id), row_id TEXT, input TEXT,
    metadata TEXT, ok INTEGER NOT NULL, result TEXT, error_kind TEXT, error_message TEXT,
    rounds INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0, reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    started TEXT NOT NULL, ended TEXT NOT NULL, seconds REAL NOT NULL, log TEXT NOT NULL,
    prompt_path TEXT, prompt_sha256 TEXT, bindings TEXT);
CREATE INDEX runs_by_row ON runs (prompt_sha256, bindings, row_id);
CREATE INDEX runs_by_batch ON runs (batch_id);
"""


def test_a_database_of_an_earlier_version_is_migrated_unknown_usage_becoming_null(here, capsys):
    con = sqlite3.connect("p.batch.db")
    con.executescript(OLD_SCHEMA)
    con.execute("INSERT INTO batches (prompt_path, prompt_sha256, data_path, bindings, started) "
                "VALUES ('p.md', 'x', 'rows.txt', '{}', 't')")
    for row_id, rounds, p, c in (("1", 2, 0, 0), ("2", 1, 30, 4)):
        con.execute("INSERT INTO runs (batch_id, row_id, input, ok, rounds, prompt_tokens, completion_tokens,"
                    " started, ended, seconds, log) VALUES (1, ?, 'in', 1, ?, ?, ?, 't', 't', 0.1, '')",
                    (row_id, rounds, p, c))
    con.commit()
    con.close()
    (here / "rows.txt").write_text("in\n")
    (here / "w.yaml").write_text("replies:\n  - text: hi\n")  # no usage in the world's reply
    assert batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")[0] == 0
    got = runs()
    usage = [(r["row_id"], r["rounds"], r["prompt_tokens"], r["completion_tokens"], r["rounds_without_usage"])
             for r in got]
    assert usage[:2] == [("1", 2, None, None, 2), ("2", 1, 30, 4, 0)]
    assert usage[2][0] == "1" and usage[2][2] is None  # the old run has no key: the row ran again
    con = sqlite3.connect("p.batch.db")
    assert con.execute("SELECT sum(prompt_tokens), count(prompt_tokens) FROM runs").fetchone() == (30, 1)
    notnull = {r[1]: r[3] for r in con.execute("PRAGMA table_info(runs)")}
    assert notnull["prompt_tokens"] == 0 and "rounds_without_usage" in notnull
    con.close()


# ------------------------------------------------------------------ two batches at once


def _lease(db, block: str, pid: int, start: str) -> None:
    con = sqlite3.connect(db)
    con.execute("INSERT INTO leases (block, owner, host, pid, expires) VALUES (?, ?, ?, ?, ?)",
                (block, f"{socket.gethostname()}:{pid}:{start}", socket.gethostname(), pid, time.time() + 600))
    con.commit()
    con.close()


def test_a_block_another_live_batch_holds_is_left_to_it_and_a_dead_ones_is_taken_over(here, capsys):
    from runvil.host.batch.data import DataFile, read_rows
    from runvil.host.batch.leases import block_name, process_start

    (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(40)))
    (here / "w.yaml").write_text(world("hi"))
    assert batch(capsys, "p.md", "rows.txt", "--script", "w.yaml", "--limit", "1")[0] == 0
    con = sqlite3.connect("p.batch.db")
    key = con.execute("SELECT run_key FROM runs").fetchone()[0]
    con.execute("DELETE FROM runs")
    con.commit()
    con.close()
    first = list(read_rows(DataFile.open("rows.txt")))[:32]
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])  # another batch, alive
    try:
        _lease("p.batch.db", block_name(key, first), holder.pid, process_start(holder.pid))
        code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
        assert out.startswith("8 rows: 8 ok"), err
        assert err.endswith("runvil: 32 rows left to another batch running on p.batch.db\n")
    finally:
        holder.kill()
        holder.wait()
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
    assert out.startswith("32 rows: 32 ok"), err
    assert sorted(int(r["row_id"]) for r in runs()) == list(range(1, 41))
    assert sqlite3.connect("p.batch.db").execute("SELECT count(*) FROM leases").fetchone() == (0,)


def _batches(db) -> int:
    try:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT count(*) FROM batches").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not made yet
        return 0


def test_two_batches_on_one_database_share_the_rows_and_run_none_twice(tmp_path):
    """Two real `runvil batch` processes started together on one SQLite
    database: every row is stored once, and each ran some of them."""
    server = BatchServer(delay=0.01).start()
    server.hold_after = 0  # every request waits until both batches have started
    try:
        (tmp_path / "runvil.toml").write_text(config_for(server))
        (tmp_path / "p.md").write_text(PROMPT)
        (tmp_path / "rows.txt").write_text("".join(f"row {i}\n" for i in range(300)))
        cmd = [sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "rows.txt", "-j", "4", "--processes", "1"]
        procs = [subprocess.Popen(cmd, cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        deadline = time.monotonic() + 120
        while _batches(tmp_path / "p.batch.db") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        server.released.set()
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        con = sqlite3.connect(tmp_path / "p.batch.db")
        stored = con.execute("SELECT row_id, batch_id FROM runs").fetchall()
        con.close()
        assert len(stored) == 300
        assert sorted(int(r) for r, _ in stored) == list(range(1, 301))  # each row once
        by_batch = {b for _, b in stored}
        assert len(by_batch) == 2, outs  # both batches ran rows
        assert server.requests == 300
    finally:
        server.stop()
