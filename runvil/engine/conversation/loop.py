"""The loop (conversations.md "How the loop runs", "Tool rounds and the
round cap", "Empty replies and finish reasons"): models.loop and h:loop.

Each round composes the list, sends it, and judges the answer in a fixed
order: a context overflow, tool calls, a non-empty text reply, the clean
exit; anything else is an empty_model_reply.
"""

from __future__ import annotations

from types import FunctionType

from ..effects import ModelFailure
from ..errors import engine_error, raise_lua
from .compose import compose
from .records import Record

TAKES = "models.loop takes (compactor?)"
TAKES_HANDLE = "models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle"
H_TAKES = "handle:loop takes (compactor?)"
H_RECEIVER = "call loop on a model handle with a colon: handle:loop(compactor?)"
NOT_A_FUNCTION = "compactor must be a function, got {type}"
ALREADY_RUNNING = "a loop or a compactor is already running in this section; ask a side question with models.infer(prompt)"
EMPTY_LIST = "messages must not be empty"
NOT_CONVERGED = "tool-call loop did not converge"


def check_loop_args(vm, handle, args: tuple):
    """Argument errors, in their fixed order; returns the compactor."""
    from ..models import ModelHandle, type_for_message

    if handle is None:
        if args and isinstance(args[0], ModelHandle):
            raise_lua(TAKES_HANDLE)
        if len(args) > 1:
            raise_lua(TAKES)
    elif len(args) > 1:
        raise_lua(H_TAKES)
    compactor = args[0] if args else None
    if compactor is not None and type(compactor) is not FunctionType:
        raise_lua(NOT_A_FUNCTION.format(type=type_for_message(compactor)))
    if vm.in_loop or vm.compacting:
        raise_lua(ALREADY_RUNNING)
    return compactor


def structural_check(vm) -> None:
    """The structural rules a compaction must pass: the cross-record
    checks of composing (an empty list passes)."""
    from .compose import ComposeError

    if vm.messages.records:
        try:
            compose(vm.messages.records)
        except ComposeError as e:
            raise_lua(str(e))


def run_loop(vm, handle_role: str | None, compactor):
    from ..models import current_role, empty_reply_error, failure_error, is_overflow, send_round
    from ..tools import check_calls, render_tools, run_tool_calls

    run = vm.run
    cap = run.prompt.frontmatter.max_tool_iterations
    vm.in_loop = True
    try:
        rounds = 0
        answered_tool = False
        while True:
            role = handle_role or current_role(vm)
            if not vm.messages.records:
                raise_lua(EMPTY_LIST)
            tools = render_tools(vm)
            messages = compose(vm.messages.records)
            report_chat(vm, messages)
            answer = send_round(vm, role, messages, tools, "chat")
            rounds += 1
            if isinstance(answer, ModelFailure):
                if is_overflow(answer):
                    raise engine_error(
                        "context_exhausted", "context exhausted: the provider refused the request as too large",
                        reason="provider",
                    )
                raise failure_error(answer)
            if answer.tool_calls:
                calls = [dict(c) for c in answer.tool_calls]
                check_calls(calls)
                tool_records = run_tool_calls(vm, calls)
                # the whole round lands at once, never half-answered
                vm.messages.records.append(Record("assistant", "", calls))
                vm.messages.records.extend(tool_records)
                answered_tool = True
                if rounds >= cap:
                    raise engine_error("tool_loop_exhausted", NOT_CONVERGED)
                continue
            if answer.text:
                vm.messages.records.append(Record("assistant", answer.text))
                run.events.emit("reply", vm.execution_id, vm.section, turn=rounds, origin="chat",
                                finish_reason=answer.finish_reason, text=answer.text)
                return None
            if answered_tool and answer.finish_reason == "stop":
                return None  # the clean exit
            raise empty_reply_error(answer)
    finally:
        vm.in_loop = False


def report_chat(vm, messages: list) -> None:
    """The `chat` event: what this request adds since the previous send on
    the same list (everything from the first difference on)."""
    last = vm.messages.last_sent
    i = 0
    while i < len(last) and i < len(messages) and last[i] == messages[i]:
        i += 1
    vm.messages.last_sent = list(messages)
    added = messages[i:]
    if added:
        vm.run.events.emit("chat", vm.execution_id, vm.section, start=i + 1, messages=added)
