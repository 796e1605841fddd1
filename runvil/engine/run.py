"""The sans-IO run (docs/architecture.md): `Run.step()` runs Lua until every
live context waits on an effect or the run ends, and returns the pending
effects; `Run.resume(answers)` hands their answers back.

The walk runs on one baton thread: the H1 pass, then the sections in file
order (or where `jump` sends it), each entry in a fresh VM.

Besides each block's sandbox limits, the run has a budget of its own
(`limits.RunLimits`: steps across blocks, wall time, section entries): the
VMs check it as they run, each section entry counts against it, and a run
whose wall time runs out while it waits on the outside world is stopped
at its next step.
"""

from __future__ import annotations

import weakref

from ..lua.api import Limits, LuaError, run_lua
from ..prompt import read_prompt
from ..prompt import parse_text as parse_prompt_text
from ..prompt.model import LuaBlock, Prompt
from ..structs import Struct
from .conversation.rounds import ModelBinding
from .errors import ErrorValue, RunError, reported
from .events import EventLog
from .limits import RunBudget, RunLimits
from .scheduler import Scheduler
from .tasks import TaskRegistry
from .var import VarStore
from .vm import JumpSignal, SectionVM


class PrepareError(Exception):
    """The run cannot start (an unbound role): a usage error of the host."""


class RunOutcome(Struct):
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
        run_limits: RunLimits | None = None,
        packs: dict | None = None,
        debug: bool = False,
        chat: bool = False,
        on_vm=None,
        release_lua: bool = False,
    ):
        self.prompt = prompt
        self.input = input
        # a binding is a ModelBinding, or a catalog model id for one
        self.bindings: dict[str, ModelBinding] = {
            role: ModelBinding(b) if isinstance(b, str) else b for role, b in (bindings or {}).items()
        }
        missing = [r for r in prompt.frontmatter.models if r not in self.bindings]
        if missing:
            raise PrepareError(f"model role '{missing[0]}' is not bound to a model")
        self.limits = limits or Limits()
        # a chat waits on a person: no default wall-clock limit
        self.budget = RunBudget(run_limits or (RunLimits(seconds=None) if chat else RunLimits()))
        self.packs = packs or {}
        self.debug = debug  # debug capture: request/response bodies in the run log
        self.chat = chat  # `runvil chat`: VMs get `chat.read()`, which asks for the user's next turn
        # a Host hook called with each new SectionVM before it runs (the
        # `runvil lua --prompt` REPL compiles the learner's chunks in its VM)
        self.on_vm = on_vm
        #: the Lua states of the run's VMs still alive, to be emptied
        #: (LuaState.release) when the run ends, not when a VM closes: a
        #: function of a closed VM may still run in the run (a task's error
        #: value's `__tostring`, in its parent)
        self.lua_states: weakref.WeakSet = weakref.WeakSet()
        #: empty them when the run ends (a batch's runs: nothing of theirs
        #: runs again); off by default, since a host may still call into a
        #: VM's state after its run ended
        self.release_lua = release_lua
        #: the modules `require` read: path beside the prompt -> sha256 of the
        #: file's bytes (a batch stores them; a run is reused only while they hold)
        self.required: dict[str, str] = {}
        self.events = EventLog()
        self.var = VarStore()
        self.sched = Scheduler()
        self.default_role: str | None = None
        self.h1_offers: list = []  # tools offered in the H1 pass: in scope everywhere
        self.tasks = TaskRegistry(self)
        self.turns = 0  # the run's round counter: rounds that returned a reply
        self.outcome: RunOutcome | None = None
        self._walk = self.sched.spawn("walk", self._walk_body)

    # ---------------------------------------------------------- sans-IO API

    def step(self) -> list:
        """Runs until every live context waits; returns pending effects
        (empty once the run has ended: see `outcome`)."""
        if self.outcome is not None:
            return []
        overrun = self.budget.overrun()
        if overrun is not None:  # spent while the run waited on effects
            self.sched.cancel_all()
            self.outcome = RunOutcome(False, error=RunError("Lua", overrun))
            self.events.emit("run_ended", "0", None, ok=False, error=self.outcome.error.as_json())
            self._let_go()
            return []
        effects = self.sched.run_until_blocked()
        for ctx in self.sched.failed:
            if ctx is not self._walk:
                raise ctx.error  # a task's Engine bug (its run errors are its own)
        if self._walk.finished:
            self._finish()
            return []
        if not effects:
            raise RuntimeError("every context of the run waits, and none on the outside world")
        return effects

    def resume(self, answers: dict) -> None:
        """Hands back answers by effect id."""
        self.sched.resume(answers)

    def cancel(self) -> None:
        """Abandons the run: every context unwinds, no thread is left."""
        self.sched.cancel_all()
        if self.outcome is None:
            self.outcome = RunOutcome(False, error=RunError("Cancelled", "the run was cancelled"))
        self._let_go()

    def _let_go(self) -> None:
        """The run has ended and none of its Lua runs again: its contexts
        and task registry let go of it, so that it and everything it made
        are freed at once by reference counting (a batch ends hundreds of
        runs a second; the cyclic garbage collector's passes over them cost
        more than the runs). Its outcome, events and `var` stay; the run
        errors that ended its contexts stay too, without their tracebacks,
        whose frames refer to the run (an Engine bug keeps its own)."""
        for ctx in self.sched.contexts:
            if isinstance(ctx.error, (LuaError, RunError)):
                _drop_frames(ctx.error)
        self.sched.release()
        self.tasks.run = None
        if self.release_lua:
            for state in list(self.lua_states):
                state.release()
        self.lua_states = weakref.WeakSet()

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
                self.outcome = RunOutcome(False, error=reported(err))
            else:
                raise err  # an Engine bug: a Python exception, not a run error
        else:
            self.outcome = RunOutcome(True, result=walk.result)
        data = {"ok": self.outcome.ok}
        if self.outcome.ok:
            data["result"] = self.outcome.result  # the run viewer shows it
        if self.outcome.error is not None:
            data["error"] = self.outcome.error.as_json()
        self.events.emit("run_ended", "0", None, **data)
        self._let_go()

    # ---------------------------------------------------------------- walk

    def _walk_body(self):
        """The walk (a generator: runvil.engine.scheduler)."""
        h1 = [{"lua": p.code, "line": p.line} if isinstance(p, LuaBlock) else {"prose": p.text, "line": p.line}
              for p in self.prompt.h1.pieces]  # the run viewer draws the H1 body
        self.events.emit("run_started", "0", None, prompt=self.prompt.frontmatter.name, title=self.prompt.title, h1=h1)
        h1 = SectionVM(self, None, "0")
        try:
            value = yield from h1.run_pieces(self.prompt.h1.pieces, send_trailing=False)
        finally:
            h1.close()
        if value is not None:
            return h1.result_text(value)
        if not self.prompt.sections:
            return None
        return (yield from self.run_chain("0", self.prompt.sections[0].name, self.input, walk_on=True,
                                          finish=lambda vm, value: vm.result_text(value)))

    def run_chain(self, execution_id: str, start: str, input: str | None, *, walk_on: bool, finish):
        """Runs sections from `start`, each entry in a fresh VM, following
        `jump`. The walk goes on in file order (`walk_on`); a task or a
        fan-out arm ends with the section it is in. Returns `finish(vm,
        value)` for the last section's value (called before its VM closes),
        or None when it produced none. A generator."""
        sections = self.prompt.sections
        index = {s.name: i for i, s in enumerate(sections)}
        i = index[start]
        result = None
        while i is not None:
            section = sections[i]
            overrun = self.budget.enter_section()
            if overrun is not None:
                raise LuaError(ErrorValue("lua", overrun))
            vm = SectionVM(self, section.name, execution_id, input=input)
            # a task's entry carries its input, and its end the task's result (the run viewer draws them)
            task = {"input": input} if execution_id != "0" and i == index[start] else {}
            self.events.emit("section_started", execution_id, section.name, **task)
            try:
                value = yield from vm.run_pieces(section.pieces, send_trailing=True)
                result = finish(vm, value) if value is not None else None
            except JumpSignal as j:
                self.events.emit("section_ended", execution_id, section.name, jumped_to=j.target)
                i = index[j.target]
                continue
            except (LuaError, RunError):
                self.events.emit("section_ended", execution_id, section.name, failed=True)
                raise
            finally:
                vm.close()
            ended = {"result": result} if execution_id != "0" and result is not None else {}
            self.events.emit("section_ended", execution_id, section.name, **ended)
            i = i + 1 if walk_on and i + 1 < len(sections) else None
        return result


def step_many(fn):
    """Calls `fn()` where the Engine's Lua runs (the Lua thread) and
    returns its result: a driver stepping many runs does it in one hand-over
    instead of one a step (each `step` from another thread waits for the
    Lua thread to take it)."""
    return run_lua(fn)


def _drop_frames(error: BaseException) -> None:
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = None
        error = error.__cause__ or error.__context__


class StartablePrompt(Prompt, frozen=True):
    """A parsed prompt that starts sans-IO runs, as `runvil.parse_file` and
    `runvil.parse_text` return it (runvil/__init__.py): `run.step()`
    returns effects, `run.resume(answers)` continues. It lives here, not in
    the prompt layer, which knows nothing of the Engine."""

    def start(self, input: str | None = None, bindings: dict | None = None, **options) -> Run:
        return Run(self, input=input, bindings=bindings, **options)


def startable(prompt: Prompt) -> StartablePrompt:
    return StartablePrompt(prompt.path, prompt.frontmatter, prompt.title, prompt.h1, prompt.sections,
                           prompt.source_lines)


def parse_file(path) -> StartablePrompt:
    """`runvil.parse_file`: the prompt layer's parse, startable."""
    return startable(read_prompt(path))


def parse_text(text: str, path="<prompt>") -> StartablePrompt:
    """`runvil.parse_text`: the prompt layer's parse, startable."""
    return startable(parse_prompt_text(text, path))
