"""Every error text the specification's conversations chapter quotes is produced
and asserted by some test or conformance case.

The list below is the chapter's own texts, copied as the chapter writes
them (N, J and K stand for positions, {braces} for filled-in parts). The
first test checks each is still in the chapter, so the list cannot drift
from it; the second that some test or case expects the filled-in text.
`test_message_texts.py` checks the other direction: every message constant
of the Engine is the chapter's own text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT.parent / "shared" / "spec" / "conversations.md"

CHAPTER_TEXTS = [
    # Record error messages
    "messages[N] must be a JSON-representable message table: {reason}",
    "messages[N] {field} must be JSON-representable: {reason}",
    "messages[N] must be a message table",
    "messages[N] role must be a string, one of: system, user, assistant, tool",
    'messages[N] role "{role}" is unknown; known roles: system, user, assistant, tool',
    "messages[N] content must be a string or a non-empty array of content parts",
    "messages[N] content part J must be a table with a string type field",
    'messages[N] content part J has unknown type "{type}"; known types: text, image_url',
    "messages[N] content part J is a text part and must set a string text field",
    "messages[N] content part J is an image_url part and must set an image_url table with a string url field",
    "messages[N] tool_call_id must be a string",
    "messages[N] is a tool message and must set a string tool_call_id",
    "messages[N] sets a tool_call_id but is not a tool message",
    "messages[N] tool_calls must be an array",
    "messages[N] tool_calls[K] must be a table",
    "messages[N] tool_calls[K] must set a string id",
    "messages[N] tool_calls[K] must set a string name",
    "messages[N] tool_calls[K] arguments must be a table",
    "messages[N] meta is {size} bytes as JSON; the limit is 8192 bytes",
    "messages[N] is a system message after a non-system message; system messages lead the list, and only a "
    "compactor can change the leading block",
    # the list, views and replace
    "messages is the section's conversation and cannot be reassigned; add records with append(record), or "
    "rewrite history with models.compact(compactor, reason)",
    "messages cannot be assigned to by index; add records with append(record), or rewrite history with "
    "models.compact(compactor, reason)",
    "records read from messages are read-only; rewrite history with models.compact(compactor, reason)",
    "replace works only inside a compactor; rewrite history with models.compact(compactor, reason)",
    "replace({first}, {last}) is out of bounds on a list of {n} records: it needs 1 <= first <= last + 1 <= {n + 1}",
    "replace first must be an integer, got ",
    # the loop's arguments and rounds
    "models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle",
    "call loop on a model handle with a colon: handle:loop(compactor?)",
    "models.loop takes (compactor?)",
    "handle:loop takes (compactor?)",
    "compactor must be a function, got integer",
    "a loop or a compactor is already running in this section; ask a side question with models.infer(prompt)",
    "tool-call loop did not converge",
    "messages must not be empty",
    # what the model receives
    'messages[2] tool call "call_1" has no tool result',
    'messages[1] tool call id "call_1" duplicates an earlier tool call',
    "messages[N] is a system message with content parts; only plain text system messages can be composed",
    # empty replies
    "the model replied with no text and no tool calls",
    "the model replied with no text and no tool calls: reasoning content was present but ignored",
    "empty model reply",
    # compaction
    "models.compact takes (compactor, reason)",
    "reason must be a string, got {type}",
    "models.compact cannot start while a loop or a compactor is running in this section",
    "compactors.clear works only inside a compactor; empty messages with models.compact(compactors.clear, reason)",
    "context exhausted: the request precheck overflowed the model's context window",
    "context exhausted: the provider rejected the request as exceeding the model's context window",
    "context exhausted: manual",
]


def pattern(text: str) -> re.Pattern:
    """The text as a regex over test sources: positions match numbers,
    braces anything, and a quote may be escaped."""
    out = []
    for piece in re.split(r"(\{[^}]*\}|\[[NJK]\]|\b[NJK]\b)", text):
        if not piece:
            continue
        if piece.startswith("{"):
            out.append(r".+?")
        elif piece in ("[N]", "[J]", "[K]"):
            out.append(r"\[\d+\]")
        elif piece in ("N", "J", "K"):
            out.append(r"\d+")
        else:
            out.append(re.escape(piece).replace('"', r'\\?"'))
    return re.compile("".join(out))


def corpus() -> str:
    """The tests' sources and every string the conformance cases expect."""
    texts = [p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name]

    def strings(v):
        if isinstance(v, str):
            texts.append(v)
        elif isinstance(v, dict):
            for x in v.values():
                strings(x)
        elif isinstance(v, list):
            for x in v:
                strings(x)

    for f in (ROOT / "runvil" / "conformance").rglob("*.yaml"):
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        for case in data if isinstance(data, list) else [data]:
            strings(case.get("expect"))
    return "\n".join(texts)


CORPUS = corpus()


@pytest.mark.skipif(not SPEC.exists(), reason="the spec is not beside the repo")
@pytest.mark.parametrize("text", CHAPTER_TEXTS)
def test_the_text_is_the_chapters(text):
    assert text in SPEC.read_text(encoding="utf-8")


@pytest.mark.parametrize("text", CHAPTER_TEXTS)
def test_some_test_expects_the_text(text):
    assert pattern(text).search(CORPUS), text
