"""What to do about a run error: the `help:` lines the Host writes under
the plain `error[Kind]: message` line (the public contract, unchanged) and
`--json` gives as the error's `help` list.

A message the spec fixes (the precheck overflow, the loop that did not
converge, the missing model, a nil global) stays exactly as it is; the
figures and the hints go here. They come from the facts the Engine and the
Harness put on the error (runvil.engine.errors.ErrorValue.facts), from the
prompt, and from the run's `var`; a message is read only where the text is
Lua's own (a limit of the sandbox, a nil global in prose).
"""

from __future__ import annotations

import re

#: the Lua limit a message names -> the `[limits]` key of runvil.toml that sets it
LIMIT_KEYS = (
    ("run step limit exceeded", "run_steps"),
    ("run time limit exceeded", "run_seconds"),
    ("section entry limit exceeded", "section_entries"),
    ("step limit exceeded", "block_steps"),
    ("CPU time limit exceeded", "block_cpu_seconds"),
    ("time limit exceeded", "block_seconds"),
    ("memory limit exceeded", "block_memory (a block's) or memory (the run's)"),
)
TOOLS_IGNORED = ("runvil: warning: the model was offered tools, but its server ignores them: llama.cpp's server "
                 "(llama-cpp-python) calls no tool unless it is started with --chat_format chatml-function-calling")
NO_INPUT = "the run has no input: pass --input TEXT or --input-file F, or pipe the input on stdin"
_NIL_GLOBAL = re.compile(r"global `([^`]+)` is nil")


def help_lines(prompt, error, run=None) -> list[str]:
    """The hints for a run error (a RunError), in the order they are shown."""
    facts = getattr(error, "facts", None) or {}
    kind, message = error.kind, error.message
    lines: list[str] = []
    if kind == "ContextExhausted":
        lines += _exhausted(facts)
    elif kind == "Tool" and "max_tool_iterations" in facts:
        section = facts.get("section")
        where = f"section `{section}`" if section else "the H1 block"
        lines.append(f"{where} reached the round cap, max_tool_iterations = {facts['max_tool_iterations']}: "
                     "raise it in the frontmatter (at most 1000), or ask the model to answer in fewer tool rounds")
    elif kind == "Completion":
        lines += provider_lines(facts, message)
    elif kind == "Lua":
        lines += _lua(prompt, message, run)
    return lines


def _exhausted(facts: dict) -> list[str]:
    lines = []
    compactor = facts.get("compactor")
    if compactor and facts.get("overflowed_again"):
        lines.append(f"the list the compactor {compactor} left overflowed again")
    elif compactor:
        lines.append(f"the compactor {compactor} did not shrink the list (estimated {facts.get('before')} tokens "
                     f"before it ran, {facts.get('after')} after)")
    if "estimate" in facts:
        fix = ("models.infer has no compactor: send it a shorter prompt" if facts.get("origin") == "infer" else
               "give models.loop a compactor that shrinks the list, or send less")
        lines.append(f"the request was estimated at {facts['estimate']} tokens against the window of "
                     f"{facts['window']} of the model {facts.get('model')}, with {facts['reserve']} kept for "
                     f"the reply: {fix}")
    server = facts.get("server")
    if server:
        said = " ".join(str(server).split())
        said = said if len(said) <= 300 else said[:297] + "..."
        model = facts.get("model")
        key = f"the `context` key of [models.\"{model}\"]" if model else "the model's `context` key"
        lines.append(f"the server said: {said}")
        lines.append(f"if the server's window is smaller than {facts.get('window')} tokens, set {key} "
                     "in the config to the server's")
    return lines


def provider_lines(facts: dict, message: str) -> list[str]:
    """The hints for a provider's failure: where its server is, how to start llama.cpp's."""
    lines = []
    provider, url = facts.get("provider"), facts.get("url")
    if message.startswith("the model backend could not be reached") and (provider or url):
        from .envconfig import ENV_PROVIDER, URL_ENV

        named = f"provider '{provider}'" if provider else "the provider"
        # the environment's provider may come from a config file of that name too: both are said
        source = (f"{URL_ENV} without a config file, else its base_url in the config" if provider == ENV_PROVIDER
                  else "its base_url in the config")
        lines.append(f"{named} is at {url}: is its server running there? ({source})"
                     if url else f"{named}: is its server running?")
    if facts.get("hint") == "interrupted":
        lines.append("start llama.cpp's server with --interrupt_requests False, so that it serves concurrent "
                     "requests one after the other")
    return lines


def _lua(prompt, message: str, run) -> list[str]:
    for phrase, key in LIMIT_KEYS:
        if phrase in message:
            return [f"a longer budget is set by [limits] {key} in runvil.toml"]
    if "no model selected; call models.use(role) or models.default(role) first" in message:
        return _missing_model(prompt)
    nil = _NIL_GLOBAL.search(message)
    if nil is not None:
        return _nil_global(nil.group(1), run)
    if "a nil value (global 'input')" in message and run is not None and run.input is None:
        return [NO_INPUT]  # `input:lower()` on a run given no input
    return []


def _missing_model(prompt) -> list[str]:
    roles = list(prompt.frontmatter.models) if prompt is not None else []
    if len(roles) == 1:
        return [f"add models.default('{roles[0]}') to the H1 block"]
    if roles:
        return [f"add models.default(ROLE) to the H1 block, or models.use(ROLE) to the section; "
                f"declared roles: {', '.join(roles)}"]
    return ["declare a role under `models:` in the frontmatter, then add models.default(ROLE) to the H1 block"]


def _nil_global(name: str, run) -> list[str]:
    if name == "input":
        return [NO_INPUT]
    names = run.var.names() if run is not None else []
    if name.startswith("var."):
        from difflib import get_close_matches

        close = get_close_matches(name, [f"var.{n}" for n in names], n=1, cutoff=0.6)
        if close:
            return [f"did you mean `{close[0]}`? (set: {', '.join(names)})"]
        return [f"no section set {name} before this one" + (f" (set: {', '.join(names)})" if names else "")]
    if name in names:
        return [f"var.{name} is set: write {{{{var.{name}}}}}"]
    return []


def write_help(stream, lines: list[str]) -> None:
    """The `help:` lines under an error line."""
    for line in lines:
        stream.write(f"help: {line}\n")


class WarnOnce:
    """An answerer that passes every effect on and says once, on `stream`,
    that a server ignores the tools it is offered (a reply's facts say so:
    runvil.harness.openai), since such a run otherwise just never calls one."""

    def __init__(self, answer, stream):
        self.answer, self.stream = answer, stream
        self.concurrent = getattr(answer, "concurrent", False)
        self.warned = False

    def __call__(self, effect):
        got = self.answer(effect)
        facts = getattr(got, "facts", None)
        if facts and facts.get("hint") == "tools_ignored" and not self.warned:
            self.warned = True
            self.stream.write(TOOLS_IGNORED + "\n")
        return got
