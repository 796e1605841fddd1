"""runvil: prompt programs (Markdown + Lua) run by a pure-Python engine.

    import runvil
    prompt = runvil.parse_file("first-chat.md")            # ParseError on failure
    result = runvil.run(prompt, input="hi", script="world.yaml")
    run = prompt.start(input="hi", bindings={...})          # the sans-IO Engine
    effects = run.step()                                    # then run.resume(answers)
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["ParseError", "RunFailed", "parse_file", "parse_text", "run"]


def __getattr__(name):
    if name in ("ParseError", "parse_file", "parse_text"):
        from . import prompt

        return getattr(prompt, name)
    raise AttributeError(name)


class RunFailed(Exception):
    """`runvil.run` of a run that ended with a run error."""

    def __init__(self, error):
        super().__init__(f"error[{error.kind}]: {error.message}")
        self.error = error


def run(prompt, *, input: str | None = None, script=None, harness=None, bindings: dict | None = None):
    """Runs a prompt to its end and returns the result text (or None).

    `script` is a scripted world (a path or a parsed mapping); `harness` is
    any function answering one effect; with neither, every role runs on the
    offline echo model. A run error raises RunFailed.
    """
    from .engine.run import ModelBinding, Run
    from .harness.drive import drive

    roles = list(prompt.frontmatter.models)
    if script is not None:
        from .harness.scripted import ScriptedWorld

        world = ScriptedWorld(script) if isinstance(script, dict) else ScriptedWorld.load(script)
        answer = harness or world.answer
        bindings = bindings or {r: world.binding(r) for r in roles}
        if input is None:
            input = world.input
    elif harness is not None:
        answer = harness
        bindings = bindings or {r: ModelBinding(r) for r in roles}
    else:
        from .harness.echo import ECHO_CONTEXT, echo_reply

        answer = echo_reply
        bindings = bindings or {r: ModelBinding("echo", ECHO_CONTEXT, name="echo") for r in roles}
    outcome = drive(Run(prompt, input=input, bindings=bindings), answer)
    if not outcome.ok:
        raise RunFailed(outcome.error)
    return outcome.result
