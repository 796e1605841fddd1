"""Tools (docs/reference/tools.md): the `tools` and `packs` globals — offers,
`tools.call` — and the section's tool list, rendered from the offers at its
first loop round. The calls of a tool round are the loop's
(conversation/loop.py).
"""

from __future__ import annotations

from types import FunctionType

from ..lua.api import lib_table
from ..structs import Struct
from .effects import ToolCall, ToolDropped, ToolFailure, ToolResult
from .errors import engine_error, message_type, names_hint, raise_lua
from .luajson import NotJSON, to_json
from .scheduler import plain_builtin, waiting_builtin
from .strings import from_lua_str, to_lua_str

OFFER_AFTER_RENDER = "{fn}: the section's tool list was rendered at its first loop round; offer tools before it"
NOT_IN_USES = "{fn}: pack '{pack}' is not listed in the frontmatter's uses"
UNKNOWN_PACK = "{fn}: unknown pack '{pack}'"
UNKNOWN_TOOL = "{fn}: pack '{pack}' has no tool '{tool}' ({known})"
BAD_TOOL_NAME = "{fn}: a bound tool is named 'pack/tool', got {got}"
# the texts of a tool round's failures (docs/reference/tools.md), raised by the loop
OUT_OF_SCOPE = "the model called the tool '{name}', which is not in scope for this section ({known})"
MALFORMED = "the model sent a malformed tool call: {why}"
DROPPED = "the tool call {id} ({name}) was dropped before it was answered"


class ToolDef(Struct):
    """An offered tool, as the model sees it and as the loop runs it."""

    name: str  # the name the model calls: 'web_search'
    description: str
    parameters: dict
    kind: str  # 'bound', 'local', or 'task' (the task built-ins)
    target: str = ""  # 'web/search' for a bound tool
    handler: object = None  # the Lua function of a local tool

    def schema(self) -> dict:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


def open_tools(vm):
    """The `tools` and `packs` globals of a VM."""
    return ToolsLibrary(vm).tables()


class ToolsLibrary:
    """The `tools` and `packs` libraries of one VM: offers of bound, local
    and Pack tools, and `tools.call` of a bound tool outside a round."""

    def __init__(self, vm):
        self.vm = vm
        self.run = vm.run

    def tables(self):
        """The Lua `tools` and `packs` tables, whose builtins call these methods."""
        tools = lib_table({"offer": plain_builtin("tools.offer", self.offer),
                           "offer_local": plain_builtin("tools.offer_local", self.offer_local),
                           "call": waiting_builtin("tools.call", self.call)}, "tools.")
        packs = lib_table({"offer": plain_builtin("packs.offer", self.packs_offer)}, "packs.")
        return tools, packs

    def pack_tool(self, fn: str, spec) -> tuple[str, str]:
        """A 'pack/tool' name checked against the frontmatter and the Packs."""
        if type(spec) is not str or spec.count("/") != 1:
            got = f"'{from_lua_str(spec)}'" if type(spec) is str else message_type(spec)
            raise_lua(BAD_TOOL_NAME.format(fn=fn, got=got))
        pack, tool = from_lua_str(spec).split("/")
        self.check_pack(fn, pack)
        tools = self.run.packs[pack]
        if tool not in tools:
            raise_lua(UNKNOWN_TOOL.format(fn=fn, pack=pack, tool=tool, known=names_hint(tool, tools, "its tools")))
        return pack, tool

    def check_pack(self, fn: str, pack: str) -> None:
        if pack not in self.run.prompt.frontmatter.uses:
            raise_lua(NOT_IN_USES.format(fn=fn, pack=pack))
        if pack not in self.run.packs:
            raise_lua(UNKNOWN_PACK.format(fn=fn, pack=pack))

    def bound_def(self, pack: str, tool: str) -> ToolDef:
        spec = self.run.packs[pack][tool]
        return ToolDef(f"{pack}_{tool}", spec.get("description", ""), spec.get("parameters") or {"type": "object"},
                       "bound", f"{pack}/{tool}")

    def offer(self, *args):
        """tools.offer('pack/tool')"""
        check_offer_open(self.vm, "tools.offer")
        pack, tool = self.pack_tool("tools.offer", args[0] if args else None)
        add_offer(self.vm, self.bound_def(pack, tool))

    def packs_offer(self, *args):
        """packs.offer('pack'): every tool of the Pack"""
        check_offer_open(self.vm, "packs.offer")
        name = args[0] if args else None
        if type(name) is not str:
            raise_lua(f"packs.offer needs a pack name, got {message_type(name)}")
        pack = from_lua_str(name)
        self.check_pack("packs.offer", pack)
        for tool in self.run.packs[pack]:
            add_offer(self.vm, self.bound_def(pack, tool))

    def offer_local(self, *args):
        """tools.offer_local(name, description, schema, handler)"""
        check_offer_open(self.vm, "tools.offer_local")
        name, desc, schema, handler = (tuple(args) + (None,) * 4)[:4]
        if type(name) is not str or not name:
            raise_lua(f"tools.offer_local: name must be a non-empty string, got {message_type(name)}")
        if type(desc) is not str:
            raise_lua(f"tools.offer_local: description must be a string, got {message_type(desc)}")
        if type(handler) is not FunctionType:
            raise_lua(f"tools.offer_local: handler must be a function, got {message_type(handler)}")
        try:
            params = to_json(schema) if schema is not None else {}
        except NotJSON as e:
            raise_lua(f"tools.offer_local: schema {e.must_be_json('').strip()}")
        if not isinstance(params, dict):
            raise_lua("tools.offer_local: schema must be a table (a JSON schema object)")
        if not params:
            params = {"type": "object", "properties": {}}
        add_offer(self.vm, ToolDef(from_lua_str(name), from_lua_str(desc), params, "local", handler=handler))

    def call(self, *args):
        """tools.call('pack/tool', arguments?): waits for the tool's answer"""
        pack, tool = self.pack_tool("tools.call", args[0] if args else None)
        arguments = args[1] if len(args) > 1 else None
        try:
            data = to_json(arguments) if arguments is not None else {}
        except NotJSON as e:
            raise_lua(f"tools.call: arguments {e.must_be_json('').strip()}")
        if data == []:
            data = {}
        if not isinstance(data, dict):
            raise_lua("tools.call: arguments must be a table")
        name = f"{pack}/{tool}"
        run, vm = self.run, self.vm
        (answer,) = yield from run.sched.await_effects([ToolCall(run.sched.new_id(), name, data)])
        # reported like the loop's calls, with no model call id
        if isinstance(answer, ToolResult):
            run.events.emit("tool_call_succeeded", vm.execution_id, vm.section, name=name, id=None)
        else:
            message = getattr(answer, "message", None) or "the call was dropped"
            run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=name, id=None, message=message)
        if isinstance(answer, ToolFailure):
            raise engine_error("internal", answer.message if answer.fatal else f"tool {name} failed: {answer.message}")
        if isinstance(answer, ToolDropped):
            raise engine_error("cancelled", f"the tool call {name} was dropped before it was answered")
        return to_lua_str(answer.text)


def check_offer_open(vm, fn: str) -> None:
    """Offers are refused once the section's tool list is rendered."""
    if vm.rendered_tools is not None:
        raise_lua(OFFER_AFTER_RENDER.format(fn=fn))


def add_offer(vm, tool: ToolDef) -> None:
    """An offer replaces an earlier one of the same name."""
    vm.offers[:] = [o for o in vm.offers if o.name != tool.name] + [tool]


def render_tools(vm) -> list:
    """The section's tool list, rendered from every offer (the H1's first)
    at its first loop round and fixed from then on."""
    if vm.rendered_tools is None:
        seen = {}
        for o in list(vm.run.h1_offers) + list(vm.offers):
            seen[o.name] = o
        vm.rendered_tools = list(seen.values())
    return [t.schema() for t in vm.rendered_tools]
