"""The built-in offline `echo` model: its reply is the last user message's
text, prefixed with `echo: `."""

from __future__ import annotations

from ..engine.effects import ModelReply, ModelRound

ECHO_CONTEXT = 128_000


def echo_reply(effect: ModelRound) -> ModelReply:
    text = ""
    for m in reversed(effect.messages):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                c = "".join(p.get("text", "") for p in c if p.get("type") == "text")
            text = c or ""
            break
    return ModelReply(text=f"echo: {text}", finish_reason="stop", model="echo")
