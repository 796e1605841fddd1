"""Models (spec/runvil.md §6): the `models` global — roles, `use`, `default`,
`get` and handles, `infer` — and one model round as an effect."""

from __future__ import annotations

from ..lua import Multi, Userdata
from ..lua.errors import builtin
from ..lua.stdlib import lib_table
from .effects import ModelFailure, ModelReply, ModelRound
from .errors import engine_error, message_type, raise_lua

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


type_for_message = message_type  # type names in Engine messages (spec/runvil.md §12)


class ModelHandle(Userdata):
    """`models.get(role_or_id)`: read-only `name` and `context`, and the
    colon methods `infer` and `loop`."""

    __slots__ = ("vm", "name", "context", "_methods")

    def __init__(self, vm, name: str, context: int):
        self.vm, self.name, self.context = vm, name, context

        # the receiver is whatever handle comes first, so a fresh handle of
        # the same role works as well as the one the method was read from
        @builtin
        def h_infer(*args):
            if not args or not isinstance(args[0], ModelHandle):
                raise_lua("h:infer(prompt) is a method: call it with a colon")
            return infer(vm, args[0].name, args[1] if len(args) > 1 else None)

        @builtin
        def h_loop(*args):
            from .conversation.loop import H_RECEIVER, check_loop_args

            if not args or not isinstance(args[0], ModelHandle):
                raise_lua(H_RECEIVER)
            return loop(vm, args[0].name, check_loop_args(vm, args[0], args[1:]))

        self._methods = {"infer": h_infer, "loop": h_loop}

    def lua_index(self, key):
        if key == "name":
            from .vm import to_lua_str

            return to_lua_str(self.name)
        if key == "context":
            return self.context
        return self._methods.get(key) if type(key) is str else None

    def lua_newindex(self, key, value):
        raise_lua("model handles are read-only")


def open_models(vm):
    run = vm.run
    roles = run.prompt.frontmatter.models

    def role_arg(fname, args) -> str:
        from .vm import from_lua_str

        v = args[0] if args else None
        if type(v) is not str:
            raise_lua(f"models.{fname} needs a model role name, got {type_for_message(v)}")
        return from_lua_str(v)

    def use(*args):
        role = role_arg("use", args)
        if role not in roles:
            raise_lua(f"models.use: unknown model role '{role}'")
        vm.role = role
        return Multi(())

    def default(*args):
        role = role_arg("default", args)
        if vm.section is not None:
            raise_lua("models.default works only in the H1 body")
        if role not in roles:
            raise_lua(f"models.default: unknown model role '{role}'")
        run.default_role = role
        return Multi(())

    def get(*args):
        name = role_arg("get", args)
        return ModelHandle(vm, name, context_of(run, name))

    def m_infer(*args):
        return infer(vm, None, args[0] if args else None)

    def m_loop(*args):
        from .conversation.loop import check_loop_args

        return loop(vm, None, check_loop_args(vm, None, args))

    def compact(*args):
        from .conversation.compaction import models_compact

        return models_compact(vm, args)

    return lib_table(
        {"use": use, "default": default, "get": get, "infer": m_infer, "loop": m_loop, "compact": compact}, "models."
    )


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
    ModelFailure)."""
    from .run import ModelBinding

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
    (answer,) = run.sched.await_effects([effect])
    if run.debug and not (isinstance(answer, ModelReply) and answer.empty):  # an empty reply has no bodies
        body = ({"status": answer.status, "body": answer.body, "stream_error": answer.stream_error,
                 "unreachable": answer.unreachable} if isinstance(answer, ModelFailure) else
                {"text": answer.text, "tool_calls": [dict(c) for c in answer.tool_calls],
                 "finish_reason": answer.finish_reason, "usage": answer.usage, "reasoning": answer.reasoning})
        run.events.emit("debug_response", vm.execution_id, vm.section, round=effect.id, **body)
    turn = report_round(vm, effect, answer)
    vm.last_turn = turn
    return answer


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
    message a real provider chose from it (host.md "Talking to real
    providers")."""
    if f.unreachable is not None:
        return UNREACHABLE.format(detail=f.unreachable)
    if f.status is not None:
        return f.message or REJECTED.format(status=f.status)
    return f.message or f"the model stream failed: {f.stream_error}"


def failure_error(f: ModelFailure):
    """The error a failed round raises when it is not a context overflow."""
    return engine_error("internal", failure_message(f), status=f.status)


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


def infer(vm, handle_role: str | None, prompt):
    """models.infer(prompt) / h:infer(prompt): one user message, no system
    message, no tools; never reads or changes `messages`."""
    from .vm import from_lua_str, to_lua_str

    role = handle_role or current_role(vm)
    if type(prompt) is not str:
        raise_lua(f"models.infer needs a prompt string, got {type_for_message(prompt)}")
    from .conversation.compaction import exhausted
    from .conversation.precheck import admit, estimate

    msgs = [{"role": "user", "content": from_lua_str(prompt)}]
    window, max_tokens, _model = reserve_of(vm, role)
    if not admit(window, max_tokens, estimate(msgs)):
        vm.run.events.emit("model_turn_failed", vm.execution_id, vm.section, origin="infer", reason="precheck")
        raise exhausted("precheck")
    answer = send_round(vm, role, msgs, [], "infer")
    if isinstance(answer, ModelFailure):
        if is_overflow(answer):
            raise exhausted("provider")
        raise failure_error(answer)
    if answer.empty:
        raise empty_reply_error(answer)
    return to_lua_str(answer.text)


def loop(vm, handle_role: str | None, compactor):
    """models.loop(compactor?) / h:loop(compactor?)."""
    from .conversation.loop import run_loop

    return run_loop(vm, handle_role, compactor)
