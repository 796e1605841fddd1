"""Tools (spec/runvil.md §7; conversations.md "Tool rounds and the round
cap"): offers, the tool list rendered at the first loop round, and the
calls of a tool round — bound calls issued together, local calls alone.
"""

from __future__ import annotations

from types import FunctionType

from attrs import define

from ..lua.stdlib import lib_table
from .conversation.records import Record
from .effects import ToolCall, ToolDropped, ToolFailure, ToolResult
from .errors import engine_error, raise_lua
from .jsonlib import NotJSON, encode_compact, from_json, record_views, to_json

OFFER_AFTER_RENDER = "{fn}: the section's tool list was rendered at its first loop round; offer tools before it"
NOT_IN_USES = "{fn}: pack '{pack}' is not listed in the frontmatter's uses"
UNKNOWN_PACK = "{fn}: unknown pack '{pack}'"
UNKNOWN_TOOL = "{fn}: pack '{pack}' has no tool '{tool}'"
BAD_TOOL_NAME = "{fn}: a bound tool is named 'pack/tool', got {got}"
OUT_OF_SCOPE = "the model called the tool '{name}', which is not in scope for this section"
MALFORMED = "the model sent a malformed tool call: {why}"
DROPPED = "the tool call {id} ({name}) was dropped before it was answered"


@define
class ToolDef:
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
    from .vm import from_lua_str

    run = vm.run

    def check_open(fn):
        check_offer_open(vm, fn)

    def pack_tool(fn, spec):
        if type(spec) is not str or spec.count("/") != 1:
            raise_lua(BAD_TOOL_NAME.format(fn=fn, got=f"'{from_lua_str(spec)}'" if type(spec) is str else _tname(spec)))
        pack, tool = from_lua_str(spec).split("/")
        check_pack(fn, pack)
        tools = run.packs[pack]
        if tool not in tools:
            raise_lua(UNKNOWN_TOOL.format(fn=fn, pack=pack, tool=tool))
        return pack, tool

    def check_pack(fn, pack):
        if pack not in run.prompt.frontmatter.uses:
            raise_lua(NOT_IN_USES.format(fn=fn, pack=pack))
        if pack not in run.packs:
            raise_lua(UNKNOWN_PACK.format(fn=fn, pack=pack))

    def add(tool: ToolDef):
        add_offer(vm, tool)

    def bound_def(pack, tool) -> ToolDef:
        spec = run.packs[pack][tool]
        return ToolDef(f"{pack}_{tool}", spec.get("description", ""), spec.get("parameters") or {"type": "object"},
                       "bound", f"{pack}/{tool}")

    def offer(*args):
        check_open("tools.offer")
        pack, tool = pack_tool("tools.offer", args[0] if args else None)
        add(bound_def(pack, tool))

    def packs_offer(*args):
        check_open("packs.offer")
        name = args[0] if args else None
        if type(name) is not str:
            raise_lua(f"packs.offer needs a pack name, got {_tname(name)}")
        pack = from_lua_str(name)
        check_pack("packs.offer", pack)
        for tool in run.packs[pack]:
            add(bound_def(pack, tool))

    def offer_local(*args):
        check_open("tools.offer_local")
        a = tuple(args) + (None,) * 4
        name, desc, schema, handler = a[:4]
        if type(name) is not str or not name:
            raise_lua(f"tools.offer_local: name must be a non-empty string, got {_tname(name)}")
        if type(desc) is not str:
            raise_lua(f"tools.offer_local: description must be a string, got {_tname(desc)}")
        if type(handler) is not FunctionType:
            raise_lua(f"tools.offer_local: handler must be a function, got {_tname(handler)}")
        try:
            params = to_json(schema) if schema is not None else {}
        except NotJSON as e:
            raise_lua(f"tools.offer_local: schema {e.must_be_json('').strip()}")
        if not isinstance(params, dict):
            raise_lua("tools.offer_local: schema must be a table (a JSON schema object)")
        if not params:
            params = {"type": "object", "properties": {}}
        add(ToolDef(from_lua_str(name), from_lua_str(desc), params, "local", handler=handler))

    def call(*args):
        spec = args[0] if args else None
        pack, tool = pack_tool("tools.call", spec)
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
        (answer,) = run.sched.await_effects([ToolCall(run.sched.new_id(), name, data)])
        # reported like the loop's calls; no model call id (spec/runvil.md §11)
        if isinstance(answer, ToolResult):
            run.events.emit("tool_call_succeeded", vm.execution_id, vm.section, name=name, id=None)
        else:
            message = getattr(answer, "message", None) or "the call was dropped"
            run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=name, id=None, message=message)
        if isinstance(answer, ToolFailure):
            raise engine_error("internal", f"tool {name} failed: {answer.message}")
        if isinstance(answer, ToolDropped):
            raise engine_error("cancelled", f"the tool call {name} was dropped before it was answered")
        from .vm import to_lua_str

        return to_lua_str(answer.text)

    tools = lib_table({"offer": offer, "offer_local": offer_local, "call": call}, "tools.")
    packs = lib_table({"offer": packs_offer}, "packs.")
    return tools, packs


def check_offer_open(vm, fn: str) -> None:
    """Offers are refused once the section's tool list is rendered."""
    if vm.rendered_tools is not None:
        raise_lua(OFFER_AFTER_RENDER.format(fn=fn))


def add_offer(vm, tool: ToolDef) -> None:
    """An offer replaces an earlier one of the same name."""
    vm.offers[:] = [o for o in vm.offers if o.name != tool.name] + [tool]


def _tname(v) -> str:
    from .models import type_for_message

    return type_for_message(v)


def render_tools(vm) -> list:
    """The section's tool list, rendered from every offer (the H1's first)
    at its first loop round and fixed from then on."""
    if vm.rendered_tools is None:
        seen = {}
        for o in list(vm.run.h1_offers) + list(vm.offers):
            seen[o.name] = o
        vm.rendered_tools = list(seen.values())
    return [t.schema() for t in vm.rendered_tools]


def untrusted(text: str, call_id: str) -> str:
    """A bound tool's failure as untrusted text. The nonce is derived from
    the text itself, so it is repeatable yet cannot be guessed by whoever
    wrote the text."""
    import hashlib  # here: OpenSSL is slow to import and few runs get here

    nonce = hashlib.sha256(f"{call_id}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"<untrusted_input_{nonce}>{text}</untrusted_input_{nonce}>"


def check_calls(calls: list) -> None:
    """A malformed tool-call reply fails the round as kind internal."""
    ids = set()
    for c in calls:
        if not isinstance(c.get("id"), str) or not c["id"].strip():
            raise engine_error("internal", MALFORMED.format(why="a call has a blank id"))
        if not isinstance(c.get("name"), str) or not c["name"].strip():
            raise engine_error("internal", MALFORMED.format(why="a call has a blank name"))
        if c["id"] in ids:
            raise engine_error("internal", MALFORMED.format(why=f"the id {c['id']} is repeated"))
        ids.add(c["id"])
        if not isinstance(c.get("arguments"), dict):
            raise engine_error("internal", MALFORMED.format(why=f"the arguments of {c['id']} are not a JSON object"))


def run_tool_calls(vm, calls: list) -> list:
    """Answers every call of a tool round; returns the tool records in the
    model's order. Bound calls in a row are issued together; a local call
    runs alone between its neighbours, and so does a task tool call.
    Nothing is appended here: the loop appends the whole round once every
    call has its answer. A dropped call raises `cancelled`."""
    from .tasks import run_task_tool

    scope = {t.name: t for t in (vm.rendered_tools or [])}
    for c in calls:
        if c["name"] not in scope:
            raise engine_error("out_of_scope_tool", OUT_OF_SCOPE.format(name=c["name"]), name=c["name"])
    results: dict[str, str] = {}
    i = 0
    while i < len(calls):
        tool = scope[calls[i]["name"]]
        if tool.kind != "bound":
            run_alone = run_local if tool.kind == "local" else run_task_tool
            results[calls[i]["id"]] = run_alone(vm, tool, calls[i])
            i += 1
            continue
        j = i
        batch = []
        while j < len(calls) and scope[calls[j]["name"]].kind == "bound":
            c = calls[j]
            batch.append(ToolCall(vm.run.sched.new_id(), scope[c["name"]].target, c["arguments"], c["id"]))
            j += 1
        answers = vm.run.sched.await_effects(batch)
        for eff, ans in zip(batch, answers):
            if isinstance(ans, ToolDropped):
                vm.run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=eff.name, id=eff.call_id,
                                   message=DROPPED.format(id=eff.call_id, name=scope_name(eff)))
                raise engine_error("cancelled", DROPPED.format(id=eff.call_id, name=scope_name(eff)))
            if isinstance(ans, ToolResult):
                results[eff.call_id] = ans.text
                vm.run.events.emit("tool_call_succeeded", vm.execution_id, vm.section, name=eff.name, id=eff.call_id)
            else:
                msg = ans.message if isinstance(ans, ToolFailure) else str(ans)
                results[eff.call_id] = untrusted(msg, eff.call_id)
                vm.run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=eff.name, id=eff.call_id,
                                   message=msg)
        i = j
    return [Record("tool", results[c["id"]], tool_call_id=c["id"]) for c in calls]


def scope_name(eff: ToolCall) -> str:
    """The name the model called a bound tool by."""
    return eff.name.replace("/", "_")


def run_local(vm, tool: ToolDef, call: dict) -> str:
    """A local tool: its handler gets the decoded arguments; a string result
    is the text, other JSON data is encoded. A raise ends the loop."""
    from .vm import from_lua_str

    args = from_json(call["arguments"])
    results = vm.state.call(tool.handler, args)
    value = results[0] if results else None
    if type(value) is str:
        text = from_lua_str(value)
    elif value is None:
        text = ""
    else:
        try:
            text = encode_compact(to_json(value, views=record_views))
        except NotJSON as e:
            raise_lua(f"tool {tool.name}: the handler's result {e.must_be_json('').strip()}")
    vm.run.events.emit("tool_call_succeeded", vm.execution_id, vm.section, name=tool.name, id=call["id"])
    return text

