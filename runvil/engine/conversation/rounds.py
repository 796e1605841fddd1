"""Model rounds (docs/reference/conversations.md "The round counter and what each round
reports", "Empty replies and finish reasons", "How a provider overflow is
recognized"; docs/reference/models.md "How prepare binds and checks roles"): which model a round
runs on, one round posted as an effect and reported, and how a failed or
empty answer reads. The loop and models.infer both send through here."""

from __future__ import annotations

from ...structs import Struct
from ..effects import ModelFailure, ModelReply, ModelRound
from ..errors import engine_error

MISSING_MODEL = "no model selected; call models.use(role) or models.default(role) first"
EMPTY_REPLY = "the model replied with no text and no tool calls"
REASONING_IGNORED = ": reasoning content was present but ignored"
EMPTY_FALLBACK = "empty model reply"
REJECTED = "the model backend rejected the request (status {status})"
UNREACHABLE = "the model backend could not be reached: {detail}"
RAW_MODEL_CONTEXT = 8192

OVERFLOW_PHRASES = (
    "context length",
    "context window",
    "context size",
    "context_length_exceeded",
    "maximum context length",
    "prompt is too long",
    "too many tokens",
    "exceeds the available context size",
    "exceed_context_size",
    "input is too long",
    "exceeds the maximum number of tokens",
    "too large for model",
)


class ModelBinding(Struct):
    """A catalog model a role is bound to at prepare."""

    id: str  # catalog id, e.g. "openai/gpt-4o-mini" or "scripted"
    context: int = 8192  # context window, tokens
    max_tokens: int | None = None  # the model's default output reserve
    name: str | None = None  # the name requests show (defaults to the id)


def context_of(run, name: str) -> int:
    b = run.bindings.get(name)
    opts = run.prompt.frontmatter.models.get(name)
    if opts is not None and getattr(opts, "context", None):
        return opts.context
    return b.context if b is not None else RAW_MODEL_CONTEXT


def reserve_of(vm, role: str):
    """(context window, max_tokens of the model in use, model id) for the
    precheck: the role's options first, then the bound model's."""
    run = vm.run
    binding = run.bindings.get(role)
    opts = run.prompt.frontmatter.models.get(role)
    max_tokens = getattr(opts, "max_tokens", None) if opts is not None else None
    if max_tokens is None and binding is not None:
        max_tokens = binding.max_tokens
    return context_of(run, role), max_tokens, binding.id if binding is not None else role


def current_role(vm) -> str:
    role = vm.role or vm.run.default_role
    if role is None:
        raise engine_error("missing_model", MISSING_MODEL)
    return role


# ------------------------------------------------------------------ rounds


def send_round(vm, role: str, messages: list, tools: list, origin: str):
    """Posts one model round and waits for its answer (a ModelReply or a
    ModelFailure). A generator (the scheduler's wait)."""
    run = vm.run
    binding = run.bindings.get(role) or ModelBinding(role, RAW_MODEL_CONTEXT)
    opts = run.prompt.frontmatter.models.get(role)
    options = {}
    if opts is not None:
        for k in ("temperature", "top_p", "max_tokens", "thinking"):
            v = getattr(opts, k, None)
            if v is not None:
                options[k] = v
    if "max_tokens" not in options and binding.max_tokens is not None:
        options["max_tokens"] = binding.max_tokens
    # the run keeps every request it sends (--json writes them), each holding
    # the conversation once more: charged to its memory before it is sent
    run.budget.memory.charge(request_size(messages))
    effect = ModelRound(
        id=run.sched.new_id(),
        role=role,
        model=binding.name or binding.id,
        origin=origin,
        messages=tuple(messages),
        tools=tuple(tools),
        options=options,
    )
    if run.debug:
        run.events.emit("debug_request", vm.execution_id, vm.section, round=effect.id, role=role, model=effect.model,
                        origin=origin, messages=list(messages), tools=list(tools), options=options)
    (answer,) = yield from run.sched.await_effects([effect])
    if run.debug and not (isinstance(answer, ModelReply) and answer.empty):  # an empty reply has no bodies
        body = ({"status": answer.status, "body": answer.body, "stream_error": answer.stream_error,
                 "unreachable": answer.unreachable, "partial": answer.partial} if isinstance(answer, ModelFailure) else
                {"text": answer.text, "tool_calls": [dict(c) for c in answer.tool_calls],
                 "finish_reason": answer.finish_reason, "usage": answer.usage, "reasoning": answer.reasoning})
        run.events.emit("debug_response", vm.execution_id, vm.section, round=effect.id, **body)
    turn = report_round(vm, effect, answer)
    vm.last_turn = turn
    return answer


def request_size(messages) -> int:
    """About the bytes of a request's messages in JSON: their text, and
    their tool calls' names and arguments."""
    return sum(json_text_size(m) for m in messages)


def json_text_size(value) -> int:
    """About the bytes of a Python JSON value's text: its strings' lengths,
    a few for everything else."""
    t = type(value)
    if t is str:
        return len(value) + 2
    if t is dict:
        return sum(len(k) + 4 + json_text_size(v) for k, v in value.items()) + 2
    if t is list or t is tuple:
        return sum(json_text_size(v) + 1 for v in value) + 2
    return 8


def report_round(vm, effect: ModelRound, answer) -> int | None:
    """The events of one answered round, in the chapter's order ("The round
    counter and what each round reports"): completed, thinking, truncated,
    the reply. A round that returns a reply advances the run's round
    counter (its turn, returned); a failed round leaves it and reports no
    response body."""
    run = vm.run
    emit = run.events.emit
    where = (vm.execution_id, vm.section)
    if isinstance(answer, ModelFailure):
        if answer.partial:  # what live output already showed, kept (docs/reference/commands.md)
            emit("model_reply_partial", *where, round=effect.id, origin=effect.origin, model=effect.model,
                 text=answer.partial)
        emit("model_turn_failed", *where, round=effect.id, origin=effect.origin, model=effect.model,
             status=answer.status, message=failure_message(answer))
        return None
    run.turns += 1
    turn = run.turns
    served_by = answer.model or effect.model
    emit("model_turn_completed", *where, round=effect.id, turn=turn, origin=effect.origin, model=served_by,
         finish_reason=answer.finish_reason, usage=answer.usage,
         message=empty_reply_message(answer) if answer.empty else None)
    if answer.reasoning:
        emit("thinking", *where, round=effect.id, origin=effect.origin, model=served_by, text=answer.reasoning)
    if answer.finish_reason == "length" and answer.text.strip() and not answer.tool_calls:
        # a text reply cut short: an empty one has nothing truncated
        emit("model_turn_truncated", *where, round=effect.id, origin=effect.origin)
    if not answer.empty:
        emit("assistant_reply", *where, round=effect.id, turn=turn, origin=effect.origin, model=served_by,
             finish_reason=answer.finish_reason, usage=answer.usage, text=answer.text,
             tool_calls=[dict(c) for c in answer.tool_calls])
    return turn


def failure_message(f: ModelFailure) -> str:
    """What a failed round says: never the backend's response body, but a
    message a real provider chose from it (docs/reference/configuration.md)."""
    if f.unreachable is not None:
        return UNREACHABLE.format(detail=f.unreachable)
    if f.status is not None:
        return f.message or REJECTED.format(status=f.status)
    return f.message or f"the model stream failed: {f.stream_error}"


def failure_error(f: ModelFailure):
    """The error a failed round raises when it is not a context overflow."""
    return engine_error("internal", failure_message(f), f.facts, status=f.status, partial=f.partial or None)


def is_overflow(f: ModelFailure) -> bool:
    """A provider failure classified as a context overflow."""
    if f.stream_error is not None:
        text = f.stream_error
    elif f.status in (400, 413):
        text = f.body or ""
    else:
        return False
    low = text.lower()
    return any(p in low for p in OVERFLOW_PHRASES)


def empty_reply_message(reply: ModelReply) -> str:
    """The backend's empty-reply phrase (extended when reasoning was
    ignored), or the fallback for a reply the Host built itself."""
    if reply.empty_phrase is None:
        return EMPTY_FALLBACK
    return reply.empty_phrase + REASONING_IGNORED if reply.reasoning else reply.empty_phrase


def empty_reply_error(reply: ModelReply):
    finish = reply.finish_reason
    return engine_error("empty_model_reply", empty_reply_message(reply),
                        finish_reason=None if finish is None else str(finish))
