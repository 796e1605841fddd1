"""How the prompt REPL (`runvil lua --prompt`) shows a chunk's values: a
record, the message list, `var` and tables as Lua table constructors
(`{role = "user", content = "hi"}`), so a learner sees what is inside
instead of `userdata: 0x7f...`. A value at the top level that is a string
shows as it is, as `lua -i` prints it.
"""

from __future__ import annotations

import re

WIDTH = 100  # past this, a table shows one entry a line
DEPTH = 6  # tables nested deeper show as {...}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset(["and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"])


def show_value(value) -> str:
    """One chunk result as the prompt REPL prints it."""
    if type(value) is str:
        return _text(value)
    return _Shower().show(value, 0, "")


def _text(lua_str: str) -> str:
    """A Lua string (one char a byte) as the text it holds."""
    return lua_str.encode("latin-1", "replace").decode("utf-8", "replace")


def _quoted(text: str) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    out = out.replace("\t", "\\t")
    return '"' + re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", lambda m: f"\\{ord(m.group()):d}", out) + '"'


class _Shower:
    def __init__(self):
        self.open: set[int] = set()  # tables being shown (a cycle shows as <cycle>)

    def show(self, v, depth: int, indent: str) -> str:
        from ..engine.conversation.messages import MessageList
        from ..engine.conversation.views import RecordView
        from ..engine.errors import ErrorValue
        from ..engine.luajson import JsonNull
        from ..engine.models import ModelHandle
        from ..engine.var import VarView
        from ..lua.api import LuaTable
        from ..lua.api import tostring

        if v is None:
            return "nil"
        if v is True or v is False:
            return "true" if v else "false"
        if type(v) is str:
            return _quoted(_text(v))
        if type(v) in (int, float):
            return tostring(v)
        if isinstance(v, JsonNull):
            return "json.null"
        if isinstance(v, RecordView):
            return self.json(v.record.as_json(), depth, indent)
        if isinstance(v, MessageList):
            return self.entries([(None, self.json(r.as_json(), depth + 1, indent + "  ")) for r in v.records], indent)
        if isinstance(v, VarView):
            return self.json(dict(v.store._values), depth, indent)
        if isinstance(v, ErrorValue):
            data = {"kind": v.kind, "message": v.message, **v.fields}
            return self.json(data, depth, indent)
        if isinstance(v, ModelHandle):
            return f"model handle {{name = {_quoted(v.name)}, context = {v.context}}}"
        if type(v) is LuaTable:
            return self.table(v, depth, indent)
        return tostring(v)

    def table(self, t, depth: int, indent: str) -> str:
        if id(t) in self.open:
            return "<cycle>"
        if depth >= DEPTH:
            return "{...}"
        self.open.add(id(t))
        try:
            keys = t.keys_snapshot()
            items, n = [], 0
            for k in keys:
                v = t.get(k)
                if v is None:
                    continue
                shown = self.show(v, depth + 1, indent + "  ")
                if type(k) is int and k == n + 1:
                    n = k
                    items.append((None, shown))
                else:
                    items.append((self.key(k, depth, indent), shown))
            return self.entries(items, indent)
        finally:
            self.open.discard(id(t))

    def key(self, k, depth: int, indent: str) -> str:
        if type(k) is str:
            text = _text(k)
            if _NAME.match(text) and text not in _KEYWORDS:
                return text
            return f"[{_quoted(text)}]"
        return f"[{self.show(k, depth + 1, indent)}]"

    def json(self, v, depth: int, indent: str) -> str:
        """JSON data (a record's form, var's values) as a Lua constructor."""
        if isinstance(v, dict):
            if depth >= DEPTH:
                return "{...}"
            items = [(k if _NAME.match(k) and k not in _KEYWORDS else f"[{_quoted(k)}]",
                      self.json(x, depth + 1, indent + "  ")) for k, x in v.items()]
            return self.entries(items, indent)
        if isinstance(v, list):
            if depth >= DEPTH:
                return "{...}"
            return self.entries([(None, self.json(x, depth + 1, indent + "  ")) for x in v], indent)
        if v is None:
            return "json.null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return _quoted(v)
        if isinstance(v, float) and v.is_integer():
            return f"{v:.1f}"
        return str(v)

    @staticmethod
    def entries(items: list, indent: str) -> str:
        parts = [v if k is None else f"{k} = {v}" for k, v in items]
        one_line = "{" + ", ".join(parts) + "}"
        if len(indent) + len(one_line) <= WIDTH and "\n" not in one_line:
            return one_line
        inner = indent + "  "
        return "{\n" + "".join(f"{inner}{p},\n" for p in parts) + indent + "}"
