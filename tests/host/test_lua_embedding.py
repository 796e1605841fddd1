"""runvil embedded in a Python host whose stdout and stderr are text streams
(a notebook's, `contextlib.redirect_stdout(io.StringIO())`): every command
works, and `os.exit` ends the Lua run, not the host."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

import pytest

from runvil.host.cli import main

ROOT = Path(__file__).resolve().parents[2]


def embedded(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def hello(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    shutil.copy(ROOT / "examples" / "hello.md", tmp_path / "hello.md")
    return tmp_path / "hello.md"


def test_lua_writes_to_a_text_stream(hello):
    code, out, err = embedded("lua", "-e", "print('hi', 1.5) io = nil", "-e", "print(('\\xe2\\x82\\xac\\xff'))")
    assert (code, out, err) == (0, "hi\t1.5\n€\udcff\n", "")


def test_lua_errors_go_to_a_text_stderr(hello):
    code, out, err = embedded("lua", "-e", "error('boom')")
    assert code == 1 and err.startswith("runvil: (command line):1: boom\n")


def test_os_exit_ends_the_lua_run_not_the_host(hello):
    code, out, err = embedded("lua", "--allow", "os", "-e", "print('before') os.exit(3) print('after')")
    assert (code, out) == (3, "before\n")
    code, out, err = embedded("lua", "--allow", "os", "-e", "os.exit(true)")
    assert code == 0
    code, out, err = embedded("lua", "--allow", "os", "-e", "os.exit(false)")
    assert code == 1


def test_every_command_runs_under_text_streams(hello, tmp_path):
    assert embedded("--help")[0] == 0
    code, out, err = embedded("run", "hello.md", "--log", "run.jsonl")
    assert (code, out) == (0, "echo: hello\n"), err
    code, out, err = embedded("check", "hello.md")
    assert code == 0, err
    code, out, err = embedded("models", "hello.md")
    assert code == 0 and "writer" in out, err
    code, out, err = embedded("view", "run.jsonl", "-o", "run.html")
    assert code == 0 and (tmp_path / "run.html").exists(), err
    (tmp_path / "rows.txt").write_text("one\ntwo\n", encoding="utf-8")
    code, out, err = embedded("batch", "hello.md", "rows.txt", "-j", "1", "--db", "b.db")
    assert code == 0, err
    code, out, err = embedded("conformance", "-k", "hello")
    assert code in (0, 1) and "internal error" not in err + out, err
    for command in ("run", "lua", "check", "models", "view", "conformance", "batch"):
        code, out, err = embedded(command, "--help")
        assert code == 0 and "usage:" in out, (command, err)


def test_the_repl_and_stdin_chunks_read_a_text_stdin(hello, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("print(1)\n1 + 1\nerror('x')\n"))
    assert embedded("lua") == (0, "1\n2\n", "stdin:1: x\n")
    monkeypatch.setattr("sys.stdin", io.StringIO("print('from stdin', ...)\n"))
    assert embedded("lua", "-", "a") == (0, "from stdin\ta\n", "")
