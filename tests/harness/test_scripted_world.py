"""The scripted world (host.md "The scripted world"): the shape of the file
is checked when it is loaded, scalars stand for their text, and a reply's
fragments are streamed to live output."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound, ToolCall, ToolFailure, ToolResult
from runvil.harness.scripted import ScriptedWorld, WorldError


def load(tmp_path, text):
    p = tmp_path / "world.yaml"
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return ScriptedWorld.load(p)


def round_(role="writer", model="writer"):
    return ModelRound(1, role, model, "chat", ({"role": "user", "content": "hi"},))


@pytest.mark.parametrize("text, where", [
    ("replies:\n  - {error: {body: oops}}\n", "replies[1].error needs an HTTP status"),
    ("replies:\n  - {error: boom}\n", "replies[1].error must be a mapping"),
    ("replies:\n  - {error: {status: abc}}\n", "replies[1].error needs an HTTP status"),
    ("replies:\n  - hi\n", "replies[1] must be a mapping"),
    ("replies:\n  writer: hello\n", "replies.writer must be a list"),
    ("replies:\n  - {tool_calls: {id: x}}\n", "replies[1].tool_calls must be a list"),
    ("replies:\n  - {tool_calls: [5]}\n", "replies[1].tool_calls[1] must be a mapping"),
    ("replies:\n  - {text: a, usage: 5}\n", "replies[1].usage must be a mapping"),
    ("replies: 5\n", "replies must be a list or a mapping"),
    ("models: [writer]\n", "models must be a mapping"),
    ("models:\n  writer: 5\n", "models.writer must be a mapping"),
    ("models:\n  writer: {context: abc}\n", "models.writer.context must be a positive whole number"),
    ("models:\n  writer: {context: true}\n", "models.writer.context must be a positive whole number"),
    ("models:\n  writer: {context: 0}\n", "models.writer.context must be a positive whole number"),
    ("models:\n  writer: {max_tokens: 1.5}\n", "models.writer.max_tokens must be a positive whole number"),
    ("tools: [a]\n", "tools must be a mapping"),
    ("tools:\n  web/search: hi\n", "tools.web/search must be a list"),
    ("tools:\n  web/search: [hi]\n", "tools.web/search[1] must be a mapping"),
    ("input: [1, 2]\n", "input must be text"),
])
def test_a_world_of_the_wrong_shape_is_refused_when_loaded(tmp_path, text, where):
    with pytest.raises(WorldError) as e:
        load(tmp_path, text)
    assert where in str(e.value) and "world.yaml" in str(e.value)


def test_yaml_1_2_scalars_stand_for_their_text(tmp_path):
    w = load(tmp_path, """
        input: 42
        models:
          writer: {model: 5, context: 4096.0}
        replies:
          - {text: no}
          - {text: true, finish_reason: true}
          - {text: 1.0, finish_reason: 7}
        """)
    assert w.input == "42"
    b = w.binding("writer")
    assert (b.id, b.name, b.context) == ("5", "5", 4096)
    r1, r2, r3 = (w.answer(round_(model="5")) for _ in range(3))
    assert (r1.text, r1.finish_reason) == ("no", "stop")
    assert (r2.text, r2.finish_reason) == ("true", "true")
    assert (r3.text, r3.finish_reason) == ("1.0", "7")


def test_null_error_fields_mean_no_error(tmp_path):
    w = load(tmp_path, """
        replies:
          - {error: null, text: a}
          - {stream_error: null, text: b}
          - {error: {status: "503"}}
        """)
    assert w.answer(round_()).text == "a"
    assert w.answer(round_()).text == "b"
    assert w.answer(round_()) == ModelFailure(status=503, body="")


def test_tool_errors_that_are_data_are_compact_json_and_model_names_are_keys(tmp_path):
    w = load(tmp_path, """
        tools:
          web_search:
            - error: {code: 7, why: down}
            - result: {a: [1, 2]}
        """)
    assert w.answer(ToolCall(1, "web/search", {})) == ToolFailure('{"code":7,"why":"down"}')
    assert w.answer(ToolCall(2, "web/search", {})) == ToolResult('{"a":[1,2]}')
    assert w.answer(ToolCall(3, "web/search", {})) == ToolFailure("the script has no result left for web/search")


def test_fragments_are_streamed_to_live_output(tmp_path):
    seen = []
    p = tmp_path / "w.yaml"
    p.write_text("replies:\n  - {fragments: [par, tial]}\n  - {text: whole}\n  - {text: ''}\n", encoding="utf-8")
    w = ScriptedWorld.load(p, on_fragment=lambda effect, text: seen.append(text))
    assert isinstance(w.answer(round_()), ModelReply) and seen == ["par", "tial"]
    assert w.answer(round_()).text == "whole" and seen == ["par", "tial", "whole"]
    assert w.answer(round_()).text == "" and seen == ["par", "tial", "whole"]


def test_numbers_are_text_as_written_and_data_as_numbers(tmp_path):
    w = load(tmp_path, """
        replies:
          - {text: 3.10, finish_reason: 0x1F}
          - tool_calls: [{id: 1, name: f, arguments: {limit: 3, ratio: 1.50, on: true}}]
            usage: {prompt_tokens: 10, completion_tokens: 2}
        tools:
          web/search:
            - result: {n: 3.10}
        """)
    r = w.answer(round_())
    assert (r.text, r.finish_reason) == ("3.10", "0x1F")
    r = w.answer(round_())
    assert r.tool_calls == ({"id": "1", "name": "f", "arguments": {"limit": 3, "ratio": 1.5, "on": True}},)
    assert type(r.tool_calls[0]["arguments"]["limit"]) is int and type(r.tool_calls[0]["arguments"]["ratio"]) is float
    assert r.usage == {"prompt_tokens": 10, "completion_tokens": 2} and type(r.usage["prompt_tokens"]) is int
    assert w.answer(ToolCall(1, "web/search", {})) == ToolResult('{"n":3.1}')


def test_recorded_failures_and_the_serving_model(tmp_path):
    """What `--record` writes beyond host.md's example replays as it came."""
    w = load(tmp_path, """
        replies:
          - {text: hi, model: gpt-4o-2024-08-06}
          - {unreachable: connection refused}
          - {failure: "the model sent malformed tool call arguments: f: bad"}
          - {error: {status: 400, body: nope, message: "the model backend rejected the request (status 400): nope"}}
          - {text: plain}
        """)
    assert w.answer(round_()).model == "gpt-4o-2024-08-06"
    assert w.answer(round_()) == ModelFailure(unreachable="connection refused")
    assert w.answer(round_()) == ModelFailure(message="the model sent malformed tool call arguments: f: bad")
    assert w.answer(round_()) == ModelFailure(status=400, body="nope",
                                              message="the model backend rejected the request (status 400): nope")
    assert w.answer(round_(model="m1")).model == "m1"


TEXTS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30) | st.sampled_from(
    ["no", "0o17", "1_000", "3.10", ".inf", "~", "null", "a: b", "- x", "#c", " lead", "trail \n", "x\n\n", "\udc80"])
DATA = st.recursive(TEXTS | st.integers() | st.booleans() | st.none()
                    | st.floats(allow_nan=False), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(TEXTS, inner, max_size=3), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(DATA)
def test_a_dumped_world_reads_back_to_the_same_values(data):
    """dump_world's YAML, read with the world's YAML 1.2 rules, is the data."""
    import yaml

    from runvil.harness.scripted import _loader, _plain, dump_world

    assert _plain(yaml.load(dump_world({"input": data}), Loader=_loader())) == {"input": data}


def test_a_dumped_world_is_block_style_with_literal_texts():
    from runvil.harness.scripted import dump_world

    text = dump_world({"replies": [{"text": "Ligne un\nligne deux — fin", "usage": {"prompt_tokens": 3}}]})
    assert text == "replies:\n- text: |-\n    Ligne un\n    ligne deux — fin\n  usage:\n    prompt_tokens: 3\n"
