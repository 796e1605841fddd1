"""Hostile prompt files end in a parse error with its line, never a crash
(issue 10: "Prompt and world files that end in `internal error` instead of
a parse error"): control characters, huge integers, deep nesting, alias
bombs, keys that are not strings, oversized blocks and files, and files of
many blocks or long chains, which must parse in linear time."""

from __future__ import annotations

import os
import time

import pytest

from runvil.lua import LuaState
from runvil.prompt import MAX_BLOCK_BYTES, ParseError, check_text, parse_text
from runvil.prompt.frontmatter import MAX_DEPTH, MAX_NODES

from .util import doc, fm

FM = "invalid frontmatter: "


def only_error(text: str) -> ParseError:
    errors = check_text(text, "p.md")
    assert len(errors) == 1, errors
    return errors[0]


def test_a_control_character_is_refused_on_its_line():
    e = only_error(fm('x-a: "ok"', "x-b: \x01bell"))
    assert (e.kind, e.line, e.message) == (
        "Frontmatter", 6, FM + "the control character U+0001 is not allowed in YAML")


def test_an_integer_past_cpythons_digit_limit_is_refused():
    e = only_error(fm("max_tool_iterations: " + "9" * 5000))
    assert (e.line, e.message) == (5, FM + "an integer of 5000 digits is too long (the limit is 4300 digits)")


def test_a_large_integer_below_the_digit_limit_is_out_of_range():
    e = only_error(fm("max_tool_iterations: " + "9" * 4000))
    assert e.message.startswith(FM + "max_tool_iterations must be between 1 and 1000, got 999")


@pytest.mark.parametrize("open_, close", [("[", "]"), ("{a: ", "}")])
def test_deep_nesting_is_refused_even_after_lua_raised_the_recursion_limit(open_, close):
    LuaState().execute("local function f(n) if n > 0 then return 1 + f(n - 1) end return 0 end return f(5000)")
    e = only_error(fm("x-a: " + open_ * 50_000 + "1" + close * 50_000))
    assert (e.line, e.message) == (5, FM + f"the YAML nests deeper than {MAX_DEPTH} levels")


def test_nesting_within_the_limit_is_read():
    prompt = parse_text(fm("x-a: " + "[" * 90 + "]" * 90))
    depth, v = 0, prompt.frontmatter.extra["x-a"]
    while v:
        v, depth = v[0], depth + 1
    assert depth == 89


def test_a_billion_laughs_is_refused_quickly():
    lines = ['x-a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefghi", "bcdefghij"):
        lines.append(f"x-{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    start = time.process_time()  # CPU time, which a loaded machine does not stretch
    e = only_error(fm(*lines))
    assert e.message == FM + f"the YAML holds more than {MAX_NODES} nodes (an alias counts as the nodes it names)"
    assert time.process_time() - start < 5


def test_an_alias_inside_its_own_node_is_refused():
    e = only_error(fm("x-a: &a [1, *a]"))
    assert e.message == FM + "the alias *a is inside the node it names"


def test_a_few_aliases_are_fine():
    prompt = parse_text(fm("x-a: &a [1, 2]", "x-b: [*a, *a]"))
    assert prompt.frontmatter.extra["x-b"] == [[1, 2], [1, 2]]


@pytest.mark.parametrize(
    "line, detail",
    [
        ("~: 1", "unknown key '~' (only keys starting with 'x-' may be added)"),
        ("[a, b]: 1", "unknown key '[a, b]' (only keys starting with 'x-' may be added)"),
        ("7: 1", "unknown key '7' (only keys starting with 'x-' may be added)"),
        ("x-n: !!int abc", "invalid integer 'abc'"),
    ],
)
def test_messages_show_keys_as_written_never_as_python_values(line, detail):
    assert only_error(fm(line)).message == FM + detail


def test_a_block_over_the_size_limit_is_a_named_lua_parse_error():
    code = "local s = [[" + "x" * MAX_BLOCK_BYTES + "]]"
    e = only_error(doc(f"# T\n\n```lua\n{code}\n```\n"))
    assert (e.kind, e.line) == ("Lua", 9)
    assert e.message == f"h1 prologue: the block is {len(code)} bytes of Lua; the limit is {MAX_BLOCK_BYTES} bytes"


def _check_seconds(blocks: int) -> float:
    salt = os.urandom(8).hex()  # fresh code each time: no compile cache helps
    body = "# T\n" + "".join(f"\n## S{i}\n\n```lua\nlocal x = {i} -- {salt}\n```\n" for i in range(blocks))
    start = time.process_time()  # CPU time: the ratio holds on a loaded machine too
    assert check_text(doc(body), "p.md") == []
    return time.process_time() - start


def test_many_blocks_check_in_linear_time():
    # four times the blocks take about four times as long (it was quadratic:
    # 5,000 sections took over 20 s); timed as a ratio, as the machine may be loaded
    small = min(_check_seconds(250) for _ in range(2))
    large = min(_check_seconds(1000) for _ in range(2))
    assert large < 10 * small + 1.0  # quadratic would be 16 times


def test_block_lines_stay_file_lines_after_many_blocks():
    body = "# T\n" + "".join(f"\n## S{i}\n\n```lua\nlocal x = {i}\n```\n" for i in range(50))
    body += "\n## Bad\n\n```lua\nlocal x = = 1\n```\n"
    text = doc(body)
    line = text[: text.index("local x = = 1")].count("\n") + 1
    e = only_error(text)
    assert (e.line, e.message) == (line, f"section `Bad` prologue:{line}: unexpected symbol near '='")


def test_a_long_field_chain_parses_in_linear_time():
    from runvil.lua.runtime.contexts import run_lua
    from runvil.lua.syntax.parser import parse

    start = time.process_time()  # the whole process's CPU time: the parse runs on a thread of its own
    chunk = run_lua(lambda: parse("local t = {} return t" + ".a" * 40_000, "=x"))
    assert chunk.body.stmts
    assert time.process_time() - start < 10  # was quadratic: 47 s with the compile


def test_digits_past_int64_in_a_reference_read_a_float_key():
    from runvil.engine.run import Run

    text = doc("# T\n\n## A\n\n```lua\nx = {}\n```\n\nsee {{x." + "1" * 5000 + "}}\n\n```lua\nreturn prose\n```\n")
    run = Run(parse_text(text), bindings={})
    while run.step():
        pass
    assert not run.outcome.ok
    assert run.outcome.error.message.endswith(" is nil")


def test_a_file_over_the_size_limit_is_a_structure_error():
    from runvil.prompt import MAX_FILE_BYTES

    e = only_error(doc("# T\n\n" + "x" * MAX_FILE_BYTES))
    assert (e.kind, e.line) == ("Structure", 1)
    assert e.message.startswith("the file is ") and e.message.endswith(f"; the limit is {MAX_FILE_BYTES} bytes")


def test_a_prompt_with_too_many_blocks_is_a_structure_error():
    from runvil.prompt import MAX_BLOCKS

    text = doc("# T\n" + "".join(f"\n## S{i}\n\n```lua\nlocal x = {i}\n```\n" for i in range(MAX_BLOCKS + 5)))
    e = only_error(text)
    assert (e.kind, e.message) == ("Structure", f"the prompt has more than {MAX_BLOCKS} Lua blocks")
    assert e.line == text[: text.index(f"local x = {MAX_BLOCKS}\n")].count("\n") + 1


def test_a_prompt_with_too_much_lua_is_a_structure_error():
    from runvil.prompt import MAX_LUA_BYTES

    block = "local s = [[" + "x" * (MAX_BLOCK_BYTES - 100) + "]]"
    e = only_error(doc("# T\n" + "".join(f"\n## S{i}\n\n```lua\n{block}\n```\n" for i in range(3))))
    assert (e.kind, e.message) == ("Structure", f"the prompt's Lua blocks hold more than {MAX_LUA_BYTES} bytes")


def test_a_frontmatter_over_the_size_limit_is_refused_before_yaml_reads_it():
    from runvil.prompt.frontmatter import MAX_FRONTMATTER_BYTES

    e = only_error(fm("x-a: " + "a" * MAX_FRONTMATTER_BYTES))
    assert (e.kind, e.line) == ("Frontmatter", 1)
    assert e.message.startswith(FM + "the frontmatter is ")
    assert e.message.endswith(f"; the limit is {MAX_FRONTMATTER_BYTES} bytes")

