"""The loop (docs/reference/conversations.md "How the loop runs", "Tool rounds and the
round cap", "Empty replies and finish reasons", "Compactors and context
exhaustion"): models.loop and h:loop once their arguments are checked
(models.py), and the tool rounds they run.

Each round renders the tool list (once per section), composes the list
(the cross-record checks), runs the precheck, sends, and judges the answer
in a fixed order: a context overflow (the compactor rewrites the list and
the round is retried once), tool calls, a non-empty text reply, the clean
exit; anything else is an empty_model_reply.
"""

from __future__ import annotations

from ..effects import ModelFailure, ToolCall, ToolDropped, ToolFailure, ToolResult
from ..errors import add_facts, engine_error, names_hint, raise_lua
from ..luajson import NotJSON, encode_compact, from_json, record_views, to_json
from ..strings import from_lua_str
from ..tasks import deliver_notices, run_task_tool
from ..tools import DROPPED, MALFORMED, OUT_OF_SCOPE, ToolDef, render_tools
from .compaction import default_compactor, did_not_shrink, run_compactor, still_overflows, structural_check
from .compose import composed
from .precheck import admit, estimate, output_reserve
from .records import Record
from .rounds import current_role, empty_reply_error, failure_error, is_overflow, reserve_of, send_round

EMPTY_LIST = "messages must not be empty"
NOT_CONVERGED = "tool-call loop did not converge"
TRUNCATED_TOOL_ROUND = "the model's tool-call reply was cut short (finish reason {finish_reason}); its calls were not run"
TRUNCATING = ("length", "content_filter")


class _Overflow(Exception):
    def __init__(self, reason: str, facts: dict):
        self.reason = reason
        self.facts = facts  # what the Host says under a context_exhausted that ends the run


def run_loop(vm, handle_role: str | None, compactor):
    """Runs rounds on the VM's list until the model replies with text. A
    generator, as everything here that waits (runvil.engine.scheduler)."""
    run = vm.run
    if compactor is None:
        compactor = default_compactor(vm)  # read when the call begins
    cap = run.prompt.frontmatter.max_tool_iterations
    vm.in_loop = True
    try:
        rounds = 0
        answered_tool = False
        while True:
            retried = False
            before_compaction = None
            while True:  # one round, and at most one retry after a compaction
                role = handle_role or current_role(vm)
                if not vm.messages.records:
                    raise_lua(EMPTY_LIST)
                deliver_notices(vm)  # before the precheck: they count toward the request
                tools = render_tools(vm)
                messages = composed(vm)
                window, max_tokens, model = reserve_of(vm, role)
                try:
                    tokens = vm.messages.anchor.count(model, messages)
                    if not admit(window, max_tokens, tokens):
                        start, added = since_last_send(vm, messages)
                        run.events.emit("model_turn_failed", vm.execution_id, vm.section, origin="chat",
                                        reason="precheck", tokens=tokens, window=window,
                                        start=start, messages=added)  # what the refused request added
                        raise _Overflow("precheck", {"estimate": tokens, "window": window, "model": model,
                                                     "reserve": output_reserve(window, max_tokens)})
                    report_chat(vm, messages, precheck={"tokens": tokens, "window": window,
                                                         "reserve": output_reserve(window, max_tokens)})
                    answer = yield from send_round(vm, role, messages, tools, "chat")
                    if isinstance(answer, ModelFailure) and is_overflow(answer):
                        raise _Overflow("provider", {"server": answer.stream_error or answer.body,
                                                     **(answer.facts or {}), "model": model, "window": window})
                except _Overflow as o:
                    reason = o.reason
                    if retried:
                        # the retry overflowed again: back to before the compaction
                        vm.messages.records[:] = before_compaction
                        error = still_overflows(reason, compactor)
                        add_facts(error, "context_exhausted", o.facts)
                        raise error from None
                    before_compaction = list(vm.messages.records)
                    overflowed = estimate(messages)

                    def rules(reason=reason, overflowed=overflowed):
                        # structural rules always; after an overflow the list must shrink
                        structural_check(vm)
                        if vm.messages.records:
                            after = estimate(composed(vm))
                            if after >= overflowed:
                                raise did_not_shrink(reason, compactor, overflowed, after)

                    try:
                        yield from run_compactor(vm, compactor, reason, rules)
                    except BaseException as e:
                        add_facts(e, "context_exhausted", o.facts)
                        raise
                    retried = True
                    continue
                break
            rounds += 1
            if isinstance(answer, ModelFailure):
                raise failure_error(answer)
            vm.messages.anchor.measured(model, messages, answer.usage)
            if answer.tool_calls:
                if answer.finish_reason in TRUNCATING:  # partial arguments never run
                    raise engine_error("internal", TRUNCATED_TOOL_ROUND.format(finish_reason=answer.finish_reason))
                calls = [dict(c) for c in answer.tool_calls]
                check_calls(calls)
                tool_records = yield from run_tool_calls(vm, calls)
                # the whole round lands at once, never half-answered
                vm.messages.records.append(Record("assistant", "", calls))
                vm.messages.records.extend(tool_records)
                answered_tool = True
                if rounds >= cap:
                    raise engine_error("tool_loop_exhausted", NOT_CONVERGED,
                                       {"max_tool_iterations": cap, "section": vm.section})
                continue
            if not answer.empty:
                vm.messages.records.append(Record("assistant", answer.text))
                run.events.emit("reply", vm.execution_id, vm.section, turn=vm.last_turn, origin="chat",
                                finish_reason=answer.finish_reason, text=answer.text)
                return None
            if answered_tool and answer.finish_reason == "stop":  # the clean exit
                vm.messages.records.append(Record("assistant", ""))
                run.events.emit("reply", vm.execution_id, vm.section, turn=vm.last_turn, origin="chat",
                                finish_reason=answer.finish_reason, text="")
                return None
            raise empty_reply_error(answer)
    finally:
        vm.in_loop = False


def report_chat(vm, messages: list, precheck: dict) -> None:
    """The `chat` event: what this request adds since the previous send on
    the same list, with the precheck's figures that admitted it (for the
    run viewer)."""
    start, added = since_last_send(vm, messages)
    vm.messages.last_sent = list(messages)
    if added:
        vm.run.events.emit("chat", vm.execution_id, vm.section, start=start, messages=added, precheck=precheck)


def since_last_send(vm, messages: list) -> tuple[int, list]:
    """The 1-based position of the first message that differs from the
    previous send on the same list, and the messages from there on."""
    last = vm.messages.last_sent
    i = 0
    n = min(len(last), len(messages))
    while i < n and (last[i] is messages[i] or last[i] == messages[i]):
        i += 1
    return i + 1, messages[i:]


# ------------------------------------------------------------ tool rounds


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


def run_tool_calls(vm, calls: list):
    """Answers every call of a tool round; returns the tool records in the
    model's order. Bound calls in a row are issued together; a local call
    runs alone between its neighbours, and so does a task tool call.
    Nothing is appended here: the loop appends the whole round once every
    call has its answer. A dropped call raises `cancelled`."""
    scope = {t.name: t for t in (vm.rendered_tools or [])}
    for c in calls:
        if c["name"] not in scope:
            known = names_hint(c["name"], scope, "in scope")
            raise engine_error("out_of_scope_tool", OUT_OF_SCOPE.format(name=c["name"], known=known), name=c["name"])
    results: dict[str, str] = {}
    i = 0
    while i < len(calls):
        tool = scope[calls[i]["name"]]
        if tool.kind != "bound":
            run_alone = run_local if tool.kind == "local" else run_task_tool
            results[calls[i]["id"]] = yield from run_alone(vm, tool, calls[i])
            i += 1
            continue
        j = i
        batch = []
        while j < len(calls) and scope[calls[j]["name"]].kind == "bound":
            c = calls[j]
            batch.append(ToolCall(vm.run.sched.new_id(), scope[c["name"]].target, c["arguments"], c["id"]))
            j += 1
        answers = yield from vm.run.sched.await_effects(batch)
        for eff, ans in zip(batch, answers):
            if isinstance(ans, ToolDropped):
                vm.run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=eff.name, id=eff.call_id,
                                   message=DROPPED.format(id=eff.call_id, name=scope_name(eff)))
                raise engine_error("cancelled", DROPPED.format(id=eff.call_id, name=scope_name(eff)))
            if isinstance(ans, ToolFailure) and ans.fatal:
                vm.run.events.emit("tool_call_failed", vm.execution_id, vm.section, name=eff.name, id=eff.call_id,
                                   message=ans.message)
                raise engine_error("internal", ans.message)
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


def run_local(vm, tool: ToolDef, call: dict):
    """A local tool: its handler gets the decoded arguments; a string result
    is the text, other JSON data is encoded. A raise ends the loop."""
    args = from_json(call["arguments"])
    results = yield from vm.state.call_g(tool.handler, args)
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
