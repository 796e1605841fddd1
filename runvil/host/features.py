"""The feature tags of conformance cases (runvil/conformance/FORMAT.md "Features"):
what part of the language a case needs beyond a plain chat, so that an
implementation built in steps can run only what it has.

A tag is found in the case itself, by a rule simple enough to restate in
FORMAT.md: a name in the prompt's text, or a shape of the scripted world.
A case may also name tags in its `features` list (a need no rule sees).
"""

from __future__ import annotations

import re

#: tag -> what it means (FORMAT.md's table); the order is the order of listing
FEATURES = {
    "tools": "tools offered or called (`tools.` in the prompt), or a tool call in a scripted reply",
    "tasks": "tasks and their task tools (`tasks.` in the prompt)",
    "fan-out": "fan-out arms (`tasks.fanout` in the prompt)",
    "infer": "one-off rounds with `models.infer`",
    "handles": "model handles (`models.get`) and `handle:loop`",
    "replace": "editing a list with `messages:replace`",
    "compactors": "compactors and `models.compact` (`compactors` or `models.compact` in the prompt)",
    "precheck": "the context precheck at a window the world sets (a model's `context` or `max_tokens`)",
    "provider-errors": "a scripted reply that is a provider error (`error` or `stream_error`)",
    "jump": "moving between sections with `jump`",
    "json": "the `json` library",
    "coroutines": "Lua coroutines (`coroutine.`)",
}

_IN_PROMPT = {
    "tools": re.compile(r"\btools\s*\."),
    "tasks": re.compile(r"\btasks\s*\."),
    "fan-out": re.compile(r"\btasks\s*\.\s*fanout\b"),
    "infer": re.compile(r"\bmodels\s*\.\s*infer\b"),
    "handles": re.compile(r"\bmodels\s*\.\s*get\b"),
    "replace": re.compile(r":\s*replace\s*\("),
    "compactors": re.compile(r"\bcompactors\b|\bmodels\s*\.\s*compact\b"),
    "jump": re.compile(r"\bjump\s*\("),
    "json": re.compile(r"\bjson\s*\."),
    "coroutines": re.compile(r"\bcoroutine\s*\."),
}


def detected_features(prompt: str, world) -> set[str]:
    """The tags the prompt's text and the world's data show."""
    found = {tag for tag, rx in _IN_PROMPT.items() if rx.search(prompt)}
    world = world if isinstance(world, dict) else {}
    replies = world.get("replies")
    lists = replies.values() if isinstance(replies, dict) else [replies]
    for reply in (r for lst in lists if isinstance(lst, list) for r in lst if isinstance(r, dict)):
        if reply.get("tool_calls"):
            found.add("tools")
        if "error" in reply or "stream_error" in reply:
            found.add("provider-errors")
    if world.get("tools"):
        found.add("tools")
    models = world.get("models")
    if isinstance(models, dict) and any(isinstance(m, dict) and ("context" in m or "max_tokens" in m)
                                        for m in models.values()):
        found.add("precheck")
    return found
