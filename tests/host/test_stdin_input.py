"""stdin as the run's input (docs/reference/commands.md, `runvil run` options): `--input-file
-` reads stdin; with neither `--input` nor `--input-file`, stdin is the
input when it is a pipe or a regular file (not a terminal, not /dev/null,
not a socket), and an empty one is no input; then the world's `input`.
The 16 MB bound holds for stdin too."""

from __future__ import annotations

import io
import os
import socket
import sys
import threading

import pytest

from runvil.host.runcmd import MAX_INPUT_BYTES

PROMPT = ("---\nname: t\ndescription: Shows its input.\nrunvil: 0\n---\n\n# T\n\n"
          "```lua\nreturn '[' .. tostring(input) .. ']'\n```\n")


@pytest.fixture
def cli(cli, tmp_path, monkeypatch):
    """`runvil run p.md ARGS` (the shared `cli`) with `stdin` as its stdin."""
    (tmp_path / "p.md").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "w.yaml").write_text("input: from the world\nreplies: []\n", encoding="utf-8")

    def run(stdin, *argv):
        monkeypatch.setattr(sys, "stdin", stdin)
        return cli("run", "p.md", *argv)

    return run


def pipe(data: bytes):
    """The read end of a real pipe holding `data` (written by a thread, so
    more than a pipe's buffer fits), as text stdin with a buffer."""
    r, w = os.pipe()

    def write():
        with os.fdopen(w, "wb") as f:
            try:
                f.write(data)
            except BrokenPipeError:
                pass

    threading.Thread(target=write, daemon=True).start()
    return io.TextIOWrapper(os.fdopen(r, "rb"))


def test_a_pipe_is_the_input(cli):
    assert cli(pipe(b"hello\n"))[:2] == (0, "[hello\n]\n")


def test_an_empty_pipe_is_no_input(cli):
    assert cli(pipe(b""))[:2] == (0, "[nil]\n")


def test_a_regular_file_is_the_input_and_dev_null_is_not(cli, tmp_path):
    (tmp_path / "in.txt").write_bytes(b"from a file")
    with open(tmp_path / "in.txt") as f:
        assert cli(f)[:2] == (0, "[from a file]\n")
    with open(os.devnull) as f:
        assert cli(f)[:2] == (0, "[nil]\n")


def test_a_socket_is_not_read(cli):
    a, b = socket.socketpair()
    try:
        with a.makefile("r") as f:
            assert cli(f)[:2] == (0, "[nil]\n")  # never waits on it
    finally:
        a.close()
        b.close()


def test_input_file_dash_reads_stdin_and_input_wins_over_stdin(cli):
    assert cli(pipe(b"piped"), "--input-file", "-")[:2] == (0, "[piped]\n")
    assert cli(pipe(b"piped"), "--input", "given")[:2] == (0, "[given]\n")


def test_stdin_comes_before_the_worlds_input_and_an_empty_one_leaves_it(cli):
    assert cli(pipe(b"piped"), "--script", "w.yaml")[:2] == (0, "[piped]\n")
    assert cli(pipe(b""), "--script", "w.yaml")[:2] == (0, "[from the world]\n")


@pytest.mark.parametrize("flags, what", [((), "stdin"), (("--input-file", "-"), "--input-file -")])
def test_stdin_is_bounded_as_an_input_file_is(cli, flags, what):
    code, out, err = cli(pipe(b"x" * (MAX_INPUT_BYTES + 10)), *flags)
    assert (code, out) == (2, "")
    assert err == f"runvil: {what} is more than {MAX_INPUT_BYTES} bytes, the most a run's input may be\n"
