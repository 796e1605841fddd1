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
    from .providers import answer_concurrently

    while True:
        effects = run.step()
        if run.done:
            return run.outcome
        if requests is not None:
            requests.extend(request_record(e) for e in effects if isinstance(e, ModelRound))
        if len(effects) == 1 or not getattr(answer, "concurrent", False):
            answers = {e.id: answer(e) for e in effects}
        else:
            answers = answer_concurrently(effects, answer)
        run.resume(answers)
