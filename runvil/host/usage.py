"""What the Host tells about a run's model rounds (docs/reference/commands.md
"runvil run", docs/reference/configuration.md): usage summed
over the rounds that reached a backend, the closing line a terminal shows,
and each provider retry as a `model_retry` run event.

Decisions:
- A round "reached a provider" exactly when `--json` lists it in
  `requests`: every answered round but one whose backend could not be
  reached. Rounds of the scripted world and the echo model count too; the
  scripted world's usage is its reply's `usage`.
- A round "had usage" when its reply carried a usage object with a prompt
  or a completion count (the Harness drops one without). A round without
  adds nothing to the sums and counts in `rounds_without_usage`, so a
  server that sends no usage reads as unknown, never as 0 tokens.
- The closing line: `2 rounds · 30 prompt + 12 completion tokens (4
  reasoning) · 1.8 s`; the reasoning part only when a round reported
  reasoning tokens; `(1 round without usage)` after the tokens when some
  rounds had none, and `tokens unknown` in their place when no round had
  any.
- A `model_retry` event comes from the Harness, which does not see which
  execution or section posted a round: it carries the run's execution id
  (`0`) and no section, and names the round by `round` (as the round's
  `model_turn_*` and `debug_*` events do), `role` and `model`, with
  `attempt` (1 for the first retry), `status` (null for a connection that
  failed) and `wait` in seconds.
"""

from __future__ import annotations

import threading
import time

from ..engine.effects import ModelReply
from ..harness.drive import reached_provider

USAGE_FIELDS = ("prompt_tokens", "completion_tokens", "reasoning_tokens")
NO_USAGE = {"rounds": 0, **{k: 0 for k in USAGE_FIELDS}, "rounds_without_usage": 0}
TOKENS_UNKNOWN = "tokens unknown"


class UsageMeter:
    """An answerer that passes every effect on and sums the usage of the
    model rounds that reached a backend. Thread-safe, as rounds of one step
    may be answered at once."""

    def __init__(self, answer):
        self.answer = answer
        self.concurrent = getattr(answer, "concurrent", False)
        self.started = time.monotonic()
        self.rounds = 0
        self.reported = 0  # rounds whose reply carried usage
        self.totals = dict.fromkeys(USAGE_FIELDS, 0)
        self._lock = threading.Lock()

    def __call__(self, effect):
        got = self.answer(effect)
        if reached_provider(effect, got):
            self.add(got.usage if isinstance(got, ModelReply) else None)
        return got

    def add(self, usage) -> None:
        with self._lock:
            self.rounds += 1
            counts = {k: v for k in USAGE_FIELDS if isinstance(usage, dict)
                      and isinstance(v := usage.get(k), int) and not isinstance(v, bool) and v > 0}
            if counts.get("prompt_tokens") or counts.get("completion_tokens"):
                self.reported += 1
                for k, v in counts.items():
                    self.totals[k] += v

    def as_json(self) -> dict:
        with self._lock:
            return {"rounds": self.rounds, **self.totals, "rounds_without_usage": self.rounds - self.reported}

    def closing_line(self, now: float | None = None) -> str:
        """`2 rounds · 30 prompt + 12 completion tokens (4 reasoning) · 1.8 s`."""
        seconds = (time.monotonic() if now is None else now) - self.started
        return " · ".join([*usage_parts(self.as_json()), f"{seconds:.1f} s"])


def usage_parts(usage) -> list[str]:
    """`2 rounds`, then `30 prompt + 12 completion tokens (4 reasoning)` or
    `tokens unknown`, from the usage fields of `--json` or of a stored run
    (where unknown tokens are NULL)."""
    rounds, missing = usage["rounds"] or 0, usage["rounds_without_usage"] or 0
    parts = [f"{rounds} round{'' if rounds == 1 else 's'}"]
    if rounds > missing and usage["prompt_tokens"] is not None:
        tokens = f"{usage['prompt_tokens']} prompt + {usage['completion_tokens'] or 0} completion tokens"
        if usage["reasoning_tokens"]:
            tokens += f" ({usage['reasoning_tokens']} reasoning)"
        if missing:
            tokens += f" ({missing} round{'' if missing == 1 else 's'} without usage)"
        parts.append(tokens)
    elif rounds:
        parts.append(TOKENS_UNKNOWN)
    return parts


def report_retries(answerer, run) -> None:
    """Makes each retry of the real providers behind `answerer` (found
    through wrappers' `models`) a `model_retry` event of `run`."""
    target = answerer
    while target is not None and not hasattr(target, "on_retry"):
        target = getattr(target, "models", None)
    if target is None:
        return

    def on_retry(effect, attempt: int, status: int | None, wait: float) -> None:
        run.events.emit("model_retry", "0", None, round=effect.id, role=effect.role, model=effect.model,
                        attempt=attempt, status=status, wait=round(wait, 3))

    target.on_retry = on_retry
