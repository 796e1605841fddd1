"""`runvil batch` (docs/reference/commands.md "runvil batch"), through the command line, against
real loopback servers and real SQLite files.

the specification: "`runvil batch PROMPT.md DATA [options]` runs the prompt once per
row of DATA, each row an independent run with the row's input, exactly as
`runvil run PROMPT.md --input TEXT` would run it."
"""

from __future__ import annotations

import gc
import json
import re
import sqlite3

import pytest

from runvil.host.cli import main

from .batch_server import BatchServer, config_for

PROMPT = """---
name: shout
description: Answers one row.
runvil: 0
models:
  writer: {}
---

# Shout

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

SUMMARY = re.compile(r"^(\d+) rows?: (\d+) ok, (\d+) failed(?: \((.*)\))? · (.*) · (\d+\.\d) s$")


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A fresh folder as the working directory, with no config around."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    (tmp_path / "p.md").write_text(PROMPT)
    return tmp_path


@pytest.fixture
def server(here):
    s = BatchServer().start()
    (here / "runvil.toml").write_text(config_for(s))
    yield s
    s.stop()


def batch(capsys, *argv) -> tuple[int, str, str]:
    code = main(["batch", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def runs(db: str = "p.batch.db", where: str = "1") -> list[dict]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    try:
        order = "" if "ORDER BY" in where else " ORDER BY id"
        return [dict(r) for r in con.execute(f"SELECT * FROM runs WHERE {where}{order}")]
    finally:
        con.close()


def one_line_summary(out: str) -> re.Match:
    lines = out.splitlines()
    assert len(lines) == 1, out
    m = SUMMARY.match(lines[0])
    assert m, lines[0]
    return m


# ------------------------------------------------------------------ the inputs


def test_plain_text_one_input_a_line_empty_lines_skipped_ids_are_line_numbers(here, capsys):
    (here / "rows.txt").write_text("cats\n\n  \ndogs\r\nbirds")
    code, out, err = batch(capsys, "p.md", "rows.txt")
    assert code == 0, err
    assert "every model role runs on the offline echo model" in err
    got = {r["row_id"]: r for r in runs()}
    assert set(got) == {"1", "4", "5"}
    assert got["4"]["input"] == "dogs"
    assert got["5"]["result"] == "echo: Say birds back."
    assert all(r["ok"] == 1 and r["batch_id"] == 1 and r["error_kind"] is None for r in got.values())
    assert one_line_summary(out).groups()[:4] == ("3", "3", "0", None)


def test_jsonl_input_id_and_metadata_and_json_values_passed_as_their_text(here, capsys):
    rows = [{"input": "hello", "id": "a", "lang": "en"}, {"input": {"q": [1, 2]}}, {"id": 7, "input": 42}]
    (here / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    code, out, err = batch(capsys, "p.md", "rows.jsonl", "--db", "out.db")
    assert code == 0, err
    got = {r["row_id"]: r for r in runs("out.db")}
    assert set(got) == {"a", "2", "7"}
    assert json.loads(got["a"]["metadata"]) == {"lang": "en"}
    assert got["2"]["input"] == '{"q": [1, 2]}'
    assert got["2"]["result"] == 'echo: Say {"q": [1, 2]} back.'
    assert got["7"]["input"] == "42"


def test_csv_header_input_column_id_and_metadata(here, capsys):
    (here / "rows.csv").write_text('id,text,topic\nx1,"two\nlines",pets\n,plain,misc\n')
    code, out, err = batch(capsys, "p.md", "rows.csv", "--input-column", "text")
    assert code == 0, err
    got = {r["row_id"]: r for r in runs()}
    assert set(got) == {"x1", "4"}  # an empty id: the row's line number
    assert got["x1"]["input"] == "two\nlines"
    assert json.loads(got["x1"]["metadata"]) == {"topic": "pets"}


def test_each_row_runs_exactly_as_run_input_would(here, capsys):
    (here / "rows.txt").write_text("héllo wörld\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    assert main(["run", "p.md", "--input", "héllo wörld", "--json"]) == 0
    single = json.loads(capsys.readouterr().out)
    assert runs()[0]["result"] == single["result"]


# ------------------------------------------------------------- bad rows, usage


@pytest.mark.parametrize("name,text,where", [
    ("rows.jsonl", '{"input": "a"}\n{"input": "b"}\n{"input": "c",\n', "rows.jsonl:3: not a JSON object: "),
    ("rows.jsonl", '{"input": "a"}\n[1, 2]\n', "rows.jsonl:2: a row must be a JSON object, got an array"),
    ("rows.jsonl", '{"input": "a"}\n\n{"text": "b"}\n', "rows.jsonl:3: the row has no `input`"),
    ("rows.jsonl", '{"input": "a", "id": 1}\n{"input": "b", "id": "1"}\n',
     'rows.jsonl:2: the id "1" is already the id of line 1'),
    ("rows.jsonl", '{"input": "a", "id": [1]}\n', "rows.jsonl:1: the id must be a string or a whole number, got [1]"),
    ("rows.txt", "a\nb\n", None),  # a plain text's line number ids never clash
    ("rows.csv", "id,text\n1,a\n", "rows.csv:1: the header has no column `input`"),
    ("rows.csv", "input,topic\na,b\nc\n", "rows.csv:3: the row has 1 fields; the header has 2"),
    ("rows.csv", "", "rows.csv:1: the file has no header row"),
])
def test_a_row_that_cannot_be_read_is_a_usage_error_naming_its_line_and_no_row_runs(here, capsys, server, name,
                                                                                   text, where):
    (here / name).write_text(text)
    code, out, err = batch(capsys, "p.md", name)
    if where is None:
        assert code == 0, err
        return
    assert code == 2
    assert f"runvil: {where}" in err
    assert server.requests == 0
    assert not (here / "p.batch.db").exists()
    assert out == ""


def test_bytes_that_are_not_utf8_name_their_line(here, capsys):
    (here / "rows.txt").write_bytes(b"ok\nbad \xff\n")
    code, _, err = batch(capsys, "p.md", "rows.txt")
    assert code == 2 and "runvil: rows.txt:2: the line is not valid UTF-8" in err


def test_usage_errors(here, capsys):
    (here / "rows.txt").write_text("a\n")
    assert batch(capsys, "p.md", "missing.txt")[0] == 2
    code, _, err = batch(capsys, "p.md", "rows.txt", "-j", "0")
    assert code == 2 and "-j must be a whole number of at least 1, got 0" in err
    code, _, err = batch(capsys, "p.md", "rows.txt", "--limit", "x")
    assert code == 2 and "--limit must be a whole number of at least 0, got x" in err
    (here / "bad.md").write_text("no frontmatter\n")
    code, _, err = batch(capsys, "bad.md", "rows.txt")
    assert code == 3 and err.startswith("error[Parse]:")


# ------------------------------------------------------------- real providers


def test_rows_run_against_a_real_server_and_the_summary_line_counts_them(here, capsys, server):
    (here / "rows.txt").write_text("one\ntwo FAIL\nthree\nfour FAIL\nfive\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "-j", "3")
    assert code == 1  # a row failed; the others ran all the same
    m = one_line_summary(out)
    assert m.group(1, 2, 3) == ("5", "3", "2")
    assert m.group(4) == "2 Completion"
    got = {r["row_id"]: r for r in runs()}
    assert got["1"]["result"] == "reply: Say one back."
    assert got["1"]["rounds"] == 1 and got["1"]["prompt_tokens"] == len("Say one back.")
    assert got["2"]["ok"] == 0 and got["2"]["error_kind"] == "Completion"
    assert "status 400" in got["2"]["error_message"]
    assert got["2"]["prompt_tokens"] is None  # no round of it reported usage: unknown, not 0
    prompt_tokens = sum(r["prompt_tokens"] or 0 for r in got.values())
    assert m.group(5) == f"{prompt_tokens:,} prompt + 6 completion tokens"  # a refused round has no usage
    batches = sqlite3.connect("p.batch.db").execute("SELECT rows, ok, failed, bindings, ended FROM batches").fetchall()
    assert batches[0][:4] == (5, 3, 2, '{"writer":"local/small"}') and batches[0][4]


def test_concurrency_is_reached_the_server_sees_j_requests_at_once(here, capsys, server):
    server.delay = 0.4
    (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(16)))
    code, out, err = batch(capsys, "p.md", "rows.txt", "-j", "8")
    assert code == 0, err
    assert server.peak == 8
    assert server.requests == 16
    seconds = float(one_line_summary(out).group(6))
    assert seconds < 0.4 * 16 / 2  # well under a one-row-at-a-time batch


def test_j_bounds_the_requests_in_flight(here, capsys, server):
    server.delay = 0.2
    (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(9)))
    assert batch(capsys, "p.md", "rows.txt", "-j", "3")[0] == 0
    assert server.peak == 3


def test_a_429_storm_slows_the_batch_down_and_fails_no_row(here, capsys):
    """A rate-limited API: 3 requests a 0.5 s window, 24 rows at -j 12. The
    provider retries as for `run` (2 retries), and the batch waits the storm
    out instead of failing the rows."""
    s = BatchServer(rate=3, window=0.5).start()
    try:
        (here / "runvil.toml").write_text(config_for(s))
        (here / "rows.txt").write_text("".join(f"row {i}\n" for i in range(24)))
        code, out, err = batch(capsys, "p.md", "rows.txt", "-j", "12")
    finally:
        s.stop()
    assert code == 0, out + err
    assert one_line_summary(out).group(1, 2, 3) == ("24", "24", "0")
    assert s.refused > 0  # there was a storm
    logs = [json.loads(line) for r in runs() for line in r["log"].splitlines()]
    retries = [e for e in logs if e["type"] == "model_retry"]
    assert retries and all(e["status"] == 429 for e in retries)


def test_a_request_too_large_for_the_rate_limit_is_not_waited_for(here, capsys):
    """A 429 that says the request can never fit fails at once (retries.py)."""
    from runvil.host.batch.answering import rate_limited
    from runvil.engine.effects import ModelFailure

    assert rate_limited(ModelFailure(status=429, body="Rate limit reached"))
    assert not rate_limited(ModelFailure(status=429, body="Request too large for gpt-4o on tokens per min (TPM)"))
    assert not rate_limited(ModelFailure(status=500, body="oops"))


# ------------------------------------------------------------------ resuming


def test_running_again_runs_only_the_rows_not_done(here, capsys, server):
    (here / "rows.txt").write_text("a\nb\nc\n")
    assert batch(capsys, "p.md", "rows.txt", "--limit", "2")[0] == 0
    assert sorted(r["input"] for r in runs()) == ["a", "b"]  # the first two rows, ended in any order
    code, out, err = batch(capsys, "p.md", "rows.txt")
    assert code == 0
    assert "runvil: 2 rows already done in p.batch.db" in err
    assert one_line_summary(out).group(1) == "1"
    assert sorted(r["input"] for r in runs()) == ["a", "b", "c"]
    assert server.requests == 3  # nothing that had succeeded was sent again
    code, out, _ = batch(capsys, "p.md", "rows.txt")
    assert code == 0 and one_line_summary(out).group(1) == "0"


def test_a_changed_prompt_means_new_runs_kept_beside_the_old(here, capsys, server):
    (here / "rows.txt").write_text("a\nb\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    (here / "p.md").write_text(PROMPT.replace("Say {{input}} back.", "Repeat {{input}}."))
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    got = runs(where="1 ORDER BY batch_id, row_id")
    assert [r["result"] for r in got] == ["reply: Say a back.", "reply: Say b back.", "reply: Repeat a.",
                                          "reply: Repeat b."]
    assert len({r["prompt_sha256"] for r in got}) == 2
    assert [r["batch_id"] for r in got] == [1, 1, 2, 2]


def test_changed_bindings_or_input_mean_new_runs(here, capsys, server):
    (here / "rows.txt").write_text("a\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    (here / "rows.txt").write_text("a changed\n")  # same id (line 1), new input
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    (here / "runvil.toml").write_text(config_for(server) + '\n[models."local/other"]\nprovider = "local"\ncontext = 4096\n')
    assert batch(capsys, "p.md", "rows.txt", "--bind", "writer=local/other")[0] == 0
    assert len(runs()) == 3


def test_failed_rows_are_kept_and_rerun_only_with_retry_failed(here, capsys, server, monkeypatch):
    (here / "rows.txt").write_text("fine\nFAIL me\n")
    code, out, _ = batch(capsys, "p.md", "rows.txt")
    assert code == 1
    code, out, err = batch(capsys, "p.md", "rows.txt")
    assert code == 1  # the failed row is still failed
    assert err == ("runvil: 1 row already done in p.batch.db\n"  # the failed row is said once, after the summary
                   "runvil: 1 row of this data set failed earlier: --retry-failed runs them\n")
    assert one_line_summary(out).group(1) == "0"
    assert server.requests == 2
    monkeypatch.setattr(server, "answer", _fixed(server))
    code, out, err = batch(capsys, "p.md", "rows.txt", "--retry-failed")
    assert code == 0, err
    assert one_line_summary(out).group(1, 2) == ("1", "1")
    assert server.requests == 3  # only the failed row was sent again
    assert sorted((r["row_id"], r["ok"], r["batch_id"]) for r in runs()) == [("1", 1, 1), ("2", 0, 1), ("2", 1, 3)]


def _fixed(server):
    answer = server.answer

    def fixed(body):
        for m in body.get("messages", []):
            if isinstance(m.get("content"), str):
                m["content"] = m["content"].replace("FAIL", "fixed")
        return answer(body)

    return fixed


def test_jsonl_export_every_row_in_row_order_after_a_resume(here, capsys, server):
    (here / "rows.jsonl").write_text("".join(json.dumps({"id": f"r{i}", "input": f"v{i}", "n": i}) + "\n"
                                             for i in range(5)))
    assert batch(capsys, "p.md", "rows.jsonl", "--limit", "3", "-j", "3")[0] == 0
    assert batch(capsys, "p.md", "rows.jsonl", "--jsonl", "out.jsonl", "--all")[0] == 0
    lines = [json.loads(line) for line in (here / "out.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == ["r0", "r1", "r2", "r3", "r4"]
    assert lines[4] == {"id": "r4", "input": "v4", "metadata": {"n": 4}, "ok": True, "result": "reply: Say v4 back.",
                        "error": None, "usage": {"rounds": 1, "prompt_tokens": 12, "completion_tokens": 2,
                                                 "reasoning_tokens": 0, "rounds_without_usage": 0},
                        "seconds": lines[4]["seconds"], "run": lines[4]["run"]}
    stored = runs(where=f"id = {lines[4]['run']}")[0]
    assert (stored["row_id"], stored["batch_id"]) == ("r4", 2)


def test_jsonl_without_all_writes_the_rows_this_command_ran(here, capsys, server):
    """host.md: "`--jsonl FILE` | also write the results of the rows this
    command ran (`--all`: every row of the data set)"."""
    (here / "rows.jsonl").write_text("".join(json.dumps({"id": f"r{i}", "input": f"v{i}"}) + "\n" for i in range(5)))
    assert batch(capsys, "p.md", "rows.jsonl", "--limit", "3", "--jsonl", "first.jsonl")[0] == 0
    assert [json.loads(x)["id"] for x in (here / "first.jsonl").read_text().splitlines()] == ["r0", "r1", "r2"]
    assert batch(capsys, "p.md", "rows.jsonl", "--jsonl", "rest.jsonl")[0] == 0
    assert [json.loads(x)["id"] for x in (here / "rest.jsonl").read_text().splitlines()] == ["r3", "r4"]
    assert batch(capsys, "p.md", "rows.jsonl", "--jsonl", "none.jsonl")[0] == 0
    assert (here / "none.jsonl").read_text() == ""


# ------------------------------------------------------------- the database


def test_the_schema_of_host_md(here, capsys):
    (here / "rows.txt").write_text("a\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 0
    con = sqlite3.connect("p.batch.db")
    cols = {t: [r[1] for r in con.execute(f"PRAGMA table_info({t})")] for t in ("batches", "runs")}
    assert set(cols["batches"]) >= {"id", "prompt_path", "prompt_sha256", "data_path", "bindings", "started", "ended",
                                    "rows", "ok", "failed"}
    assert set(cols["runs"]) >= {"id", "batch_id", "row_id", "input", "metadata", "ok", "result", "error_kind",
                                 "error_message", "rounds", "prompt_tokens", "completion_tokens",
                                 "reasoning_tokens", "started", "ended", "seconds", "log"}
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    log = [json.loads(line) for line in con.execute("SELECT log FROM runs").fetchone()[0].splitlines()]
    assert log[0]["type"] == "run_started" and log[-1]["type"] == "run_ended"
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", con.execute("SELECT started FROM runs").fetchone()[0])


def test_a_database_locked_by_another_process_is_a_usage_error(here, capsys, monkeypatch):
    from runvil.host.batch import store

    monkeypatch.setattr(store, "BUSY_SECONDS", 0.3)
    (here / "rows.txt").write_text("a\n")
    holder = sqlite3.connect("p.batch.db", isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE other (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code, out, err = batch(capsys, "p.md", "rows.txt")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2
    assert err.strip().endswith("runvil: the database p.batch.db is locked by another process")
    assert out == ""


def test_a_read_only_database_is_a_usage_error(here, capsys):
    """Root writes any file whatever its mode, so as root the file is made
    immutable (chattr +i) instead: read-only for every user."""
    import os
    import subprocess

    (here / "rows.txt").write_text("a\n")
    assert batch(capsys, "p.md", "rows.txt")[0] == 0  # an existing database...
    db = here / "p.batch.db"
    os.chmod(db, 0o444)
    if os.geteuid() == 0 and subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode != 0:
        pytest.skip("root, and chattr +i does not work here: no file is read-only")
    (here / "rows.txt").write_text("a\nb\n")
    try:
        code, out, err = batch(capsys, "p.md", "rows.txt")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(db)], capture_output=True)
    assert code == 2, err
    assert "runvil: cannot write the results database p.batch.db: attempt to write a readonly database" in err
    assert out == ""


def test_no_run_stays_in_memory_after_its_row_is_stored(here, capsys):
    from runvil.engine.run import Run

    def alive() -> set:
        gc.collect()
        return {id(o) for o in gc.get_objects() if isinstance(o, Run)}

    before = alive()
    (here / "rows.txt").write_text("".join(f"r{i}\n" for i in range(30)))
    assert batch(capsys, "p.md", "rows.txt", "-j", "5")[0] == 0
    # the Lua thread keeps its last job (the last step of one run) until its next
    assert len(alive() - before) <= 1


# ------------------------------------------------------- run --db and view --run


def test_run_db_stores_a_single_run_beside_the_batches_and_view_draws_any(here, capsys):
    (here / "rows.txt").write_text("from the batch\n")
    assert batch(capsys, "p.md", "rows.txt", "--db", "all.db")[0] == 0
    assert main(["run", "p.md", "--input", "alone <b>", "--db", "all.db"]) == 0
    assert capsys.readouterr().out == "echo: Say alone <b> back.\n"
    got = runs("all.db")
    assert [(r["batch_id"], r["row_id"], r["input"]) for r in got] == [(1, "1", "from the batch"),
                                                                       (None, None, "alone <b>")]
    assert got[1]["ok"] == 1 and got[1]["rounds"] == 1 and got[1]["bindings"] == '{"writer":"echo"}'
    assert main(["view", "all.db", "--run", "2"]) == 0
    assert capsys.readouterr().out == "all-run-2.html\n"
    page = (here / "all-run-2.html").read_text()
    assert "echo: Say alone &lt;b&gt; back." in page
    assert main(["view", "all.db", "--run", "1", "-o", "one.html"]) == 0
    assert "from the batch" in (here / "one.html").read_text()
    assert main(["view", "all.db", "--run", "9"]) == 2
    assert "runvil: all.db has no run 9" in capsys.readouterr().err


def test_view_of_a_database_without_run_lists_its_runs(here, capsys, server):
    """issue: "`runvil view DB` without `--run` lists the runs"."""
    (here / "rows.txt").write_text("first row\nsecond FAIL\n")
    assert batch(capsys, "p.md", "rows.txt", "-j", "1")[0] == 1
    assert main(["view", "p.batch.db"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].split() == ["id", "batch", "row", "outcome", "rounds", "tokens", "seconds", "input"]
    assert re.match(r"^\s+1\s+1\s+1\s+ok\s+1\s+\d+\+2\s+[\d.]+\s+first row$", lines[1]), lines[1]
    assert re.match(r"^\s+2\s+1\s+2\s+failed \(Completion\)\s+1\s+unknown\s+[\d.]+\s+second FAIL$", lines[2])
    assert err == "runvil: 2 runs; runvil view p.batch.db --run ID draws one\n"
    assert not list(here.glob("*.html"))
    assert main(["view", "p.batch.db", "-o", "page.html"]) == 2
    assert capsys.readouterr().err == ("runvil: p.batch.db is a results database: --run ID names the run to draw "
                                       "(runvil view p.batch.db lists them)\n")
    (here / "x.db").write_bytes(b"SQLite format 3\0" + b"\0" * 100)
    assert main(["view", "x.db"]) == 2
    assert "runvil: cannot read the database x.db" in capsys.readouterr().err


def test_run_db_of_a_failed_run_stores_its_error(here, capsys):
    (here / "w.yaml").write_text("replies:\n  - error: {status: 400, body: 'nope'}\n")
    assert main(["run", "p.md", "--input", "x", "--script", "w.yaml", "--db", "r.db"]) == 1
    got = runs("r.db")[0]
    assert got["ok"] == 0 and got["error_kind"] == "Completion" and "status 400" in got["error_message"]


def test_view_of_a_file_that_is_not_a_results_database(here, capsys):
    (here / "x.db").write_text("")
    assert main(["view", "x.db", "--run", "1"]) == 2
    assert "runvil: x.db is not a results database of runvil" in capsys.readouterr().err


# ------------------------------------------------------------- scripted worlds


def test_a_world_is_fresh_for_every_row(here, capsys):
    (here / "w.yaml").write_text("replies:\n  - text: 'the one reply'\n    usage: {prompt_tokens: 10,"
                                 " completion_tokens: 3, reasoning_tokens: 1}\n")
    (here / "rows.txt").write_text("a\nb\nc\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "--script", "w.yaml")
    assert code == 0, err
    assert [r["result"] for r in runs()] == ["the one reply"] * 3
    assert out.startswith("3 rows: 3 ok, 0 failed · 30 prompt + 9 completion tokens (3 reasoning) · ")


def test_the_summary_line_of_host_md(here):
    from runvil.host.batch.progress import Tally

    t = Tally()
    for i in range(990):
        t.add(True, None, {"prompt_tokens": 30 if i < 180 else 31, "completion_tokens": 9 if i < 90 else 10}, 1)
    for kind, n in (("ContextExhausted", 3), ("Completion", 7)):
        for _ in range(n):
            t.add(False, kind, {}, 0)
    assert t.summary(now=t.started + 42.1) == ("1000 rows: 990 ok, 10 failed (7 Completion, 3 ContextExhausted) · "
                                                "30,510 prompt + 9,810 completion tokens · 42.1 s")


def test_every_option_of_batch_is_in_the_command_reference(capsys):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert "## runvil batch" in text
    assert main(["batch", "--help"]) == 0
    help_text = capsys.readouterr().out
    options = set(re.findall(r"^\s+(-{1,2}[a-z][a-z-]*)", help_text, re.M)) - {"-h", "--help"}
    assert {"--db", "-j", "--retry-failed", "--limit", "--jsonl", "--ray", "--workspace"} <= options
    for option in options:
        assert f"`{option}" in text, f"runvil batch {option}"


def test_ray_without_ray_installed_is_a_usage_error(here, capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as it does where Ray is not installed
    (here / "rows.txt").write_text("a\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "--ray")
    assert code == 2
    assert "runvil: --ray needs Ray: pip install 'runvil[ray]'" in err
    assert out == "" and not runs()


def test_a_model_is_answered_by_one_lean_client_keeping_a_connection_a_row(here, capsys, server, monkeypatch):
    """-j 40: one provider client, the lean HTTP/1.1 one, keeping 40
    connections open."""
    from runvil.harness.openai import OpenAIProvider

    made = []
    real = OpenAIProvider.__init__

    def keep(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(OpenAIProvider, "__init__", keep)
    (here / "rows.txt").write_text("".join(f"r{i}\n" for i in range(6)))
    assert batch(capsys, "p.md", "rows.txt", "-j", "40")[0] == 0
    assert len(made) == 1 and made[0].lean and made[0]._client.keep == 40
    assert server.requests == 6


def test_behind_a_proxy_httpx_clients_of_small_connection_pools_answer_in_turn(here, capsys, server, monkeypatch):
    """A proxy in the environment: httpx sends (it honours the proxy and
    NO_PROXY); -j 40 over clients of 16 connections each: 3 clients, used
    in turn."""
    from runvil.host.batch import runner

    made = []
    real = runner.ShardedProvider.__init__

    def keep(self, shards):
        made.append(shards)
        real(self, shards)

    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(runner.ShardedProvider, "__init__", keep)
    (here / "rows.txt").write_text("".join(f"r{i}\n" for i in range(6)))
    assert batch(capsys, "p.md", "rows.txt", "-j", "40")[0] == 0
    assert len(made) == 1 and len(made[0]) == 3 and not any(p.lean for p in made[0])
    assert server.requests == 6


def test_a_lone_surrogate_escape_in_jsonl_is_stored_as_the_replacement_character(here, capsys):
    (here / "rows.jsonl").write_text('{"id": "s\\ud800", "input": "a\\udc00b", "note": "\\ud83d"}\n'
                                     '{"input": "\\u00e9t\\u00e9"}\n')
    code, out, err = batch(capsys, "p.md", "rows.jsonl")
    assert code == 0, err
    got = {r["row_id"]: r for r in runs()}
    assert got["s\ufffd"]["input"] == "a\ufffdb"
    assert json.loads(got["s\ufffd"]["metadata"]) == {"note": "\ufffd"}
    assert got["2"]["input"] == "été"
