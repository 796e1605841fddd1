"""The loop (conversations.md "How the loop runs", "Tool rounds and the
round cap", "Empty replies and finish reasons", "Compactors and context
exhaustion"): models.loop and h:loop.

Each round renders the tool list (once per section), composes the list
(the cross-record checks), runs the precheck, sends, and judges the answer
in a fixed order: a context overflow (the compactor rewrites the list and
the round is retried once), tool calls, a non-empty text reply, the clean
exit; anything else is an empty_model_reply.
"""

from __future__ import annotations

from types import FunctionType

from ..effects import ModelFailure
from ..errors import engine_error, raise_lua
from .compaction import NOT_A_FUNCTION, default_compactor, exhausted, run_compactor
from .compose import ComposeError, compose_incremental
from .precheck import admit, estimate, output_reserve
from .records import Record

TAKES = "models.loop takes (compactor?)"
TAKES_HANDLE = "models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle"
H_TAKES = "handle:loop takes (compactor?)"
H_RECEIVER = "call loop on a model handle with a colon: handle:loop(compactor?)"
ALREADY_RUNNING = "a loop or a compactor is already running in this section; ask a side question with models.infer(prompt)"
EMPTY_LIST = "messages must not be empty"
NOT_CONVERGED = "tool-call loop did not converge"
TRUNCATED_TOOL_ROUND = "the model's tool-call reply was cut short (finish reason {finish_reason}); its calls were not run"
TRUNCATING = ("length", "content_filter")


def check_loop_args(vm, handle, args: tuple):
    """Argument errors, in their fixed order; returns the compactor (None
    for the default)."""
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


def composed(vm) -> list:
    """The list as the model receives it; a broken cross-record rule is a
    lua-kind error."""
    try:
        return compose_incremental(vm.messages.records, vm.messages.compose_state)
    except ComposeError as e:
        raise_lua(str(e))


def structural_check(vm) -> None:
    """The structural rules a compaction must pass (an empty list passes)."""
    if vm.messages.records:
        composed(vm)


class _Overflow(Exception):
    def __init__(self, reason: str):
        self.reason = reason


def run_loop(vm, handle_role: str | None, compactor):
    from ..models import current_role, empty_reply_error, failure_error, is_overflow, reserve_of, send_round
    from ..tasks import deliver_notices
    from ..tools import check_calls, render_tools, run_tool_calls

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
                        raise _Overflow("precheck")
                    report_chat(vm, messages, precheck={"tokens": tokens, "window": window,
                                                         "reserve": output_reserve(window, max_tokens)})
                    answer = send_round(vm, role, messages, tools, "chat")
                    if isinstance(answer, ModelFailure) and is_overflow(answer):
                        raise _Overflow("provider")
                except _Overflow as o:
                    reason = o.reason
                    if retried:
                        # the retry overflowed again: back to before the compaction
                        vm.messages.records[:] = before_compaction
                        raise exhausted(reason) from None
                    before_compaction = list(vm.messages.records)
                    overflowed = estimate(messages)

                    def rules(reason=reason, overflowed=overflowed):
                        # structural rules always; after an overflow the list must shrink
                        structural_check(vm)
                        if vm.messages.records and estimate(composed(vm)) >= overflowed:
                            raise exhausted(reason)

                    run_compactor(vm, compactor, reason, rules)
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
                tool_records = run_tool_calls(vm, calls)
                # the whole round lands at once, never half-answered
                vm.messages.records.append(Record("assistant", "", calls))
                vm.messages.records.extend(tool_records)
                answered_tool = True
                if rounds >= cap:
                    raise engine_error("tool_loop_exhausted", NOT_CONVERGED)
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
