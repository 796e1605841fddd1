"""The Engine's JSON converter and the `json` global (docs/reference/json.md),
run through real Lua. `VM` is shared with test_var.py."""

from __future__ import annotations

import importlib.util
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runvil.engine.errors import ErrorValue
from runvil.engine.luajson import (
    JSON_NULL,
    MAX_DEPTH,
    NO_JSON_FORM,
    NotJSON,
    encode_compact,
    from_json,
    is_marked_list,
    json_size,
    mark_list,
    open_json,
    to_json,
)
from runvil.engine.var import VarStore, VarView
from runvil.lua import LuaError, LuaState, LuaTable, Userdata
from runvil.lua.stdlib import LIBRARIES

# the libraries present in this checkout (others are built in parallel)
LIBS = tuple(n for n in LIBRARIES if importlib.util.find_spec(f"runvil.lua.stdlib.{n}") is not None)


class VM:
    """A Lua state with `json` and `var` over a (possibly shared) store."""

    def __init__(self, store: VarStore | None = None, views=None):
        self.store = store if store is not None else VarStore()
        self.printed: list[str] = []
        self.state = LuaState(libs=LIBS, stdout=self.printed.append)
        open_json(self.state)
        self.state.set_global("var", VarView(self.store, views))

    def run(self, code: str, *args):
        r = self.state.execute(code, "=input", *args)
        return r[0] if len(r) == 1 else r

    @property
    def out(self) -> list[str]:
        return "".join(self.printed).splitlines()

    def error(self, code: str):
        """Runs code that must raise an Engine error value; returns its
        (kind, tostring) as Lua sees them, after checking type() and pcall."""
        return self.run(
            "local ok, e = pcall(function() " + code + "\nend)\n"
            "assert(not ok, 'no error')\n"
            "assert(type(e) == 'userdata', 'not an error value: ' .. tostring(e))\n"
            "assert(e.message == tostring(e))\n"
            "return e.kind, tostring(e)"
        )


class Thing(Userdata):
    """Some Engine userdata (a record view, say)."""

    __slots__ = ()


@pytest.fixture
def vm():
    return VM()


def lua_bytes(text: str) -> str:
    """Real Unicode as a Lua string (one char per byte)."""
    return text.encode("utf-8").decode("latin-1")


def enc(vm, expr: str) -> str:
    return vm.run(lua_bytes(f"return json.encode({expr})"))


# ------------------------------------------------------------------ encode


@pytest.mark.parametrize(
    "expr, text",
    [
        ("1", "1"),
        ("-7", "-7"),
        ("math.maxinteger", "9223372036854775807"),
        ("math.mininteger", "-9223372036854775808"),
        ("2.0", "2.0"),
        ("2^53", "9007199254740992.0"),
        ("0.1", "0.1"),
        ("-0.0", "-0.0"),
        ("1e20", "1e+20"),
        ("1e-7", "1e-07"),
        ("1/3", "0.3333333333333333"),
        ("true", "true"),
        ("false", "false"),
        ("json.null", "null"),
        ("'hi'", '"hi"'),
        ("'a\"b\\\\c\\n\\t\\0'", '"a\\"b\\\\c\\n\\t\\u0000"'),
        ("'\u00e9\u6f22\U0001f600'", '"\u00e9\u6f22\U0001f600"'),
        ("{}", "{}"),
        ("json.array()", "[]"),
        ("{1, 2, 3}", "[1,2,3]"),
        ("{'a', {'b', {}}}", '["a",["b",{}]]'),
        ("{b = 1, a = 2, c = {d = json.null}}", '{"b":1,"a":2,"c":{"d":null}}'),
        ("{[1] = 'x', [2] = 'y'}", '["x","y"]'),
        ("{[2] = 'y', [1] = 'x'}", '["x","y"]'),
        ("{[1.0] = 'x', [2.0] = 'y'}", '["x","y"]'),
        ("{['1'] = 'x'}", '{"1":"x"}'),
        ("json.array(json.array(), json.array(json.array()))", "[[],[[]]]"),
        ("json.array({}, json.array(1))", "[{},[1]]"),
        ("json.array(1, nil, 3)", "[1,null,3]"),
        ("json.array(nil)", "[null]"),
        ("{tags = json.array()}", '{"tags":[]}'),
        ("{1, 2.0, 2.5}", "[1,2.0,2.5]"),
    ],
)
def test_encode(vm, expr, text):
    assert enc(vm, expr) == lua_bytes(text)


def test_encode_object_keys_in_walk_order(vm):
    code = "local t = {} t.z = 1 t.a = 2 t.m = 3 t.a = nil t.a = 4 t.b = 5 "
    assert vm.run(code + "return json.encode(t)") == '{"z":1,"a":4,"m":3,"b":5}'
    assert vm.run(code + "local ks = {} for k in pairs(t) do ks[#ks + 1] = k end return table.concat(ks)") == "zamb"


def test_encode_ignores_cleared_fields(vm):
    assert vm.run("local t = {x = 1, 1} t.x = nil return json.encode(t)") == "[1]"
    assert vm.run("local t = {x = 1} t.x = nil return json.encode(t)") == "{}"
    assert vm.run("local t = json.array(1, 2) t[2] = nil return json.encode(t)") == "[1]"


def test_encode_shared_table_twice_is_not_a_cycle(vm):
    assert vm.run("local s = {1} return json.encode({a = s, b = {s, s}})") == '{"a":[1],"b":[[1],[1]]}'


def test_encode_bytes_that_are_not_utf8_come_back_unchanged(vm):
    assert vm.run("return json.encode('a\\xff\\xc3')") == '"a\xff\xc3"'
    assert vm.run("return json.decode(json.encode('a\\xff\\xc3')) == 'a\\xff\\xc3'") is True


def test_encode_ignores_metatables(vm):
    assert vm.run("return json.encode(setmetatable({}, {__index = {a = 1}}))") == "{}"


# ----------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "expr, message",
    [
        ("{a = {1, thing}}", "json.encode: value.a[2] must be JSON data, got userdata"),
        ("thing", "json.encode: value must be JSON data, got userdata"),
        ("var", "json.encode: value must be JSON data, got userdata"),
        ("{x = {y = print}}", "json.encode: value.x.y must be JSON data, got function"),
        ("{function() end}", "json.encode: value[1] must be JSON data, got function"),
        ("{co = coroutine.create(print)}", "json.encode: value.co must be JSON data, got thread"),
        ("nil", "json.encode: value must be JSON data, got nil"),
        ("", "json.encode: value must be JSON data, got no value"),
        # docs/reference/json.md: "got {type}" is the Lua type alone, no note such as "(nan)"
        ("{n = 0/0}", "json.encode: value.n must be JSON data, got number"),
        ("{n = -(0/0)}", "json.encode: value.n must be JSON data, got number"),
        ("{1, math.huge}", "json.encode: value[2] must be JSON data, got number"),
        ("-math.huge", "json.encode: value must be JSON data, got number"),
        ("{1, 2, x = 3}", "json.encode: value must be JSON data, got table"),
        ("{[1] = 1, [3] = 3}", "json.encode: value must be JSON data, got table"),
        ("{[0] = 1}", "json.encode: value must be JSON data, got table"),
        ("{1, nil, 3}", "json.encode: value must be JSON data, got table"),
        ("{a = {[true] = 1}}", "json.encode: value.a must be JSON data, got table"),
        ("{[1.5] = 1}", "json.encode: value must be JSON data, got table"),
        ("{[{}] = 1}", "json.encode: value must be JSON data, got table"),
        ("{k = setmetatable(json.array(), {}), l = (function() local t = json.array() t.x = 1 return t end)()}",
         "json.encode: value.l must be JSON data, got table"),
        ("{['my key'] = {['end'] = {print}}}",
         'json.encode: value["my key"]["end"][1] must be JSON data, got function'),
        ("{['a.b'] = {['q\"\\n'] = print}}", 'json.encode: value["a.b"]["q\\"\\n"] must be JSON data, got function'),
        ("{_ok9 = {[''] = print}}", 'json.encode: value._ok9[""] must be JSON data, got function'),
    ],
)
def test_encode_refusals(vm, expr, message):
    vm.state.set_global("thing", Thing())
    assert vm.error(f"return json.encode({expr})") == ("lua", message)


def test_encode_refuses_cycles(vm):
    assert vm.error("local t = {} t.self = t return json.encode(t)") == (
        "lua", "json.encode: value.self must be JSON data, got table")
    assert vm.error("local a = {} local b = {a} a[1] = b return json.encode({x = a})") == (
        "lua", "json.encode: value.x[1][1] must be JSON data, got table")


def test_encode_refusal_reaches_python_as_error_value(vm):
    with pytest.raises(LuaError) as info:
        vm.run("json.encode({a = {1, print}})")
    err = info.value.value
    assert isinstance(err, ErrorValue)
    assert (err.kind, err.message) == ("lua", "json.encode: value.a[2] must be JSON data, got function")


def nested(depth: int) -> str:
    return "local t = 1 for i = 1, " + str(depth) + " do t = {t} end "


def test_deep_nesting_up_to_the_limit(vm):
    text = vm.run(nested(MAX_DEPTH) + "return json.encode(t)")
    assert text == "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH
    assert vm.run(f"local t = json.decode(...) for i = 1, {MAX_DEPTH} do t = t[1] end return t", text) == 1


def test_deeper_nesting_is_refused(vm):
    path = "value" + "[1]" * MAX_DEPTH
    assert vm.error(nested(MAX_DEPTH + 1) + "return json.encode(t)") == (
        "lua", f"json.encode: {path} must be JSON data, got table")
    assert vm.error(nested(100000) + "return json.encode(t)")[0] == "lua"
    text = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert vm.error(f"return json.decode('{text}')") == (
        "lua", f"json.decode: nesting deeper than {MAX_DEPTH} levels")
    vm.state.set_global("deep", "[" * 200000 + "]" * 200000)
    assert vm.error("return json.decode(deep)") == ("lua", f"json.decode: nesting deeper than {MAX_DEPTH} levels")


# ------------------------------------------------------------------- decode


def test_decode_values(vm):
    assert vm.run("return json.decode('1'), json.decode('-2.5'), json.decode('\"x\"'), json.decode('true')") == (
        1, -2.5, "x", True)
    assert vm.run("return json.decode('null') == json.null, json.decode(' [] ') ~= nil") == (True, True)
    assert vm.run("local t = json.decode('{\"a\": {\"b\": [1, \"two\", null]}}') "
                  "return t.a.b[1], t.a.b[2], t.a.b[3] == json.null, #t.a.b") == (1, "two", True, 3)


@pytest.mark.parametrize(
    "text, mtype, shown",
    [
        ("1", "integer", "1"),
        ("-0", "integer", "0"),
        ("1.0", "float", "1.0"),
        ("-0.0", "float", "-0.0"),
        ("1e2", "float", "100.0"),
        ("1E+2", "float", "100.0"),
        ("9223372036854775807", "integer", "9223372036854775807"),
        ("-9223372036854775808", "integer", "-9223372036854775808"),
        ("9223372036854775808", "float", "9.2233720368548e+18"),
        ("-9223372036854775809", "float", "-9.2233720368548e+18"),
        ("1" * 400, "float", "inf"),
        ("1e400", "float", "inf"),
    ],
)
def test_decode_numbers(vm, text, mtype, shown):
    assert vm.run(f"local n = json.decode('{text}') return math.type(n), tostring(n)") == (mtype, shown)


@pytest.mark.parametrize(
    "text, expected",
    [
        ('"\\u00e9"', "\u00e9"),
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ('"\u6f22"', "\u6f22"),
        ('"\\ud800"', "\ufffd"),
        ('"a\\u0000b"', "a\x00b"),
    ],
)
def test_decode_strings_become_utf8_bytes(vm, text, expected):
    assert vm.run("return json.decode(...)", text.encode("utf-8").decode("latin-1")) == (
        expected.encode("utf-8").decode("latin-1"))


def test_decode_marks_lists(vm):
    assert vm.run("return json.encode(json.decode('{\"a\": [], \"b\": {}, \"c\": [[], {}]}'))") == (
        '{"a":[],"b":{},"c":[[],{}]}')
    assert vm.run("local t = json.decode('[]') t[1] = 'x' return json.encode(t)") == '["x"]'


def test_decode_duplicate_keys_last_wins(vm):
    assert vm.run("return json.decode('{\"a\": 1, \"a\": 2}').a") == 2


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "json.decode: expecting value at line 1 column 1"),
        ("[1,", "json.decode: expecting value at line 1 column 4"),
        ("[1 2]", "json.decode: expecting ',' delimiter at line 1 column 4"),
        ("{a: 1}", "json.decode: expecting property name enclosed in double quotes at line 1 column 2"),
        ("[1]\n x", "json.decode: extra data at line 2 column 2"),
        ('"abc', "json.decode: unterminated string starting at line 1 column 1"),
        ("NaN", "json.decode: `NaN` is not valid JSON"),
        ("[-Infinity]", "json.decode: `-Infinity` is not valid JSON"),
        ("{'a': 1}", "json.decode: expecting property name enclosed in double quotes at line 1 column 2"),
        # a trailing comma: the same words and place on Python 3.13 (which words it otherwise)
        ('{"a": 1, }', "json.decode: expecting property name enclosed in double quotes at line 1 column 10"),
        ("[1,\n]", "json.decode: expecting value at line 2 column 1"),
    ],
)
def test_decode_errors(vm, text, message):
    vm.state.set_global("text", text)
    assert vm.error("return json.decode(text)") == ("lua", message)


# docs/reference/conversations.md: Engine messages name an integer `integer`, a float `number`
@pytest.mark.parametrize(
    "arg, got", [("nil", "nil"), ("", "no value"), ("5", "integer"), ("5.5", "number"), ("{}", "table")])
def test_decode_wants_a_string(vm, arg, got):
    assert vm.error(f"return json.decode({arg})") == ("lua", f"json.decode: the argument must be a string, got {got}")


# --------------------------------------------------------- null and array


def test_null_is_one_userdata(vm):
    assert vm.run("return type(json.null), tostring(json.null), json.null == json.decode('null')") == (
        "userdata", "json.null", True)
    assert vm.run("return pcall(function() return json.null.x end)")[0] is False


def test_array_holds_its_arguments(vm):
    assert vm.run("local a = json.array('x', 'y') return #a, a[1], a[2], type(a)") == (2, "x", "y", "table")
    assert vm.run("return json.array() ~= json.array()") is True


def test_marks_are_per_table(vm):
    assert is_marked_list(vm.run("return json.array()"))
    assert not is_marked_list(vm.run("return {}"))
    assert not is_marked_list("x")


def test_round_trip_keeps_integers_floats_and_unicode(vm):
    src = '{"i":3,"f":3.0,"big":9223372036854775807,"s":"h\u00e9 \U0001f600","l":[1,[],{}],"n":null}'
    lua_src = src.encode("utf-8").decode("latin-1")
    assert vm.run("return json.encode(json.decode(...))", lua_src) == lua_src


# ------------------------------------------------------------ Python side


def lua_value(code: str):
    """A Lua value built by real Lua (on a Lua thread)."""
    return VM().run(code)


@pytest.mark.parametrize(
    "code, reason, path, lua_type",
    [
        ("return {1, print}", "unsupported value type `function`", "value[2]", "function"),
        ("return {a = var}", "unsupported value type `userdata`", "value.a", "userdata"),
        ("return {a = json.null, b = coroutine.create(print)}", "unsupported value type `thread`", "value.b", "thread"),
        ("return {0/0}", "unsupported number `nan`", "value[1]", "number"),
        ("return {x = math.huge}", "unsupported number `inf`", "value.x", "number"),
        ("return {x = -math.huge}", "unsupported number `-inf`", "value.x", "number"),
        ("local t = {} t[1] = t return t", "table cycle: a table contains itself", "value[1]", "table"),
        ("return {1, x = 1}", "table has both string keys and integer keys", "value", "table"),
        ("return {[3] = 1}", "table integer keys are not 1..n", "value", "table"),
        ("return {[false] = 1}", "unsupported table key type `boolean`", "value", "table"),
        ("local t = json.array() t.k = 1 return t", "a table marked as a list has string keys", "value", "table"),
    ],
)
def test_to_json_reasons(code, reason, path, lua_type):
    with pytest.raises(NotJSON) as info:
        to_json(lua_value(code))
    e = info.value
    assert (e.reason, e.path, e.lua_type) == (reason, path, lua_type)


def test_to_json_record_message_form():
    with pytest.raises(NotJSON) as info:
        to_json(lua_value("return {type = 'text', text = print}"), "messages[2] content")
    e = info.value
    assert f"messages[2] content must be JSON-representable: {e.reason}" == (
        "messages[2] content must be JSON-representable: unsupported value type `function`")
    assert e.path == "messages[2] content.text"


def test_to_json_values():
    t = lua_value("return {s = 'h\\xc3\\xa9', i = 1, f = 1.0, l = json.array(), o = {}, n = json.null, b = false}")
    j = to_json(t)
    assert j == {"s": "h\u00e9", "i": 1, "f": 1.0, "l": [], "o": {}, "n": None, "b": False}
    assert type(j["i"]) is int and type(j["f"]) is float
    assert to_json("\xff") == "\udcff"
    assert to_json(True) is True and to_json(5) == 5


def test_to_json_builds_fresh_containers():
    t = lua_value("return {a = {1}}")
    assert to_json(t) is not to_json(t)
    assert to_json(t)["a"] is not to_json(t)["a"]


def test_views_hook_gives_userdata_a_json_form():
    view = Thing()
    seen = []

    def views(ud):
        seen.append(ud)
        return {"role": "user", "content": "u"} if ud is view else NO_JSON_FORM

    t = LuaTable([view, JSON_NULL])
    assert to_json(t, views=views) == [{"role": "user", "content": "u"}, None]
    assert seen == [view]
    with pytest.raises(NotJSON) as info:
        to_json(LuaTable([view, Thing()]), views=views)
    assert (info.value.path, info.value.reason) == ("value[2]", "unsupported value type `userdata`")
    with pytest.raises(NotJSON):
        to_json(view)


def test_from_json():
    t = from_json({"a": [1, None, "\u00e9"], "b": {}, "c": 2.0})
    assert type(t) is LuaTable and not is_marked_list(t)
    a = t.get("a")
    assert is_marked_list(a) and a.arr == [1, JSON_NULL, "\xc3\xa9"]
    assert type(t.get("b")) is LuaTable and not is_marked_list(t.get("b"))
    assert type(t.get("c")) is float
    assert from_json(None) is JSON_NULL
    assert from_json({"\u00e9": 1}).get("\xc3\xa9") == 1
    from runvil.lua.runtime.contexts import run_lua

    deep = json.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(ValueError):  # the Engine converts on the Lua thread, as here
        run_lua(lambda: from_json(deep))


def test_mark_list():
    t = mark_list(LuaTable())
    assert is_marked_list(t) and to_json(t) == []


def test_encode_compact_and_size():
    value = {"a": [1, 2.0, 1e20, None, True], "b": "\u00e9"}
    assert encode_compact(value) == '{"a":[1,2.0,1e+20,null,true],"b":"\u00e9"}'
    assert json_size("x" * 9000) == 9002
    assert json_size("\u00e9") == 4
    assert json_size({"k": "\udcff"}) == len('{"k":"\xff"}')
    with pytest.raises(ValueError):
        encode_compact(float("nan"))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_round_trip_property(value):
    text = encode_compact(value)
    assert encode_compact(to_json(from_json(value))) == text
    assert json_size(value) == len(text.encode("utf-8"))


def test_round_trip_through_lua_text():
    vm = VM()
    for value in ([], {}, [[], {}], {"a": [1.5, -0.0, 2**63 - 1, -(2**63)], "\u00e9": "\U0001f600"}, 0.1, "x"):
        text = encode_compact(value).encode("utf-8").decode("latin-1")
        assert vm.run("return json.encode(json.decode(...))", text) == text


def test_open_json_in_a_fresh_state():
    st_ = LuaState(libs=LIBS, stdout=lambda s: None)
    open_json(st_)
    code = "local n = 0 for k in pairs(json) do n = n + 1 end return n, type(json.encode)"
    assert st_.execute(code) == (4, "function")
