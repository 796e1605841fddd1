"""The scripted world (host.md "The scripted world"): a YAML file standing
in for every provider and bound tool, so a run is offline and repeatable."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..engine.effects import ModelFailure, ModelReply, ModelRound, ToolCall, ToolDropped, ToolFailure, ToolResult
from ..engine.models import EMPTY_REPLY

DEFAULT_CONTEXT = 8192


class WorldError(Exception):
    """A scripted world file that cannot be used (a usage error)."""


class ScriptedWorld:
    def __init__(self, data: dict | None):
        data = data or {}
        if not isinstance(data, dict):
            raise WorldError("the scripted world must be a mapping")
        self.input = data.get("input")
        self.models: dict = data.get("models") or {}
        replies = data.get("replies") or []
        if isinstance(replies, list):
            self.shared: list | None = list(replies)
            self.by_role: dict = {}
        elif isinstance(replies, dict):
            self.shared = None
            self.by_role = {k: list(v or []) for k, v in replies.items()}
        else:
            raise WorldError("replies must be a list or a mapping from role to a list")
        self.tools: dict = {k: list(v or []) for k, v in (data.get("tools") or {}).items()}

    @classmethod
    def load(cls, path: str | Path) -> "ScriptedWorld":
        try:
            with open(path, encoding="utf-8") as f:
                return cls(yaml.safe_load(f))
        except (OSError, yaml.YAMLError) as e:
            raise WorldError(f"cannot read the scripted world {path}: {e}") from None

    # ------------------------------------------------------------- models

    def binding(self, role: str):
        from ..engine.run import ModelBinding

        m = self.models.get(role) or {}
        name = m.get("model") or role
        return ModelBinding(id=name, context=int(m.get("context", DEFAULT_CONTEXT)), max_tokens=m.get("max_tokens"),
                            name=name)

    def answer_round(self, effect: ModelRound):
        queue = self.shared
        if queue is None:
            queue = self.by_role.get(effect.role)
            if queue is None:
                queue = self.by_role.get(effect.model)
        if not queue:
            return ModelFailure(message=f"the script has no reply left for {effect.role}")
        entry = queue.pop(0) or {}
        if "error" in entry:
            err = entry["error"] or {}
            return ModelFailure(status=err.get("status"), body=str(err.get("body", "")))
        if "stream_error" in entry:
            return ModelFailure(stream_error=str(entry["stream_error"]))
        calls = tuple(_call(c) for c in entry.get("tool_calls") or ())
        text = entry.get("text")
        if text is None and entry.get("fragments"):
            text = "".join(entry["fragments"])
        finish = entry.get("finish_reason", "tool_calls" if calls and "text" not in entry else "stop")
        if finish is not None:
            finish = str(finish)  # a finish reason is always text
        return ModelReply(
            text=str(text) if text is not None else "",
            tool_calls=calls,
            finish_reason=finish,
            usage=entry.get("usage"),
            reasoning=entry.get("reasoning"),
            model=effect.model,
            empty_phrase=EMPTY_REPLY,
        )

    # -------------------------------------------------------------- tools

    def answer_tool(self, effect: ToolCall):
        queue = self.tools.get(effect.name)
        if not queue:
            return ToolFailure(f"the script has no result left for {effect.name}")
        entry = queue.pop(0) or {}
        if "error" in entry:
            return ToolFailure(str(entry["error"]))
        if entry.get("dropped"):  # the call is given up instead of answered
            return ToolDropped(str(entry.get("reason") or ""))
        result = entry.get("result", "")
        return ToolResult(result if isinstance(result, str) else _compact(result))

    def answer(self, effect):
        if isinstance(effect, ModelRound):
            return self.answer_round(effect)
        if isinstance(effect, ToolCall):
            return self.answer_tool(effect)
        raise TypeError(f"the scripted world cannot answer {effect!r}")


def _call(c: dict) -> dict:
    """A scripted tool call as a provider would send it: a missing id or
    name stays blank and missing arguments stay missing, so the Engine's
    malformed-reply rule sees them; JSON text arguments are decoded."""
    import json

    c = c or {}
    args = c.get("arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            pass
    return {"id": "" if c.get("id") is None else str(c["id"]),
            "name": "" if c.get("name") is None else str(c["name"]), "arguments": args}


def _compact(v) -> str:
    import json

    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)
