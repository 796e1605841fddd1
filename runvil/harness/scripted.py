"""The scripted world (host.md "The scripted world"): a YAML file standing
in for every provider and bound tool, so a run is offline and repeatable.

Decisions where host.md is silent:
- The file is read with the YAML 1.2 rules the prompt frontmatter uses
  (only `true`/`false` are booleans, so `text: no` is the text "no").
- A world that does not have the documented shape (a reply entry that is
  not a mapping, an `error` without an HTTP status, a context that is not a
  positive whole number, ...) is refused when it is loaded, with a message
  naming the place: a usage error, before the run starts. Unknown keys are
  ignored.
- Scalars stand for their text where text is expected, as written:
  `text: 42` is "42", `text: 3.10` is "3.10", `finish_reason: 7` is "7",
  `true` is "true". A tool's `result` or `error`
  that is other JSON data is sent as compact JSON.
- `error: null` and `stream_error: null` mean no error; `finish_reason:
  null` means the provider sent no finish reason.
- `tools` is keyed by the bound tool's name (`web/search`); the name the
  model sees (`web_search`) is accepted too.
- A reply's `fragments` are its streamed pieces: live output shows them (or
  the whole text, when there are none) as a real provider's stream; the
  reply text is `text` when given, else the fragments joined.
- Beyond host.md, so that a recorded run (`runvil run --record`) replays
  exactly: a reply's `model` is the model the provider said served it
  (default: the round's model); `unreachable: DETAIL` is a backend that
  could not be reached; `failure: MESSAGE` is a failure the backend
  described itself (malformed tool call arguments, a stream cut short).
- `dump_world` writes a world back as YAML a person can edit: block style,
  Unicode kept, texts of several lines as literal blocks, and any text a
  YAML 1.2 reader would take for another type quoted.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import yaml

from ..engine.effects import ModelFailure, ModelReply, ModelRound, ToolCall, ToolDropped, ToolFailure, ToolResult
from ..engine.models import EMPTY_REPLY
from ..structs import replace

DEFAULT_CONTEXT = 8192


class WorldError(Exception):
    """A scripted world file that cannot be used (a usage error)."""


class _Int(int):
    """A YAML integer that remembers how it was written."""

    source: str


class _Float(float):
    """A YAML float that remembers how it was written."""

    source: str


_LOADER = None


def _loader():
    """The YAML 1.2 core schema of the prompt frontmatter; numbers keep
    their source text, so `text: 3.10` is the text "3.10"."""
    global _LOADER
    if _LOADER is None:
        from ..prompt.frontmatter import _Loader

        class WorldLoader(_Loader):
            pass

        def keeping(tag, kind):
            base = _Loader.yaml_constructors[tag]

            def construct(loader, node):
                value = kind(base(loader, node))
                value.source = node.value
                return value

            WorldLoader.add_constructor(tag, construct)

        keeping("tag:yaml.org,2002:int", _Int)
        keeping("tag:yaml.org,2002:float", _Float)
        _LOADER = WorldLoader
    return _LOADER


def _text(v) -> str:
    """A scalar as the text it stands for (a number as it was written)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    source = getattr(v, "source", None)
    return source if source is not None else str(v)


def _plain(v):
    """JSON data with the source-keeping numbers made plain again."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _is_scalar(v) -> bool:
    return isinstance(v, (str, int, float, bool))


def _optional_text(v, refusal: str) -> str | None:
    """A scalar as its text, null as None; anything else is refused."""
    if v is None:
        return None
    if not _is_scalar(v):
        raise WorldError(refusal)
    return _text(v)


def _lists_by_name(mapping: dict, where: str, what: str, entry) -> dict:
    """A mapping from a name to a list of entries (replies per role, results
    per tool), each entry checked by `entry(value, place)`."""
    out = {}
    for k, v in mapping.items():
        place = f"{where}.{k}"
        if v is None:
            v = []
        if not isinstance(v, list):
            raise WorldError(f"{place} must be a list of {what}")
        out[_text(k)] = [entry(e, f"{place}[{i + 1}]") for i, e in enumerate(v)]
    return out


def _compact(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, default=str)


class ScriptedWorld:
    def __init__(self, data: dict | None, on_fragment=None):
        data = {} if data is None else data
        if not isinstance(data, dict):
            raise WorldError("the scripted world must be a mapping (input, models, replies, tools)")
        self.on_fragment = on_fragment  # on_fragment(effect, text): live output
        self.input = _input(data.get("input"))
        self.models: dict = _models(data.get("models"))
        replies = data.get("replies")
        if replies is None:
            replies = []
        if isinstance(replies, list):
            self.shared: list | None = [_reply(e, f"replies[{i + 1}]") for i, e in enumerate(replies)]
            self.by_role: dict = {}
        elif isinstance(replies, dict):
            self.shared = None
            self.by_role = _lists_by_name(replies, "replies", "replies", _reply)
        else:
            raise WorldError("replies must be a list or a mapping from role (or model id) to a list")
        tools = data.get("tools")
        if tools is None:
            tools = {}
        if not isinstance(tools, dict):
            raise WorldError("tools must be a mapping from tool name ('pack/tool') to a list of results")
        self.tools: dict = _lists_by_name(tools, "tools", "results", _tool_entry)

    @classmethod
    def load(cls, path: str | Path, on_fragment=None) -> "ScriptedWorld":
        from ..prompt.frontmatter import yaml_problem

        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise WorldError(f"cannot read the scripted world {path}: {e}") from None
        try:
            data = yaml.load(text, Loader=_loader())
        except yaml.YAMLError as e:  # one line, with the file's line
            line, detail = yaml_problem(e, text)
            raise WorldError(f"cannot read the scripted world {path}: line {line + 1}: {detail}") from None
        try:
            return cls(data, on_fragment=on_fragment)
        except WorldError as e:
            raise WorldError(f"the scripted world {path}: {e}") from None

    # ------------------------------------------------------------- models

    def binding(self, role: str):
        from ..engine.run import ModelBinding

        m = self.models.get(role) or {}
        name = m.get("model") or role
        return ModelBinding(id=name, context=m.get("context") or DEFAULT_CONTEXT, max_tokens=m.get("max_tokens"),
                            name=name)

    def answer_round(self, effect: ModelRound):
        queue = self.shared
        if queue is None:
            queue = self.by_role.get(effect.role)
            if queue is None:
                queue = self.by_role.get(effect.model)
        if not queue:
            return ModelFailure(message=f"the script has no reply left for {effect.role}")
        entry = queue.pop(0)
        failure = _failure(entry)
        if failure is not None:  # its fragments are what the failed stream showed (recorded runs)
            for piece in entry.get("fragments") or ():
                if piece and self.on_fragment is not None:
                    self.on_fragment(effect, piece)
            return replace(failure, partial="".join(entry.get("fragments") or ()) or None)
        calls = tuple(entry.get("tool_calls") or ())
        fragments = entry.get("fragments")
        text = entry.get("text")
        if text is None and fragments:
            text = "".join(fragments)
        if "finish_reason" in entry:
            finish = entry["finish_reason"]
        else:
            finish = "tool_calls" if calls and "text" not in entry else "stop"
        if self.on_fragment is not None:
            for piece in fragments if fragments else ([text] if text else []):
                if piece:
                    self.on_fragment(effect, piece)
        return ModelReply(
            text=text if text is not None else "",
            tool_calls=calls,
            finish_reason=finish,
            usage=entry.get("usage"),
            reasoning=entry.get("reasoning"),
            model=entry.get("model") or effect.model,
            empty_phrase=EMPTY_REPLY,
        )

    # -------------------------------------------------------------- tools

    def answer_tool(self, effect: ToolCall):
        queue = self.tools.get(effect.name)
        if queue is None:  # keyed by the name the model sees (web_search)
            queue = self.tools.get(effect.name.replace("/", "_"))
        if not queue:
            return ToolFailure(f"the script has no result left for {effect.name}")
        entry = queue.pop(0)
        if entry.get("error") is not None:
            return ToolFailure(entry["error"])
        if entry.get("dropped"):  # the call is given up instead of answered
            return ToolDropped(entry.get("reason") or "")
        return ToolResult(entry.get("result", ""))

    def answer(self, effect):
        if isinstance(effect, ModelRound):
            return self.answer_round(effect)
        if isinstance(effect, ToolCall):
            return self.answer_tool(effect)
        raise TypeError(f"the scripted world cannot answer {effect!r}")


# ------------------------------------------------------------------ checking


def _input(v):
    if v is None or isinstance(v, str):
        return v
    if _is_scalar(v):
        return _text(v)
    raise WorldError(f"input must be text, got {_compact(_plain(v))}")


def _count(m: dict, key: str, where: str):
    v = m.get(key)
    if v is None:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)  # 4096.0 is a whole number
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise WorldError(f"{where}.{key} must be a positive whole number, got {_compact(v)}")
    return int(v)


def _models(models) -> dict:
    if models is None:
        return {}
    if not isinstance(models, dict):
        raise WorldError("models must be a mapping from role to model settings")
    out = {}
    for role, m in models.items():
        where = f"models.{role}"
        if m is None:
            m = {}
        if not isinstance(m, dict):
            raise WorldError(f"{where} must be a mapping of model settings (context, max_tokens, model)")
        settings = {"context": _count(m, "context", where), "max_tokens": _count(m, "max_tokens", where)}
        name = m.get("model")
        if name is not None:
            if not _is_scalar(name) or _text(name) == "":
                raise WorldError(f"{where}.model must be a model name")
            settings["model"] = _text(name)
        out[_text(role)] = settings
    return out


def _failure(entry: dict) -> ModelFailure | None:
    """The failure a reply entry stands for, or None for a reply."""
    if entry.get("error") is not None:
        err = entry["error"]
        return ModelFailure(status=err["status"], body=err["body"], message=err.get("message"))
    if entry.get("stream_error") is not None:
        return ModelFailure(stream_error=entry["stream_error"])
    if entry.get("unreachable") is not None:
        return ModelFailure(unreachable=entry["unreachable"])
    if entry.get("failure") is not None:
        return ModelFailure(message=entry["failure"])
    return None


def _reply(e, where: str) -> dict:
    """A reply entry, checked and normalized (text as str, calls as the
    provider would send them)."""
    if e is None:
        e = {}
    if not isinstance(e, dict):
        raise WorldError(f"{where} must be a mapping (text, tool_calls, finish_reason, usage, ...), "
                         f"got {_compact(e)}")
    out: dict = {}
    if "error" in e and e["error"] is not None:
        err = e["error"]
        if not isinstance(err, dict):
            raise WorldError(f"{where}.error must be a mapping {{status, body}}")
        status = err.get("status")
        if isinstance(status, str) and status.strip().isdigit():
            status = int(status)
        if isinstance(status, bool) or not isinstance(status, int):
            raise WorldError(f"{where}.error needs an HTTP status (a whole number), got {_compact(status)}")
        status = int(status)
        body = err.get("body")
        out["error"] = {"status": status,
                        "body": "" if body is None else _text(body) if _is_scalar(body) else _compact(_plain(body))}
        if err.get("message") is not None:  # a recorded failure the backend also described
            out["error"]["message"] = _optional_text(err["message"], f"{where}.error.message must be text")
    if "stream_error" in e and e["stream_error"] is not None:
        se = e["stream_error"]
        out["stream_error"] = _text(se) if _is_scalar(se) else _compact(_plain(se))
    for key in ("unreachable", "failure"):
        if e.get(key) is not None:
            out[key] = _optional_text(e[key], f"{where}.{key} must be text")
    if "text" in e:
        out["text"] = _optional_text(e["text"], f"{where}.text must be text")
    if e.get("model") is not None:
        out["model"] = _optional_text(e["model"], f"{where}.model must be a model name")
    if e.get("fragments") is not None:
        fr = e["fragments"]
        if _is_scalar(fr):
            fr = [fr]
        if not isinstance(fr, list) or not all(_is_scalar(p) or p is None for p in fr):
            raise WorldError(f"{where}.fragments must be a list of text fragments")
        out["fragments"] = [_text(p) for p in fr if p is not None]
    if "finish_reason" in e:
        out["finish_reason"] = _optional_text(e["finish_reason"], f"{where}.finish_reason must be text or null")
    if e.get("tool_calls") is not None:
        calls = e["tool_calls"]
        if not isinstance(calls, list):
            raise WorldError(f"{where}.tool_calls must be a list of calls {{id, name, arguments}}")
        out["tool_calls"] = [_call(c, f"{where}.tool_calls[{i + 1}]") for i, c in enumerate(calls)]
    if e.get("usage") is not None:
        if not isinstance(e["usage"], dict):
            raise WorldError(f"{where}.usage must be a mapping (prompt_tokens, completion_tokens, reasoning_tokens)")
        out["usage"] = _plain(e["usage"])
    if e.get("reasoning") is not None:
        r = e["reasoning"]
        if not _is_scalar(r):
            raise WorldError(f"{where}.reasoning must be text")
        out["reasoning"] = _text(r)
    return out


def _call(c, where: str) -> dict:
    """A scripted tool call as a provider would send it: a missing id or
    name stays blank and missing arguments stay missing, so the Engine's
    malformed-reply rule sees them; JSON text arguments are decoded."""
    if c is None:
        c = {}
    if not isinstance(c, dict):
        raise WorldError(f"{where} must be a mapping {{id, name, arguments}}")
    args = _plain(c.get("arguments"))
    if isinstance(args, str):
        from .errortext import safe_loads

        try:
            args = safe_loads(args)
        except ValueError:
            pass
    _check_json_data(args, f"{where}.arguments")
    return {"id": "" if c.get("id") is None else _text(c["id"]),
            "name": "" if c.get("name") is None else _text(c["name"]), "arguments": args}


def _check_json_data(value, where: str) -> None:
    """Tool-call arguments reach the Engine as JSON data: a NaN, an infinity
    or a key that is not text (YAML's `1:` or `~:`) has no JSON form, so the
    world is refused where it says so."""
    todo = [(value, where)]
    while todo:
        v, place = todo.pop()
        if isinstance(v, float) and not math.isfinite(v):
            raise WorldError(f"{place} is {_text(v)}, which has no JSON form")
        if isinstance(v, list):
            todo.extend((x, f"{place}[{i + 1}]") for i, x in enumerate(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise WorldError(f"{place} has the key {_text(k) if k is not None else 'null'}, which is not text")
                todo.append((x, f"{place}.{k}"))


def _tool_entry(e, where: str) -> dict:
    if e is None:
        e = {}
    if not isinstance(e, dict):
        raise WorldError(f"{where} must be a mapping (result, error or dropped), got {_compact(e)}")
    out: dict = {}
    if e.get("error") is not None:
        err = e["error"]
        out["error"] = err if isinstance(err, str) else _compact(_plain(err))
    if e.get("dropped"):
        out["dropped"] = True
        r = e.get("reason")
        out["reason"] = "" if r is None else _text(r)
    if "result" in e:
        r = e["result"]
        out["result"] = r if isinstance(r, str) else _compact(_plain(r))
    return out


# ------------------------------------------------------------------ writing


def dump_world(data) -> str:
    """A world (or any YAML data) as readable YAML that `ScriptedWorld.load`
    reads back to the same values: block style, keys in their order,
    Unicode as it is, texts of several lines as literal blocks, long lines
    unfolded, and numbers read from a file written as they were."""
    return yaml.dump(data, Dumper=_dumper(), allow_unicode=True, sort_keys=False, default_flow_style=False,
                     width=1 << 30)


_DUMPER = None
_OTHER_BREAKS = "\r\x85\u2028\u2029"


def _dumper():
    global _DUMPER
    if _DUMPER is None:
        probe = _loader()("")  # resolves plain scalars as the world reader will

        class WorldDumper(yaml.SafeDumper):
            def ignore_aliases(self, data):
                return True  # a repeated value is written out again, never as &id001

        def text(dumper, value: str):
            style = None
            if any(c in value for c in _OTHER_BREAKS):
                style = '"'  # YAML reads these as line breaks: only escapes keep them
            elif "\n" in value:
                style = "|"
            elif probe.resolve(yaml.ScalarNode, value, (True, False)) != "tag:yaml.org,2002:str":
                style = '"'  # e.g. "0o17" or "1_000", which YAML 1.2 reads as numbers
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        def as_written(tag):
            return lambda dumper, value: dumper.represent_scalar(tag, value.source)

        WorldDumper.add_representer(str, text)
        WorldDumper.add_representer(_Int, as_written("tag:yaml.org,2002:int"))
        WorldDumper.add_representer(_Float, as_written("tag:yaml.org,2002:float"))
        _DUMPER = WorldDumper
    return _DUMPER
