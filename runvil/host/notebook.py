"""runvil in notebooks: `%load_ext runvil` gives the `%%runvil` cell magic,
which runs the cell as a prompt and shows the run viewer's page inline.

    %%runvil --world WORLD --input INPUT -m MODEL
    ---
    name: haiku
    ...

`--world` and `--input` take a notebook variable's name (the variable
holds the world's YAML text or mapping, or the input's text) or else a
world file's path and the input's text; `-m` binds every role to a
catalog model, as `runvil run -m` does. The run's result is the cell's
value; a failed run prints `error[Kind]: message` on stderr and the
cell's value is None. `run_cell` is the magic without IPython (Pyodide,
tests).
"""

from __future__ import annotations

import argparse
import html
import shlex
import sys
from types import SimpleNamespace

from ..structs import Struct


class CellRun(Struct):
    """What a cell's run ended with: its result or error, and the viewer's page."""

    ok: bool
    result: str | None
    error: str | None  # `error[Kind]: message`
    page: str  # the run viewer's HTML page


class CellError(Exception):
    """The magic's line or its world cannot be used (said, no run)."""


def magic_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="%%runvil", add_help=False, exit_on_error=False)
    p.add_argument("--world", metavar="NAME_OR_FILE")
    p.add_argument("--input", metavar="TEXT_OR_NAME")
    p.add_argument("-m", "--model", metavar="MODEL")
    return p


def run_cell(line: str, cell: str, namespace: dict | None = None) -> CellRun:
    """Runs the cell's prompt as the magic's line says; CellError when the
    line, the world or the model cannot be used."""
    namespace = namespace or {}
    try:
        args, rest = magic_parser().parse_known_args(shlex.split(line))
    except (argparse.ArgumentError, ValueError) as e:
        raise CellError(f"%%runvil: {e}") from None
    if rest:
        raise CellError(f"%%runvil: unrecognized arguments: {' '.join(rest)} (it takes --world, --input and -m)")
    world = world_of(args.world, namespace)
    text = args.input
    if text is not None and text.isidentifier() and text in namespace:
        text = namespace[text]
        if not isinstance(text, str):
            raise CellError(f"%%runvil: --input {args.input}: the variable holds a {type(text).__name__}, not a str")
    return _run(cell, world, text, args.model)


def world_of(name: str | None, namespace: dict):
    """The scripted world: a variable's YAML text or mapping, else a file's path."""
    if name is None:
        return None
    if name.isidentifier() and name in namespace:
        value = namespace[name]
        if isinstance(value, dict):
            return value
        if isinstance(value, str):
            import yaml

            try:
                world = yaml.safe_load(value)
            except yaml.YAMLError as e:
                raise CellError(f"%%runvil: --world {name}: not YAML: {e}") from None
            if not isinstance(world, dict):
                raise CellError(f"%%runvil: --world {name}: a world is a YAML mapping")
            return world
        raise CellError(f"%%runvil: --world {name}: the variable holds a {type(value).__name__}, "
                        "not the world's YAML text or a mapping")
    return name


def _run(cell: str, world, input_text: str | None, model: str | None) -> CellRun:
    from ..engine.run import PrepareError, Run
    from ..harness.drive import drive
    from ..prompt import ParseError, parse_text
    from .runcmd import close_answerer, world_for
    from .view import render

    try:
        prompt = parse_text(cell, path="<cell>")
    except ParseError as e:
        return CellRun(False, None, f"error[Parse]: {e}", "")
    try:
        bindings, answer, _ = world_for(SimpleNamespace(script=world, bind=[], model=model, config=None), prompt)
    except ValueError as e:
        raise CellError(f"%%runvil: {e}") from None
    if input_text is None and world is not None:
        input_text = answer.world_input
    try:
        run = Run(prompt, input=input_text, bindings=bindings)
    except PrepareError as e:
        close_answerer(answer)
        raise CellError(f"%%runvil: {e}") from None
    try:
        outcome = drive(run, answer)
    finally:
        close_answerer(answer)
    page = render([ev.as_json() for ev in run.events.events], prompt.frontmatter.name)
    if outcome.ok:
        return CellRun(True, outcome.result, None, page)
    return CellRun(False, None, f"error[{outcome.error.kind}]: {outcome.error.message}", page)


def framed(page: str) -> str:
    """The viewer's page in an iframe: its styles stay off the notebook's."""
    return (f'<iframe srcdoc="{html.escape(page, quote=True)}" style="width:100%;height:480px;'
            'border:1px solid #ccc" sandbox></iframe>')


def runvil_magic(line: str, cell: str):
    """%%runvil: the cell is a prompt (see runvil.host.notebook)."""
    from IPython import get_ipython
    from IPython.display import HTML, display

    shell = get_ipython()
    try:
        ran = run_cell(line, cell, shell.user_ns if shell is not None else {})
    except CellError as e:
        print(e, file=sys.stderr)
        return None
    if ran.page:
        display(HTML(framed(ran.page)))
    if not ran.ok:
        print(ran.error, file=sys.stderr)
        return None
    return ran.result


def load_ipython_extension(ipython) -> None:
    """`%load_ext runvil`."""
    ipython.register_magic_function(runvil_magic, magic_kind="cell", magic_name="runvil")
