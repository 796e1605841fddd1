"""Record views (docs/reference/conversations.md "What a record view allows"): read-only
userdata over one record; every read of a table field builds a fresh Lua
table from the record's JSON form."""

from __future__ import annotations

from ...lua.api import Multi, Userdata
from ...lua.api import builtin
from ..errors import raise_lua
from ..luajson import copy_json, from_json

VIEW_READONLY = "records read from messages are read-only; rewrite history with models.compact(compactor, reason)"
FIELDS = ("role", "content", "tool_calls", "tool_call_id", "meta")


class RecordView(Userdata):
    __slots__ = ("record",)

    def __init__(self, record):
        self.record = record

    def lua_index(self, key):
        if type(key) is not str or key not in FIELDS:
            return None
        v = getattr(self.record, key)
        if v is None:
            return None
        return from_json(v)

    def lua_newindex(self, key, value):
        raise_lua(VIEW_READONLY)

    def json_form(self):
        """Inside a table, a view converts to its record's JSON form
        (luajson.record_views)."""
        return copy_json(self.record.as_json())

    def lua_pairs(self):
        rec = self.record
        present = [f for f in FIELDS if getattr(rec, f) is not None]

        @builtin
        def walk(_s=None, key=None, *_):
            i = 0 if key is None else present.index(key) + 1 if key in present else len(present)
            if i >= len(present):
                return None
            f = present[i]
            return Multi((f, from_json(getattr(rec, f))))

        return walk, self, None
