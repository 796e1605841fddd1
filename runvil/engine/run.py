"""The sans-IO run (spec/runvil.md §1, §3): `Run.step()` runs Lua until every
live context waits on an effect or the run ends, and returns the pending
effects; `Run.resume(answers)` hands their answers back.

The walk runs on one baton thread: the H1 pass, then the sections in file
order (or where `jump` sends it), each entry in a fresh VM.
"""

from __future__ import annotations

from attrs import define

from ..lua import Limits, LuaError
from .errors import RunError, run_error_from
from .events import EventLog
from .scheduler import Scheduler
from .var import VarStore


@define
class ModelBinding:
    """A catalog model a role is bound to at prepare."""

    id: str  # catalog id, e.g. "openai/gpt-4o-mini" or "scripted"
    context: int = 8192  # context window, tokens
    max_tokens: int | None = None  # the model's default output reserve
    name: str | None = None  # the name requests show (defaults to the id)


class JumpSignal(BaseException):
    """`jump('Name')`: ends the section; the walk continues at Name."""

    def __init__(self, target: str):
        self.target = target


class PrepareError(Exception):
    """The run cannot start (an unbound role): a usage error of the host."""


@define
class RunOutcome:
    ok: bool
    result: str | None = None
    error: RunError | None = None


class Run:
    """One run of a prompt."""

    def __init__(
        self,
        prompt,
        *,
        input: str | None = None,
        bindings: dict | None = None,
        limits: Limits | None = None,
        packs: dict | None = None,
        debug: bool = False,
    ):
        self.prompt = prompt
        self.input = input
        self.bindings: dict[str, ModelBinding] = dict(bindings or {})
        missing = [r for r in prompt.frontmatter.models if r not in self.bindings]
        if missing:
            raise PrepareError(f"model role '{missing[0]}' is not bound to a model")
        self.limits = limits or Limits()
        self.packs = packs or {}
        self.debug = debug  # debug capture: request/response bodies in the run log
        self.events = EventLog()
        self.var = VarStore()
        self.sched = Scheduler()
        self.default_role: str | None = None
        self.h1_offers: list = []  # tools offered in the H1 pass: in scope everywhere
        self.outcome: RunOutcome | None = None
        self._walk = self.sched.spawn("walk", self._walk_body)

    # ---------------------------------------------------------- sans-IO API

    def step(self) -> list:
        """Runs until every live context waits; returns pending effects
        (empty once the run has ended: see `outcome`)."""
        if self.outcome is not None:
            return []
        effects = self.sched.run_until_blocked()
        if self._walk.finished:
            self._finish()
            return []
        return effects

    def resume(self, answers: dict) -> None:
        """Hands back answers by effect id."""
        self.sched.resume(answers)

    def cancel(self) -> None:
        """Abandons the run: every context unwinds, no thread is left."""
        self.sched.cancel_all()
        if self.outcome is None:
            self.outcome = RunOutcome(False, error=RunError("Cancelled", "the run was cancelled"))

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def _finish(self):
        walk = self._walk
        self.sched.cancel_all()  # tasks still running when the walk ends
        if walk.error is not None:
            err = walk.error
            if isinstance(err, RunError):
                self.outcome = RunOutcome(False, error=err)
            elif isinstance(err, LuaError):
                self.outcome = RunOutcome(False, error=run_error_from(err.value))
            else:
                raise err  # an Engine bug: a Python exception, not a run error
        else:
            self.outcome = RunOutcome(True, result=walk.result)
        data = {"ok": self.outcome.ok}
        if self.outcome.error is not None:
            data["error"] = self.outcome.error.as_json()
        self.events.emit("run_ended", "0", None, **data)

    # ---------------------------------------------------------------- walk

    def _walk_body(self):
        from .vm import SectionVM

        self.events.emit("run_started", "0", None, prompt=self.prompt.frontmatter.name)
        h1 = SectionVM(self, None, "0")
        try:
            value = h1.run_pieces(self.prompt.h1.pieces, send_trailing=False)
        finally:
            h1.close()
        if value is not None:
            return h1.result_text(value)
        sections = self.prompt.sections
        index = {s.name: i for i, s in enumerate(sections)}
        i = 0
        result = None
        while i < len(sections):
            section = sections[i]
            vm = SectionVM(self, section.name, "0")
            self.events.emit("section_started", "0", section.name)
            try:
                value = vm.run_pieces(section.pieces, send_trailing=True)
            except JumpSignal as j:
                self.events.emit("section_ended", "0", section.name, jumped_to=j.target)
                i = index[j.target]
                continue
            finally:
                vm.close()
            result = vm.result_text(value) if value is not None else None
            self.events.emit("section_ended", "0", section.name)
            i += 1
        return result


def run_to_end(run: Run, answer) -> RunOutcome:
    """Drives a run with a function that answers one effect (for tests and
    simple hosts); effects of one step are answered in order."""
    while True:
        effects = run.step()
        if run.done:
            return run.outcome
        run.resume({e.id: answer(e) for e in effects})
