"""Every command's outputs against its inputs (runvil/host/outputs.py):
`run --db`, `run --log` over the config in use, `chat --log`,
`conformance --junit` and `view -o` are refused before anything is
written, named, with exit status 2."""

from __future__ import annotations

import pytest

from runvil.host.cli import main

from .test_batch import PROMPT

CASE = """- name: hello
  prompt: |
    ---
    name: hello
    description: Says hello.
    runvil: 0
    ---

    # Hello

    ```lua
    return 'hello'
    ```
  expect:
    ok: true
    result: hello
"""


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    (tmp_path / "p.md").write_text(PROMPT)
    (tmp_path / "w.yaml").write_text("replies:\n  - text: hi\n")
    (tmp_path / "runvil.toml").write_text("")
    (tmp_path / "case.yaml").write_text(CASE)
    return tmp_path


def snapshot(folder) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("argv, message", [
    (["run", "p.md", "--db", "p.md"], "--db p.md would write over the prompt p.md; give another file"),
    (["run", "p.md", "--script", "w.yaml", "--db", "w.yaml"],
     "--db w.yaml would write over the world w.yaml; give another file"),
    (["run", "p.md", "--log", "runvil.toml"],
     "--log runvil.toml would write over the config runvil.toml; give another file"),
    (["run", "p.md", "--log", "out.db", "--db", "out.db"],
     "--db out.db would write over the file --log writes; give another file"),
    (["chat", "--script", "w.yaml", "--log", "w.yaml"],
     "--log w.yaml would write over the world w.yaml; give another file"),
    (["chat", "--log", "./runvil.toml"],
     "--log ./runvil.toml would write over the config runvil.toml; give another file"),
    (["conformance", "case.yaml", "--junit", "case.yaml"],
     "--junit case.yaml would write over the case file case.yaml; give another file"),
])
def test_an_output_over_an_input_is_refused_and_nothing_is_written(folder, capsys, argv, message):
    before = snapshot(folder)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"runvil: {message}\n")
    assert snapshot(folder) == before


def test_a_conformance_report_beside_its_cases_is_written(folder, capsys):
    assert main(["conformance", "case.yaml", "--junit", "report.xml"]) == 0
    assert (folder / "report.xml").read_text().startswith("<?xml")
