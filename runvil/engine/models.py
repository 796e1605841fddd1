"""Models (docs/reference/models.md; docs/reference/conversations.md "Loop arguments and
errors"): the `models` global — roles, `use`, `default`, `get` and
handles, `infer`, `loop` and `compact` with their arguments checked. The
rounds themselves are conversation/rounds.py's, the loop
conversation/loop.py's."""

from __future__ import annotations

from types import FunctionType

from ..lua.api import Multi, Userdata
from ..lua.api import lib_table
from .conversation.compaction import NOT_A_FUNCTION, exhausted, models_compact
from .conversation.loop import run_loop
from .conversation.precheck import admit, estimate, output_reserve
from .conversation.rounds import (
    EMPTY_REPLY,  # noqa: F401  the Harness's empty-reply phrase, read from here
    REJECTED,  # noqa: F401  the Harness's rejection text, read from here
    context_of,
    current_role,
    empty_reply_error,
    failure_error,
    failure_message,  # noqa: F401  read from here by the Harness's tests
    is_overflow,
    reserve_of,
    send_round,
)
from .effects import ModelFailure
from .errors import message_type, names_hint, raise_lua
from .scheduler import waiting_builtin
from .strings import from_lua_str, to_lua_str

TAKES = "models.loop takes (compactor?)"
TAKES_HANDLE = "models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle"
H_TAKES = "handle:loop takes (compactor?)"
H_RECEIVER = "call loop on a model handle with a colon: handle:loop(compactor?)"
ALREADY_RUNNING = "a loop or a compactor is already running in this section; ask a side question with models.infer(prompt)"


class ModelHandle(Userdata):
    """`models.get(role_or_id)`: read-only `name` and `context`, and the
    colon methods `infer` and `loop`."""

    __slots__ = ("vm", "name", "context", "_methods")

    def __init__(self, vm, name: str, context: int):
        self.vm, self.name, self.context = vm, name, context

        # the receiver is whatever handle comes first, so a fresh handle of
        # the same role works as well as the one the method was read from
        def h_infer(*args):
            if not args or not isinstance(args[0], ModelHandle):
                raise_lua("h:infer(prompt) is a method: call it with a colon")
            return (yield from infer(vm, args[0].name, args[1] if len(args) > 1 else None))

        def h_loop(*args):
            if not args or not isinstance(args[0], ModelHandle):
                raise_lua(H_RECEIVER)
            return (yield from loop(vm, args[0].name, check_loop_args(vm, args[0], args[1:])))

        self._methods = {"infer": waiting_builtin(None, h_infer), "loop": waiting_builtin(None, h_loop)}

    def lua_index(self, key):
        if key == "name":
            return to_lua_str(self.name)
        if key == "context":
            return self.context
        return self._methods.get(key) if type(key) is str else None

    def lua_newindex(self, key, value):
        raise_lua("model handles are read-only")


def unknown_role(fn: str, role: str, roles) -> str:
    """models.use's and models.default's refusal, with the roles declared
    (not a chapter text: the chapter has none for it)."""
    return f"models.{fn}: unknown model role '{role}' ({names_hint(role, roles, 'declared')})"


def open_models(vm):
    run = vm.run
    roles = run.prompt.frontmatter.models

    def role_arg(fname, args) -> str:
        v = args[0] if args else None
        if type(v) is not str:
            raise_lua(f"models.{fname} needs a model role name, got {message_type(v)}")
        return from_lua_str(v)

    def use(*args):
        role = role_arg("use", args)
        if role not in roles:
            raise_lua(unknown_role("use", role, roles))
        vm.role = role
        return Multi(())

    def default(*args):
        role = role_arg("default", args)
        if vm.section is not None:
            raise_lua("models.default works only in the H1 body")
        if role not in roles:
            raise_lua(unknown_role("default", role, roles))
        run.default_role = role
        return Multi(())

    def get(*args):
        name = role_arg("get", args)
        return ModelHandle(vm, name, context_of(run, name))

    def m_infer(*args):
        return (yield from infer(vm, None, args[0] if args else None))

    def m_loop(*args):
        return (yield from loop(vm, None, check_loop_args(vm, None, args)))

    def compact(*args):
        return (yield from models_compact(vm, args))

    return lib_table({"use": use, "default": default, "get": get, "infer": waiting_builtin("models.infer", m_infer),
                      "loop": waiting_builtin("models.loop", m_loop),
                      "compact": waiting_builtin("models.compact", compact)}, "models.")


def infer(vm, handle_role: str | None, prompt):
    """models.infer(prompt) / h:infer(prompt): one user message, no system
    message, no tools; never reads or changes `messages`. (A generator, as
    every Engine function that waits: runvil.engine.scheduler.)"""
    role = handle_role or current_role(vm)
    if type(prompt) is not str:
        raise_lua(f"models.infer needs a prompt string, got {message_type(prompt)}")

    msgs = [{"role": "user", "content": from_lua_str(prompt)}]
    window, max_tokens, model = reserve_of(vm, role)
    tokens = estimate(msgs)
    if not admit(window, max_tokens, tokens):
        vm.run.events.emit("model_turn_failed", vm.execution_id, vm.section, origin="infer", reason="precheck")
        raise exhausted("precheck", {"estimate": tokens, "window": window, "model": model, "origin": "infer",
                                     "reserve": output_reserve(window, max_tokens)})
    answer = yield from send_round(vm, role, msgs, [], "infer")
    if isinstance(answer, ModelFailure):
        if is_overflow(answer):
            raise exhausted("provider", {"server": answer.stream_error or answer.body, **(answer.facts or {}),
                                         "model": model, "window": window})
        raise failure_error(answer)
    if answer.empty:
        raise empty_reply_error(answer)
    return to_lua_str(answer.text)


def loop(vm, handle_role: str | None, compactor):
    """models.loop(compactor?) / h:loop(compactor?)."""
    return (yield from run_loop(vm, handle_role, compactor))


def check_loop_args(vm, handle, args: tuple):
    """models.loop's and h:loop's argument errors, in their fixed order;
    returns the compactor (None for the default)."""
    if handle is None:
        if args and isinstance(args[0], ModelHandle):
            raise_lua(TAKES_HANDLE)
        if len(args) > 1:
            raise_lua(TAKES)
    elif len(args) > 1:
        raise_lua(H_TAKES)
    compactor = args[0] if args else None
    if compactor is not None and type(compactor) is not FunctionType:
        raise_lua(NOT_A_FUNCTION.format(type=message_type(compactor)))
    if vm.in_loop or vm.compacting:
        raise_lua(ALREADY_RUNNING)
    return compactor
