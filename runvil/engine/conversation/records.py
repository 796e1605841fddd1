"""Message records (docs/reference/conversations.md "Message records"): the per-record
checks, in their fixed order, with their exact texts, and the record form.

A record is stored once as its JSON form (docs/DECISIONS.md, "Records"): a
`Record` holding plain Python JSON values, never changed after it is built.
Edits build new records, so anything derived from a record can be cached.
"""

from __future__ import annotations

from ..luajson import JSON_NULL, NotJSON, json_size, to_json
from .views import RecordView

ROLES = ("system", "user", "assistant", "tool")
META_LIMIT = 8192

# Every text of a record error, one format string each (decision 6).
NOT_JSON_RECORD = "messages[{n}] must be a JSON-representable message table: {reason}"
NOT_JSON_FIELD = "messages[{n}] {field} must be JSON-representable: {reason}"
NOT_A_TABLE = "messages[{n}] must be a message table"
ROLE_NOT_STRING = "messages[{n}] role must be a string, one of: system, user, assistant, tool"
ROLE_UNKNOWN = 'messages[{n}] role "{role}" is unknown; known roles: system, user, assistant, tool'
BAD_CONTENT = "messages[{n}] content must be a string or a non-empty array of content parts"
PART_NOT_TABLE = "messages[{n}] content part {j} must be a table with a string type field"
PART_UNKNOWN = 'messages[{n}] content part {j} has unknown type "{type}"; known types: text, image_url'
PART_TEXT = "messages[{n}] content part {j} is a text part and must set a string text field"
PART_IMAGE = "messages[{n}] content part {j} is an image_url part and must set an image_url table with a string url field"
ID_NOT_STRING = "messages[{n}] tool_call_id must be a string"
TOOL_NEEDS_ID = "messages[{n}] is a tool message and must set a string tool_call_id"
ID_NOT_TOOL = "messages[{n}] sets a tool_call_id but is not a tool message"
CALLS_NOT_ARRAY = "messages[{n}] tool_calls must be an array"
CALL_NOT_TABLE = "messages[{n}] tool_calls[{k}] must be a table"
CALL_NO_ID = "messages[{n}] tool_calls[{k}] must set a string id"
CALL_NO_NAME = "messages[{n}] tool_calls[{k}] must set a string name"
CALL_ARGS = "messages[{n}] tool_calls[{k}] arguments must be a table"
META_TOO_BIG = "messages[{n}] meta is {size} bytes as JSON; the limit is 8192 bytes"
LATE_SYSTEM = (
    "messages[{n}] is a system message after a non-system message; system messages lead the list,"
    " and only a compactor can change the leading block"
)


class RecordError(Exception):
    """A refused record; `str(e)` is the exact lua-kind message."""


class Record:
    """One message record in its JSON form. Never mutated."""

    __slots__ = ("role", "content", "tool_calls", "tool_call_id", "meta", "_json")

    def __init__(self, role, content, tool_calls=None, tool_call_id=None, meta=None):
        self.role = role
        self.content = content  # str, or a list of part dicts
        self.tool_calls = tool_calls  # None, or a list of {id, name, arguments}
        self.tool_call_id = tool_call_id
        self.meta = meta  # None, or any JSON value
        self._json = None

    def as_json(self) -> dict:
        """The record as stored: role and content, then the fields it has."""
        d = {"role": self.role, "content": self.content}
        if self.tool_calls is not None:
            d["tool_calls"] = self.tool_calls
        if self.tool_call_id is not None:
            d["tool_call_id"] = self.tool_call_id
        if self.meta is not None:
            d["meta"] = self.meta
        return d

    def sent_form(self) -> dict:
        """What the model receives: never meta."""
        d = {"role": self.role, "content": self.content}
        if self.tool_calls is not None:
            d["tool_calls"] = self.tool_calls
        if self.tool_call_id is not None:
            d["tool_call_id"] = self.tool_call_id
        return d

    def __repr__(self):
        return f"Record({self.as_json()!r})"


def record_from_table(value, n: int) -> Record:
    """append/replace: a whole Lua record table (or view) at position n."""
    if isinstance(value, RecordView):
        return value.record
    if value is None:
        # nil is no record at all (a builder skips nil arguments the same way),
        # not a value without a JSON form
        raise RecordError(NOT_A_TABLE.format(n=n))
    try:
        data = to_json(value)  # rule 1 comes first, whatever else is wrong
    except NotJSON as e:
        raise RecordError(NOT_JSON_RECORD.format(n=n, reason=e.reason)) from None
    if isinstance(data, list) and not data:
        data = {}  # an empty table: a record with no role
    if not isinstance(data, dict):
        raise RecordError(NOT_A_TABLE.format(n=n))
    return check_record(data, n)


def record_from_builder(role: str, n: int, content, tool_calls=None, tool_call_id=None, meta=None) -> Record:
    """A builder (`messages:user(...)` ...): each non-nil argument is
    converted to JSON first, then the record is checked like append's."""
    data = {"role": role}
    for field_name, v in (("content", content), ("tool_calls", tool_calls), ("tool_call_id", tool_call_id), ("meta", meta)):
        if v is None:
            continue
        if field_name == "meta" and _is_null(v):
            continue
        try:
            data[field_name] = to_json(v)
        except NotJSON as e:
            raise RecordError(NOT_JSON_FIELD.format(n=n, field=field_name, reason=e.reason)) from None
    return check_record(data, n)


def _is_null(v) -> bool:
    return v is JSON_NULL


def check_record(d: dict, n: int) -> Record:
    """Rules 3 to 8 of "The order of the record checks", on the JSON form."""
    role = d.get("role")
    if not isinstance(role, str):
        raise RecordError(ROLE_NOT_STRING.format(n=n))
    if role not in ROLES:
        raise RecordError(ROLE_UNKNOWN.format(n=n, role=role))
    content = _check_content(d.get("content"), n)
    tcid = d.get("tool_call_id")
    if tcid is not None and not isinstance(tcid, str):
        raise RecordError(ID_NOT_STRING.format(n=n))
    if role == "tool" and tcid is None:
        raise RecordError(TOOL_NEEDS_ID.format(n=n))
    if role != "tool" and tcid is not None:
        raise RecordError(ID_NOT_TOOL.format(n=n))
    calls = _check_tool_calls(d.get("tool_calls"), n)
    meta = d.get("meta")
    if meta is not None:
        size = json_size(meta)
        if size > META_LIMIT:
            raise RecordError(META_TOO_BIG.format(n=n, size=size))
    return Record(role, content, calls, tcid, meta)


def _check_content(c, n: int):
    if isinstance(c, str):
        return c
    if not isinstance(c, list) or not c:
        raise RecordError(BAD_CONTENT.format(n=n))
    parts = []
    for j, p in enumerate(c, 1):
        if not isinstance(p, dict) or not isinstance(p.get("type"), str):
            raise RecordError(PART_NOT_TABLE.format(n=n, j=j))
        t = p["type"]
        if t == "text":
            if not isinstance(p.get("text"), str):
                raise RecordError(PART_TEXT.format(n=n, j=j))
            parts.append({"type": "text", "text": p["text"]})
        elif t == "image_url":
            img = p.get("image_url")
            if not isinstance(img, dict) or not isinstance(img.get("url"), str):
                raise RecordError(PART_IMAGE.format(n=n, j=j))
            parts.append({"type": "image_url", "image_url": {"url": img["url"]}})
        else:
            raise RecordError(PART_UNKNOWN.format(n=n, j=j, type=t))
    return parts


def _check_tool_calls(calls, n: int):
    if calls is None or calls == {} or calls == []:
        # an empty table, or an empty json.array(), carries no calls: a record
        # without tool calls has no tool_calls field at all, rather than an
        # empty one, and reads nil there ("Fields a record keeps")
        return None
    if not isinstance(calls, list):
        raise RecordError(CALLS_NOT_ARRAY.format(n=n))
    out = []
    for k, call in enumerate(calls, 1):
        if not isinstance(call, dict):
            raise RecordError(CALL_NOT_TABLE.format(n=n, k=k))
        if not isinstance(call.get("id"), str):
            raise RecordError(CALL_NO_ID.format(n=n, k=k))
        if not isinstance(call.get("name"), str):
            raise RecordError(CALL_NO_NAME.format(n=n, k=k))
        args = call.get("arguments")
        if args is None or (isinstance(args, list) and not args):
            args = {}
        if not isinstance(args, dict):
            raise RecordError(CALL_ARGS.format(n=n, k=k))
        out.append({"id": call["id"], "name": call["name"], "arguments": args})
    return out


def late_system_position(records: list) -> int | None:
    """The 1-based position of the first system record after a non-system
    one, or None when the system records lead the list."""
    seen_other = False
    for i, r in enumerate(records, 1):
        if r.role != "system":
            seen_other = True
        elif seen_other:
            return i
    return None
