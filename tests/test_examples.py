"""Every prompt in examples/ runs to a result on the offline echo model."""

from __future__ import annotations

from pathlib import Path

import pytest

import runvil

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.md"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_on_the_echo_model(path):
    result = runvil.run(runvil.parse_file(path))
    assert result  # word-count computes its result in Lua; the others ask the model
    assert path.stem == "word-count" or result.startswith("echo: ")


def test_fanout_answers_in_input_order():
    result = runvil.run(runvil.parse_file(Path(__file__).resolve().parents[1] / "examples" / "fanout.md"))
    assert [line.split(" what is ")[1].split(" ")[0] for line in result.splitlines()] == ["Paris", "Lisbon", "Oslo"]
