"""Keeping the providers' API keys out of every text that leaves the
process.

A provider may send a key back: a debugging proxy or a broken gateway
that echoes the `Authorization` header in its reply, an error body cut in
the middle of the key. The key may come whole, split across streamed
fragments, or cut at a boundary, so the scrubber masks any run of at least
KEY_RUN characters of a configured key, not only the whole key: every
KEY_RUN-character piece of a key is looked for, and each stretch of text
such pieces cover becomes [REDACTED].

Where: `ProviderSet` scrubs what the providers answer before anything
else sees it (the Engine, Lua, events, the run log, `--json`, the viewer's
page, a recorded world, live output): a key that never enters the run
cannot leave it. Streamed fragments go through a `StreamScrubber`, which
holds back the end of what came until it cannot be the start of a key.

Keys are matched without regard to case (a key is ASCII: its letters are
folded, so an upper-cased echo is masked whole, and the masked stretches
keep their places in the text).

Scrubbing follows the answer's shape, not a list of its fields: every
field of a ModelReply or ModelFailure (any Struct a provider answers with)
goes through `value`, which masks every text however deep it sits, so a
field added later is scrubbed without anyone remembering to.

Keys themselves are checked when read (`key_problem`): a key under
KEY_RUN characters would mask ordinary words and is refused, as is one
with characters an HTTP header cannot carry.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..structs import Struct, replace

REDACTED = "[REDACTED]"
#: the shortest run of a key's characters that is masked; keys are at least this long
KEY_RUN = 8

KEY_TOO_SHORT = ("holds {length} characters; an API key has at least {least} (a shorter value would be masked "
                 "wherever it appears in ordinary text); a server that needs no key needs no api_key_env")
KEY_NOT_ASCII = ("holds the character U+{code:04X} at position {position}, which an API key cannot hold "
                 "(a typographic dash or quote pasted with it?)")
KEY_SPACES = "holds spaces or control characters, which an API key cannot"

_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_VARIABLE = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")
_DIGITS = re.compile(r"[0-9]{4}")


def folded(text: str) -> str:
    """`text` with its ASCII letters lower-cased, of the same length (so a
    place in it is a place in `text`); a key's letters are all ASCII."""
    low = text.lower()
    # str.lower() may lengthen a text (U+0130 becomes two characters): then fold ASCII only
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def key_problem(key: str) -> str | None:
    """What makes `key` unusable as an API key (None when it is fine): the
    end of a message that names where the key came from."""
    for position, c in enumerate(key, 1):
        if ord(c) < 0x21 or ord(c) == 0x7F:
            return KEY_SPACES
        if ord(c) > 0x7E:
            return KEY_NOT_ASCII.format(code=ord(c), position=position)
    if len(key) < KEY_RUN:
        return KEY_TOO_SHORT.format(length=len(key), least=KEY_RUN)
    return None


def shown_variable(name: str, where: str) -> str:
    """How a message names the environment variable `api_key_env` names:
    `the environment variable NAME` for a name shaped like one
    (OPENAI_API_KEY), else `the environment variable named by WHERE`: a key
    pasted into api_key_env is never printed."""
    if _VARIABLE.fullmatch(name) and ("_" in name or len(name) <= 12) and not _DIGITS.search(name):
        return f"the environment variable {name}"
    return f"the environment variable named by {where}"


class Scrubber:
    """Masks the runs of the given keys in texts; with no keys it returns
    texts as they are. Thread-safe (it holds no state once made)."""

    def __init__(self, keys: Iterable[str] = ()):
        keys = [folded(k) for k in keys if isinstance(k, str) and len(k) >= KEY_RUN]
        pieces = set()
        for key in keys:
            pieces.update(key[i:i + KEY_RUN] for i in range(len(key) - KEY_RUN + 1))
        self.pieces = tuple(sorted(pieces))
        self._keys = "\n".join(keys)

    def key_part_at_end(self, text: str) -> int:
        """The length of the longest end of `text`, shorter than KEY_RUN,
        that is a part of a key (0 for none)."""
        for n in range(min(KEY_RUN - 1, len(text)), 0, -1):
            if folded(text[-n:]) in self._keys and "\n" not in text[-n:]:
                return n
        return 0

    def __bool__(self) -> bool:
        return bool(self.pieces)

    def covered(self, text: str) -> list[tuple[int, int]]:
        """The stretches [start, end) of `text` that runs of a key cover,
        in order, each as long as it can be (touching stretches joined)."""
        spans = []
        text = folded(text)
        for piece in self.pieces:
            at = text.find(piece)
            while at >= 0:
                spans.append((at, at + KEY_RUN))
                at = text.find(piece, at + 1)
        if not spans:
            return []
        spans.sort()
        joined = [list(spans[0])]
        for start, end in spans[1:]:
            if start <= joined[-1][1]:
                joined[-1][1] = max(joined[-1][1], end)
            else:
                joined.append([start, end])
        return [(s, e) for s, e in joined]

    def text(self, text: str) -> str:
        """The text with every run of a key masked."""
        if not self.pieces or not isinstance(text, str) or len(text) < KEY_RUN:
            return text
        return _masked(text, self.covered(text))

    def value(self, value):
        """A value with every text in it masked, however deep: JSON-like
        values (keys of objects too) and Structs (every field); other
        values as they are."""
        if not self.pieces:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.value(v) for v in value)
        if isinstance(value, Struct):
            changed = {name: self.value(getattr(value, name)) for name, f in type(value)._fields.items() if f.init}
            return replace(value, **changed)
        return value

    def answer(self, answer):
        """A provider's answer (ModelReply, ModelFailure) with every text
        of every field masked; anything else as it is."""
        return self.value(answer)


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, at = [], 0
    for start, end in spans:
        out += [text[at:start], REDACTED]
        at = end
    out.append(text[at:])
    return "".join(out)


class StreamScrubber:
    """Masks a text that comes in pieces (a streamed reply) so that what it
    gives out, joined, is exactly `scrubber.text` of the whole: `feed(piece)`
    returns what can be shown now, holding back the end that could still
    be, or continue, a run of a key (the longest end that is a part of a
    key: usually a character or two, shown with the next piece); `end()`
    returns the rest."""

    def __init__(self, scrubber: Scrubber):
        self.scrubber = scrubber
        self.held = ""

    def feed(self, piece: str) -> str:
        if not self.scrubber:
            return piece
        text = self.held + piece
        spans = self.scrubber.covered(text)
        # positions before len - (KEY_RUN - 1) are covered or not for good;
        # a stretch reaching past that may still grow, so it is held whole,
        # and so is an end that a key's run may start with
        cut = len(text) - self.scrubber.key_part_at_end(text)
        for start, end in spans:
            if end > len(text) - KEY_RUN:
                cut = min(cut, start)
                break
        self.held = text[cut:]
        return _masked(text[:cut], [s for s in spans if s[1] <= cut])

    def end(self) -> str:
        rest, self.held = self.held, ""
        return self.scrubber.text(rest)
