"""What the playground's page runs (docs/reference/commands.md "runvil playground"): its Web
Worker calls these on Pyodide; the tests call them on CPython too.

A run here is `runvil run prompt.md [--script world.yaml] [--input TEXT]`
as the command runs it, with the page's fields for files: the prompt
text is `prompt.md` and the world's YAML is `world.yaml` (an empty world:
every role on the echo model), written in a folder of their own, so
errors name them as the command would. The result is the run's; an error
is its `error[Kind]: message` line followed by the picture a terminal
shows (the offending line with a caret); the view is the run viewer's
page of the run. Nothing leaves the browser: bound tool calls (the
Packs: web, files) are answered by the world, else refused.

The REPL is `runvil lua --prompt prompt.md` (promptrepl.py) driven
through the sans-IO API: the run waits on a `chat.read()` between chunks,
so the Worker needs no blocking read.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile

PROMPT_FILE = "prompt.md"
WORLD_FILE = "world.yaml"


class _Terminal(io.StringIO):
    """Collects what the command would write on a terminal's stderr: the
    error pictures are drawn only there."""

    def isatty(self) -> bool:
        return True


@contextlib.contextmanager
def _files(prompt_text: str, world_text: str):
    """A folder holding prompt.md (and world.yaml unless the world is
    empty), made the working folder while the block runs; yields the
    world's file name or None."""
    folder = tempfile.mkdtemp(prefix="runvil-playground-")
    with contextlib.chdir(folder):
        with open(PROMPT_FILE, "w", encoding="utf-8") as f:
            f.write(prompt_text)
        script = None
        if world_text.strip():
            with open(WORLD_FILE, "w", encoding="utf-8") as f:
                f.write(world_text)
            script = WORLD_FILE
        try:
            yield script
        finally:
            for name in os.listdir("."):
                with contextlib.suppress(OSError):
                    os.remove(name)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _parse():
    """The prompt, or the text #error shows for its parse error."""
    from ..diagnostics import show_parse_error
    from ...prompt import ParseError, read_prompt

    try:
        return read_prompt(PROMPT_FILE), None
    except ParseError as e:
        shown = _Terminal(f"error[Parse]: {e}\n")
        shown.seek(0, io.SEEK_END)
        show_parse_error(e, shown)
        return None, shown.getvalue()


def _outcome(ok: bool, result: str = "", error: str = "", view: str = "") -> dict:
    return {"ok": ok, "result": result, "error": error, "view": view}


def run(prompt_text: str, world_text: str = "", input_text: str = "") -> dict:
    """Runs the prompt once, as a fresh Session does."""
    return Session().run(prompt_text, world_text, input_text)


class Session:
    """The page's runs. It keeps the prompts it parsed, by their text (the
    last KEEP): running one again reuses its compiled chunks and what the
    runtime made of them (the generator twins of its functions), which
    would otherwise be made again at each run."""

    KEEP = 32

    def __init__(self):
        self.parsed: dict[str, object] = {}

    def parse(self, prompt_text: str):
        """The prompt (from prompt.md in the working folder), or the text
        #error shows for its parse error."""
        prompt = self.parsed.pop(prompt_text, None)
        if prompt is None:
            prompt, error = _parse()
            if prompt is None:
                return None, error
        self.parsed[prompt_text] = prompt  # the most recent last
        while len(self.parsed) > self.KEEP:
            del self.parsed[next(iter(self.parsed))]
        return prompt, None

    def run(self, prompt_text: str, world_text: str = "", input_text: str = "") -> dict:
        """Runs the prompt: {ok, result, error, view}. An empty input means
        the world's input (or none)."""
        from ...engine.run import PrepareError, Run
        from ...harness.drive import drive
        from ..config import LimitSettings
        from ..diagnostics import show_run_error
        from ..promptrepl import repl_world
        from ..view import render

        with _files(prompt_text, world_text) as script:
            prompt, error = self.parse(prompt_text)
            if prompt is None:
                return _outcome(False, error=error)
            try:
                bindings, answer = repl_world(script, prompt)
            except ValueError as e:
                return _outcome(False, error=f"runvil: {e}\n")
            limits, run_limits = LimitSettings().sandbox()
            try:
                the_run = Run(prompt, input=input_text or getattr(answer, "world_input", None), bindings=bindings,
                              packs=_pack_schemas(prompt), limits=limits, run_limits=run_limits)
            except PrepareError as e:
                return _outcome(False, error=f"runvil: {e}\n")
            outcome = drive(the_run, answer)
            view = render([ev.as_json() for ev in the_run.events.events], title=prompt.frontmatter.name)
            if outcome.ok:
                return _outcome(True, result=outcome.result or "", view=view)
            shown = _Terminal()
            shown.write(f"error[{outcome.error.kind}]: {outcome.error.message}\n")
            show_run_error(prompt, outcome.error, the_run.events.events, shown)
            return _outcome(False, error=shown.getvalue(), view=view)


WARM_UP = """---
name: warm-up
description: Parsed once while the page loads.
runvil: 0
---

# Warm up

## Block

```lua
local t = {f = function(...) return select('#', ...) end}
return t.f(1, 2) .. ''
```
"""


def warm_up() -> dict:
    """Imports what a run needs and parses a small prompt, so that the
    parser's table is read and its first chunk compiled before the first
    run. Returns how long each part took, in milliseconds (the page
    prints them)."""
    times = imports()
    times["parse"] = first_parse()
    return times


def imports() -> dict:
    """Imports the modules a run needs: {"imports": milliseconds}."""
    import time

    started = time.perf_counter()
    from ...engine import run as _run  # noqa: F401  (the imports a run makes, timed apart)
    from ...harness import drive as _drive  # noqa: F401
    from .. import diagnostics as _diagnostics, promptrepl as _promptrepl, view as _view  # noqa: F401

    return {"imports": round((time.perf_counter() - started) * 1000)}


def first_parse() -> int:
    """Parses and compiles the warm-up prompt (the parser's own imports,
    its table, its first chunk); returns the milliseconds it took."""
    import time

    from ...prompt import check_text

    started = time.perf_counter()
    check_text(WARM_UP, PROMPT_FILE)
    return round((time.perf_counter() - started) * 1000)


class Page:
    """What worker.js calls: one JSON message in, one JSON answer out, so
    that the worker holds no proxy of a Python object and a memory
    snapshot of Pyodide can be taken between two calls. Messages: `run`
    (prompt, world, input: the Session's run), `repl` (line, or null to
    only open; fresh: a new VM; the prompt's texts: a new VM when they
    changed) and `forget_repl`."""

    def __init__(self):
        self.session = Session()
        self.repl = None
        self.repl_texts = None

    def call(self, message: str) -> str:
        msg = json.loads(message)
        if msg["type"] == "run":
            answer = self.session.run(msg["prompt"], msg["world"], msg["input"])
        elif msg["type"] == "repl":
            answer = self._repl(msg)
        else:
            self.repl = self.repl_texts = None
            answer = {}
        return json.dumps(answer)

    def _repl(self, msg: dict) -> dict:
        opened = ""
        texts = (msg["prompt"], msg["world"], msg["input"])
        if msg.get("fresh") or self.repl is None or texts != self.repl_texts:
            self.repl, self.repl_texts = Repl(*texts), texts
            opened = self.repl.open()
        answer = {"opened": opened, "output": "", "more": False}
        if msg.get("line") is not None:
            answer.update(self.repl.chunk(msg["line"]))
        return answer


def _pack_schemas(prompt) -> dict:
    """The tools of the Packs the prompt uses (their calls are the world's
    to answer: the browser performs none)."""
    if not prompt.frontmatter.uses:
        return {}
    from ...harness.packs import discover_packs, pack_schemas

    return pack_schemas(discover_packs(wanted=prompt.frontmatter.uses))


class Repl:
    """A Lua REPL in a fresh section VM of a prompt, as `runvil lua
    --prompt` gives: `open()` runs the prompt up to the REPL section's
    first read; each `chunk(text)` runs one chunk there and returns what
    it printed. The run's model rounds are answered by the world, else the
    echo model, as they come."""

    def __init__(self, prompt_text: str, world_text: str = "", input_text: str = ""):
        self.texts = (prompt_text, world_text, input_text)
        self.run = None
        self.waiting = None  # the UserTurn effect the REPL section waits on
        self.pending = ""  # the lines of an unfinished chunk
        self.out: list[str] = []

    def open(self) -> str:
        """Starts the section VM; returns the banner or the error."""
        from ...engine.limits import RunLimits
        from ...engine.run import PrepareError, Run
        from ...lua.api import Limits, LuaState
        from ...prompt import parse_text
        from ...structs import replace
        from ..config import LimitSettings
        from ..promptrepl import END, REPL_SECTION, SECTION, chunk_runner, repl_world
        from ..repl import Interrupt

        prompt_text, world_text, input_text = self.texts
        with _files(prompt_text, world_text) as script:
            prompt, error = _parse()
            if prompt is None:
                return error
            roles = list(prompt.frontmatter.models)
            use = f"models.use('{roles[0]}')\n" if len(roles) == 1 else ""
            section = parse_text(REPL_SECTION.replace("{{use}}", use).replace("{{end}}", END)).sections[0]
            repl_prompt = replace(prompt, sections=(section,) + tuple(s for s in prompt.sections if s.name != SECTION))
            try:
                bindings, self.answer = repl_world(script, repl_prompt)
            except ValueError as e:
                return f"runvil: {e}\n"
        self.checker = LuaState(limits=Limits(steps=0))  # compiles only, to tell a finished chunk
        interrupt = Interrupt()

        def on_vm(vm):
            if vm.section == SECTION:
                vm.state.set_global("_repl", chunk_runner(vm, interrupt, self.out.append))

        limits, _ = LimitSettings().sandbox()
        try:
            self.run = Run(repl_prompt, input=input_text or getattr(self.answer, "world_input", None),
                           bindings=bindings, chat=True, on_vm=on_vm, limits=limits,
                           run_limits=RunLimits(seconds=None))  # a REPL may stay open for hours
        except PrepareError as e:
            return f"runvil: {e}\n"
        self.run.events.listeners.append(lambda ev: ev.type == "print" and self.out.append(ev.data["text"] + "\n"))
        self._advance()
        picked = f"; models.use('{roles[0]}') is done" if len(roles) == 1 else ""
        world = "the world" if script else "the echo model"
        return self._take() + f"a section VM of the prompt on {world}{picked}\n"

    def chunk(self, text: str) -> dict:
        """Runs one line of input: {output, more} (`more`: the chunk goes
        on, as `lua -i`'s `>>` prompt)."""
        from ..repl import incomplete

        if self.run is None or self.waiting is None:
            return {"output": "the REPL has ended: open it again\n", "more": False}
        source = self.pending + text
        if incomplete(self.checker, source):
            self.pending = source + "\n"
            return {"output": "", "more": True}
        self.pending = ""
        self.run.resume({self.waiting.id: source})
        self._advance()
        return {"output": self._take(), "more": False}

    def _advance(self) -> None:
        """Steps the run until the REPL section reads again (answering the
        other effects) or the run ends."""
        from ...engine.effects import UserTurn
        from ..promptrepl import END

        self.waiting = None
        with contextlib.redirect_stdout(_Sink(self.out)), contextlib.redirect_stderr(_Sink(self.out)):
            while True:
                effects = self.run.step()
                if self.run.done:
                    error = self.run.outcome.error
                    if error is not None and error.message != END:
                        self.out.append(f"error[{error.kind}]: {error.message}\n")
                    return
                turns = [e for e in effects if isinstance(e, UserTurn)]
                others = {e.id: self.answer(e) for e in effects if not isinstance(e, UserTurn)}
                if turns and not others:
                    self.waiting = turns[0]
                    return
                self.run.resume(others)

    def _take(self) -> str:
        text = "".join(self.out)
        self.out.clear()
        return text


class _Sink(io.TextIOBase):
    """stdout and stderr while the REPL runs: into its output, in order."""

    def __init__(self, out: list):
        self.out = out

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.out.append(text)
        return len(text)
