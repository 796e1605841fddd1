"""Driving a run: the `requests` of `--json` list what reached a provider."""

from __future__ import annotations

from pathlib import Path

import runvil
from runvil.engine.effects import ModelFailure
from runvil.harness.drive import drive

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def requests_for(failure: ModelFailure) -> list:
    run = runvil.parse_file(EXAMPLES / "hello.md").start(bindings={"writer": "m"})
    requests: list = []
    outcome = drive(run, lambda effect: failure, requests)
    assert outcome.error.kind == "Completion"
    return requests


def test_a_backend_that_could_not_be_reached_received_no_request():
    assert requests_for(ModelFailure(unreachable="connection refused")) == []


def test_a_request_the_provider_rejected_is_listed():
    (request,) = requests_for(ModelFailure(status=500, body="down"))
    assert request["messages"] == [{"role": "user", "content": "hello"}]
