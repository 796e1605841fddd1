"""What a run asks of the outside world (effects) and what it gets back
(answers): small frozen classes, compared by value, as h11's events.

The Engine never performs an effect. `Run.step()` returns the pending ones,
each with an `id`; the Harness (or a test, or the scripted world) answers
them with `Run.resume({id: answer, ...})`.
"""

from __future__ import annotations

from ..structs import Struct, field

# ------------------------------------------------------------------ effects


class ModelRound(Struct, frozen=True):
    """One request to a model: the composed messages, as sent."""

    id: int
    role: str  # the model role (or raw model id) the round runs on
    model: str  # the bound catalog model id
    origin: str  # "chat" for loop rounds, "infer" for infer rounds
    messages: tuple  # composed messages: dicts of role, content, tool_calls, tool_call_id
    tools: tuple = ()  # tool definitions: dicts of name, description, parameters
    options: dict = field(factory=dict)  # temperature, top_p, max_tokens, thinking


class ToolCall(Struct, frozen=True):
    """A call of a bound tool (a Pack's tool)."""

    id: int
    name: str  # 'pack/tool'
    arguments: dict  # decoded JSON arguments
    call_id: str = ""  # the model's call id, when the loop made the call


class UserTurn(Struct, frozen=True):
    """`runvil chat` asks for the user's next message: answered with the
    text, or None when the user has finished."""

    id: int


# ------------------------------------------------------------------ answers


class ModelReply(Struct, frozen=True):
    """A model's reply to a round."""

    text: str = ""
    tool_calls: tuple = ()  # dicts of id, name, arguments (a dict)
    finish_reason: str | None = "stop"
    usage: dict | None = None  # prompt_tokens, completion_tokens, reasoning_tokens
    reasoning: str | None = None
    model: str | None = None
    # the backend's own phrase for an empty reply; a reply a Host builds
    # itself has none, and its empty_model_reply message falls back
    empty_phrase: str | None = None
    # for the Host, never the Engine (`hint`: "tools_ignored"); not compared
    facts: dict | None = field(default=None, eq=False)

    @property
    def empty(self) -> bool:
        """No tool calls and no text but whitespace: an empty reply."""
        return not self.tool_calls and not self.text.strip()


class ModelFailure(Struct, frozen=True):
    """A round that failed: an HTTP status with its body, an error inside
    a started stream, or an unreachable backend."""

    status: int | None = None
    body: str = ""
    stream_error: str | None = None
    unreachable: str | None = None
    message: str | None = None  # a message the backend itself chose
    partial: str | None = None  # the text streamed before the failure (never a reply)
    # for the Host's help lines, never a message (`provider`, `url`, `hint`);
    # left out of comparison, so a failure is equal to one without them
    facts: dict | None = field(default=None, eq=False)


class ToolResult(Struct, frozen=True):
    text: str


class ToolFailure(Struct, frozen=True):
    """A tool call that failed: the model gets `message` as the result,
    unless `fatal` (the Host has no answer at all, as a scripted world with
    no result left): then the run fails with kind `internal`."""

    message: str
    fatal: bool = False


class ToolDropped(Struct, frozen=True):
    """A tool call dropped instead of answered (the user or the Harness
    gave it up): the loop raises `cancelled`."""

    reason: str = ""
