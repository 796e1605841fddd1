"""runvil: prompt programs (Markdown + Lua) run by a pure-Python engine.

    import runvil
    prompt = runvil.parse_file("first-chat.md")            # ParseError on failure
    result = runvil.run(prompt, input="hi", script="world.yaml")
    run = prompt.start(input="hi", bindings={...})          # the sans-IO Engine
    effects = run.step()                                    # then run.resume(answers)
"""

from __future__ import annotations

from .version import __version__

__all__ = ["ParseError", "RunFailed", "parse_file", "parse_text", "run"]


def __getattr__(name):
    if name == "ParseError":
        from .prompt import ParseError

        return ParseError
    if name in ("parse_file", "parse_text"):  # prompts that start runs: the Engine's (prompt.start)
        from .engine import run

        return getattr(run, name)
    raise AttributeError(name)


def load_ipython_extension(ipython) -> None:
    """`%load_ext runvil` in IPython and Jupyter: the `%%runvil` cell magic
    (runvil.host.notebook)."""
    from .host.notebook import load_ipython_extension as load

    load(ipython)


class RunFailed(Exception):
    """`runvil.run` of a run that ended with a run error."""

    def __init__(self, error):
        super().__init__(f"error[{error.kind}]: {error.message}")
        self.error = error


def run(prompt, *, input: str | None = None, script=None, harness=None, bindings: dict | None = None):
    """Runs a prompt to its end and returns the result text (or None).

    `prompt` is a parsed prompt (or the path of a prompt file). `script` is
    a scripted world (a path or a parsed mapping); `harness` is any function
    answering one effect; with neither, every role runs on the offline echo
    model. `bindings` maps roles to `ModelBinding`s (or to model ids); the
    roles it leaves out keep the world's (or the echo model's) binding. The
    built-in Packs' tools can be offered as in `runvil run`; with no script
    and no harness the Packs perform them, as there. A run error
    raises RunFailed.
    """
    import os

    from .engine.run import ModelBinding, Run
    from .harness.answerer import choose_answerer, default_pack_tools, packs_perform, schemas_of_packs, with_packs
    from .harness.drive import drive

    if isinstance(prompt, (str, os.PathLike)):
        from .prompt import read_prompt

        prompt = read_prompt(prompt)
    roles = list(prompt.frontmatter.models)
    uses = prompt.frontmatter.uses
    if script is not None or harness is None:  # a script's bindings and input, or the echo model's
        defaults, answer, _ = choose_answerer(roles, script=script)
        if script is not None and input is None:
            input = answer.world_input
    else:
        defaults = {r: ModelBinding(r) for r in roles}
    if harness is not None:
        answer = harness
    elif packs_perform(uses, script is not None):  # the Packs are imported for a prompt that uses one
        answer = with_packs(answer, default_pack_tools(uses))
    for role, b in (bindings or {}).items():
        defaults[role] = ModelBinding(b, name=b) if isinstance(b, str) else b
    try:
        run_ = Run(prompt, input=input, bindings=defaults, packs=schemas_of_packs(uses))
        outcome = drive(run_, answer)
    finally:
        close = getattr(answer, "close", None) if script is None and harness is None else None
        if close is not None:
            close()
    if not outcome.ok:
        raise RunFailed(outcome.error)
    return outcome.result
