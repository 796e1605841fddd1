"""Driving a run: step, answer every pending effect, resume, until it ends.

The answerer is a function from an effect to its answer. When it says it
is `concurrent` (real providers, the Packs' tools), the independent effects
of one step are answered at the same time: the bound calls of one batch,
the rounds of concurrent tasks.
"""

from __future__ import annotations

from ..engine.effects import ModelFailure, ModelRound


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
    reached a provider is recorded in `requests`, whatever came back
    (docs/reference/commands.md "runvil run"); a backend that could not be
    reached never received it."""
    while True:
        effects = run.step()
        if run.done:
            return run.outcome
        if len(effects) == 1 or not getattr(answer, "concurrent", False):
            answers = {e.id: answer(e) for e in effects}
        else:  # imported here: the provider code costs start-up on echo runs
            from .providers import answer_concurrently

            answers = answer_concurrently(effects, answer)
        if requests is not None:
            requests.extend(
                request_record(e)
                for e in effects
                if reached_provider(e, answers.get(e.id))
            )
        run.resume(answers)


def reached_provider(effect, answer) -> bool:
    """A model round reached a provider whatever came back, unless its
    backend could not be reached: what `requests` lists and usage counts."""
    return isinstance(effect, ModelRound) and not (isinstance(answer, ModelFailure) and answer.unreachable is not None)
