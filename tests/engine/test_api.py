"""The Python API (runvil/__init__.py): parse_file, run, prompt.start."""

from __future__ import annotations

from pathlib import Path

import pytest

import runvil
from runvil.engine.effects import ModelReply

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_parse_and_run_on_the_echo_model():
    prompt = runvil.parse_file(EXAMPLES / "hello.md")
    assert runvil.run(prompt) == "echo: hello"


def test_run_with_a_scripted_world_mapping():
    prompt = runvil.parse_file(EXAMPLES / "hello.md")
    assert runvil.run(prompt, script={"replies": [{"text": "bonjour"}]}) == "bonjour"


def test_start_is_the_sans_io_engine():
    prompt = runvil.parse_file(EXAMPLES / "hello.md")
    from runvil.engine.run import ModelBinding

    run = prompt.start(bindings={"writer": ModelBinding("m")})
    (effect,) = run.step()
    run.resume({effect.id: ModelReply(text="salut")})
    assert run.step() == [] and run.outcome.result == "salut"


def test_parse_errors_and_run_failures_raise():
    with pytest.raises(runvil.ParseError):
        runvil.parse_text("no frontmatter", path="x.md")
    prompt = runvil.parse_file(EXAMPLES / "hello.md")
    with pytest.raises(runvil.RunFailed, match="error\\[Completion\\]"):
        runvil.run(prompt, script={"replies": []})


def test_a_binding_may_be_a_catalog_model_id():
    prompt = runvil.parse_file(EXAMPLES / "hello.md")
    run = prompt.start(bindings={"writer": "gpt-test"})
    (effect,) = run.step()
    assert (effect.role, effect.model) == ("writer", "gpt-test")
    run.cancel()
