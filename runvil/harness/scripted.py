"""The scripted world (docs/reference/commands.md "The scripted world"): a YAML file standing
in for every provider and bound tool, so a run is offline and repeatable.

Decisions where the specification is silent:
- The file is read with the YAML 1.2 rules the prompt frontmatter uses
  (only `true`/`false` are booleans, so `text: no` is the text "no").
- A world is checked when it is loaded (worldcheck.py): a shape other
  than the documented one, an unknown key (with a "did you mean"), a reply
  with neither text, tool calls nor an error, a usage field other than the
  four, a role the prompt does not declare: a usage error naming the world
  file's line, before the run starts. `replies` keyed by role may also use
  a world model's `model` name or a raw model id (a name with a `/`).
- A bound tool call with no result left fails the run (kind `internal`),
  as a round with no reply left does.
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
- Beyond the specification, so that a recorded run (`runvil run --record`) replays
  exactly: a reply's `model` is the model the provider said served it
  (default: the round's model); `unreachable: DETAIL` is a backend that
  could not be reached; `failure: MESSAGE` is a failure the backend
  described itself (malformed tool call arguments, a stream cut short).
- `dump_world` writes a world back as YAML a person can edit: block style,
  Unicode kept, texts of several lines as literal blocks, and any text a
  YAML 1.2 reader would take for another type quoted.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..engine.effects import ModelFailure, ModelReply, ModelRound, ToolCall, ToolDropped, ToolFailure, ToolResult
from ..engine.models import EMPTY_REPLY
from ..structs import replace
from .worldcheck import (
    CALL_KEYS,
    ERROR_KEYS,
    MODEL_KEYS,
    REPLY_BODY,
    REPLY_KEYS,
    TOOL_KEYS,
    TOP_KEYS,
    USAGE_KEYS,
    Float,
    Int,
    Map,
    Seq,
    WorldError,
    check_json_data,
    compact,
    fail,
    is_scalar,
    known_keys,
    optional_text,
    plain,
    read_world_text,
    shown,
    text_of,
    whole_count,
    world_loader,
)

DEFAULT_CONTEXT = 8192
NO_REPLY_LEFT = "the script has no reply left for {role}"
NO_RESULT_LEFT = "the script has no result left for {tool}"

__all__ = ["DEFAULT_CONTEXT", "ScriptedWorld", "WorldError", "dump_world"]

_loader = world_loader  # the case reader (host/cases.py) reads YAML as a world does
_Int, _Float, _text, _plain, _is_scalar, _compact = Int, Float, text_of, plain, is_scalar, compact


def _lists_by_name(mapping: dict, where: str, what: str, entry) -> dict:
    """A mapping from a name to a list of entries (replies per role, results
    per tool), each entry checked by `entry(value, place, list, index)`."""
    out = {}
    for k, v in mapping.items():
        place = f"{where}.{_text(k)}"
        if v is None:
            v = []
        if not isinstance(v, list):
            fail(f"{place} must be a list of {what}", mapping, k)
        out[_text(k)] = [entry(e, f"{place}[{i + 1}]", v, i) for i, e in enumerate(v)]
    return out


class ScriptedWorld:
    def __init__(self, data: dict | None, on_fragment=None, roles=None):
        """A world from its YAML data; `roles`, when given, are the model
        roles the prompt declares, and a world naming another is refused."""
        data = {} if data is None else data
        if not isinstance(data, dict):
            fail("the scripted world must be a mapping (input, models, replies, tools), "
                 f"got {shown(data)}", data)
        known_keys(data, TOP_KEYS, "")
        self.on_fragment = on_fragment  # on_fragment(effect, text): live output
        self.input = _input(data.get("input"), data)
        self.models: dict = _models(data.get("models"), data)
        replies = data.get("replies")
        if replies is None:
            replies = []
        if isinstance(replies, list):
            self.shared: list | None = [_reply(e, f"replies[{i + 1}]", replies, i) for i, e in enumerate(replies)]
            self.by_role: dict = {}
        elif isinstance(replies, dict):
            self.shared = None
            self.by_role = _lists_by_name(replies, "replies", "replies", _reply)
        else:
            fail("replies must be a list or a mapping from role (or model id) to a list", data, "replies")
        tools = data.get("tools")
        if tools is None:
            tools = {}
        if not isinstance(tools, dict):
            fail("tools must be a mapping from tool name ('pack/tool') to a list of results", data, "tools")
        self.tools: dict = _lists_by_name(tools, "tools", "results", _tool_entry)
        if roles is not None:
            _check_roles(data, list(roles), self.models)

    @classmethod
    def load(cls, path: str | Path, on_fragment=None, roles=None) -> ScriptedWorld:
        """Reads and checks a world file; WorldError names the file and line."""
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            raise WorldError(f"the scripted world {path} does not exist") from None
        except OSError as e:  # in words, without Python's `[Errno N]` and the path again
            raise WorldError(f"cannot read the scripted world {path}: {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise WorldError(f"cannot read the scripted world {path}: the byte at offset {e.start} is not UTF-8") \
                from None
        try:
            return cls(read_world_text(text), on_fragment=on_fragment, roles=roles)
        except WorldError as e:
            raise e.in_file(str(path)) from None

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
            return ModelFailure(message=NO_REPLY_LEFT.format(role=effect.role))
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
            return ToolFailure(NO_RESULT_LEFT.format(tool=effect.name), fatal=True)
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


def _input(v, data):
    if v is None or isinstance(v, str):
        return v
    if _is_scalar(v):
        return _text(v)
    fail(f"input must be text, got {shown(v)}", data, "input")


def _models(models, data) -> dict:
    if models is None:
        return {}
    if not isinstance(models, dict):
        fail("models must be a mapping from role to model settings", data, "models")
    out = {}
    for role, m in models.items():
        where = f"models.{_text(role)}"
        if m is None:
            m = {}
        if not isinstance(m, dict):
            fail(f"{where} must be a mapping of model settings (context, max_tokens, model)", models, role)
        known_keys(m, MODEL_KEYS, where)
        settings = {"context": whole_count(m, "context", where), "max_tokens": whole_count(m, "max_tokens", where)}
        name = m.get("model")
        if name is not None:
            if not _is_scalar(name) or _text(name) == "":
                fail(f"{where}.model must be a model name", m, "model")
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


def _check_roles(data: dict, roles: list[str], models: dict) -> None:
    """`models` names declared roles only; `replies` by role names a
    declared role, a world model's name or a raw model id (with a `/`)."""
    declared = ", ".join(roles) or "none"
    for role in data.get("models") or {}:
        if _text(role) not in roles:
            fail(f"models.{_text(role)}: the prompt declares no model role '{_text(role)}' "
                 f"(declared: {declared}{_close(_text(role), roles)})", data["models"], role)
    replies = data.get("replies")
    if isinstance(replies, dict):
        names = {s["model"] for s in models.values() if s.get("model")}
        for key in replies:
            k = _text(key)
            if k not in roles and k not in names and "/" not in k:
                fail(f"replies.{k}: the prompt declares no model role '{k}' "
                     f"(declared: {declared}{_close(k, roles)})", replies, key)


def _close(name: str, choices: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _reply(e, where: str, parent=None, index=None) -> dict:
    """A reply entry, checked and normalized (text as str, calls as the
    provider would send them)."""
    if not isinstance(e, dict):
        got = "nothing" if e is None else shown(e)
        fail(f"{where} must be a mapping (text, tool_calls, error, ...), got {got}", parent, index)
    known_keys(e, REPLY_KEYS, where)
    if not any(e.get(k) is not None or (k == "text" and k in e) for k in REPLY_BODY):
        fail(f"{where} has neither text, tool_calls nor error (one of: {', '.join(REPLY_BODY)})", parent, index)
    out: dict = {}
    if "error" in e and e["error"] is not None:
        err = e["error"]
        if not isinstance(err, dict):
            fail(f"{where}.error must be a mapping {{status, body}}", e, "error")
        known_keys(err, ERROR_KEYS, f"{where}.error")
        status = err.get("status")
        if isinstance(status, str) and status.strip().isdigit() and len(status.strip()) <= 3:
            status = int(status)
        if isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 999:
            fail(f"{where}.error needs an HTTP status (a whole number from 100 to 999), got {shown(status)}",
                 err, "status" if "status" in err else None)
        body = err.get("body")
        out["error"] = {"status": int(status),
                        "body": "" if body is None else _text(body) if _is_scalar(body) else _compact(_plain(body))}
        if err.get("message") is not None:  # a recorded failure the backend also described
            out["error"]["message"] = optional_text(err["message"], f"{where}.error.message must be text",
                                                    err, "message")
    if "stream_error" in e and e["stream_error"] is not None:
        se = e["stream_error"]
        out["stream_error"] = _text(se) if _is_scalar(se) else _compact(_plain(se))
    for key in ("unreachable", "failure"):
        if e.get(key) is not None:
            out[key] = optional_text(e[key], f"{where}.{key} must be text", e, key)
    if "text" in e:
        out["text"] = optional_text(e["text"], f"{where}.text must be text", e, "text")
    if e.get("model") is not None:
        out["model"] = optional_text(e["model"], f"{where}.model must be a model name", e, "model")
    if e.get("fragments") is not None:
        fr = e["fragments"]
        if _is_scalar(fr):
            fr = [fr]
        if not isinstance(fr, list) or not all(_is_scalar(p) or p is None for p in fr):
            fail(f"{where}.fragments must be a list of text fragments", e, "fragments")
        out["fragments"] = [_text(p) for p in fr if p is not None]
    if "finish_reason" in e:
        out["finish_reason"] = optional_text(e["finish_reason"], f"{where}.finish_reason must be text or null",
                                             e, "finish_reason")
    if e.get("tool_calls") is not None:
        calls = e["tool_calls"]
        if not isinstance(calls, list):
            fail(f"{where}.tool_calls must be a list of calls {{id, name, arguments}}", e, "tool_calls")
        out["tool_calls"] = [_call(c, f"{where}.tool_calls[{i + 1}]", calls, i) for i, c in enumerate(calls)]
    if e.get("usage") is not None:
        out["usage"] = _usage(e["usage"], f"{where}.usage", e)
    if e.get("reasoning") is not None:
        r = e["reasoning"]
        if not _is_scalar(r):
            fail(f"{where}.reasoning must be text", e, "reasoning")
        out["reasoning"] = _text(r)
    return out


def _usage(u, where: str, e: dict) -> dict:
    """Token counts: whole numbers of 0 or more (the Engine reads nothing
    else); NaN, infinities, fractions and negatives are refused here."""
    if not isinstance(u, dict):
        fail(f"{where} must be a mapping ({', '.join(USAGE_KEYS)})", e, "usage")
    known_keys(u, USAGE_KEYS, where)
    out = {}
    for k, v in u.items():
        if v is None:
            continue
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            fail(f"{where}.{k} must be a whole number of tokens, 0 or more, got {shown(v)}", u, k)
        out[k] = int(v)
    return out


def _call(c, where: str, parent=None, index=None) -> dict:
    """A scripted tool call as a provider would send it: a missing id or
    name stays blank and missing arguments stay missing, so the Engine's
    malformed-reply rule sees them; JSON text arguments are decoded."""
    if c is None:
        c = {}
    if not isinstance(c, dict):
        fail(f"{where} must be a mapping {{id, name, arguments}}", parent, index)
    known_keys(c, CALL_KEYS, where)
    args = _plain(c.get("arguments"))
    if isinstance(args, str):
        from .errortext import safe_loads

        try:
            args = safe_loads(args)
        except ValueError:
            pass
    check_json_data(c.get("arguments"), f"{where}.arguments", c, "arguments")
    check_json_data(args, f"{where}.arguments", c, "arguments")
    return {"id": "" if c.get("id") is None else _text(c["id"]),
            "name": "" if c.get("name") is None else _text(c["name"]), "arguments": args}


def _tool_entry(e, where: str, parent=None, index=None) -> dict:
    if not isinstance(e, dict):
        got = "nothing" if e is None else shown(e)
        fail(f"{where} must be a mapping (result, error or dropped), got {got}", parent, index)
    known_keys(e, TOOL_KEYS, where)
    if e.get("error") is None and not e.get("dropped") and "result" not in e:
        fail(f"{where} has neither result, error nor dropped", parent, index)
    out: dict = {}
    if e.get("error") is not None:
        err = e["error"]
        out["error"] = err if isinstance(err, str) else _text(err) if _is_scalar(err) else _compact(_plain(err))
    if e.get("dropped"):
        out["dropped"] = True
        r = e.get("reason")
        out["reason"] = "" if r is None else _text(r)
    if "result" in e:
        r = e["result"]
        out["result"] = r if isinstance(r, str) else _text(r) if _is_scalar(r) else _compact(_plain(r))
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
        WorldDumper.add_representer(Map, yaml.SafeDumper.represent_dict)
        WorldDumper.add_representer(Seq, yaml.SafeDumper.represent_list)
        WorldDumper.add_representer(_Int, as_written("tag:yaml.org,2002:int"))
        WorldDumper.add_representer(_Float, as_written("tag:yaml.org,2002:float"))
        _DUMPER = WorldDumper
    return _DUMPER
