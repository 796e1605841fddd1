"""`runvil view LOG.jsonl` (docs/reference/commands.md "runvil view"): a run log drawn as
one self-contained HTML page, the way a teacher would draw the run on a
board: the sections as they ran; for each model round the messages as
sent, the precheck's estimate against the window, the reply, its finish
reason and usage; tool calls with their arguments and results; changes of
the list between sends (compactions), task notices, prints, and the run's
result or error.

The page has inline CSS only: no script, no link, no image, nothing loaded
from anywhere. Every text from the log is HTML-escaped.

The log holds what was sent as `chat` events: each gives the messages from
the first one that differs from the previous send on the same list, so the
list as sent is rebuilt here, per section entry.
"""

from __future__ import annotations

import json
import sys
from html import escape

from .argparsing import Parser
from .viewstyle import CSS

# ------------------------------------------------------------------ reading


#: the largest run log drawn: a page of more would not open in a browser anyway
MAX_LOG_BYTES = 256 * 1024 * 1024
LOG_TOO_BIG = "{path} is more than {limit} bytes; the viewer draws run logs up to that size"


class LogError(Exception):
    """A run log that cannot be read: a usage error, not a crash."""


def read_log(path: str) -> list[dict]:
    """The events of a JSON Lines run log, in order."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)  # bounded: `runvil view /dev/zero`
    except OSError as e:
        raise LogError(f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_LOG_BYTES:
        raise LogError(LOG_TOO_BIG.format(path=path, limit=MAX_LOG_BYTES))
    lines = data.decode("utf-8", "replace").splitlines()
    events = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: nested past the stack
            raise LogError(f"{path}:{n}: not a JSON line of a run log") from None
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise LogError(f"{path}:{n}: not a run-log event (an object with a `type`)")
        events.append(ev)
    return events


def normalized(ev: dict) -> dict:
    """An event with its fields of the types the drawing reads (a log may
    come from anywhere: a hand-edited or foreign log must still draw)."""
    ev = dict(ev)
    try:
        ev["start"] = max(1, int(ev.get("start") or 1))
    except (TypeError, ValueError, OverflowError):
        ev["start"] = 1
    for key in ("messages", "tool_calls", "tools"):
        if key in ev and not isinstance(ev[key], list):
            ev[key] = []
    if "tool_calls" in ev:
        ev["tool_calls"] = [_call_fields(c) for c in ev["tool_calls"] if isinstance(c, dict)]
    if "tools" in ev:
        ev["tools"] = [t for t in ev["tools"] if isinstance(t, dict)]
    for key in ("usage", "precheck", "error"):
        if key in ev and not isinstance(ev[key], dict):
            ev[key] = None
    for key in ("text", "execution_id"):
        if key in ev and not isinstance(ev[key], str):
            ev[key] = json.dumps(ev[key], ensure_ascii=False)
    for key in ("section", "origin", "model", "name", "message", "prompt", "time", "jumped_to"):
        if ev.get(key) is not None and not isinstance(ev[key], str):
            ev[key] = json.dumps(ev[key], ensure_ascii=False)
    if "messages" in ev:
        ev["messages"] = [_message(m) for m in ev["messages"]]
    if "h1" in ev:
        pieces = ev["h1"] if isinstance(ev["h1"], list) else []
        ev["h1"] = [p for p in pieces if isinstance(p, dict) and isinstance(p.get("lua", p.get("prose")), str)]
    return ev


def _call_fields(call: dict) -> dict:
    """A tool call with its `id` and `name` as text (or None)."""
    call = dict(call)
    for key in ("id", "name"):
        if call.get(key) is not None and not isinstance(call[key], str):
            call[key] = json.dumps(call[key], ensure_ascii=False)
    return call


def _message(m):
    """A message of a log as the drawing reads it: its `tool_calls` a list,
    its `tool_call_id` text."""
    if not isinstance(m, dict):
        return m
    m = dict(m)
    if "tool_calls" in m:
        calls = m["tool_calls"] if isinstance(m["tool_calls"], list) else [m["tool_calls"]]
        m["tool_calls"] = [_call_fields(c) if isinstance(c, dict) else c for c in calls]
    if m.get("tool_call_id") is not None and not isinstance(m["tool_call_id"], str):
        m["tool_call_id"] = json.dumps(m["tool_call_id"], ensure_ascii=False)
    return m


# ------------------------------------------------------------ the run's shape


class Entry:
    """One section entry (or the H1 pass, or a task): what happened in it."""

    def __init__(self, execution_id: str, section: str | None, time: str | None):
        self.execution_id = execution_id
        self.section = section
        self.time = time
        self.items: list[dict] = []
        self.sent: list = []  # the list as last sent, rebuilt from `chat` events
        self.pending: dict | None = None  # a round whose messages are known, not yet its answer
        self.ended: dict | None = None
        self.task_input: object = _NONE  # a task's input, from its section_started event
        self.h1: list = []  # the H1 body's pieces (the H1 pass only), from run_started

    def round(self, ev: dict) -> dict:
        """The round an answer event belongs to (by its round id)."""
        rid = ev.get("round")
        for item in reversed(self.items):
            if item["kind"] == "round" and rid is not None and item.get("id") == rid:
                return item
        item = self.pending
        if item is None or (item.get("id") is not None and item.get("id") != rid):
            item = {"kind": "round", "messages": None, "new_from": 0, "precheck": None, "calls": []}
            self.items.append(item)
        self.pending = None
        item["id"] = rid
        return item


def shape(events: list[dict]) -> tuple[dict, list[Entry]]:
    """The run's summary and its entries in the order they started."""
    run: dict = {"prompt": None, "ended": None, "rounds": 0, "usage": {}, "first": None, "last": None}
    entries: list[Entry] = []
    current: dict[str, Entry] = {}

    def entry(ev) -> Entry:
        eid = str(ev.get("execution_id", "0"))
        e = current.get(eid)
        if e is None:
            e = Entry(eid, ev.get("section"), ev.get("time"))
            entries.append(e)
            current[eid] = e
        return e

    for ev in map(normalized, events):
        t = ev.get("type")
        run["first"] = run["first"] or ev.get("time")
        run["last"] = ev.get("time") or run["last"]
        if t == "run_started":
            run["prompt"] = ev.get("prompt")
            entry(ev).h1 = ev.get("h1") or []
            continue
        if t == "run_ended":
            run["ended"] = ev
            continue
        if t == "section_started":
            e = Entry(str(ev.get("execution_id", "0")), ev.get("section"), ev.get("time"))
            if "input" in ev:
                e.task_input = ev["input"]
            entries.append(e)
            current[e.execution_id] = e
            continue
        e = entry(ev)
        if t == "section_ended":
            e.ended = ev
        elif t == "chat":
            _chat(e, ev)
        elif t == "debug_request":
            item = e.pending
            if item is None or item.get("messages") is not None and item.get("origin") not in (None, ev.get("origin")):
                item = {"kind": "round", "messages": None, "new_from": 0, "precheck": None, "calls": []}
                e.items.append(item)
                e.pending = item
            if item.get("messages") is None:
                item["messages"] = ev.get("messages") or []
            item["tools"] = ev.get("tools")
            item["options"] = ev.get("options")
        elif t in ("model_turn_completed", "model_turn_failed") and not (
                t == "model_turn_failed" and ev.get("reason") == "precheck"):
            item = e.round(ev)
            item.update(origin=ev.get("origin"), model=ev.get("model"), event=t)
            if t == "model_turn_completed":
                item.update(finish_reason=ev.get("finish_reason"), usage=ev.get("usage"), note=ev.get("message"),
                            turn=ev.get("turn"))
                run["rounds"] += 1
                for k, v in (ev.get("usage") or {}).items():
                    if isinstance(v, int):
                        run["usage"][k] = run["usage"].get(k, 0) + v
            else:
                item.update(failed=ev.get("message") or "the round failed", status=ev.get("status"))
                run["rounds"] += 1
        elif t == "model_turn_failed":  # a precheck refusal: nothing was sent
            refused = None
            if isinstance(ev.get("messages"), list):  # what the refused request added since the last send
                refused = list(e.sent[: ev["start"] - 1]) + ev["messages"]
            e.items.append({"kind": "refusal", "tokens": ev.get("tokens"), "window": ev.get("window"),
                            "origin": ev.get("origin"), "refused": refused})
            e.pending = None
        elif t == "assistant_reply":
            item = e.round(ev)
            item["reply"] = ev.get("text", "")
            item["calls"] = [{"call": c, "result": None, "failed": None} for c in ev.get("tool_calls") or []]
        elif t == "thinking":
            e.round(ev)["thinking"] = ev.get("text")
        elif t == "model_turn_truncated":
            e.round(ev)["truncated"] = True
        elif t in ("tool_call_succeeded", "tool_call_failed"):
            _tool_event(e, ev)
        elif t == "reply":
            e.items.append({"kind": "reply", "text": ev.get("text", ""), "finish_reason": ev.get("finish_reason")})
        elif t == "task_notice":
            e.items.append({"kind": "notice", "text": ev.get("text", "")})
        elif t == "print":
            e.items.append({"kind": "print", "text": ev.get("text", "")})
        elif t == "model_retry":
            e.items.append({"kind": "retry", "data": {k: v for k, v in ev.items() if k not in _COMMON}})
    return run, entries


_COMMON = ("seq", "time", "type", "execution_id", "section")
_NONE = object()  # no such field in the log


def _chat(e: Entry, ev: dict) -> None:
    """A send: the list as sent is the previous one up to `start`, then the
    messages given. When that rewrote earlier messages, the list changed
    between sends (a compaction, or the block's own edit): drawn before
    and after."""
    start = ev["start"]
    after = list(e.sent[: start - 1]) + list(ev.get("messages") or [])
    # the last chat round or refusal before this send (a compactor's infer rounds come between)
    overflow = next((i for i in reversed(e.items)
                     if i["kind"] == "refusal" or (i["kind"] == "round" and i.get("origin") != "infer")), None)
    compaction = overflow is not None and (overflow["kind"] == "refusal" or bool(overflow.get("failed")))
    # before a compaction after a refusal, the list is the refused request's
    before = overflow.get("refused") if compaction and overflow.get("refused") is not None else e.sent
    if start - 1 < len(e.sent) or before is not e.sent:
        e.items.append({"kind": "change", "before": before, "after": after, "compaction": compaction})
    e.sent = after
    _attach_results(e, ev.get("messages") or [])
    item = {"kind": "round", "messages": after, "new_from": start - 1, "precheck": ev.get("precheck"), "calls": []}
    e.items.append(item)
    e.pending = item


def _attach_results(e: Entry, messages: list) -> None:
    """Tool records in a send are the results of the calls before them."""
    results = {m.get("tool_call_id"): m.get("content") for m in messages
               if isinstance(m, dict) and m.get("role") == "tool"}
    if not results:
        return
    for item in e.items:
        for c in item.get("calls") or ():
            cid = c["call"].get("id")
            if cid in results and c["result"] is None:
                c["result"] = results[cid]


def _tool_event(e: Entry, ev: dict) -> None:
    cid = ev.get("id")
    failed = ev.get("message") if ev["type"] == "tool_call_failed" else None
    if cid is not None:
        for item in reversed(e.items):
            for c in item.get("calls") or ():
                if c["call"].get("id") == cid:
                    c["done"] = True
                    c["failed"] = failed
                    return
    # tools.call from Lua, or a call whose round is not in the log
    e.items.append({"kind": "tool", "name": ev.get("name"), "id": cid, "failed": failed})


# ------------------------------------------------------------------ drawing


def render(events: list[dict], title: str = "run") -> str:
    """The whole page for a run log's events."""
    run, entries = shape(events)
    body = [_header(run, title)]
    for e in entries:
        if e.section is None and not e.items and not e.h1 and e.execution_id == "0":
            continue  # an H1 pass that did nothing worth drawing
        body.append(_entry(e))
    body.append(_outcome(run))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def _header(run: dict, title: str) -> str:
    ended = run["ended"]
    status = "running or cut short" if ended is None else ("ok" if ended.get("ok") else "failed")
    usage = run["usage"]
    figures = [f"<b>{run['rounds']}</b> model round{'s' if run['rounds'] != 1 else ''}"]
    for key, label in (("prompt_tokens", "prompt"), ("completion_tokens", "completion"),
                       ("reasoning_tokens", "reasoning")):
        if key in usage:
            figures.append(f"<b>{usage[key]}</b> {label} tokens")
    when = ""
    if run["first"]:
        when = f"<div class=\"when\">{escape(_text(run['first']))} → {escape(_text(run['last']))}</div>"
    name = escape(_text(run["prompt"] or title))
    return (f"<header><h1>{name} <span class=\"status {status.split()[0]}\">{escape(status)}</span></h1>"
            f"<div class=\"figures\">{' · '.join(figures)}</div>{when}</header>")


def _entry(e: Entry) -> str:
    if e.section is None:
        heading = "H1 pass" if e.execution_id == "0" else f"task {escape(e.execution_id)}"
    else:
        heading = f"## {escape(e.section)}"
    if e.execution_id != "0":
        heading += f" <span class=\"exec\">execution {escape(e.execution_id)}</span>"
    parts = [f"<section class=\"entry\"><h2>{heading}</h2>"]
    if e.h1:
        parts.append(_h1_body(e.h1))
    if e.task_input is not _NONE:
        parts.append(f"<div class=\"taskio\"><span class=\"label\">task input</span>{_value(e.task_input)}</div>")
    rounds = 0
    for item in e.items:
        if item["kind"] == "round":  # numbered per section entry or task: round 1, 2, ...
            rounds += 1
            item = {**item, "number": rounds}
        parts.append(_ITEM[item["kind"]](item))
    if not e.items and not e.h1:
        parts.append("<p class=\"muted\">no model round, tool call or print here</p>")
    if e.ended is not None:
        if e.ended.get("failed"):
            parts.append("<p class=\"end failed\">the section failed</p>")
        elif e.ended.get("jumped_to"):
            parts.append(f"<p class=\"end\">jump → ## {escape(_text(e.ended['jumped_to']))}</p>")
        if "result" in e.ended:
            parts.append(f"<div class=\"taskio\"><span class=\"label\">task result</span>"
                         f"{_value(e.ended['result'])}</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _round(item: dict) -> str:
    origin = item.get("origin") or "chat"
    number = item.get("number", "?")  # its place in the section entry or task
    head = [f"round {escape(_text(number))}", escape(_text(origin))]
    if item.get("model"):
        head.append(f"model <b>{escape(_text(item['model']))}</b>")
    out = [f"<details class=\"round\" open><summary>{' · '.join(head)}</summary>"]
    if item.get("precheck"):
        out.append(_precheck(item["precheck"]))
    messages = item.get("messages")
    if messages is None:
        out.append("<p class=\"muted\">the messages of this round are in the log only with --debug</p>")
    else:
        out.append(_messages(messages, item.get("new_from", 0), "sent"))
    if item.get("tools"):
        names = ", ".join(escape(_text(t.get("name"))) for t in item["tools"] if isinstance(t, dict))
        out.append(f"<p class=\"tools\">tools offered: {names}</p>")
    out.append(_answer(item))
    out.append("</details>")
    return "\n".join(out)


def _h1_body(pieces: list) -> str:
    """The H1 body as written: its prose and its Lua blocks, in order."""
    out = ["<details class=\"h1body\" open><summary>the H1 body</summary>"]
    for p in pieces:
        line = p.get("line")
        where = f"<span class=\"id\">line {escape(str(line))}</span>" if isinstance(line, int) else ""
        if isinstance(p.get("lua"), str):
            out.append(f"<div class=\"h1lua\"><span class=\"label\">lua</span> {where}"
                       f"<pre>{escape(p['lua'])}</pre></div>")
        else:
            text = p["prose"].strip("\n")
            if text.strip():
                out.append(f"<div class=\"h1prose\">{where}<pre>{escape(text)}</pre></div>")
    out.append("</details>")
    return "\n".join(out)


def _value(v) -> str:
    """A task's input or result: text as it is, other JSON data as JSON."""
    if v is None:
        return "<pre class=\"empty\">(none)</pre>"
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return f"<pre>{escape(text)}</pre>" if text else "<pre class=\"empty\">(empty)</pre>"


def _precheck(p: dict) -> str:
    tokens, window, reserve = p.get("tokens"), p.get("window"), p.get("reserve")
    if not all(isinstance(v, int) for v in (tokens, window)) or window <= 0:
        return ""
    reserve = reserve if isinstance(reserve, int) else 0
    used = max(0.0, min(100.0, 100 * tokens / window))  # int division: exact for any size
    kept = max(0.0, min(100.0 - used, 100 * reserve / window))
    return (f"<div class=\"precheck\"><span>precheck: estimate <b>{tokens}</b> + reserve <b>{reserve}</b>"
            f" of window <b>{window}</b></span><div class=\"bar\"><i class=\"used\" style=\"width:{used:.2f}%\">"
            f"</i><i class=\"reserve\" style=\"width:{kept:.2f}%\"></i></div></div>")


def _messages(messages: list, new_from: int, label: str) -> str:
    rows = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            rows.append(f"<div class=\"msg\"><pre>{escape(json.dumps(m, ensure_ascii=False))}</pre></div>")
            continue
        role = str(m.get("role", "?"))
        new = " new" if i >= new_from else ""
        extra = ""
        if m.get("tool_call_id") is not None:
            extra = f" <span class=\"id\">for {escape(_text(m['tool_call_id']))}</span>"
        body = [_content(m.get("content"))]
        for call in m.get("tool_calls") or ():
            body.append(_call(call))
        rows.append(f"<div class=\"msg {escape(role)}{new}\"><div class=\"role\">{i + 1} · {escape(role)}{extra}"
                    f"</div>{''.join(body)}</div>")
    return f"<div class=\"messages\" title=\"{escape(label)}\">{''.join(rows)}</div>"


def _content(content) -> str:
    if content is None or content == "":
        return "<pre class=\"empty\">(no text)</pre>" if content == "" else ""
    if isinstance(content, str):
        return f"<pre>{escape(content)}</pre>"
    if isinstance(content, list):  # content parts
        parts = []
        for p in content:
            if isinstance(p, dict) and p.get("type") == "text":
                parts.append(f"<pre>{escape(_text(p.get('text', '')))}</pre>")
            else:
                parts.append(f"<pre class=\"part\">{escape(json.dumps(p, ensure_ascii=False, indent=1))}</pre>")
        return "".join(parts)
    return f"<pre>{escape(json.dumps(content, ensure_ascii=False))}</pre>"


def _call(call) -> str:
    if not isinstance(call, dict):
        return f"<pre>{escape(json.dumps(call, ensure_ascii=False))}</pre>"
    args = json.dumps(call.get("arguments"), ensure_ascii=False, indent=2)
    return (f"<div class=\"call\"><span class=\"fn\">{escape(_text(call.get('name')))}</span>"
            f" <span class=\"id\">{escape(_text(call.get('id')))}</span><pre>{escape(args)}</pre></div>")


def _answer(item: dict) -> str:
    out = ["<div class=\"answer\">"]
    if item.get("failed"):
        message = _text(item["failed"])
        status = f" (status {_text(item['status'])})" if item.get("status") is not None else ""
        if status and status.strip() in message:  # the message names it already (a provider's rejection)
            status = ""
        out.append(f"<div class=\"failed\">the round failed{escape(status)}: <pre>{escape(message)}</pre></div>")
    if item.get("thinking"):
        out.append(f"<div class=\"thinking\"><div class=\"role\">thinking</div><pre>{escape(_text(item['thinking']))}"
                   "</pre></div>")
    if "reply" in item and (item["reply"] != "" or not item.get("calls")):  # a tool round's empty text says nothing
        out.append(f"<div class=\"msg assistant reply\"><div class=\"role\">reply</div>{_content(item['reply'])}</div>")
    elif item.get("note"):
        out.append(f"<div class=\"failed\">{escape(_text(item['note']))}</div>")
    for c in item.get("calls") or ():
        out.append(_call_with_result(c))
    meta = []
    if "finish_reason" in item:
        meta.append(f"finish reason <b>{escape(json.dumps(item['finish_reason']))}</b>")
    for key, value in (item.get("usage") or {}).items():
        meta.append(f"{escape(_text(key))} <b>{escape(_text(value))}</b>")
    if item.get("truncated"):
        meta.append("<b>truncated</b>")
    if meta:
        out.append(f"<div class=\"meta\">{' · '.join(meta)}</div>")
    out.append("</div>")
    return "".join(out)


def _call_with_result(c: dict) -> str:
    call = c["call"]
    if c.get("failed") is not None:
        result = f"<div class=\"result failed\">failed: <pre>{escape(_text(c['failed']))}</pre></div>"
    elif c.get("result") is not None:
        result = f"<div class=\"result\">result: {_content(c['result'])}</div>"
    else:
        result = "<div class=\"result muted\">no result in the log</div>"
    return f"<div class=\"toolrun\">tool call {_call(call)}{result}</div>"


def _refusal(item: dict) -> str:
    return (f"<div class=\"refusal\">the precheck refused a {escape(_text(item.get('origin') or 'chat'))} round: "
            f"estimate <b>{escape(_text(item.get('tokens')))}</b> against window "
            f"<b>{escape(_text(item.get('window')))}</b>; nothing was sent</div>")


def _change(item: dict) -> str:
    what = "compaction: the list before and after" if item["compaction"] else "the list changed since the last send"
    return (f"<details class=\"change\" open><summary>{what}</summary><div class=\"beforeafter\">"
            f"<div><h3>before ({len(item['before'])})</h3>{_messages(item['before'], len(item['before']), 'before')}"
            f"</div><div><h3>after ({len(item['after'])})</h3>{_messages(item['after'], len(item['after']), 'after')}"
            "</div></div></details>")


def _simple(cls: str, label: str):
    return lambda item: f"<div class=\"{cls}\"><span class=\"label\">{label}</span><pre>{escape(item['text'])}</pre></div>"


def _tool(item: dict) -> str:
    state = f"failed: {escape(_text(item['failed']))}" if item.get("failed") is not None else "ok"
    return f"<div class=\"tool\">tools.call <span class=\"fn\">{escape(_text(item.get('name')))}</span> {state}</div>"


def _retry(item: dict) -> str:
    figures = ", ".join(f"{escape(_text(k))} {escape(_text(v))}" for k, v in item["data"].items())
    return f"<div class=\"retry\">retry: {figures}</div>"


def _reply(item: dict) -> str:
    return ("<div class=\"loopend\">the loop ended with this reply (finish reason "
            f"<b>{escape(json.dumps(item.get('finish_reason')))}</b>)</div>")


_ITEM = {
    "round": _round, "refusal": _refusal, "change": _change, "reply": _reply,
    "notice": _simple("notice", "task notice"), "print": _simple("print", "print"),
    "tool": _tool, "retry": _retry,
}


def _outcome(run: dict) -> str:
    ended = run["ended"]
    if ended is None:
        return "<footer class=\"outcome\">the log ends before the run did</footer>"
    if ended.get("ok"):
        result = ended.get("result")
        shown = "<p class=\"muted\">(no result)</p>" if result is None else f"<pre>{escape(_text(result))}</pre>"
        return f"<footer class=\"outcome ok\"><h2>result</h2>{shown}</footer>"
    err = ended.get("error") or {}
    fields = "".join(f"<li>{escape(_text(k))}: {escape(json.dumps(v, ensure_ascii=False))}</li>"
                     for k, v in err.items() if k not in ("kind", "message"))
    return (f"<footer class=\"outcome failed\"><h2>error[{escape(_text(err.get('kind')))}]</h2>"
            f"<pre>{escape(_text(err.get('message')))}</pre><ul>{fields}</ul></footer>")


# ------------------------------------------------------------------ command


def _text(value) -> str:
    """A log's value as the page shows it: text as it is, anything else as
    JSON (never Python's own spelling: `null`, not `None`)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return "?"


_UNDRAWABLE = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, RecursionError)


def write_view(events: list[dict], out: str, title: str) -> None:
    with open(out, "w", encoding="utf-8") as f:
        f.write(render(events, title))


def default_output(log: str) -> str:
    """The log's name with `.html` in place of its extension."""
    import os

    root, ext = os.path.splitext(log)
    return (root if ext else log) + ".html"


def view_command(argv: list[str]) -> int:
    p = Parser(prog="runvil view", description="Render a run log (runvil run --log) as one self-contained HTML page.",
               epilog="examples:\n  runvil run examples/hello.md --log run.jsonl && "
                      "runvil view run.jsonl\n  runvil view run.jsonl -o /tmp/page.html")
    p.add_argument("log", metavar="LOG.jsonl", help="the run log to render (with --run: a results database)")
    p.add_argument("-o", "--output", metavar="FILE.html", help="where to write the page (default: the log's name with .html)")
    p.add_argument("--run", metavar="ID", type=int,
                   help="draw the run of this id stored in the database LOG (runvil batch, runvil run --db)")
    args = p.parse(argv)
    if isinstance(args, int):
        return args
    if args.run is None:
        from .batch.listing import is_database, list_command

        if is_database(args.log):  # a results database: its runs, to pick one to draw
            return list_command(args.log, args.output)
    try:
        if args.run is not None:  # a stored run: FILE.db -> FILE-run-ID.html
            from .batch.store import StoreError, read_run_log

            try:
                events = read_run_log(args.log, args.run)
            except StoreError as e:
                raise LogError(str(e)) from None
            root = default_output(args.log)[: -len(".html")]
            out, title = args.output or f"{root}-run-{args.run}.html", f"{args.log} run {args.run}"
        else:
            out, title = args.output or default_output(args.log), args.log
            events = read_log(args.log)
    except LogError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return 2
    from .outputs import clash

    clashing = clash([("-o" if args.output else "the page", out)], [(f"the log {args.log}", args.log)])
    if clashing:
        print(f"runvil: {clashing}", file=sys.stderr)
        return 2
    try:
        page = render(events, title)
    except _UNDRAWABLE as e:  # a field of a type the fuzzing did not meet: said, never a traceback
        print(f"runvil: cannot draw {args.log}: a field holds a value a run log does not ({type(e).__name__})",
              file=sys.stderr)
        return 2
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(page)
    except OSError as e:
        print(f"runvil: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(out)
    return 0


def write_run_view(path: str, run) -> bool:
    """`runvil run --view FILE.html`: the page of the run just ended, from
    its events in memory; False (after saying why on stderr) when it
    cannot be written."""
    try:
        write_view([ev.as_json() for ev in run.events.events], path, title=run.prompt.frontmatter.name)
    except OSError as e:
        print(f"runvil: cannot write {path}: {e.strerror or e}", file=sys.stderr)
        return False
    return True
