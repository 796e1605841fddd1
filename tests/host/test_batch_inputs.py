"""`runvil batch`'s inputs and outputs (docs/reference/commands.md "Batches"): outputs never
write over inputs, DATA from a pipe or `-` is read once, a row is bounded
as a run's input is, and bad rows are named in runvil's words.

docs/reference/commands.md: "`--jsonl FILE` | also write the results of the rows this command
ran ...; never a path that is one of the command's inputs"; "DATA `-` is
standard input (`--format jsonl|csv|text` where no extension says it); a
pipe is read once. A row, like `--input`, is at most 16 MB."
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from runvil.host.batch import data as batch_data
from runvil.host.cli import main

from .test_batch import PROMPT, batch, here, runs  # noqa: F401  (fixtures)

REQUIRING = PROMPT.replace("models.default('writer')", "models.default('writer')\nlocal lib = require('lib')")


def env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("RUNVIL_CONFIG", "RUNVIL_TRACEBACK")}


def snapshot(folder) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


# ------------------------------------------------------------------ outputs over inputs


@pytest.mark.parametrize("extra, message", [
    (["--jsonl", "rows.txt"], "--jsonl rows.txt would write over the data file rows.txt; give another file"),
    (["--jsonl", "p.md"], "--jsonl p.md would write over the prompt p.md; give another file"),
    (["--jsonl", "./link.txt"], "--jsonl ./link.txt would write over the data file rows.txt; give another file"),
    (["--jsonl", "p.batch.db"],
     "--jsonl p.batch.db would write over the results database p.batch.db; give another file"),
    (["--db", "out.db", "--jsonl", "sub/../out.db"],
     "--jsonl sub/../out.db would write over the results database out.db; give another file"),
    (["--db", "rows.txt"], "--db rows.txt would write over the data file rows.txt; give another file"),
    (["--db", "p.md"], "--db p.md would write over the prompt p.md; give another file"),
    (["--script", "w.yaml", "--jsonl", "w.yaml"],
     "--jsonl w.yaml would write over the world w.yaml; give another file"),
    (["--jsonl", "runvil.toml"],
     "--jsonl runvil.toml would write over the config runvil.toml; give another file"),
    (["--config", "c.toml", "--db", "hard.toml"],
     "--db hard.toml would write over the config c.toml; give another file"),
])
def test_an_output_that_is_an_input_is_refused_and_nothing_is_written(here, capsys, extra, message):
    (here / "rows.txt").write_text("one\ntwo\n")
    (here / "w.yaml").write_text("replies:\n  - text: hi\n")
    (here / "runvil.toml").write_text("")
    (here / "c.toml").write_text("")
    os.link(here / "c.toml", here / "hard.toml")
    os.symlink("rows.txt", here / "link.txt")
    (here / "sub").mkdir()
    before = snapshot(here)
    code, out, err = batch(capsys, "p.md", "rows.txt", *extra)
    assert (code, out, err) == (2, "", f"runvil: {message}\n")
    assert snapshot(here) == before  # the rows, the prompt, the world, the config as they were; no database


def test_jsonl_over_a_module_the_rows_required_is_refused_after_the_run(here, capsys):
    (here / "p.md").write_text(REQUIRING)
    (here / "lib.lua").write_text("return {}\n")
    (here / "rows.txt").write_text("one\n")
    code, out, err = batch(capsys, "p.md", "rows.txt", "--jsonl", "lib.lua")
    assert code == 2
    assert err.endswith("runvil: --jsonl lib.lua would write over the module "
                        f"{here / 'lib.lua'}; give another file\n")
    assert (here / "lib.lua").read_text() == "return {}\n"
    assert len(runs()) == 1  # the row ran and is stored


def test_an_unwritable_jsonl_fails_before_any_row_runs_and_an_existing_one_is_not_emptied_first(here, capsys):
    (here / "rows.txt").write_text("one\n")
    assert batch(capsys, "p.md", "rows.txt", "--jsonl", "no/such/folder/out.jsonl")[0] == 2
    assert not (here / "p.batch.db").exists() or runs() == []


# ------------------------------------------------------------------ DATA from a pipe


def test_data_from_standard_input_with_format(here):
    rows = "".join(json.dumps({"id": f"r{i}", "input": f"v{i}"}) + "\n" for i in range(5))
    p = subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "-", "--format", "jsonl"],
                       cwd=here, env=env(), input=rows, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("5 rows: 5 ok, 0 failed")
    assert sorted(r["row_id"] for r in runs(str(here / "p.batch.db"))) == [f"r{i}" for i in range(5)]
    con = sqlite3.connect(here / "p.batch.db")
    assert con.execute("SELECT data_path FROM batches").fetchone()[0] == "standard input"
    con.close()
    import tempfile

    temp = tempfile.gettempdir()
    leftovers = [n for n in os.listdir(temp) if n.startswith("runvil-data-")
                 and os.path.getmtime(os.path.join(temp, n)) >= os.path.getmtime(here / "p.md")]
    assert leftovers == []  # the spooled copy is removed at the end


@pytest.mark.parametrize("how", ["/dev/stdin", "<(cat rows.src)", "-"])
def test_a_pipe_is_read_once_and_every_row_runs(here, how):
    (here / "rows.src").write_text("".join(f"row {i}\n" for i in range(7)))
    cmd = f"cat rows.src | {sys.executable} -m runvil.host.cli batch p.md {how}"
    p = subprocess.run(["bash", "-c", cmd], cwd=here, env=env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("7 rows: 7 ok, 0 failed"), p.stdout
    assert len(runs(str(here / "p.batch.db"))) == 7


def test_a_bad_row_from_standard_input_is_named_so(here):
    p = subprocess.run([sys.executable, "-m", "runvil.host.cli", "batch", "p.md", "-", "--format", "jsonl"],
                       cwd=here, env=env(), input='{"input": "a"}\n[1]\n', capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2
    assert p.stderr == "runvil: standard input:2: a row must be a JSON object, got an array\n"


# ------------------------------------------------------------------ the size of a row


@pytest.fixture
def small_rows(monkeypatch):
    monkeypatch.setattr(batch_data, "MAX_ROW_BYTES", 100)
    return 100


@pytest.mark.parametrize("name, text, line", [
    ("rows.txt", "short\n" + "x" * 101 + "\nafter\n", 2),
    ("rows.jsonl", '{"input": "a"}\n{"input": "' + "y" * 100 + '"}\n', 2),
    ("rows.csv", "id,input\n1,a\n2,\"" + "z\n" * 60 + "\"\n", 3),
])
def test_a_row_longer_than_a_run_input_is_named_with_the_bound(here, capsys, small_rows, name, text, line):
    (here / name).write_text(text)
    code, out, err = batch(capsys, "p.md", name)
    assert code == 2
    assert err == f"runvil: {name}:{line}: the row is more than 100 bytes, the most a run's input may be\n"
    assert out == ""


def test_a_row_of_exactly_the_bound_runs(here, capsys, small_rows):
    (here / "rows.txt").write_text("x" * 100 + "\r\n")
    code, out, err = batch(capsys, "p.md", "rows.txt")
    assert code == 0, err
    assert runs()[0]["input"] == "x" * 100


def test_a_csv_field_longer_than_pythons_default_bound_is_read(here, capsys):
    """Python's csv stops at 131,072 characters a field, in its own words;
    a batch's bound is a run's input's."""
    big = "w" * 200_000
    (here / "rows.csv").write_text(f"input\n{big}\n")
    code, out, err = batch(capsys, "p.md", "rows.csv")
    assert code == 0, err
    assert runs()[0]["input"] == big
    import csv

    assert csv.field_size_limit() == 131072  # the process-wide setting is left as it was


def test_a_huge_line_is_never_read_whole(here):
    """A line of 400 MB (a sparse file: no disk) is refused at the 16 MB
    bound while it is read: the process never holds the line."""
    with open(here / "rows.txt", "wb") as f:
        f.write(b"ok\n")
        f.truncate(3 + 400 * (1 << 20))
    with open(here / "rows.txt", "ab") as f:
        f.write(b"\n")
    # VmHWM, not ru_maxrss: Linux keeps in ru_maxrss the resident size the
    # process had before its exec, that is the forking test worker's
    code = ("import sys\nfrom runvil.host.cli import main\nc = main(['batch', 'p.md', 'rows.txt'])\n"
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
            "print(hwm, file=sys.stderr)\nsys.exit(c)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=here, env=env(), capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    message, rss = p.stderr.splitlines()
    assert message == "runvil: rows.txt:2: the row is more than 16777216 bytes, the most a run's input may be"
    assert int(rss) < 200 * 1024, rss  # kilobytes on Linux: far below the line's 400 MB


# ------------------------------------------------------------------ rows named in runvil's words


def test_an_id_of_5000_digits_is_named(here, capsys):
    lines = [json.dumps({"input": f"v{i}"}) for i in range(6)] + ['{"id": ' + "7" * 5000 + ', "input": "x"}']
    (here / "rows.jsonl").write_text("\n".join(lines) + "\n")
    code, out, err = batch(capsys, "p.md", "rows.jsonl")
    assert code == 2
    assert err == ("runvil: rows.jsonl:7: the id has 5000 digits; a whole-number id has at most 4300 "
                   "(give a longer one as a string)\n")
    assert "sys.set_int_max_str_digits" not in err


def test_a_number_of_5000_digits_elsewhere_is_named(here, capsys):
    (here / "rows.jsonl").write_text('{"input": ' + "9" * 5000 + '}\n')
    code, out, err = batch(capsys, "p.md", "rows.jsonl")
    assert code == 2
    assert err == "runvil: rows.jsonl:1: a number of the row has 5000 digits; a number has at most 4300\n"


def test_a_csv_without_the_input_column_lists_its_columns_and_names_input_column(here, capsys):
    (here / "rows.csv").write_text("id,text,lang\n1,hello,en\n")
    code, out, err = batch(capsys, "p.md", "rows.csv")
    assert code == 2
    assert err == ("runvil: rows.csv:1: the header has no column `input` (its columns: `id`, `text`, `lang`); "
                   "--input-column NAME names the column that holds the input\n")
    code, out, err = batch(capsys, "p.md", "rows.csv", "--input-column", "text")
    assert code == 0, err
