"""Engine failures as Lua error values (docs/reference/error-values.md), and the run
error kinds an uncaught error ends a run with.

An error value is userdata with a `kind` field, kind-specific fields and a
message that `tostring(err)` returns; `error(err)` re-raises the same value.
"""

from __future__ import annotations

from ..lua.api import LuaError, LuaTable, Userdata
from ..lua.api import caller_where
from ..lua.api import tostring_basic, type_name
from .strings import lua_bytes

#: error value kind -> run error kind (docs/reference/error-values.md, "Run error kinds")
RUN_ERROR_KIND = {
    "lua": "Lua",
    "missing_model": "Lua",
    "tool_loop_exhausted": "Tool",
    "out_of_scope_tool": "Tool",
    "empty_model_reply": "Completion",
    "internal": "Completion",
    "context_exhausted": "ContextExhausted",
    "cancelled": "Cancelled",
}

KINDS = tuple(RUN_ERROR_KIND)


def names_hint(name: str, names, label: str) -> str:
    """What exists, for a message about a name that does not: `declared:
    writer, reviewer; did you mean 'writer'?` (the guess when one is close)."""
    import difflib  # here: only a failing run pays for it

    names = list(names)
    hint = f"{label}: {', '.join(names) if names else 'none'}"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return hint + (f"; did you mean '{close[0]}'?" if close else "")


class ErrorValue(Userdata):
    """An Engine error value: `err.kind`, `err.message`, its fields.

    `facts` are for the Host's report only (figures, a provider's URL, a
    server's own text): Lua never sees them, so a message the spec fixes
    stays exactly as the spec writes it while the Host still says what to do."""

    __slots__ = ("kind", "message", "fields", "where", "facts")
    lua_type_name = "userdata"

    def __init__(self, kind: str, message: str, facts: dict | None = None, **fields):
        assert kind in RUN_ERROR_KIND, kind
        self.kind = kind
        self.message = message
        self.fields = {k: v for k, v in fields.items() if v is not None}
        self.facts = dict(facts) if facts else {}
        # the prompt line of the call that raised it ("section `A` prologue:14: ")
        self.where = caller_where()

    def lua_index(self, key):
        # fields hold Python values; Lua sees text as its UTF-8 bytes
        if key == "kind":
            v = self.kind
        elif key == "message":
            v = self.message
        else:
            v = self.fields.get(key) if type(key) is str else None
        if type(v) is str:
            return lua_bytes(v)
        return v

    def lua_newindex(self, key, value):
        raise_lua("error values are read-only")

    def lua_tostring(self) -> str:
        return lua_bytes(self.message)

    def __repr__(self):
        return f"<ErrorValue {self.kind}: {self.message}>"


def message_type(v) -> str:
    """A value's type name in Engine messages (docs/reference/conversations.md): `integer`
    for an integer, `number` for a float, otherwise Lua's `type()` name."""
    if type(v) is int:
        return "integer"
    if type(v) is float:
        return "number"
    return type_name(v)


def engine_error(kind: str, message: str, facts: dict | None = None, **fields) -> LuaError:
    """A LuaError carrying an Engine error value, ready to raise."""
    return LuaError(ErrorValue(kind, message, facts, **fields))


def add_facts(error: BaseException, kind: str, facts: dict) -> None:
    """Adds facts for the Host to an Engine error value of `kind` that is
    on its way out (kept where the raiser set them already)."""
    value = getattr(error, "value", None)
    if isinstance(value, ErrorValue) and value.kind == kind:
        for k, v in facts.items():
            if v is not None:
                value.facts.setdefault(k, v)


def raise_lua(message: str):
    """Raises a `lua`-kind error value: a refused Engine call."""
    raise engine_error("lua", message)


class RunError(Exception):
    """How a run ended when it did not end with a result."""

    def __init__(self, kind: str, message: str, **fields):
        super().__init__(f"error[{kind}]: {message}")
        self.kind = kind
        self.message = message
        self.fields = {k: v for k, v in fields.items() if v is not None}
        self.where = ""  # `section `A` prologue:14: ` when an error value knew its line
        self.facts: dict = {}  # for the Host's help lines, never in the message (ErrorValue.facts)

    def as_json(self) -> dict:
        return {"kind": self.kind, "message": self.message, **self.fields}


def run_error_from(value, text: str | None = None) -> RunError:
    """The run error for an error value that escaped a block: Engine error
    values keep their kind's run kind, message and fields; any other raised
    value (a string, a table) is a `Lua` run error. No Lua runs here: a
    table's `__tostring` ran in its VM while it was alive
    (SectionVM.report_error), which gives `text`, what it returned."""
    if isinstance(value, ErrorValue):
        kind = RUN_ERROR_KIND[value.kind]
        # a Lua run error's message holds the error text and the prompt line
        message = _text(value.where) + value.message if kind == "Lua" else value.message
        error = RunError(kind, message, **value.fields)
        error.where = _text(value.where)  # the prompt line that raised it, for the Host to point at
        error.facts = dict(value.facts)
        return error
    if type(value) is str:
        return RunError("Lua", _text(value))
    if type(value) is LuaTable:
        return RunError("Lua", _text(text) if text is not None else "(error object is a table value)")
    if value is None:
        return RunError("Lua", "nil")
    return RunError("Lua", _text(tostring_basic(value)))


def reported(error: LuaError) -> RunError:
    """The run error of a LuaError that ended an execution: the one its VM
    made (SectionVM.report_error), else one made without running Lua."""
    made = getattr(error, "run_error", None)
    return made if made is not None else run_error_from(error.value)


def _text(s: str) -> str:
    """A Lua string (bytes) as text."""
    return s.encode("latin-1", "replace").decode("utf-8", "surrogateescape")
