"""Spec §3 "Inserting Lua globals by bare name": "In prose, {{name}} or
{{name.field.sub}} inserts a global's value. Strings go in as they are;
other JSON data is inserted as compact JSON. A nil value fails with
global `{name}` is nil; a userdata fails with global `{name}` is a userdata;
bare globals in prose must be JSON data. \\{{ writes a literal {{.\""""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runvil.prompt import USERDATA, InterpolationError, NotJSON, fill
from runvil.prompt.interpolate import references

GLOBALS = {
    "topic": "Paris",
    "n": 3,
    "x": 2.0,
    "neg": -0.5,
    "yes": True,
    "no": False,
    "var": {"draft": "A draft.", "items": ["a", 1, 2.5, None], "deep": {"sub": {"leaf": "ok"}}, "empty": {}},
    "list": [1, [2, {"k": "v"}]],
    "text": "héllo \"quoted\" {{not again}}",
    "u": USERDATA,
    "f": NotJSON("function"),
    "bad": float("nan"),
    "inf": [1, float("inf")],
}


def lookup(path):
    value = GLOBALS
    for part in path:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and 0 < int(part) <= len(value):
            value = value[int(part) - 1]
        else:
            return None
    return value


@pytest.mark.parametrize(
    "text, expected",
    [
        ("About {{topic}}.", "About Paris."),
        ("{{var.draft}}", "A draft."),
        ("{{var.deep.sub.leaf}}", "ok"),
        ("{{n}} {{x}} {{neg}}", "3 2.0 -0.5"),  # floats keep a fraction
        ("{{yes}}/{{no}}", "true/false"),
        ("{{var.items}}", '["a",1,2.5,null]'),
        ("{{var.deep}}", '{"sub":{"leaf":"ok"}}'),
        ("{{var.empty}}", "{}"),
        ("{{list}}", '[1,[2,{"k":"v"}]]'),
        ("{{var.items.3}}", "2.5"),
        ("{{text}}", 'héllo "quoted" {{not again}}'),  # inserted text is not filled again
        ("{{ topic }} {{\ttopic\t}}", "Paris Paris"),
        ("no references", "no references"),
        ("", ""),
        ("a{{topic}}b{{topic}}c", "aParisbParisc"),
        ("{{{topic}}}", "{Paris}"),
        ("{{ var . draft }}", "{{ var . draft }}"),
    ],
)
def test_filled(text, expected):
    assert fill(text, lookup) == expected


@pytest.mark.parametrize(
    "text",
    [
        "{{1abc}}",
        "{{}}",
        "{{ }}",
        "{{a b}}",
        "{{a..b}}",
        "{{a.}}",
        "{{.a}}",
        "{{topic",
        "topic}}",
        "{ {topic} }",
        "{{a-b}}",
    ],
)
def test_text_that_is_not_a_reference_stays_verbatim(text):
    assert fill(text, lookup) == text


def test_json_data_is_compact_and_keeps_non_ascii():
    assert fill("{{v}}", lambda p: {"é": ["ü", 1.5, True]}) == '{"é":["ü",1.5,true]}'


def test_backslash_brace_brace_writes_a_literal_pair_of_braces():
    """"\\{{ writes a literal {{.\""""
    assert fill("\\{{topic}}", lookup) == "{{topic}}"
    assert fill("use \\{{ and }}", lookup) == "use {{ and }}"
    assert fill("\\{{topic}} is {{topic}}", lookup) == "{{topic}} is Paris"
    assert fill("a \\ b \\{ c", lookup) == "a \\ b \\{ c"  # only \{{ is an escape
    assert fill("\\\\{{x}}", lookup) == "\\{{x}}"


@pytest.mark.parametrize(
    "text, message",
    [
        ("{{missing}}", "global `missing` is nil"),
        ("{{var.missing.deeper}}", "global `var.missing.deeper` is nil"),
        ("{{ var.nope }}", "global `var.nope` is nil"),
        ("{{var.items.4}}", "global `var.items.4` is nil"),
        ("{{u}}", "global `u` is a userdata; bare globals in prose must be JSON data"),
        ("{{f}}", "global `f` is a function; bare globals in prose must be JSON data"),
        ("{{bad}}", "global `bad` is not JSON data: nan has no JSON form"),
        ("{{inf}}", "global `inf` is not JSON data: inf has no JSON form"),
        ("ok {{topic}} then {{missing}} then {{u}}", "global `missing` is nil"),  # the first failure
    ],
)
def test_failures(text, message):
    with pytest.raises(InterpolationError) as info:
        fill(text, lookup)
    assert info.value.message == message == str(info.value)


def test_a_userdata_inside_json_data_is_refused():
    with pytest.raises(InterpolationError) as info:
        fill("{{t}}", lambda p: {"a": [USERDATA]})
    assert str(info.value) == "global `t` is a userdata; bare globals in prose must be JSON data"


def test_lookup_errors_propagate():
    def failing(path):
        raise InterpolationError("custom")

    with pytest.raises(InterpolationError, match="custom"):
        fill("{{x}}", failing)


def test_lookup_receives_the_dotted_parts_as_strings():
    seen = []
    fill("{{var.a.1.b_2}} {{_x}}", lambda p: seen.append(p) or "")
    assert seen == [["var", "a", "1", "b_2"], ["_x"]]


def test_references_lists_what_fill_would_look_up():
    assert references("{{a}} \\{{b}} {{ c.d }} {{1x}}") == ["a", "c.d"]


@given(st.text(alphabet=st.sampled_from("ab {}\\.1_\n"), max_size=40))
def test_text_without_references_is_unchanged_and_fill_never_crashes(text):
    out = fill(text, lambda p: "V")
    if not references(text) and "\\{{" not in text:
        assert out == text
