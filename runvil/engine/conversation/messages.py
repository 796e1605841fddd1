"""The message list (docs/reference/conversations.md "Building a message list", "Reading
records"): the `messages` userdata, its builders, and its reading rules.

The list owns its records; its methods are the only way to change it. Every
edit checks the records it adds at the positions they take, and leaves the
list unchanged when it refuses.
"""

from __future__ import annotations

from ...lua.api import Multi, Userdata
from ...lua.api import builtin
from ...lua.api import float_to_int
from ..errors import raise_lua
from .precheck import Anchor
from .records import LATE_SYSTEM, RecordError, late_system_position, record_from_builder, record_from_table
from .replace import replace_records
from .views import RecordView

ASSIGN_GLOBAL = (
    "messages is the section's conversation and cannot be reassigned; add records with append(record),"
    " or rewrite history with models.compact(compactor, reason)"
)
ASSIGN_INDEX = (
    "messages cannot be assigned to by index; add records with append(record),"
    " or rewrite history with models.compact(compactor, reason)"
)


class MessageList(Userdata):
    """A section's conversation."""

    __slots__ = ("records", "vm", "_methods", "last_sent", "anchor", "compose_state")

    def __init__(self, vm=None):
        self.records: list = []
        self.vm = vm
        self.last_sent: list = []  # the composed messages of the last send
        self.anchor = Anchor()  # the provider's count of the last measured round
        self.compose_state: list = []  # the resumable composing of the last send
        self._methods = _methods_of(self)

    def release(self) -> None:
        """Its VM has closed: the colon methods (closures over this list)
        and the VM are let go of, so the list, they and the VM form no
        cycle."""
        self._methods = {}
        self.vm = None

    # --------------------------------------------------------- Lua protocol

    def lua_index(self, key):
        t = type(key)
        if t is int or t is float:
            i = key if t is int else float_to_int(key)
            if i is not None and 1 <= i <= len(self.records):
                return RecordView(self.records[i - 1])
            return None
        if t is str:
            return self._methods.get(key)
        return None

    def lua_newindex(self, key, value):
        raise_lua(ASSIGN_INDEX)

    def lua_len(self):
        return len(self.records)

    def lua_pairs(self):
        """Stops at the record count the walk started with, but reads the
        live list at every step (and stops early when it shrinks)."""
        start = len(self.records)
        records = self.records

        @builtin
        def walk(_s=None, i=0, *_):
            i = (i or 0) + 1
            if i > start or i > len(self.records):
                return None
            return Multi((i, RecordView(self.records[i - 1])))

        del records
        return walk, self, 0

    def lua_eq(self, other):
        return self is other

    # -------------------------------------------------------------- edits

    def append_record(self, record) -> None:
        """Adds one checked record at the end, keeping system records first."""
        if record.role == "system" and any(r.role != "system" for r in self.records):
            raise RecordError(LATE_SYSTEM.format(n=len(self.records) + 1))
        self.records.append(record)

    def splice(self, first: int, last: int, new: list) -> None:
        """Replaces records first..last (1-based, inclusive) with new ones,
        all or nothing (the caller has checked the range)."""
        edited = self.records[: first - 1] + list(new) + self.records[last:]
        pos = late_system_position(edited)
        if pos is not None:
            raise RecordError(LATE_SYSTEM.format(n=pos))
        self.records[:] = edited


def _methods_of(lst: MessageList) -> dict:
    """The list's colon methods, bound to this list."""

    def check_self(fname, args):
        if not args or args[0] is not lst:
            raise_lua(f"messages:{fname}(...) is a method: call it with a colon")
        return args[1:]

    def add(record):
        try:
            lst.append_record(record)
        except RecordError as e:
            raise_lua(str(e))
        return lst

    def build(role, fname, *fields):
        try:
            rec = record_from_builder(role, len(lst.records) + 1, *fields)
        except RecordError as e:
            raise_lua(str(e))
        return add(rec)

    def system(*args):
        a = check_self("system", args) + (None, None)
        return build("system", "system", a[0], None, None, a[1])

    def user(*args):
        a = check_self("user", args) + (None, None)
        return build("user", "user", a[0], None, None, a[1])

    def assistant(*args):
        a = check_self("assistant", args) + (None, None, None)
        return build("assistant", "assistant", a[0], a[1], None, a[2])

    def tool(*args):
        a = check_self("tool", args) + (None, None, None)
        return build("tool", "tool", a[0], None, a[1], a[2])

    def append(*args):
        a = check_self("append", args) + (None,)
        try:
            rec = record_from_table(a[0], len(lst.records) + 1)
        except RecordError as e:
            raise_lua(str(e))
        return add(rec)

    def replace(*args):
        a = check_self("replace", args)
        return replace_records(lst, a)

    methods = {"system": system, "user": user, "assistant": assistant, "tool": tool, "append": append,
               "replace": replace}
    for f in methods.values():
        builtin(f)
    return methods
