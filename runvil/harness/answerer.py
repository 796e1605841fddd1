"""Who answers a run, chosen in one place for `runvil.run`, `runvil run`,
`runvil chat`, `runvil batch` and the prompt REPL (`runvil lua --prompt`):
a scripted world, the real providers, or the offline echo model; the
Packs for the tool calls no scripted world plays; the recorder that keeps
what the real world answered (docs/reference/commands.md).

The real providers are passed in: the host reads the config that names
them (host/config.py) and hands over what makes them, so that this module
knows nothing of config files or command-line flags. Each helper imports
the harness part it uses when it is called (the providers' and the Packs'
code costs start-up that an echo run need not pay).
"""

from __future__ import annotations

from ..engine.effects import ModelRound, ToolFailure
from ..engine.run import ModelBinding
from .echo import ECHO_CONTEXT, echo_reply

#: said on stderr by the commands when every role falls back to the echo model
NO_CONFIG_NOTE = "runvil: no config: every model role runs on the offline echo model"


class Answerer:
    """Answers effects from the scripted world or the echo model."""

    def __init__(self, world=None):
        self.world = world
        self.world_input = world.input if world is not None else None

    def __call__(self, effect):
        if self.world is not None:
            return self.world.answer(effect)
        if isinstance(effect, ModelRound):
            return echo_reply(effect)
        return ToolFailure(f"no tool backend is configured for {effect.name}")


def echo_bindings(roles) -> dict:
    """Every role bound to the echo model."""
    return {r: ModelBinding("echo", ECHO_CONTEXT, name="echo") for r in roles}


def choose_answerer(roles, *, script=None, providers=None, on_fragment=None):
    """(bindings of every role, the answerer, a note for stderr or None).

    `script` is a scripted world, a path or a parsed mapping: it plays
    every role (a WorldError, a ValueError, when it cannot be read).
    Otherwise `providers`, when given, is called with `on_fragment` and
    returns the bindings and the answerer of the real providers. With
    neither, every role runs on the echo model."""
    roles = list(roles)
    if script is not None:
        from .scripted import ScriptedWorld

        if isinstance(script, dict):
            world = ScriptedWorld(script, roles=roles)
        else:
            world = ScriptedWorld.load(script, on_fragment=on_fragment, roles=roles)
        return {r: world.binding(r) for r in roles}, Answerer(world), None
    if providers is not None:
        bindings, answer = providers(on_fragment)
        return bindings, answer, None
    return echo_bindings(roles), Answerer(), NO_CONFIG_NOTE


def packs_perform(uses, scripted: bool) -> bool:
    """Whether the Packs perform a prompt's tool calls: it uses one, and no
    scripted world plays the tools."""
    return bool(uses) and not scripted


def with_packs(answer, tools):
    """The answerer whose tool calls go to the Packs' `tools` (a PackTools)."""
    from .packs import WithPackTools

    return WithPackTools(answer, tools)


def default_pack_tools(uses):
    """The Packs' tools with the default settings and a temporary workspace
    (`runvil.run`; the commands read `[packs]` from the config)."""
    from .packs import PackTools

    return PackTools(wanted=uses)


def schemas_of_packs(uses) -> dict:
    """The tool schemas of the Packs a prompt uses (none: nothing imported)."""
    if not uses:
        return {}
    from .packs import discover_packs, pack_schemas

    return pack_schemas(discover_packs(wanted=uses))


def recording(on_fragment=None):
    """(a Recorder, the `on_fragment` that also keeps the streamed pieces)
    for `--record`; the recorder imports the provider code (httpx)."""
    from .recorder import Recorder

    recorder = Recorder()
    return recorder, recorder.fragment_hook(on_fragment)
