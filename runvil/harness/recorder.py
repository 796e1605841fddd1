"""Recording a run (`runvil run --record WORLD.yaml`, docs/reference/commands.md): an answerer
wrapper that passes every effect to the real world (providers, Packs) and
keeps what came back, written at the end as a scripted world that
`--script` replays offline with the same result, requests and events.

What is kept, and how it maps onto the world (docs/reference/commands.md "The scripted world"):
- the run's input, and each declared role's model (its name in requests,
  context window and max_tokens);
- every model round, in the order the run posted them (effect ids), as one
  `replies` list: text, tool calls (arguments as JSON objects), the finish
  reason (written even when it is the default, `null` when none came),
  usage, reasoning, the streamed fragments, the model that served it; a
  failure as `error: {status, body}`, `stream_error`, `unreachable` or
  `failure`;
- every bound tool call's result, failure or drop, per tool, in order.

A retried request is transport detail: only the final answer of a round is
kept (the provider retries below this wrapper). The providers scrub their
answers of the configured keys (scrubber.py); every text of the world is
scrubbed again before it is written, tool results included.
"""

from __future__ import annotations

import threading

from ..engine.effects import ModelFailure, ModelReply, ModelRound, ToolCall, ToolDropped, ToolFailure, ToolResult
from .scrubber import Scrubber


TOO_DEEP_TO_RECORD = ("{path} nests deeper than the {limit} levels a world can hold, "
                      "so the run cannot be replayed from a recording")


class RecordError(Exception):
    """A run whose world cannot be written so that `--script` reads it."""


def too_deep(value, limit: int) -> str | None:
    """Where (`replies[1].tool_calls[1].arguments`) the first value sits
    whose nesting takes the document past `limit` levels, as the world
    reader counts them (each list, object and scalar is a level); None when
    none does. A path is named to its sixth level at most. Walked without
    recursion: a value may nest 500 deep."""
    stack = [(value, "", 1)]
    while stack:
        v, path, depth = stack.pop()
        if depth > limit:
            return path.lstrip(".") or "the world"

        def inner(step: str) -> str:
            return path + step if depth < _NAMED_LEVELS else path

        if isinstance(v, dict):
            stack.extend((item, inner(f".{key}"), depth + 1) for key, item in reversed(list(v.items())))
        elif isinstance(v, (list, tuple)):
            stack.extend((item, inner(f"[{i + 1}]"), depth + 1) for i, item in reversed(list(enumerate(v))))
    return None


_NAMED_LEVELS = 6  # the world, replies, a reply, tool_calls, a call, arguments


class Recorder:
    """Wraps an answerer; `fragment(effect, text)` takes the streamed pieces
    (chain it into the provider's `on_fragment`), `world()` is the record."""

    def __init__(self):
        self.answer = None
        self.input: str | None = None
        self.bindings: dict = {}
        self.scrubber = Scrubber()
        self.rounds: dict[int, tuple] = {}  # effect id -> (effect, answer)
        self.tool_calls: dict[int, tuple] = {}
        self.fragments: dict[int, list[str]] = {}
        self.concurrent = False  # as the wrapped answerer: may the driver call it from several threads
        self._lock = threading.Lock()

    def wrap(self, answer, input: str | None, bindings: dict):
        """Starts recording the answers `answer` gives; returns the answerer
        to drive the run with."""
        self.answer = answer
        self.input = input
        self.bindings = dict(bindings)
        self.scrubber = provider_scrubber(answer)
        self.concurrent = getattr(answer, "concurrent", False)
        return self

    def fragment(self, effect, text: str) -> None:
        with self._lock:
            self.fragments.setdefault(effect.id, []).append(text)

    def fragment_hook(self, then=None):
        """An `on_fragment(effect, text)` that keeps the piece, then passes it
        on to `then` (live output)."""
        if then is None:
            return self.fragment

        def both(effect, text):
            self.fragment(effect, text)
            then(effect, text)

        return both

    def __call__(self, effect):
        answer = self.answer(effect)
        with self._lock:
            if isinstance(effect, ModelRound):
                self.rounds[effect.id] = (effect, answer)
            elif isinstance(effect, ToolCall):
                self.tool_calls[effect.id] = (effect, answer)
        return answer

    # ------------------------------------------------------------ the world

    def world(self) -> dict:
        """The recorded world, as data for `dump_world`."""
        world: dict = {}
        if self.input is not None:
            world["input"] = self.input
        if self.bindings:
            world["models"] = {role: _model(b) for role, b in self.bindings.items()}
        with self._lock:
            rounds = [self.rounds[i] for i in sorted(self.rounds)]
            calls = [self.tool_calls[i] for i in sorted(self.tool_calls)]
            fragments = {i: list(f) for i, f in self.fragments.items()}
        world["replies"] = [_reply(e, a, fragments.get(e.id) or []) for e, a in rounds]
        tools: dict = {}
        for effect, answer in calls:
            tools.setdefault(effect.name, []).append(_tool_entry(answer))
        if tools:
            world["tools"] = tools
        return self.scrubber.value(world)

    def text(self) -> str:
        """The world as the YAML text `--script` reads; RecordError when it
        cannot be one (a value nested deeper than a world may be)."""
        from ..prompt.frontmatter import MAX_DEPTH
        from .scripted import dump_world

        world = self.world()
        deep = too_deep(world, MAX_DEPTH)
        if deep is not None:
            raise RecordError(TOO_DEEP_TO_RECORD.format(path=deep, limit=MAX_DEPTH))
        return dump_world(world)

    def write(self, f) -> None:
        """Writes the world to an open text file."""
        f.write(self.text())

def provider_scrubber(answer) -> Scrubber:
    """The scrubber of a provider answerer (a `ProviderSet` knows every key
    the config names), or one that masks nothing."""
    models = getattr(answer, "models", answer)  # WithPackTools wraps the providers
    scrubber = getattr(models, "scrubber", None)
    return scrubber if isinstance(scrubber, Scrubber) else Scrubber()


def _model(binding) -> dict:
    out = {"model": binding.name or binding.id, "context": binding.context}
    if binding.max_tokens is not None:
        out["max_tokens"] = binding.max_tokens
    return out


def _reply(effect: ModelRound, answer, fragments: list[str]) -> dict:
    if isinstance(answer, ModelFailure):
        out = _failure(answer)
        if answer.partial:  # the text the failed stream showed, replayed as it came
            out["fragments"] = fragments if "".join(fragments) == answer.partial else [answer.partial]
        return out
    if not isinstance(answer, ModelReply):
        return {"failure": f"the answerer gave {type(answer).__name__} for a model round"}
    out: dict = {}
    if answer.text or not answer.tool_calls:
        out["text"] = answer.text
    if answer.tool_calls:
        out["tool_calls"] = [{"id": c.get("id"), "name": c.get("name"), "arguments": c.get("arguments")}
                             for c in answer.tool_calls]
    out["finish_reason"] = answer.finish_reason
    if answer.usage is not None:
        out["usage"] = dict(answer.usage)
    if answer.reasoning is not None:
        out["reasoning"] = answer.reasoning
    if len(fragments) > 1:  # one fragment is the text itself
        out["fragments"] = fragments
    if answer.model and answer.model != effect.model:
        out["model"] = answer.model
    return out


def _failure(f: ModelFailure) -> dict:
    if f.status is not None:
        err = {"status": f.status, "body": f.body}
        if f.message is not None:
            err["message"] = f.message
        return {"error": err}
    if f.stream_error is not None:
        return {"stream_error": f.stream_error}
    if f.unreachable is not None:
        return {"unreachable": f.unreachable}
    return {"failure": f.message or ""}


def _tool_entry(answer) -> dict:
    if isinstance(answer, ToolResult):
        return {"result": answer.text}
    if isinstance(answer, ToolFailure):
        return {"error": answer.message}
    if isinstance(answer, ToolDropped):
        return {"dropped": True, "reason": answer.reason}
    return {"error": f"the answerer gave {type(answer).__name__} for a tool call"}
