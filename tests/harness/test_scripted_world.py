"""The scripted world (docs/reference/commands.md "The scripted world"): the shape of the file
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
    assert w.answer(ToolCall(3, "web/search", {})) == ToolFailure("the script has no result left for web/search",
                                                                  fatal=True)


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
    """What `--record` writes beyond the specification's example replays as it came."""
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


# ------------------------------------------------ checked at load
# (docs/reference/commands.md), through `runvil run`

HELLO = """---
name: hello
description: Says hello.
runvil: 0
models:
  writer: {}
uses: [web]
---

# Hello

## Chat

```lua
models.use('writer')
tools.offer('web/search')
messages:user('hello')
models.loop()
return messages[#messages].content
```
"""


def run_world(tmp_path, capsys, world: str, *extra):
    from runvil.host.cli import main

    (tmp_path / "p.md").write_text(HELLO, encoding="utf-8")
    (tmp_path / "w.yaml").write_text(textwrap.dedent(world).lstrip("\n"), encoding="utf-8")
    code = main(["run", str(tmp_path / "p.md"), "--script", str(tmp_path / "w.yaml"), *extra])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(tmp_path) + "/", "")


@pytest.mark.parametrize("world, message", [
    ('replies:\n  - txt: "a"\n',
     "line 2: unknown key 'txt' in replies[1] (did you mean 'text'? known: text, tool_calls, finish_reason, usage, "
     "reasoning, fragments, error, stream_error, model, unreachable, failure)"),
    ('replys:\n  - text: "a"\n',
     "line 1: unknown key 'replys' (did you mean 'replies'? known: input, models, replies, tools)"),
    ("models:\n  writer: {context: 4096}\n  writr: {context: 100}\n",
     "line 3: models.writr: the prompt declares no model role 'writr' (declared: writer; did you mean 'writer'?)"),
    ("replies:\n  reviewer:\n    - text: a\n",
     "line 2: replies.reviewer: the prompt declares no model role 'reviewer' (declared: writer)"),
    ("replies:\n  - text: a\n    usage: {prompt: 3}\n",
     "line 3: unknown key 'prompt' in replies[1].usage (did you mean 'prompt_tokens'? known: prompt_tokens, "
     "completion_tokens, reasoning_tokens, total_tokens)"),
    ("replies:\n  - text: a\n  - {}\n",
     "line 3: replies[2] has neither text, tool_calls nor error "
     "(one of: text, fragments, tool_calls, error, stream_error, unreachable, failure)"),
    ("replies:\n  - finish_reason: length\n",
     "line 2: replies[1] has neither text, tool_calls nor error"),
    ("replies:\n  -\n", "line 2: replies[1] must be a mapping (text, tool_calls, error, ...), got nothing"),
    ("replies:\n  - tool_calls:\n      - {id: c1, name: web_search, args: {}}\n",
     "line 3: unknown key 'args' in replies[1].tool_calls[1] (did you mean 'arguments'?"),
    ("replies:\n  - text: a\ntools:\n  web/search:\n    - reslt: x\n",
     "line 5: unknown key 'reslt' in tools.web/search[1] (did you mean 'result'?"),
    ("models:\n  writer:\n    contxt: 4096\n",
     "line 3: unknown key 'contxt' in models.writer (did you mean 'context'?"),
    ("replies:\n  - error: {status: 400, bdy: x}\n",
     "line 2: unknown key 'bdy' in replies[1].error (did you mean 'body'?"),
    ("replies:\n  - text: a\n  - text: b\n    text: c\n", "line 4: duplicate key 'text'"),
])
def test_a_world_is_checked_as_strictly_as_the_config(tmp_path, capsys, world, message):
    code, out, err = run_world(tmp_path, capsys, world)
    assert code == 2 and out == ""
    assert err.startswith(f"runvil: the scripted world w.yaml: {message}"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("tag, value", [("binary", "aGk="), ("set", "{a, b}"), ("timestamp", "2001-12-14"),
                                        ("omap", "[a: 1]"), ("pairs", "[a: 1]")])
def test_yaml_tags_beyond_the_plain_types_are_refused_with_their_line(tmp_path, capsys, tag, value):
    code, _, err = run_world(tmp_path, capsys, f"replies:\n  - text: a\n    reasoning: !!{tag} {value}\n")
    assert code == 2
    assert err == (f"runvil: the scripted world w.yaml: line 3: the YAML tag !!{tag} is not allowed here "
                   "(only the plain YAML types: text, numbers, true/false, null, lists and mappings)\n")


def test_plain_tags_are_allowed(tmp_path, capsys):
    code, out, _ = run_world(tmp_path, capsys, "replies:\n  - text: !!str 42\n")
    assert (code, out) == (0, "42\n")


def test_a_missing_tool_result_fails_the_run_like_a_missing_reply(tmp_path, capsys):
    import json

    world = """
        replies:
          - tool_calls: [{id: c1, name: web_search, arguments: {query: Paris}}]
          - text: never reached
        """
    code, out, err = run_world(tmp_path, capsys, world, "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False
    assert data["error"]["message"] == "the script has no result left for web/search"
    assert len(data["requests"]) == 1  # the second reply was never asked for
    code, out, err = run_world(tmp_path, capsys, "replies: []\n", "--json")
    assert json.loads(out)["error"]["message"] == "the script has no reply left for writer"
    assert json.loads(out)["error"]["kind"] == data["error"]["kind"]


def test_a_world_with_every_documented_key_is_accepted(tmp_path, capsys):
    world = """
        input: "hi"
        models:
          writer: {model: other, context: 4096, max_tokens: 100}
        replies:
          - tool_calls: [{id: c1, name: web_search, arguments: {query: Paris}}]
            usage: {prompt_tokens: 3, completion_tokens: 1, reasoning_tokens: 0, total_tokens: 4}
          - text: "done"
            finish_reason: stop
            reasoning: "thought"
            fragments: ["do", "ne"]
            model: other-2024
        tools:
          web/search:
            - result: "Tour Montparnasse"
        """
    code, out, _ = run_world(tmp_path, capsys, world)
    assert (code, out) == (0, "done\n")


NUMBERS = ["0x" + "f" * 400, "9" * 400, "-" + "9" * 400, "-1", "-0", "0", ".nan", ".inf", "-.inf", "0x1f", "0o17",
           "1_000", "1e999", "-1e999", "1e-400", "2.5", "+5", "00012", "9" * 4300]
WORLD_PLACES = [
    "input: {n}\nreplies:\n  - text: hi\n",
    "models:\n  writer: {{context: {n}, max_tokens: {n}, model: {n}}}\nreplies:\n  - text: hi\n",
    "replies:\n  - text: {n}\n    finish_reason: {n}\n    reasoning: {n}\n    fragments: [{n}]\n",
    "replies:\n  - text: hi\n    usage: {{prompt_tokens: {n}, completion_tokens: {n}, reasoning_tokens: {n}}}\n",
    "replies:\n  - error: {{status: {n}, body: {n}}}\n",
    "replies:\n  - stream_error: {n}\n",
    "replies:\n  - tool_calls: [{{id: {n}, name: web_search, arguments: {{q: {n}}}}}]\n  - text: ok\n"
    "tools:\n  web/search:\n    - result: {n}\n",
    "replies:\n  - tool_calls: [{{id: a, name: web_search, arguments: {{}}}}]\n  - text: ok\n"
    "tools:\n  web/search:\n    - error: {n}\n",
    "replies:\n  {n}:\n    - text: hi\n",
]


@pytest.mark.parametrize("place", WORLD_PLACES, ids=range(len(WORLD_PLACES)))
def test_no_number_in_a_world_is_an_internal_error(tmp_path, capsys, place):
    for number in NUMBERS:
        code, out, err = run_world(tmp_path, capsys, place.format(n=number), "--json")
        assert code in (0, 1, 2) and "internal error" not in err, (number, err)
        if code == 2:
            assert err.startswith("runvil: the scripted world w.yaml: line ") and err.count("\n") == 1, err
