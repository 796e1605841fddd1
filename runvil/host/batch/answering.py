"""Who answers a batch's rows: the world every row shares (the providers'
connections, the echo model, a scripted world read once), and each row's
own answerer (a fresh copy of the scripted world, its own Packs workspace,
its own usage count).

A 429 storm slows the batch down instead of failing its rows: the rounds
in flight to the providers pass a `RateGate`, which each rate-limit answer
halves and holds for the wait the provider asked for, and a round the
provider still refuses with 429 after its own retries
(docs/reference/configuration.md) is asked again through the gate, up to
STORM_RETRIES times.
"""

from __future__ import annotations

import copy
import threading
import time

from ...engine.effects import ModelFailure, ModelRound, ToolCall
from ...harness.answerer import Answerer
from ...harness.retries import RetryPolicy, retryable_status
from ..usage import UsageMeter

STORM_RETRIES = 6  # rounds asked again after the provider's own retries ended in 429
STORM_BACKOFF = RetryPolicy(max_retries=STORM_RETRIES, backoff_start=1.0, backoff_cap=30.0)


class RateGate:
    """How many rounds may be in flight to the providers: at first the
    batch's concurrency; a rate-limit answer halves it (once per storm, not
    once per refused round) and holds every new round until the provider's
    wait has passed; each round that gets through raises it by 1/limit, so
    it grows back by about one per round trip of the whole window (additive
    increase, multiplicative decrease, as TCP does)."""

    def __init__(self, limit: int):
        self.most = max(1, limit)
        self.limit = float(self.most)
        self.in_flight = 0
        self.hold_until = 0.0
        self.lowest = self.most  # the smallest window the storm forced (reported by tests)
        self._cond = threading.Condition()

    def enter(self) -> None:
        with self._cond:
            while True:
                wait = self.hold_until - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                elif self.in_flight < int(self.limit):
                    self.in_flight += 1
                    return
                else:
                    self._cond.wait()

    def leave(self, limited: bool) -> None:
        with self._cond:
            self.in_flight -= 1
            if not limited:
                self.limit = min(float(self.most), self.limit + 1.0 / self.limit)
            self._cond.notify_all()

    def storm(self, wait: float) -> None:
        """A provider answered 429 and asks for `wait` seconds."""
        with self._cond:
            now = time.monotonic()
            if now >= self.hold_until:  # a new storm, not another refusal of the same one
                self.limit = max(1.0, self.limit / 2)
                self.lowest = min(self.lowest, int(self.limit))
            self.hold_until = max(self.hold_until, now + wait)
            self._cond.notify_all()


def rate_limited(answer) -> bool:
    """A 429 that waiting can cure (not a request too large for the limit)."""
    return isinstance(answer, ModelFailure) and answer.status == 429 and retryable_status(429, answer.body or "")


def fresh_world(world):
    """A copy of a loaded scripted world with its reply and result lists
    untouched by earlier rows: every row meets the world as it was written."""
    w = copy.copy(world)
    w.shared = None if world.shared is None else list(world.shared)
    w.by_role = {k: list(v) for k, v in world.by_role.items()}
    w.tools = {k: list(v) for k, v in world.tools.items()}
    return w


class SharedWorld:
    """What every row of a batch shares. `models` answers model rounds
    (and tool calls when no Pack is used); `blocking_models` says whether
    they wait on the network; `packs` (a callable making one row's
    PackTools) is None when the prompt uses no Pack."""

    def __init__(self, models, *, scripted_world=None, blocking_models: bool, concurrency: int, make_packs=None):
        self.models = models
        self.scripted_world = scripted_world
        self.blocking_models = blocking_models
        self.make_packs = make_packs
        self.gate = RateGate(concurrency) if blocking_models else None
        self._current = threading.local()  # the row whose round this thread is answering
        target = models
        while target is not None and not hasattr(target, "on_retry"):
            target = getattr(target, "models", None)
        if target is not None:
            target.on_retry = self.retried

    def answering(self, run) -> None:
        """This thread now answers a round of `run`: a provider's retries
        of it become that run's `model_retry` events."""
        self._current.run = run

    def retried(self, effect, attempt: int, status: int | None, wait: float) -> None:
        """A round is asked again: the run's log says so, and a 429 slows
        every row down."""
        run = getattr(self._current, "run", None)
        if run is not None:
            run.events.emit("model_retry", "0", None, round=effect.id, role=effect.role, model=effect.model,
                            attempt=attempt, status=status, wait=round(wait, 3))
        if status == 429 and self.gate is not None:
            self.gate.storm(wait)

    def row_answerer(self, run) -> "RowAnswerer":
        if self.scripted_world is not None:
            models = Answerer(fresh_world(self.scripted_world))
        else:
            models = self.models
        tools = self.make_packs() if self.make_packs is not None else None
        return RowAnswerer(self, run, models, tools)

    def close(self) -> None:
        close = getattr(self.models, "close", None)
        if close is not None:
            close()


class RowAnswerer:
    """Answers one row's effects and counts its usage (`meter`)."""

    def __init__(self, shared: SharedWorld, run, models, tools):
        self.shared, self.run, self.models, self.tools = shared, run, models, tools
        self.meter = UsageMeter(self._answer)

    def blocks(self, effect) -> bool:
        """Whether the harness should answer it on an I/O thread."""
        if isinstance(effect, ToolCall):
            return self.tools is not None
        return self.shared.blocking_models

    def __call__(self, effect):
        return self.meter(effect)

    def _answer(self, effect):
        if isinstance(effect, ToolCall) and self.tools is not None:
            return self.tools(effect)
        gate = self.shared.gate
        if gate is None or not isinstance(effect, ModelRound):
            return self.models(effect)
        self.shared.answering(self.run)
        for retry in range(1, STORM_RETRIES + 2):
            gate.enter()
            got = None
            try:
                got = self.models(effect)
            finally:
                gate.leave(rate_limited(got))
            if not rate_limited(got) or retry > STORM_RETRIES:
                return got
            wait = STORM_BACKOFF.backoff(retry)
            self.shared.retried(effect, retry, 429, wait)
        return got

    def close(self) -> None:
        """The row has ended: its Packs close; the meter keeps its counts
        but lets go of this answerer (no cycle left to the collector)."""
        if self.tools is not None:
            self.tools.close()
        self.meter.answer = None
