"""Outputs that cannot destroy inputs, and terminal output that obeys no
control sequence from a model, a tool or a prompt (issue 26, item 8):

    `runvil view run.html` overwrites the log with its page, and `--log`,
    `--view`, `--record` given the prompt's own path overwrite the prompt
    ... provider text with OSC 52 (clipboard write), OSC 0 and `CSI 2J`
    reaches the terminal raw (streamed text, `print` lines, errors)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from runvil.host.cli import main
from runvil.host.termtext import for_terminal
from tests.host.terminal import on_a_terminal

PROMPT = """---
name: outputs
description: Asks once and prints.
runvil: 0
models:
  writer: {}
---

# Ask

```lua
models.use('writer')
messages:user('hello')
models.loop()
print('printed: ' .. messages[#messages].content)
if input == 'fail' then error('failed with ' .. messages[#messages].content) end
return messages[#messages].content
```
"""

WORLD = "replies:\n  - text: \"hello\"\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "p.md").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "w.yaml").write_text(WORLD, encoding="utf-8")
    (tmp_path / "in.txt").write_text("the input", encoding="utf-8")
    (tmp_path / "c.toml").write_text("[limits]\nblock_steps = 1000000\n", encoding="utf-8")
    os.symlink(tmp_path / "p.md", tmp_path / "link.md")
    os.link(tmp_path / "w.yaml", tmp_path / "hard.yaml")
    return tmp_path


def originals(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in ("p.md", "w.yaml", "in.txt", "c.toml")}


CLASHES = [
    (["--log", "{d}/p.md"], "--log {d}/p.md would write over the prompt {d}/p.md; give another file"),
    (["--view", "{d}/p.md"], "--view {d}/p.md would write over the prompt {d}/p.md; give another file"),
    (["--record", "{d}/p.md"], "--record {d}/p.md would write over the prompt {d}/p.md; give another file"),
    (["--log", "{d}/w.yaml"], "--log {d}/w.yaml would write over the world {d}/w.yaml; give another file"),
    (["--log", "{d}/hard.yaml"], "--log {d}/hard.yaml would write over the world {d}/w.yaml; give another file"),
    (["--view", "{d}/link.md"], "--view {d}/link.md would write over the prompt {d}/p.md; give another file"),
    (["--log", "{d}/in.txt", "--input-file", "{d}/in.txt"],
     "--log {d}/in.txt would write over the input file {d}/in.txt; give another file"),
    (["--record", "{d}/c.toml", "--config", "{d}/c.toml"],
     "--record {d}/c.toml would write over the config {d}/c.toml; give another file"),
    (["--log", "{d}/out", "--view", "{d}/sub/../out"],
     "--view {d}/sub/../out would write over the file --log writes; give another file"),
    (["--log", "{d}/./p.md"], "--log {d}/./p.md would write over the prompt {d}/p.md; give another file"),
]


@pytest.mark.parametrize("extra, message", CLASHES)
def test_an_output_over_an_input_is_a_usage_error(files, capsys, extra, message):
    d = str(files)
    before = originals(files)
    (files / "sub").mkdir()
    argv = ["run", f"{d}/p.md", "--script", f"{d}/w.yaml", *[a.format(d=d) for a in extra]]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err == f"runvil: {message.format(d=d)}\n" and out == ""
    assert originals(files) == before
    assert not (files / "out").exists()


def test_outputs_beside_the_inputs_are_written(files, capsys):
    d = str(files)
    assert main(["run", f"{d}/p.md", "--script", f"{d}/w.yaml", "--log", f"{d}/run.jsonl",
                 "--view", f"{d}/run.html"]) == 0
    assert (files / "run.jsonl").stat().st_size and (files / "run.html").stat().st_size


def test_the_viewer_never_writes_its_page_over_its_log(files, capsys):
    d = str(files)
    assert main(["run", f"{d}/p.md", "--script", f"{d}/w.yaml", "--log", f"{d}/run.html"]) == 0
    capsys.readouterr()
    log = (files / "run.html").read_bytes()
    assert main(["view", f"{d}/run.html"]) == 2  # the default page is the log's name with .html
    assert capsys.readouterr().err == (f"runvil: the page {d}/run.html would write over the log {d}/run.html; "
                                       "give another file\n")
    assert main(["view", f"{d}/run.html", "-o", f"{d}/./run.html"]) == 2
    assert capsys.readouterr().err == (f"runvil: -o {d}/./run.html would write over the log {d}/run.html; "
                                       "give another file\n")
    assert (files / "run.html").read_bytes() == log
    assert main(["view", f"{d}/run.html", "-o", f"{d}/page.html"]) == 0


# ------------------------------------------------------------------ control sequences

#: what a hostile reply carries: a clipboard write, a window title, a clear screen, a line overwrite
HOSTILE = "A\x1b]52;c;cm0gLXJmIH4=\x07B\x1b]0;pwned\x07C\x1b[2JD\rE\x9b2J"
OBEYED = [b"\x1b]52", b"\x1b]0;", b"\x1b[2J", b"\rE", "\x9b".encode()]


def test_for_terminal_escapes_every_control_but_newline_and_tab():
    assert for_terminal(HOSTILE) == "A\\x1b]52;c;cm0gLXJmIH4=\\x07B\\x1b]0;pwned\\x07C\\x1b[2JD\\x0dE\\x9b2J"
    assert for_terminal("a\tb\nc\r\n") == "a\tb\nc\n"
    assert for_terminal("plain é 🙂") == "plain é 🙂"


@pytest.mark.parametrize("how", ["result", "error"])
def test_a_hostile_reply_reaches_the_terminal_escaped(tmp_path, how):
    """Streamed-or-printed reply, `print` line and error message on a real
    pseudo-terminal (stdout and stderr both on it): no sequence in the raw
    form a terminal obeys, while our own colours (the dim print line) stay."""
    import yaml

    (tmp_path / "p.md").write_text(PROMPT, encoding="utf-8")
    world = {"input": "fail" if how == "error" else "ok", "replies": [{"text": HOSTILE, "fragments": list(HOSTILE)}]}
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(world), encoding="utf-8")
    code, _, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "run", str(tmp_path / "p.md"),
                                   "--script", str(tmp_path / "w.yaml")], streams=("stdout", "stderr"),
                                  env={**os.environ, "RUNVIL_CONFIG": ""}, timeout=60)
    assert code == (1 if how == "error" else 0)
    for raw in OBEYED:
        assert raw not in seen, (raw, seen)
    assert b"\\x1b]52;c;cm0gLXJmIH4=\\x07" in seen
    assert b"\x1b[2mprinted: A\\x1b]52" in seen  # the print line, dimmed by us
    if how == "error":
        assert b"failed with A\\x1b]52" in seen


def test_a_hostile_reply_through_a_pipe_is_left_as_it_is(files, capsys):
    """Only a terminal obeys control sequences: a pipe or a file gets the
    reply exactly (it may be data)."""
    import yaml

    (files / "w.yaml").unlink()
    (files / "w.yaml").write_text(yaml.safe_dump({"replies": [{"text": HOSTILE}]}), encoding="utf-8")
    assert main(["run", str(files / "p.md"), "--script", str(files / "w.yaml")]) == 0
    assert capsys.readouterr().out == HOSTILE + "\n"


def test_json_on_a_terminal_escapes_c1_controls_and_stays_json(tmp_path):
    """JSON escapes C0 controls itself, not C1 ones (U+009B is a CSI)."""
    import json

    import yaml

    (tmp_path / "p.md").write_text(PROMPT, encoding="utf-8")
    (tmp_path / "w.yaml").write_text(yaml.safe_dump({"replies": [{"text": HOSTILE}]}), encoding="utf-8")
    code, _, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "run", str(tmp_path / "p.md"),
                                   "--script", str(tmp_path / "w.yaml"), "--json"], streams=("stdout",),
                                  env={**os.environ, "RUNVIL_CONFIG": ""}, timeout=60)
    assert code == 0
    for raw in OBEYED:
        assert raw not in seen, raw
    assert json.loads(seen.decode("utf-8"))["result"] == HOSTILE
