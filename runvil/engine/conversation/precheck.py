"""The context precheck (docs/reference/conversations.md "The context precheck": "When the
precheck runs" through "What a refusal leaves behind", and "Reading a
context_exhausted error"; "How the estimate
counts tokens").

Pure arithmetic over composed messages (see compose.py): dicts of role,
content (a string or a list of parts), tool_calls (a list of {id, name,
arguments}) and tool_call_id. Nothing here sends, logs or raises; the loop
asks `Anchor.count` for the request's token count, `admit` for the verdict,
and `exhausted_message` for the text of the error it raises.

- The output reserve: `max_tokens` when set, else `window // 8` capped at
  8192; never more than `window // 2`.
- The admission rule: refuse only when tokens + reserve > window.
- The estimate: UTF-8 bytes of the composed text (string contents, text
  parts' text, each tool call's compact JSON `{"id":..,"name":..,
  "arguments":{..}}`) divided by 4 once, plus 4 per composed message.
- The provider anchor: per list, the composed messages the latest served
  round sent, with the provider's total (prompt + completion - reasoning,
  never below zero), for the model that served it.

Speed: records never change, and compose hands the records' own content
strings and tool_calls lists to the composed messages, so `ByteCache` keys
the costly parts (tool calls, parts arrays, non-ASCII strings) by identity,
holding each object so its id cannot be reused. An ASCII string costs `len`
(CPython knows it is ASCII without a scan).
"""

from __future__ import annotations

import math
from collections import OrderedDict

from ..luajson import encode_compact
from ..strings import LUA_BYTES

# ------------------------------------------------------------------ texts

# The message of a context_exhausted error (tostring(err)), "Reading a
# context_exhausted error": the reason in words for the two overflow
# reasons, and the reason itself for any other string.
CONTEXT_EXHAUSTED = "context exhausted: {detail}"
PRECHECK_DETAIL = "the request precheck overflowed the model's context window"
PROVIDER_DETAIL = "the provider rejected the request as exceeding the model's context window"

# The two overflow reasons ("Overflow reasons").
PRECHECK = "precheck"
PROVIDER = "provider"
OVERFLOW_DETAILS = {PRECHECK: PRECHECK_DETAIL, PROVIDER: PROVIDER_DETAIL}

# A handle for a raw model id (not a declared role) has this window for the
# precheck, visible as h.context ("When the precheck runs").
RAW_MODEL_CONTEXT = 8192

# The reserve rule's numbers ("The output reserve").
RESERVE_DIVISOR = 8
RESERVE_CAP = 8192
# The estimate's numbers ("How the estimate counts tokens").
BYTES_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


def exhausted_detail(reason: str) -> str:
    """The detail after `context exhausted: `: the reason in words for
    precheck and provider, the reason itself for any other string."""
    return OVERFLOW_DETAILS.get(reason, reason)


def exhausted_message(reason: str) -> str:
    """`context exhausted: {detail}` for a context_exhausted error."""
    return CONTEXT_EXHAUSTED.format(detail=exhausted_detail(reason))


# ------------------------------------------------------------------ the verdict


def output_reserve(window: int, max_tokens: int | None) -> int:
    """The room kept free for the reply: max_tokens when set, else one
    eighth of the window (rounded down) capped at 8192; never more than
    half the window (`window // 2`)."""
    if max_tokens is None:
        reserve = min(window // RESERVE_DIVISOR, RESERVE_CAP)
    else:
        reserve = max_tokens
    return max(0, min(reserve, window // 2))


def admit(window: int, max_tokens: int | None, tokens: int) -> bool:
    """The admission rule: the request passes unless its token count plus
    the output reserve exceeds the window (a total equal to it passes)."""
    return tokens + output_reserve(window, max_tokens) <= window


# ------------------------------------------------------------------ the estimate


def text_bytes(s: str) -> int:
    """UTF-8 bytes of a record string (a surrogate-escaped invalid byte
    counts as that one byte, as the Lua string it came from)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", LUA_BYTES))


def call_form(call: dict) -> dict:
    """A tool call as the estimate serializes it: {id, name, arguments},
    in that order, arguments normalized as a record normalizes them."""
    args = call.get("arguments")
    if args is None or args == []:
        args = {}
    return {"id": call.get("id"), "name": call.get("name"), "arguments": args}


def calls_bytes(calls) -> int:
    """Bytes of the compact JSON form of each tool call, added up."""
    n = 0
    for call in calls:
        if isinstance(call, dict):
            n += text_bytes(encode_compact(call_form(call)))
    return n


def content_bytes(content) -> int:
    """A string's bytes; a parts array's text parts' text; anything else
    (images, None, other values) counts zero."""
    if isinstance(content, str):
        return text_bytes(content)
    if isinstance(content, list):
        n = 0
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    n += text_bytes(text)
        return n
    return 0


def message_bytes(m: dict) -> int:
    """The bytes one composed message contributes to the estimate: its
    content's text plus the serialized form of each tool call it holds."""
    n = content_bytes(m.get("content"))
    calls = m.get("tool_calls")
    if calls:
        n += calls_bytes(calls)
    return n


def tokens_for(total_bytes: int, count: int) -> int:
    """The estimate from precomputed sums: total bytes // 4, once, plus 4
    per composed message."""
    return total_bytes // BYTES_PER_TOKEN + TOKENS_PER_MESSAGE * count


class ByteCache:
    """`message_bytes` with an identity cache (an LRU of `capacity`
    entries) for the costly parts of a message: tool_calls lists, parts
    arrays and non-ASCII strings. Compose hands a record's own content and
    tool_calls objects to each freshly composed message, so an unchanged
    record hits here round after round, while the message dicts themselves
    (new every round) are not kept. Entries hold the object itself, so an
    id is never reused while its entry lives; records are never mutated,
    so a hit is exact. An ASCII string costs `len` and is not cached."""

    __slots__ = ("_entries", "_messages", "capacity", "hits", "misses")

    def __init__(self, capacity: int = 1 << 16):
        self.capacity = capacity
        self._entries: OrderedDict = OrderedDict()
        self._messages: dict = {}  # id(message) -> (message, bytes)
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._messages.clear()

    def _part(self, obj, measure) -> int:
        key = id(obj)
        entries = self._entries
        entry = entries.get(key)
        if entry is not None and entry[0] is obj:
            entries.move_to_end(key)
            self.hits += 1
            return entry[1]
        self.misses += 1
        n = measure(obj)
        entries[key] = (obj, n)
        entries.move_to_end(key)
        if len(entries) > self.capacity:
            entries.popitem(last=False)
        return n

    def bytes(self, m: dict) -> int:
        """`message_bytes(m)`: a composed message seen before (the composer
        hands back the same dicts for an unchanged prefix) costs one lookup;
        otherwise its costly parts are looked up by identity."""
        seen = self._messages.get(id(m))
        if seen is not None and seen[0] is m:
            return seen[1]
        n = self._measure(m)
        if len(self._messages) >= self.capacity:
            self._messages.clear()
        self._messages[id(m)] = (m, n)
        return n

    def _measure(self, m: dict) -> int:
        content = m.get("content")
        if type(content) is str:
            n = len(content) if content.isascii() else self._part(content, text_bytes)
        elif type(content) is list:
            n = self._part(content, content_bytes)
        else:
            n = content_bytes(content)
        calls = m.get("tool_calls")
        if calls:
            n += self._part(calls, calls_bytes) if type(calls) is list else calls_bytes(calls)
        return n


def estimate(messages, cache: ByteCache | None = None) -> int:
    """The estimated token count of composed messages: the UTF-8 bytes of
    their text, divided by 4 once (remainder dropped), plus 4 per message."""
    if cache is None:
        total = sum(map(message_bytes, messages))
    else:
        total = sum(map(cache.bytes, messages))
    return tokens_for(total, len(messages))


# ------------------------------------------------------------------ the anchor


def usage_total(usage) -> int | None:
    """The anchored total a round's usage gives: prompt + completion -
    reasoning, never below zero; None when the round reported no usage
    (no usage object, or neither prompt nor completion tokens)."""
    if not isinstance(usage, dict):
        return None
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    if prompt is None and completion is None:
        return None
    reasoning = _count(usage.get("reasoning_tokens")) or 0
    return max(0, (prompt or 0) + (completion or 0) - reasoning)


def _count(v) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return int(v)


def _fields(m: dict) -> tuple:
    return (m.get("role"), m.get("content"), m.get("tool_calls"), m.get("tool_call_id"))


def same_json(a, b) -> bool:
    """Equality of JSON values as JSON: Python's `==` takes `True == 1 ==
    1.0`, but `true`, `1` and `1.0` are different JSON (and different Lua
    values), so a call whose arguments were rewritten from one to another
    is a rewritten record. Object key order does not matter."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is dict:
        return len(a) == len(b) and all(k in b and same_json(v, b[k]) for k, v in a.items())
    if ta is list or ta is tuple:
        return len(a) == len(b) and all(map(same_json, a, b))
    if ta is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def same_message(a: dict, b: dict) -> bool:
    """Composed messages compare by role, content, tool_calls and
    tool_call_id (a missing field and None are the same), as JSON."""
    return a is b or same_json(_fields(a), _fields(b))


def starts_with(messages, sent: tuple) -> bool:
    n = len(sent)
    if len(messages) < n:
        return False
    for a, b in zip(messages, sent):  # mostly the very same dicts
        if a is not b and not same_message(a, b):
            return False
    return True


class Anchor:
    """The provider anchor of one message list: the composed messages the
    latest served round sent, the model that served it, and the provider's
    measured total for it.

    - `measured(model, sent, usage)` after each served round (a round that
      failed outright, or a refused send, is not reported). A round with
      usage replaces the measurement; a round without usage keeps it when
      the same model served it and drops it when another model did, since
      the anchor follows the most recent served round and another model's
      count never applies.
    - `count(model, messages)` is the token count the precheck uses: the
      measured total plus the estimate of the messages after the reply,
      when the request extends what that round sent (more messages, the
      same leading ones, an assistant message next) on the same model
      id; the full estimate otherwise."""

    __slots__ = ("cache", "model", "sent", "total")

    def __init__(self, cache: ByteCache | None = None):
        self.model: str | None = None
        self.sent: tuple = ()
        self.total: int | None = None
        self.cache = cache if cache is not None else ByteCache()

    def reset(self) -> None:
        """Forget the measurement (the list is a fresh one)."""
        self.model = None
        self.sent = ()
        self.total = None

    def measured(self, model: str, sent, usage) -> None:
        total = usage_total(usage)
        if total is None:
            # a round without usage, on any model, leaves the remembered
            # pair unchanged (docs/reference/conversations.md): it is no measurement
            return
        self.model = model
        self.sent = tuple(sent)
        self.total = total

    def applies(self, model: str, messages) -> bool:
        """The three conditions of "When the anchor applies", on the model
        the measurement belongs to."""
        if self.total is None or model != self.model:
            return False
        n = len(self.sent)
        if len(messages) <= n:
            return False
        nxt = messages[n]
        if not isinstance(nxt, dict) or nxt.get("role") != "assistant":
            return False
        return starts_with(messages, self.sent)

    def count(self, model: str, messages) -> int:
        if self.applies(model, messages):
            return self.total + estimate(messages[len(self.sent) + 1 :], self.cache)
        return estimate(messages, self.cache)

    def admits(self, model: str, messages, window: int, max_tokens: int | None) -> bool:
        """The whole precheck: the count plus the reserve fits the window."""
        return admit(window, max_tokens, self.count(model, messages))
