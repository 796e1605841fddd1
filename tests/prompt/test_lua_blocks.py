"""Spec §3 "Chunk names and error locations": "Every block is compiled with
a chunk name and the prompt file's line numbers, so errors point into the
.md file"; a block that does not compile is a `Lua` parse error
(`section \\`Chat\\` prologue:12: ...`)."""

from __future__ import annotations

import pytest

from runvil.lua import LuaError, LuaState
from runvil.prompt import ParseError, check_text, compile_block, parse_text
from runvil.prompt.model import LuaBlock

from .util import doc


def lua_errors(body):
    return [(e.kind, e.message, e.line) for e in check_text(doc(body), "p.md")]


def test_syntax_error_in_a_section_prologue_points_into_the_md_file():
    body = "# T\n\n## Chat\n\nSome prose.\n\n```lua\nlocal a = 1\nlocal b = = 2\n```\n"
    assert lua_errors(body) == [("Lua", "section `Chat` prologue:14: unexpected symbol near '='", 14)]


def test_syntax_errors_in_every_kind_of_block_are_all_reported():
    body = (
        "# T\n"  # 6
        "```lua\nx = = 1\n```\n"  # 7-9
        "```lua\nok = 1\n```\n"  # 10-12
        "```lua\ny = = 1\n```\n"  # 13-15
        "## Chat\n"  # 16
        "```lua\nok = 1\n```\n"  # 17-19
        "```lua\nlocal t = {\n```\n"  # 20-22
    )
    assert lua_errors(body) == [
        ("Lua", "h1 prologue:8: unexpected symbol near '='", 8),
        ("Lua", "h1 block 3:14: unexpected symbol near '='", 14),
        ("Lua", "section `Chat` block 2:21: unexpected symbol near <eof>", 21),
    ]


def test_an_error_at_the_end_of_a_block_stays_inside_the_block():
    """Lines inside the message (`at line 9`) are file lines too."""
    body = "# T\n## A\n```lua\nif x then\n  y = 1\n```\n"
    assert lua_errors(body) == [
        ("Lua", "section `A` prologue:10: 'end' expected (to close 'if' at line 9) near <eof>", 10)
    ]


def test_lua_and_structure_errors_come_in_line_order():
    body = "# T\n## A\n```lua\nx = = 1\n```\n## A\n"
    errors = check_text(doc(body), "p.md")
    assert [(e.kind, e.line) for e in errors] == [("Lua", 9), ("Structure", 11)]


def test_parse_text_raises_the_lua_error():
    with pytest.raises(ParseError) as info:
        parse_text(doc("# T\n## Chat\n```lua\nreturn return\n```\n"), "chat.md")
    assert str(info.value) == "chat.md:9: section `Chat` prologue:9: unexpected symbol near 'return'"


def test_utf8_text_in_a_block_compiles_byte_for_byte():
    p = parse_text(doc("# T\n## A\n```lua\nreturn #'héllo'\n```\n"))
    block = p.sections[0].blocks[0]
    assert block.code == "return #'héllo'"
    assert run(block) == 6  # bytes, as Lua counts them


def test_non_ascii_in_a_syntax_error_is_decoded_back_to_text():
    body = "# T\n## A\n```lua\nlocal s = 'é' 'x\n```\n"
    [(_, message, _)] = lua_errors(body)
    assert message.startswith("section `A` prologue:9:")


def run(block: LuaBlock):
    state = LuaState(libs=("base",))
    try:
        return state.call(state.instantiate(block.compiled))[0]
    finally:
        state.close()


def test_runtime_errors_carry_the_chunk_name_and_the_file_line():
    p = parse_text(doc("# T\n\n## Chat\n\n```lua\nlocal a = 1\nreturn x.y\n```\n"))
    block = p.section("Chat").blocks[0]
    with pytest.raises(LuaError) as info:
        run(block)
    assert str(info.value) == "section `Chat` prologue:12: attempt to index a nil value (global 'x')"


def test_compile_block_returns_the_compiled_block_or_the_error():
    good = compile_block(LuaBlock("return 1", 3, "h1 prologue"), "p.md")
    assert good.compiled is not None and good == LuaBlock("return 1", 3, "h1 prologue")
    bad = compile_block(LuaBlock("return )", 3, "h1 prologue"), "p.md")
    assert bad == ParseError("Lua", "h1 prologue:3: unexpected symbol near ')'", 3, "p.md")
