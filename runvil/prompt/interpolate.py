"""Filling `{{name}}` references in prose with Lua globals (docs/reference/prompt-file.md,
"Inserting Lua globals by bare name").

A reference is `{{`, a Lua identifier, any number of `.field` parts (each
an identifier or a run of digits), then `}}`: `{{topic}}`, `{{var.draft}}`,
`{{var.items.1}}`. The Engine supplies `lookup(path)`, called with the parts
as strings (`["var", "draft"]`; digit parts stay strings, the Engine may
read them as list positions), which returns a Python value:

- a `str` goes in as it is (the Engine hands over decoded text);
- other JSON data (dict, list, tuple, int, float, bool) goes in as compact
  JSON: `json.dumps(separators=(",", ":"), ensure_ascii=False)`, so floats
  keep a fraction (`2.0`) and non-ASCII text stays as written;
- None fails with ``global `{name}` is nil``; `NULL` (the JSON null,
  `json.null` in Lua) is JSON data and goes in as `null`;
- `USERDATA` (or `NotJSON("function")`, ...) fails with
  ``global `{name}` is a userdata; bare globals in prose must be JSON data``.

`{name}` is the whole reference as written, without the braces. A `lookup`
may also raise `InterpolationError` itself; it propagates unchanged.

Decisions (the spec is silent):

- Spaces and tabs just inside the braces are allowed and ignored:
  `{{ var.draft }}` is `{{var.draft}}`, and its name is `var.draft`.
- Text that is not a reference stays verbatim: `{{1abc}}`, `{{}}`,
  `{{a b}}`, `{{a..b}}`, an unclosed `{{name`, a lone `}}`.
- `\\{{` writes a literal `{{` (the backslash is consumed); only that
  sequence is an escape, so other backslashes stay as written.
  `{{{x}}}` is `{` + the value of `x` + `}`.
- NaN and infinities have no JSON form and fail with
  ``global `{name}` is not JSON data: nan has no JSON form``.
- Every prose text is filled whole, fenced examples included.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable

from ..structs import Struct

NIL = "global `{name}` is nil"
NOT_JSON = "global `{name}` is a {type}; bare globals in prose must be JSON data"
NO_JSON_FORM = "global `{name}` is not JSON data: {value} has no JSON form"

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
REFERENCE = re.compile(r"\\\{\{|\{\{[ \t]*(" + _IDENT + r"(?:\.(?:" + _IDENT + r"|[0-9]+))*)[ \t]*\}\}")


class InterpolationError(Exception):
    """A reference that cannot be filled; `message` is the spec's text."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotJSON(Struct, frozen=True):
    """What `lookup` returns for a value that is not JSON data; `type` is
    its Lua type name (`userdata`, `function`, `thread`)."""

    type: str


#: What `lookup` returns for a userdata.
USERDATA = NotJSON("userdata")


class _Null:
    """What `lookup` returns for the JSON null (`json.null`, a var field
    holding null): JSON data, inserted as `null`, unlike a nil value."""

    __slots__ = ()

    def __repr__(self):
        return "NULL"


NULL = _Null()

Lookup = Callable[[list[str]], object]


def references(text: str) -> list[str]:
    """The references in `text`, as written (without braces or spaces), in
    order; escaped `\\{{` is not one."""
    return [m.group(1) for m in REFERENCE.finditer(text) if m.group(1) is not None]


def render_value(name: str, value: object) -> str:
    """The text a looked-up value inserts, or InterpolationError."""
    if isinstance(value, str):
        return value
    if value is NULL:
        return "null"
    if value is None:
        raise InterpolationError(NIL.format(name=name))
    if isinstance(value, NotJSON):
        raise InterpolationError(NOT_JSON.format(name=name, type=value.type))

    def refuse(inner: object) -> object:
        if isinstance(inner, NotJSON):
            raise InterpolationError(NOT_JSON.format(name=name, type=inner.type))
        raise TypeError(f"lookup of {name!r} returned {type(inner).__name__}, which is not JSON data")

    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=refuse)
    except ValueError:
        raise InterpolationError(NO_JSON_FORM.format(name=name, value=_first_non_finite(value))) from None


def _first_non_finite(value: object) -> str:
    if isinstance(value, float):
        if math.isfinite(value):
            return ""
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    for item in items:
        if isinstance(item, (float, dict, list, tuple)):
            found = _first_non_finite(item)
            if found:
                return found
    return ""


def fill(text: str, lookup: Lookup) -> str:
    """`text` with every reference replaced by its value, left to right;
    raises InterpolationError at the first one that cannot be filled."""
    if "{{" not in text:
        return text

    def replace(m: re.Match) -> str:
        name = m.group(1)
        if name is None:
            return "{{"
        return render_value(name, lookup(name.split(".")))

    return REFERENCE.sub(replace, text)
