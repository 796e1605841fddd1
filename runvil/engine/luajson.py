"""The one Lua <-> JSON converter of the Engine (docs/reference/json.md), used by
records, `var`, `json.encode`/`json.decode` and tool arguments, and the
`json` global that exposes it to Lua.

A JSON value on the Python side is what `json.loads` gives: dict (string
keys, insertion order), list, str (real Unicode), int, float, bool, None.

Lua to JSON (`to_json`):
- strings become Unicode (UTF-8; bytes that are not UTF-8 travel as lone
  surrogates U+DC80..U+DCFF, Python's surrogateescape, so `json.encode`
  gives the same bytes back);
- integers stay ints, floats stay floats (`2.0`); NaN and ±inf are refused;
- `json.null` is null; `nil` itself has no JSON form;
- a table is a list when marked by `json.array`/`json.decode`, or when its
  keys are exactly 1..n (n ≥ 1); an object when all keys are strings (an
  unmarked empty table is `{}`; a marked one `[]`); object keys keep the
  order in which `pairs` walks the table (first insertion); anything else
  is refused, as are cycles and nesting deeper than `MAX_DEPTH` levels;
- other userdata are refused unless a `views` hook gives their JSON form;
  by default a record view nested in a table gives its record's JSON form.

Refusals raise `NotJSON` with the path of the offending value, written the
way Lua would read it: `value.a[2]`, `value["my key"]` (a key that is not a
Lua name, or is a keyword, is quoted; list items are 1-based).

JSON to Lua (`from_json`): lists become marked tables, objects plain tables,
null `json.null`. `json.decode` reads an integer that fits in 64 bits as a
Lua integer, any other number as a float (`1e400` reads as inf), and
refuses NaN, Infinity and invalid text (`json.decode: expecting value at
line 1 column 4`). Compact text (`encode_compact`) writes floats with
Python's shortest round-trip repr: `2.0`, `0.1`, `1e+20`.
"""

from __future__ import annotations

import json
import re
import weakref

from ..lua.api import LuaTable, Userdata
from ..lua.api import builtin
from ..lua.api import lib_table
from ..lua.api import INLINE_CONCAT, MAXI, MINI, check_string_size, reserve_long, reserve_slots, type_name
from ..lua.api import charge_steps

#: items converted between two charges of the running state's steps (so a
#: list of millions is stopped by the CPU limit as it is converted)
ITEMS_PER_CHARGE = 16384
from .errors import message_type, raise_lua
from .strings import LUA_BYTES, lua_bytes

#: the longest string converted without reserving its size first (a longer
#: one is counted against the memory limit before the JSON text or a copy
#: of it is built: reserve_long)
LONG_STRING = INLINE_CONCAT

#: deepest nesting of lists and objects converted either way; Python's own
#: `json` fails near 1000 levels on a thread with the default recursion limit
MAX_DEPTH = 500

# ------------------------------------------------------------------ json.null


class JsonNull(Userdata):
    """`json.null`: the JSON null, a userdata that encodes as null."""

    __slots__ = ()

    def lua_tostring(self) -> str:
        return "json.null"

    def __repr__(self):
        return "JSON_NULL"


JSON_NULL = JsonNull()

# ------------------------------------------------------------- marked lists

_MARKED: weakref.WeakSet = weakref.WeakSet()


def mark_list(t: LuaTable) -> LuaTable:
    """Marks t as a list (so an empty one encodes as `[]`); returns t."""
    _MARKED.add(t)
    return t


def is_marked_list(t) -> bool:
    return type(t) is LuaTable and t in _MARKED


# ------------------------------------------------------------ byte strings


def to_unicode(s: str) -> str:
    """A Lua string (one char per byte) as real Unicode."""
    if s.isascii():
        return s
    return s.encode("latin-1").decode("utf-8", "surrogateescape")


def to_lua_string(t: str) -> str:
    """Real Unicode as a Lua string (one char per byte)."""
    if t.isascii():
        return t
    return lua_bytes(t)


# ------------------------------------------------------------------ refusals


class NotJSON(Exception):
    """A Lua value with no JSON form.

    `path`: where the offending value sits (`value.a[2]`), a Lua string;
    `lua_type`: its Lua type() name; `reason`: the converter's explanation
    (`unsupported value type \\`function\\``), for record messages;
    `must_be_json` names the Lua type alone, as docs/reference/json.md
    write it (`got number` for NaN, `got table` for mixed keys or a cycle)."""

    def __init__(self, path: str, lua_type: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.lua_type = lua_type
        self.reason = reason

    def must_be_json(self, prefix: str = "") -> str:
        """`{prefix}{path} must be JSON data, got {type}` (json.encode, var)."""
        return f"{prefix}{self.path} must be JSON data, got {self.lua_type}"


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset(
    "and break do else elseif end false for function goto if in local nil not or repeat return then true "
    "until while".split()
)
_QUOTE = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}


def path_key(key) -> str:
    """One step of a path: `.name`, `["other key"]` or `[3]`."""
    if type(key) is int:
        return f"[{key}]"
    if _NAME.match(key) and key not in _KEYWORDS:
        return "." + key
    body = "".join(_QUOTE.get(c) or (f"\\{ord(c)}" if ord(c) < 32 or ord(c) == 127 else c) for c in key)
    return f'["{body}"]'


def format_path(root: str, steps) -> str:
    return root + "".join(path_key(k) for k in steps)


#: for a `views` hook: "this userdata has no JSON form" (refused as userdata)
NO_JSON_FORM = object()

# --------------------------------------------------------------- Lua -> JSON


class _Refusal(Exception):
    """Raised inside the converter; each table on the way out adds its step,
    so paths cost nothing until a value is refused."""

    def __init__(self, lua_type: str, reason: str):
        self.lua_type, self.reason = lua_type, reason
        self.steps: list = []  # innermost first


def record_views(ud):
    """The default `views` hook: a record view (`messages[i]`) inside a table
    converts to the JSON form of its record, meta included
    (docs/reference/conversations.md "Using a view as a record"); other userdata have none.
    A userdata class with a JSON form says so with a `json_form` method, so
    this module needs no knowledge of the conversation's classes."""
    form = getattr(type(ud), "json_form", None)
    return NO_JSON_FORM if form is None else form(ud)


_NESTED_VIEWS = object()


def to_json(value, path: str = "value", views=_NESTED_VIEWS):
    """The JSON form of a Lua value, as a fresh Python JSON value.

    `views`, when given, is called with each userdata other than json.null
    and returns its JSON form (used as is, so it must not be mutated later)
    or `NO_JSON_FORM`; `None` refuses every userdata but json.null (the
    guards of `json.encode` and `var`). By default a record view inside a
    table converts to its record's JSON form (`record_views`), while a bare
    view, the value itself, is refused like any userdata (the prose guard:
    ``global `v` is a userdata``). Raises NotJSON."""
    if views is _NESTED_VIEWS:
        views = None if isinstance(value, Userdata) else record_views
    try:
        return _conv(value, views, set(), 0)
    except _Refusal as r:
        raise NotJSON(format_path(path, reversed(r.steps)), r.lua_type, r.reason) from None


def _conv(v, views, active: set, depth: int):
    t = type(v)
    if t is str:
        reserve_long(len(v))
        return v if v.isascii() else to_unicode(v)
    if t is bool or t is int:
        return v
    if t is float:
        if v - v != 0.0:  # NaN or an infinity
            word = "nan" if v != v else ("inf" if v > 0 else "-inf")
            raise _Refusal("number", f"unsupported number `{word}`")
        return v
    if t is LuaTable:
        return _table(v, views, active, depth)
    if v is JSON_NULL:
        return None
    if views is not None and isinstance(v, Userdata):
        j = views(v)
        if j is not NO_JSON_FORM:
            return j
    name = type_name(v)
    raise _Refusal(name, f"unsupported value type `{name}`")


def _table(tb: LuaTable, views, active: set, depth: int):
    if depth >= MAX_DEPTH:
        text = f"nesting deeper than {MAX_DEPTH} levels"
        raise _Refusal("table", text)
    tid = id(tb)
    if tid in active:
        raise _Refusal("table", "table cycle: a table contains itself")
    active.add(tid)
    depth += 1
    arr, h = tb.arr, tb.hash
    live = False
    for x in h.values():
        if x is not None:
            live = True
            break
    if not live:
        if None in arr:
            raise _Refusal("table", "table integer keys are not 1..n")
        out = _items(arr, views, active, depth) if arr or tb in _MARKED else {}
    elif not arr and all(type(k) is str for k in h):
        if tb in _MARKED:
            raise _Refusal("table", "a table marked as a list has string keys")
        reserve_slots(len(h) * 3)  # a dict's entry: its hash, key and value
        out = {}
        for k, x in h.items():
            if x is None:
                continue
            t = type(x)
            try:
                out[k if k.isascii() else to_unicode(k)] = (
                    x if (t is str and len(x) <= LONG_STRING and x.isascii()) or t is int or t is bool
                    else _conv(x, views, active, depth))
            except _Refusal as r:
                r.steps.append(k)
                raise
    else:
        keys = tb.keys_snapshot()
        nstr = 0
        for k in keys:
            tk = type(k)
            if tk is str:
                nstr += 1
            elif tk is not int:
                kt = type_name(k)
                raise _Refusal("table", f"unsupported table key type `{kt}`")
        if nstr and nstr == len(keys):
            # only string keys are live: the other keys of the hash part were
            # set to nil (a key set to nil is gone, as in Lua), so an object
            if tb in _MARKED:
                raise _Refusal("table", "a table marked as a list has string keys")
            out = {}
            for k in keys:
                x = tb.hash[k]
                try:
                    out[k if k.isascii() else to_unicode(k)] = _conv(x, views, active, depth)
                except _Refusal as r:
                    r.steps.append(k)
                    raise
            active.discard(tid)
            return out
        if nstr:
            raise _Refusal("table", "table has both string keys and integer keys")
        n = len(keys)
        if not all(1 <= k <= n for k in keys):
            raise _Refusal("table", "table integer keys are not 1..n")
        out = _items([tb.get_int(i) for i in range(1, n + 1)], views, active, depth)
    active.discard(tid)
    return out


def _items(items, views, active: set, depth: int) -> list:
    reserve_slots(len(items))
    out = []
    i = 0
    try:
        for x in items:
            i += 1
            if not i % ITEMS_PER_CHARGE:
                charge_steps(ITEMS_PER_CHARGE * 4)
            t = type(x)
            out.append(x if (t is str and len(x) <= LONG_STRING and x.isascii()) or t is int or t is bool
                       else _conv(x, views, active, depth))
    except _Refusal as r:
        r.steps.append(i)
        raise
    return out


# --------------------------------------------------------------- JSON -> Lua


def from_json(value, _depth: int = 0):
    """A fresh Lua value from a Python JSON value: lists become marked
    tables, null `json.null`, objects tables, strings Lua strings.
    Raises ValueError when nested deeper than MAX_DEPTH."""
    t = type(value)
    if t is str:
        if value.isascii():
            return value  # the same string: nothing is built
        reserve_long(len(value))
        return to_lua_string(value)
    if t is bool or t is int or t is float:
        return value
    if value is None:
        return JSON_NULL
    if _depth >= MAX_DEPTH:
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
    d = _depth + 1
    if t is list:
        reserve_slots(len(value))
        if len(value) <= ITEMS_PER_CHARGE:
            return mark_list(LuaTable([from_json(x, d) for x in value]))
        out = []
        for k in range(0, len(value), ITEMS_PER_CHARGE):  # a long list: the limits checked as it goes
            charge_steps(ITEMS_PER_CHARGE * 4)
            out += [from_json(x, d) for x in value[k:k + ITEMS_PER_CHARGE]]
        return mark_list(LuaTable(out))
    if t is dict:
        reserve_slots(len(value) * 3)
        return LuaTable(None, {(k if k.isascii() else to_lua_string(k)): from_json(v, d) for k, v in value.items()})
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def copy_json(value):
    """A deep copy of a Python JSON value."""
    t = type(value)
    if t is list:
        return [copy_json(x) for x in value]
    if t is dict:
        return {k: copy_json(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------ text form


def encode_compact(value) -> str:
    """Compact JSON text (Unicode) of a Python JSON value: no spaces, non-
    ASCII as is, floats by Python's shortest round-trip repr, so they keep a
    fraction or an exponent (`2.0`, `0.1`, `1e+20`, `1e-07`) and read back as
    floats. Raises ValueError for NaN or infinities."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_size(value) -> int:
    """Bytes of the compact JSON form, as UTF-8 (Lua bytes for non-UTF-8)."""
    text = encode_compact(value)
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", LUA_BYTES))


class _BadConstant(Exception):
    pass


def _parse_int(s: str):
    if len(s) <= 20:
        i = int(s)
        if MINI <= i <= MAXI:
            return i
    return float(s)


def _parse_constant(s: str):
    raise _BadConstant(s)


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_constant=_parse_constant)


# Python 3.13's decoder names a trailing comma, at the comma; 3.11 and 3.12
# say what is missing after it, at the next character. Every Python gives
# the older words, at the older place.
_TRAILING_COMMA = {"Illegal trailing comma before end of object": "Expecting property name enclosed in double quotes",
                   "Illegal trailing comma before end of array": "Expecting value"}


def decode_error(e: json.JSONDecodeError) -> json.JSONDecodeError:
    """The decoder's error as Python 3.11 words and places it."""
    older = _TRAILING_COMMA.get(e.msg)
    if older is None:
        return e
    after = e.doc[e.pos + 1:]
    return json.JSONDecodeError(older, e.doc, len(e.doc) - len(after.lstrip(" \t\n\r")))


def decode_text(text: str):
    """Parses JSON text (Unicode) strictly. Raises ValueError with a message
    for `json.decode: {message}`."""
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as raised:
        e = decode_error(raised)
        msg = e.msg[:1].lower() + e.msg[1:]
        if not msg.endswith(" at"):  # "Unterminated string starting at"
            msg += " at"
        raise ValueError(f"{msg} line {e.lineno} column {e.colno}") from None
    except _BadConstant as e:
        raise ValueError(f"`{e.args[0]}` is not valid JSON") from None
    except RecursionError:
        raise ValueError(f"nesting deeper than {MAX_DEPTH} levels") from None


# ------------------------------------------------------------- the json global


@builtin
def json_encode(*args):
    """json.encode(v): compact JSON text of v."""
    if not args:
        raise_lua("json.encode: value must be JSON data, got no value")
    try:
        j = to_json(args[0], views=None)  # a record view is refused at any depth
    except NotJSON as e:
        raise_lua(e.must_be_json("json.encode: "))
    text = to_lua_string(encode_compact(j))
    check_string_size(len(text))
    return text


@builtin
def json_decode(*args):
    """json.decode(s): the Lua value of JSON text s."""
    s = args[0] if args else None
    if type(s) is not str:
        raise_lua(f"json.decode: the argument must be a string, got {message_type(s) if args else 'no value'}")
    reserve_slots(len(s) >> 1)  # what decoding may build: a value's slot (or a string's bytes) per two bytes of text
    try:
        return from_json(decode_text(to_unicode(s)))
    except ValueError as e:
        raise_lua(f"json.decode: {e}")


@builtin
def json_array(*args):
    """json.array(...): a new marked list holding the arguments; a nil
    argument is stored as json.null, so the list keeps every position."""
    return mark_list(LuaTable([JSON_NULL if a is None else a for a in args]))


def open_json(state) -> None:
    """Installs the `json` global table in a LuaState."""
    lib = lib_table({"encode": json_encode, "decode": json_decode, "array": json_array}, "json.")
    lib.set_str("null", JSON_NULL)
    state.set_global("json", lib)


__all__ = [
    "JSON_NULL", "MAX_DEPTH", "NO_JSON_FORM", "NotJSON", "copy_json", "decode_text", "encode_compact",
    "format_path", "from_json", "is_marked_list", "json_size", "mark_list", "open_json", "path_key", "record_views",
    "to_json", "to_lua_string", "to_unicode",
]
