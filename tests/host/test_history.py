"""The history of runs (docs/reference/commands.md "The history of runs"): every `runvil run`
and `runvil chat` kept in a SQLite database, `runvil logs` to list, show,
draw and delete them, `--no-log` and `logs off` to keep none, a size cap,
and no key ever stored."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELLO = str(ROOT / "examples" / "hello.md")


@pytest.fixture
def logs(tmp_path, monkeypatch):
    """RUNVIL_LOGS in tmp_path: the database's path."""
    path = tmp_path / "data" / "runs.db"
    monkeypatch.setenv("RUNVIL_LOGS", str(path))
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    monkeypatch.chdir(tmp_path)
    return path


def rows(path) -> list[dict]:
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute("SELECT * FROM runs ORDER BY id")]
    finally:
        db.close()


def test_a_run_is_kept_with_its_prompt_bindings_input_result_usage_and_log(logs, cli):
    assert cli("run", HELLO, "--input", "hi there")[0] == 0
    (row,) = rows(logs)
    assert row["prompt_path"] == HELLO and row["input"] == "hi there"
    assert row["ok"] == 1 and row["result"] == "echo: hello" and row["rounds"] == 1
    assert json.loads(row["bindings"]) == {"writer": "echo"}
    assert [json.loads(line)["type"] for line in row["log"].splitlines()][0] == "run_started"
    import hashlib

    data = Path(HELLO).read_bytes()
    assert row["prompt_sha256"] == hashlib.sha256(data).hexdigest()
    db = sqlite3.connect(logs)
    assert db.execute("SELECT text FROM prompts").fetchall() == [(data.decode(),)]
    db.close()


def test_a_failed_run_is_kept_with_its_error(logs, cli, tmp_path):
    p = tmp_path / "bad.md"
    p.write_text(Path(HELLO).read_text().replace("models.loop()", "error('boom')"), encoding="utf-8")
    assert cli("run", str(p))[0] == 1
    (row,) = rows(logs)
    assert row["ok"] == 0 and row["error_kind"] and "boom" in row["error_message"]


def test_logs_lists_the_latest_first_and_filters(logs, cli):
    cli("run", HELLO, "--input", "alpha")
    cli("run", HELLO, "--input", "beta")
    code, out, err = cli("logs")
    lines = out.splitlines()
    assert code == 0 and [line.split()[0] for line in lines] == ["2", "1"]
    assert "hello.md" in lines[0] and "ok" in lines[0] and "echo: hello" in lines[0]
    assert cli("logs", "-n", "1")[1].splitlines()[0].split()[0] == "2"
    code, out, _ = cli("logs", "--q", "alph", "--json")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [1]
    assert cli("logs", "--q", "100%_")[1] == ""  # LIKE's wildcards are plain text


def test_show_prints_one_run_and_json_has_the_prompt_text(logs, cli):
    cli("run", HELLO, "--input", "hi")
    code, out, _ = cli("logs", "show", "1")
    assert code == 0 and "input: hi" in out and "result:\necho: hello" in out
    code, out, _ = cli("logs", "show", "1", "--json")
    data = json.loads(out)
    assert data["id"] == 1 and data["prompt_text"] == Path(HELLO).read_text() and "log" not in data
    code, _, err = cli("logs", "show", "9")
    assert code == 1 and "the history has no run 9" in err


def test_show_says_the_usage_as_the_closing_line_does(logs, cli, server, tmp_path):
    """Unknown tokens are said so, never `None`; known ones as a run's
    closing line gives them."""
    from ..harness.chat_server import chunk, stream, usage_chunk

    cli("run", HELLO)
    assert "usage: 1 round · tokens unknown\n" in cli("logs", "show", "1")[1]
    (tmp_path / "runvil.toml").write_text(
        f'[providers.p]\nbase_url = "{server.base_url}"\n\n[models."p/m"]\nprovider = "p"\ncontext = 8192\n',
        encoding="utf-8")
    server.reply(stream(chunk({"content": "hi"}, finish="stop"), usage_chunk(30, 12, reasoning=4)))
    assert cli("run", HELLO, "-m", "p/m")[0] == 0
    assert "usage: 1 round · 30 prompt + 12 completion tokens (4 reasoning)\n" in cli("logs", "show", "2")[1]


def test_view_writes_the_run_viewer_page(logs, cli, tmp_path):
    cli("run", HELLO)
    code, out, _ = cli("logs", "view", "1", "-o", str(tmp_path / "page.html"))
    assert code == 0 and out.strip() == str(tmp_path / "page.html")
    assert "echo: hello" in (tmp_path / "page.html").read_text(encoding="utf-8")


def test_rm_deletes_one_run(logs, cli):
    cli("run", HELLO)
    cli("run", HELLO)
    assert cli("logs", "rm", "1")[0] == 0
    assert [r["id"] for r in rows(logs)] == [2]
    assert cli("logs", "rm")[0] == 2  # no id: a usage error


def test_no_log_and_logs_off_keep_nothing_until_logs_on(logs, cli):
    cli("run", HELLO, "--no-log")
    assert not logs.exists()
    assert cli("logs", "path")[1].strip() == str(logs)
    code, out, _ = cli("logs", "off")
    assert code == 0 and "off" in out
    cli("run", HELLO)
    assert not logs.exists()
    assert "on" in cli("logs", "on")[1]
    cli("run", HELLO)
    assert len(rows(logs)) == 1


def test_a_chat_is_kept(logs, cli, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("hello there\n"))
    assert cli("chat")[0] == 0
    (row,) = rows(logs)
    assert row["prompt_path"] == "<chat>" and row["ok"] == 1


def test_the_size_cap_drops_the_oldest_runs(logs, tmp_path):
    from runvil.host import history
    from runvil.engine.run import Run
    from runvil.harness.answerer import choose_answerer
    from runvil.harness.drive import drive
    from runvil.host.usage import UsageMeter
    from runvil.prompt import read_prompt

    prompt = read_prompt(HELLO)
    bindings, answer, _ = choose_answerer(["writer"], script=None, providers=None)
    for i in range(40):
        run = Run(prompt, input="x" * 20_000 + str(i), bindings=bindings)
        meter = UsageMeter(answer)
        drive(run, meter)
        history.keep_run(HELLO, b"p", run, meter, cap=200_000)
    kept = rows(logs)
    assert 1 <= len(kept) < 40 and kept[-1]["input"].endswith("39")
    db = sqlite3.connect(logs)
    assert history.used_bytes(db) <= 200_000
    db.close()


def test_a_history_that_cannot_be_written_never_fails_the_run(tmp_path, monkeypatch, cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RUNVIL_LOGS", str(blocker / "runs.db"))
    code, out, err = cli("run", HELLO)
    assert code == 0 and out == "echo: hello\n"
    assert "the run was not kept in the history" in err


def test_a_history_that_is_no_database_is_said_in_words(logs, cli):
    """The history is read as `runvil view DB` reads a results database:
    never made, never changed, its errors naming the file."""
    logs.parent.mkdir(parents=True)
    logs.write_text("some text, not a database\n")
    for argv in (("logs",), ("logs", "show", "1"), ("logs", "rm", "1")):
        assert cli(*argv) == (1, "", f"runvil: cannot read the history {logs}: file is not a database\n")
    logs.unlink()
    sqlite3.connect(logs).execute("CREATE TABLE other (a)").connection.close()
    assert cli("logs", "show", "1") == (1, "", f"runvil: {logs} is not a results database of runvil (it has no "
                                               "`runs` table)\n")
    assert logs.read_bytes().startswith(b"SQLite format 3") and table_names(logs) == ["other"]


def table_names(path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    finally:
        db.close()


def test_keys_never_reach_the_history(logs, cli, server, tmp_path, monkeypatch):
    from ..harness.chat_server import text_stream

    key = "sk-history-secret-0123456789abcdef"
    monkeypatch.setenv("RUNVIL_HISTORY_TEST_KEY", key)
    (tmp_path / "runvil.toml").write_text(
        f'[providers.p]\nbase_url = "{server.base_url}"\napi_key_env = "RUNVIL_HISTORY_TEST_KEY"\n\n'
        '[models."p/m"]\nprovider = "p"\ncontext = 8192\n', encoding="utf-8")
    server.reply(text_stream(f"the key is {key}"))
    code, out, _ = cli("run", HELLO, "-m", "p/m", "--debug")
    assert code == 0 and key not in out
    assert key.encode() not in logs.read_bytes()
    for extra in ("-wal", "-shm"):
        if os.path.exists(str(logs) + extra):
            assert key.encode() not in Path(str(logs) + extra).read_bytes()


def test_keeping_a_run_costs_a_few_milliseconds(logs):
    """CPU time of one write (the issue asks at most 5 ms; bounded loosely
    here, measured in benchmarks)."""
    from runvil.host import history
    from runvil.engine.run import Run
    from runvil.harness.answerer import choose_answerer
    from runvil.harness.drive import drive
    from runvil.host.usage import UsageMeter
    from runvil.prompt import read_prompt

    prompt = read_prompt(HELLO)
    bindings, answer, _ = choose_answerer(["writer"], script=None, providers=None)
    runs = []
    for _ in range(11):
        run = Run(prompt, bindings=bindings)
        meter = UsageMeter(answer)
        drive(run, meter)
        runs.append((run, meter))
    history.keep_run(HELLO, b"p", *runs[0])  # makes the database
    cpu = []
    for run, meter in runs[1:]:
        t = time.process_time()
        history.keep_run(HELLO, b"p", run, meter)
        cpu.append(time.process_time() - t)
    assert sorted(cpu)[len(cpu) // 2] < 0.02


def test_the_history_is_in_the_user_s_data_folder(monkeypatch, tmp_path):
    """XDG_DATA_HOME, else ~/.local/share, on Linux, as platformdirs has it."""
    import sys

    from runvil.host.history import history_path

    monkeypatch.delenv("RUNVIL_LOGS")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if sys.platform.startswith("linux"):
        assert history_path() == str(tmp_path / "data" / "runvil" / "runs.db")
        monkeypatch.delenv("XDG_DATA_HOME")
        assert history_path() == str(tmp_path / ".local" / "share" / "runvil" / "runs.db")
    platformdirs = pytest.importorskip("platformdirs")
    assert history_path() == os.path.join(platformdirs.user_data_dir("runvil", appauthor=False), "runs.db")


def test_a_long_log_is_kept_cut(logs, cli, tmp_path, monkeypatch):
    """The history keeps at most MAX_LOG_CHARS of a run's log, then says
    how many events it left out (the run log itself, --log, is whole)."""
    from runvil.host import history

    monkeypatch.setattr(history, "MAX_LOG_CHARS", 2000)
    p = tmp_path / "loud.md"
    p.write_text(Path(HELLO).read_text().replace("models.loop()", "for i = 1, 50 do print(('x'):rep(100)) end\nmodels.loop()"),
                 encoding="utf-8")
    assert cli("run", str(p))[0] == 0
    (row,) = rows(logs)
    events = [json.loads(line) for line in row["log"].splitlines()]
    assert events[-1]["type"] == "log_cut" and events[-1]["events_left_out"] > 0
    assert len(row["log"]) < 2000 + 500


WITHOUT_SQLITE = """
import sys
sys.modules["sqlite3"] = None  # as on Pyodide before its sqlite3 package is loaded
from runvil.host.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("argv, code, stderr", [
    (["run", "examples/hello.md"], 0, "runvil: no config: every model role runs on the offline echo model\n"),
    (["logs"], 2, "runvil: this Python has no sqlite3 module, which batches, --db and `runvil logs` need"
                  " (on Pyodide: await pyodide.loadPackage('sqlite3') first)\n"),
])
def test_without_sqlite3_a_run_is_not_kept_and_the_history_commands_say_why(argv, code, stderr, logs):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", WITHOUT_SQLITE, *argv], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert (done.returncode, done.stderr) == (code, stderr)
    assert not os.path.exists(logs)
