"""Driving a run: step, answer every pending effect, resume, until it ends.

The answerer is a function from an effect to its answer; independent
effects of one step may be answered concurrently by a real provider.
"""

from __future__ import annotations

from ..engine.effects import ModelRound


def request_record(effect: ModelRound) -> dict:
    """A request as `--json` shows it: exactly as composed by the Engine."""
    return {
        "role": effect.role,
        "model": effect.model,
        "origin": effect.origin,
        "messages": [dict(m) for m in effect.messages],
        "tools": [t["name"] for t in effect.tools],
    }


def drive(run, answer, requests: list | None = None):
    """Runs to the end; returns the run's outcome. Every model round that
    reached the answerer is recorded in `requests`, whatever came back."""
    while True:
        effects = run.step()
        if run.done:
            return run.outcome
        answers = {}
        for e in effects:
            if requests is not None and isinstance(e, ModelRound):
                requests.append(request_record(e))
            answers[e.id] = answer(e)
        run.resume(answers)
