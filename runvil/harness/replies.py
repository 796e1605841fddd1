"""A provider's reply, built from its chunks (or one plain completion) and
checked at the door (docs/reference/conversations.md "Tool calls the
model makes"): text, reasoning, tool calls, the finish reason and usage,
in the record form the Engine reads.

Decisions:
- Tool-call deltas are matched to their call by `index` (else `id`, else
  the last call) through dictionaries, so a reply of many calls is built
  in time linear in its deltas. A reply of more than `MAX_TOOL_CALLS`
  calls is refused.
- A part of a tool call with the wrong JSON type (`tool_calls: 5`, a
  `function` that is a string, a numeric name) fails the round with the
  Engine's `MALFORMED` text and the reason in plain words; so do arguments
  that are not valid JSON (the JSON decoder's reason put plainly, with the
  character where it is), hold NaN or Infinity (which JSON does not allow)
  or an integer beyond 64 bits (which Lua cannot hold).
- Usage is what the provider sent: a count that is not a whole number from
  0 to 2^63 - 1 is left out, and a usage object with neither a prompt nor
  a completion count (or both 0) is no usage at all, so the run counts the
  round as one without usage and the precheck never anchors on it.
"""

from __future__ import annotations

import json
from typing import Callable

from ..engine.effects import ModelFailure, ModelReply
from ..engine.luajson import decode_error
from ..engine.models import EMPTY_REPLY
from ..engine.tools import MALFORMED
from .errortext import safe_loads

MAX_TOOL_CALLS = 1000  # tool calls in one reply
INT64 = 2**63
NOT_JSON = "the arguments of {name} are not valid JSON: {reason} (at character {at})"
CUT_JSON = "the arguments of {name} end before their JSON does"
NOT_AN_OBJECT = "the arguments of {name} are not a JSON object"
NOT_FINITE = "the arguments of {name} hold {value}, which JSON does not allow"
TOO_BIG_INTEGER = "the arguments of {name} hold an integer beyond 64 bits ({digits} digits)"
TOO_DEEP_JSON = "the arguments of {name} nest too deeply"
WRONG_TYPE = "{what} is {kind}, not {wanted}"
ARGUMENTS_TYPE = "the arguments of {name} are {kind}, not a string"
TOO_MANY_CALLS = f"the reply holds more than {MAX_TOOL_CALLS} tool calls"

# the JSON decoder's reasons, in plain words
_PLAIN = (
    ("Expecting value", "a value is missing"),
    ("Expecting property name enclosed in double quotes", "a key is not a string in double quotes"),
    ("Expecting ',' delimiter", "a comma is missing"),
    ("Expecting ':' delimiter", "a colon is missing"),
    ("Unterminated string", "a string is not closed"),
    ("Invalid control character", "a string holds a raw control character"),
    ("Invalid \\uXXXX escape", "a string holds a broken \\u escape"),
    ("Invalid \\escape", "a string holds an unknown escape"),
    ("Extra data", "more text follows the JSON value"),
)


class Refused(Exception):
    """A reply that cannot be used: its failure."""

    def __init__(self, failure: ModelFailure):
        self.failure = failure


def malformed(why: str) -> Refused:
    return Refused(ModelFailure(message=MALFORMED.format(why=why)))


def json_kind(v) -> str:
    """`a number`, `a string`, ...: a value's JSON type, for messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


def _expect(value, kind: type, what: str, wanted: str):
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise malformed(WRONG_TYPE.format(what=what, kind=json_kind(value), wanted=wanted))
    return value


class _BadNumber(ValueError):
    pass


def _constant(name: str):
    raise _BadNumber(name)


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > 19 or not -INT64 <= int(text) < INT64:
        raise _BadNumber(f"{digits} digits")
    return int(text)


def decode_arguments(name: str, text: str) -> dict:
    """A tool call's arguments text as a JSON object, or Refused."""
    label = f"'{name}'" if name else "a tool call"
    try:
        args = safe_loads(text, parse_constant=_constant, parse_int=_integer)
    except _BadNumber as e:
        said = str(e)
        if said.endswith("digits"):
            raise malformed(TOO_BIG_INTEGER.format(name=label, digits=said.split()[0])) from None
        raise malformed(NOT_FINITE.format(name=label, value=said)) from None
    except json.JSONDecodeError as raised:
        e = decode_error(raised)  # the same words and place on every Python
        if e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string"):
            raise malformed(CUT_JSON.format(name=label)) from None
        reason = next((plain for start, plain in _PLAIN if e.msg.startswith(start)), "it is not JSON")
        raise malformed(NOT_JSON.format(name=label, reason=reason, at=e.pos + 1)) from None
    except (ValueError, RecursionError):  # nested deeper than safe_loads allows
        raise malformed(TOO_DEEP_JSON.format(name=label)) from None
    if not isinstance(args, dict):
        raise malformed(NOT_AN_OBJECT.format(name=label))
    return args


class _Call:
    __slots__ = ("index", "id", "name", "args")

    def __init__(self, index):
        self.index, self.id, self.name, self.args = index, None, "", []


class ReplyBuilder:
    """Accumulates the chunks of one streamed reply (or the one message of
    a plain completion)."""

    def __init__(self, on_fragment: Callable[[str], None] | None = None):
        self.on_fragment = on_fragment
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[_Call] = []
        self._by_index: dict = {}
        self._by_id: dict = {}
        self.finish_reason: str | None = None
        self.usage: dict | None = None
        self.model: str | None = None

    @property
    def partial(self) -> str | None:
        """The text received so far, or None."""
        return "".join(self.text) or None

    def chunk(self, data) -> None:
        if not isinstance(data, dict):
            return
        if data.get("error") is not None:
            raise Refused(ModelFailure(stream_error=error_message(data["error"])))
        if isinstance(data.get("model"), str) and data["model"]:
            self.model = data["model"][:200]
        if isinstance(data.get("usage"), dict):
            self.usage = read_usage(data["usage"])
        choices = data.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict) or (choice.get("index") or 0) != 0:
                continue
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                delta = choice.get("message") if isinstance(choice.get("message"), dict) else {}
            self.delta(delta)
            finish = choice.get("finish_reason")
            if isinstance(finish, str):
                self.finish_reason = finish[:100]

    def delta(self, delta: dict) -> None:
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text.append(content)
            if self.on_fragment is not None:
                self.on_fragment(content)
        for key in ("reasoning_content", "reasoning"):
            r = delta.get(key)
            if isinstance(r, str) and r:
                self.reasoning.append(r)
                break
        calls = _expect(delta.get("tool_calls"), list, "tool_calls", "a list")
        for i, tc in enumerate(calls or ()):
            self.tool_call_delta(i, _expect(tc, dict, "a tool call", "an object"))

    def tool_call_delta(self, position: int, tc: dict) -> None:
        index = _expect(tc.get("index"), int, "the index of a tool call", "an integer")
        call_id = _expect(tc.get("id"), str, "the id of a tool call", "a string")
        fn = _expect(tc.get("function"), dict, "the function of a tool call", "an object") or {}
        name = _expect(fn.get("name"), str, "the name of a tool call", "a string")
        args = fn.get("arguments")
        if index is not None:
            entry = self._by_index.get(index)
        elif call_id:
            entry = self._by_id.get(call_id)
            index = len(self.calls)
        else:
            entry = self.calls[-1] if self.calls else None
            index = position
        if entry is None:
            if len(self.calls) >= MAX_TOOL_CALLS:
                raise malformed(TOO_MANY_CALLS)
            entry = _Call(index)
            self.calls.append(entry)
            self._by_index.setdefault(index, entry)
        if call_id and not entry.id:
            entry.id = call_id[:200]
            self._by_id.setdefault(entry.id, entry)
        if name and not entry.name:
            entry.name = name[:200]
        if isinstance(args, str):
            entry.args.append(args)
        elif isinstance(args, dict):  # some servers send the object itself
            entry.args.append(json.dumps(args, separators=(",", ":"), ensure_ascii=False))
        elif args is not None:
            label = f"'{entry.name}'" if entry.name else "a tool call"
            raise malformed(ARGUMENTS_TYPE.format(name=label, kind=json_kind(args)))

    def reply(self) -> ModelReply:
        calls = []
        for c in self.calls:
            if not c.args:  # no arguments at all: the Engine refuses the call as malformed
                calls.append({"id": c.id or "", "name": c.name, "arguments": None})
                continue
            args = decode_arguments(c.name, "".join(c.args).strip())
            calls.append({"id": c.id or "", "name": c.name, "arguments": args})
        return ModelReply(
            text="".join(self.text),
            tool_calls=tuple(calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            reasoning="".join(self.reasoning) or None,
            model=self.model,
            empty_phrase=EMPTY_REPLY,
        )


def _count(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < INT64


def read_usage(u: dict) -> dict | None:
    """The counts a usage object holds (see the decisions above)."""
    out = {k: u[k] for k in ("prompt_tokens", "completion_tokens") if _count(u.get(k))}
    if not out.get("prompt_tokens") and not out.get("completion_tokens"):
        return None
    details = u.get("completion_tokens_details")
    if isinstance(details, dict) and _count(details.get("reasoning_tokens")):
        out["reasoning_tokens"] = details["reasoning_tokens"]
    return out


def error_message(err) -> str:
    """The message of an error object inside a stream."""
    if isinstance(err, dict):
        msg = err.get("message")
        if msg is not None:
            return str(msg)[:2000]
        return json.dumps(err, ensure_ascii=False)[:2000]
    return str(err)[:2000]
