"""`var`, the run's shared state (docs/reference/var.md),
run through real Lua."""

from __future__ import annotations

import pytest

from runvil.engine.luajson import NO_JSON_FORM, is_marked_list
from runvil.engine.var import VarStore, VarView

from .test_json import VM, Thing, lua_bytes


@pytest.fixture
def vm():
    return VM()


# -------------------------------------------------------------- the spec


def test_sections_share_var_through_the_store():
    # fresh-lists: ## First writes var.first, ## Second reads it in a new VM
    store = VarStore()
    VM(store).run("var.first = 1")
    assert VM(store).run("return var.first .. '|' .. 0 .. '|' .. type(var)") == "1|0|userdata"


def test_read_records_example():
    vm = VM()
    assert vm.run("local copies = {{role = 'system', content = 's'}, {role = 'user', content = 'u'}}\n"
                  "var.last = copies[#copies].content\n"
                  "return #copies .. '|' .. var.last") == "2|u"
    assert vm.store.get("last") == "u"


def test_a_view_is_refused_straight_and_inside():
    vm = VM()
    vm.state.set_global("view", Thing())
    assert vm.error("var.v = view") == ("lua", "var.v must be JSON data, got userdata")
    assert vm.error("var.v = {view}") == ("lua", "var.v[1] must be JSON data, got userdata")
    assert vm.error("var.v = var") == ("lua", "var.v must be JSON data, got userdata")
    assert "v" not in vm.store


# ------------------------------------------------------------- writing


def test_write_stores_the_json_form(vm):
    vm.run("var.s = 'x' var.i = 3 var.f = 3.0 var.b = false var.n = json.null "
           "var.l = {1, {a = 2}} var.e = {} var.m = json.array()")
    assert vm.store.snapshot() == {
        "b": False, "e": {}, "f": 3.0, "i": 3, "l": [1, {"a": 2}], "m": [], "n": None, "s": "x"}
    assert type(vm.store.get("f")) is float and type(vm.store.get("i")) is int


def test_write_is_a_deep_copy(vm):
    assert vm.run("local t = {a = {1}} var.t = t t.a[1] = 2 t.b = 3 return var.t.a[1], var.t.b") == (1, None)


def test_write_nil_deletes(vm):
    vm.run("var.x = 1 var.y = 2 var.x = nil var.never = nil")
    assert vm.store.snapshot() == {"y": 2}
    assert vm.run("return var.x") is None


@pytest.mark.parametrize(
    "code, message",
    [
        ("var.f = print", "var.f must be JSON data, got function"),
        ("var.cfg = {items = {1, print}}", "var.cfg.items[2] must be JSON data, got function"),
        ("var['my key'] = {print}", 'var["my key"][1] must be JSON data, got function'),
        ("var['end'] = print", 'var["end"] must be JSON data, got function'),
        ("var.co = {x = coroutine.create(print)}", "var.co.x must be JSON data, got thread"),
        ("var.n = 0/0", "var.n must be JSON data, got number"),
        ("var.n = {math.huge}", "var.n[1] must be JSON data, got number"),
        ("local t = {} t.t = t var.c = t", "var.c.t must be JSON data, got table"),
        ("var.m = {1, x = 2}", "var.m must be JSON data, got table"),
        ("var.h = {[2] = 1}", "var.h must be JSON data, got table"),
    ],
)
def test_refused_values(vm, code, message):
    assert vm.error(code) == ("lua", message)


def test_refused_write_leaves_the_old_value(vm):
    vm.run("var.cfg = {items = {1}}")
    assert vm.error("var.cfg = {items = {1, print}}")[0] == "lua"
    assert vm.store.snapshot() == {"cfg": {"items": [1]}}


@pytest.mark.parametrize(
    "code, got",
    # docs/reference/conversations.md: Engine messages name an integer `integer`, a float `number`
    [("var[1] = 2", "integer"), ("return var[1]", "integer"), ("var[true] = 1", "boolean"),
     ("return var[2.5]", "number"), ("var[{}] = 1", "table")],
)
def test_names_must_be_strings(vm, code, got):
    assert vm.error(code) == ("lua", f"var names must be strings, got {got}")


def test_length_is_refused(vm):
    assert vm.error("return #var") == ("lua", "var has no length; walk its names with pairs(var)")


# ------------------------------------------------------------- reading


def test_read_builds_a_fresh_value_each_time(vm):
    assert vm.run("var.t = {a = 0, l = {1}}\n"
                  "var.t.a = 1\n"                      # changes a copy, not var
                  "local t = var.t\n"
                  "t.l[1] = 5\n"
                  "return var.t.a, var.t.l[1], var.t == var.t, rawequal(var.t.l, var.t.l)") == (0, 1, False, False)
    assert vm.store.get("t") == {"a": 0, "l": [1]}
    assert vm.run("local t = var.t t.a = 1 var.t = t return var.t.a") == 1


def test_read_missing_is_nil(vm):
    assert vm.run("return var.nothing, var['']") == (None, None)


def test_read_keeps_types(vm):
    assert vm.run("var.i = 2 var.f = 2.0 var.big = math.maxinteger var.neg = -0.0 "
                  "return math.type(var.i), math.type(var.f), var.big, tostring(var.neg)") == (
        "integer", "float", 2**63 - 1, "-0.0")


def test_read_null_and_lists(vm):
    assert vm.run("var.n = json.null var.l = json.array() var.o = {} var.nest = {json.array(json.array())} "
                  "return var.n == json.null, json.encode(var.l), json.encode(var.o), json.encode(var.nest)") == (
        True, "[]", "{}", "[[[]]]")
    assert is_marked_list(vm.run("return var.l")) and not is_marked_list(vm.run("return var.o"))


def test_unicode_names_and_values_round_trip(vm):
    code = lua_bytes("var['caf\u00e9'] = {t = '\u6f22\U0001f600'} return var['caf\u00e9'].t, #var['caf\u00e9'].t")
    assert vm.run(code) == (lua_bytes("\u6f22\U0001f600"), 7)
    assert vm.store.snapshot() == {"caf\u00e9": {"t": "\u6f22\U0001f600"}}


def test_bytes_that_are_not_utf8_round_trip(vm):
    assert vm.run("var.b = 'a\\xff' return var.b == 'a\\xff'") is True


def test_deep_values(vm):
    vm.run("local t = 'leaf' for i = 1, 400 do t = {t} end var.deep = t")
    assert vm.run("local t = var.deep for i = 1, 400 do t = t[1] end return t") == "leaf"


# ----------------------------------------------------------------- pairs


def test_pairs_walks_sorted_names(vm):
    vm.run("var.b = 2 var.a = 'x' var.C = {1} var['_'] = true")
    assert vm.run("local out = {} for k, v in pairs(var) do out[#out + 1] = k .. '=' .. json.encode(v) end "
                  "return table.concat(out, ' ')") == 'C=[1] _=true a="x" b=2'


def test_pairs_sorts_by_bytes(vm):
    vm.run(lua_bytes("var['\u00e9'] = 1 var.z = 2 var['\U0001f600'] = 3 var.A = 4"))
    assert vm.run("local out = {} for k in pairs(var) do out[#out + 1] = k end return table.concat(out, ',')") == (
        lua_bytes("A,z,\u00e9,\U0001f600"))


def test_pairs_fixes_names_when_the_walk_starts(vm):
    vm.run("var.a = 1 var.b = 2 var.c = 3")
    assert vm.run("local out = {}\n"
                  "for k, v in pairs(var) do\n"
                  "  out[#out + 1] = k .. v\n"
                  "  if k == 'a' then var.b = nil var.c = 30 var.aa = 9 end\n"
                  "end\n"
                  "return table.concat(out, ' ')") == "a1 c30"


def test_pairs_values_are_fresh(vm):
    vm.run("var.t = {x = 1}")
    assert vm.run("for k, v in pairs(var) do v.x = 2 end return var.t.x") == 1


def test_pairs_on_empty_var_and_manual_next(vm):
    assert vm.run("local n = 0 for _ in pairs(var) do n = n + 1 end return n") == 0
    vm.run("var.k = 'v'")
    assert vm.run("local f, s, c = pairs(var) local k, v = f(s, c) return k, v, f(s, k)") == ("k", "v", None)


# ------------------------------------------------------------ Python side


def test_store_api():
    store = VarStore({"b": [1], "a": None})
    value = {"x": [1, 2]}
    store.set("c", value)
    value["x"].append(3)
    assert store.get("c") == {"x": [1, 2]}
    assert store.get("a") is None and "a" in store and store.get("zz", 0) == 0
    snap = store.snapshot()
    assert list(snap) == ["a", "b", "c"]
    snap["b"].append(2)
    assert store.get("b") == [1]
    store.delete("b")
    store.delete("never")
    assert store.names() == ["a", "c"] and len(store) == 2


def test_python_writes_are_seen_by_lua():
    store = VarStore()
    store.set("cfg", {"items": [1, "\u00e9"], "none": None})
    vm = VM(store)
    assert vm.run("return var.cfg.items[2], #var.cfg.items, var.cfg.none == json.null") == ("\xc3\xa9", 2, True)


def test_views_hook_lets_the_engine_accept_views():
    view = Thing()
    store = VarStore()
    form = {"role": "user", "content": "u"}
    vm = VM(store, views=lambda ud: form if ud is view else NO_JSON_FORM)
    vm.state.set_global("view", view)
    vm.run("var.r = {view, json.null}")
    form["content"] = "changed"
    assert store.get("r") == [{"role": "user", "content": "u"}, None]
    assert vm.error("var.r = {view, var}") == ("lua", "var.r[2] must be JSON data, got userdata")


def test_var_view_is_userdata():
    vm = VM()
    assert isinstance(vm.state.get_global("var"), VarView)
    assert vm.run("return type(var), getmetatable(var)") == ("userdata", None)
    assert vm.store.get("x") is None
