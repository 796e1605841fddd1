"""`runvil lua --prompt PROMPT.md`: a Lua REPL inside a section VM of a
prompt, so a learner can type `messages:user('hi')`, `models.loop()` and
`messages[#messages].content` and watch what each does.

The prompt runs as usual up to its H1 pass (roles, `models.default`, `var`,
H1 tools); then, before its own sections, one section `REPL` whose block
asks the Host for the next chunk (`chat.read()`, the UserTurn effect) and
hands it to a Host builtin that compiles and runs it in that VM; the
prompt's sections are there for `tasks.spawn` and `jump`. So every
chunk runs where a block of the prompt would, model rounds and all, on the
offline echo model or a `--script` world.
"""

from __future__ import annotations

import json
import sys

from ..structs import replace
from .repl import INTERRUPTED, Console, Interrupt, compile_chunk, incomplete

SECTION = "REPL"

# The REPL section: `_repl` is the Host builtin, taken into a local at once
# so the learner's globals stay the prompt's own.
REPL_SECTION = """---
name: repl
description: The REPL section.
runvil: 0
---

# REPL

## REPL

```lua
local run_chunk = _repl
_repl = nil
{{use}}while true do
  local chunk = chat.read()
  if chunk == nil then break end
  run_chunk(chunk)
end
error('{{end}}', 0)
```
"""

# The REPL section comes first and the prompt's own sections after it (so
# tasks.spawn and jump find them); at the end of input, the block raises
# this, ending the run before the walk reaches them.
END = "the REPL ended"


def prompt_repl(path: str, script: str | None, limits=None) -> int:
    from ..engine.effects import UserTurn
    from ..engine.run import PrepareError, Run
    from ..lua.api import Limits, LuaState
    from ..prompt import ParseError, read_prompt, parse_text
    from .luaoutput import STANDALONE_LIMITS, write_stdout
    from .runcmd import EXIT_USAGE, drive_closing, usage_error

    try:
        prompt = read_prompt(path)
    except ParseError as e:
        print(f"error[Parse]: {e}", file=sys.stderr)
        return 3
    except OSError as e:
        print(f"runvil: cannot read {path}: {e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE
    roles = list(prompt.frontmatter.models)
    # with one role, the REPL starts as models.use(role) would leave it
    use = f"models.use({json.dumps(roles[0])})\n" if len(roles) == 1 else ""
    section = parse_text(REPL_SECTION.replace("{{use}}", use).replace("{{end}}", END)).sections[0]
    others = tuple(s for s in prompt.sections if s.name != SECTION)
    repl_prompt = replace(prompt, sections=(section,) + others)
    try:
        bindings, answer = repl_world(script, repl_prompt)
    except ValueError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    console = Console("lua_history")
    checker = LuaState(limits=Limits(steps=0))  # compiles only, to tell a finished chunk
    interrupt = Interrupt()

    entered = []

    def on_vm(vm):
        if vm.section == SECTION:
            entered.append(vm)
            vm.state.set_global("_repl", chunk_runner(vm, interrupt, write_stdout))

    try:
        run = Run(repl_prompt, input=getattr(answer, "world_input", None), bindings=bindings,
                  chat=True, on_vm=on_vm, limits=limits or STANDALONE_LIMITS, run_limits=_run_limits(limits))
    except PrepareError as e:
        return usage_error(str(e), answer)
    run.events.listeners.append(lambda ev: _show_print(ev))
    if console.interactive:
        world = f"world {script}" if script else "the echo model"
        picked = f"; models.use('{roles[0]}') is done" if len(roles) == 1 else ""
        print(f"runvil lua: a section VM of {path} on {world}{picked} · Ctrl-D exits, Ctrl-C stops a chunk",
              file=sys.stderr)

    def answering(effect):
        if isinstance(effect, UserTurn):
            sys.stdout.flush()
            return console.read_chunk(lambda text: incomplete(checker, text))
        return answer(effect)

    with interrupt.installed():
        outcome = drive_closing(run, answering, answer, None)
    sys.stdout.flush()
    if not outcome.ok and outcome.error.message == END:
        return 0
    jumped = next((e.data["jumped_to"] for e in run.events.events
                   if e.type == "section_ended" and e.section == SECTION and e.data.get("jumped_to")), None)
    if jumped is not None:  # the run went on past the REPL: say so, and how it ended
        print(f"runvil: jump({json.dumps(jumped, ensure_ascii=False)}) ended the REPL; the run went on at section "
              f"`{jumped}` and {'ended with its result' if outcome.ok else 'failed'}", file=sys.stderr)
        if outcome.ok and outcome.result is not None:
            sys.stdout.write(outcome.result + ("" if outcome.result.endswith("\n") else "\n"))
    if not outcome.ok:
        print(f"error[{outcome.error.kind}]: {outcome.error.message}", file=sys.stderr)
        return 1
    if not entered:  # the H1 body returned a value, which ends a run before any section
        print(f"runvil: the H1 body of {path} ended the run with a result, so no section VM was opened",
              file=sys.stderr)
        return 1
    return 0


def _run_limits(limits):
    """`--cpu off` lifts the step budget: the run's, across its chunks, too
    (None: a chat run's own)."""
    if limits is None or limits.steps is not None:
        return None
    from ..engine.limits import RunLimits

    return RunLimits(seconds=None, steps=None)


def repl_world(script: str | None, prompt):
    """Bindings and the answerer: the scripted world, else the echo model
    (never a configured provider: the REPL is for trying things offline)."""
    from ..harness.answerer import choose_answerer

    bindings, answer, _ = choose_answerer(prompt.frontmatter.models, script=script)
    return bindings, answer


def _show_print(ev) -> None:
    """`print` in a prompt writes to the run log; here it is shown too."""
    if ev.type == "print":
        sys.stdout.write(ev.data["text"] + "\n")
        sys.stdout.flush()


def chunk_runner(vm, interrupt: Interrupt, write):
    """The `_repl` builtin: compiles a chunk in the VM's own state and runs
    it there, showing its values or its error; an error never ends the
    REPL section."""
    from ..engine.scheduler import waiting_builtin
    from ..lua.api import LuaError, LuaSyntaxError
    from .luaoutput import error_message

    def run_chunk(source, *rest):
        """A generator, as any builtin whose Lua may wait on the Engine
        (runvil.engine.scheduler): a chunk that calls models.loop."""
        try:
            fn = compile_chunk(vm.state, source)
        except LuaSyntaxError as e:
            print(e.value, file=sys.stderr)
            return
        vm.state.reset_limits()  # each chunk gets a budget of its own
        try:
            with interrupt.running(vm.state):
                results = yield from vm.state.call_g(fn)
        except LuaError as e:
            sys.stdout.flush()
            vm.reporting = True  # its __tostring may not jump (SectionVM.report_error)
            try:
                text = INTERRUPTED if interrupt.requested else _message(e.value, error_message)
            finally:
                vm.reporting = False
            print(text, file=sys.stderr)
            return
        if results:  # records, the list, var and tables as Lua constructors
            from .replshow import show_value

            write("\t".join(show_value(v) for v in results) + "\n")
        sys.stdout.flush()

    return waiting_builtin(None, run_chunk)


def _message(value, error_message) -> str:
    """An Engine error value reads as its message, as tostring(err) does."""
    from ..engine.errors import ErrorValue

    return value.message if isinstance(value, ErrorValue) else error_message(value)
