"""The public surface of runvil.prompt: read_prompt, parse_text, check_text,
check_file, ParseError, Prompt, and the shipped examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from runvil.prompt import (
    LuaBlock,
    ParseError,
    Prompt,
    Prose,
    check_file,
    check_text,
    read_prompt,
    parse_text,
)

from .util import doc

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.md"))

SPEC_EXAMPLE = """\
---
name: first-chat            # required: lowercase letters, digits, '-'
description: Says hello.    # required: non-empty string
runvil: 0                   # required: format version, exactly 0
models:                     # optional: model roles this prompt uses
  writer: {}                #   role -> options (section 6)
uses: [web]                 # optional: Packs whose tools it may offer
max_tool_iterations: 24     # optional: round cap, 1..1000 (default 24)
---

# First chat

Optional H1 body: prose and ```lua blocks, run once (the H1 pass).

## Chat

Prose, then a block.

```lua
models.use('writer')
messages:user('hello')
models.loop()
return messages[#messages].content
```
"""


def test_the_spec_example():
    p = parse_text(SPEC_EXAMPLE, "first-chat.md")
    assert isinstance(p, Prompt)
    f = p.frontmatter
    assert (f.name, f.description, f.runvil, list(f.models), f.uses, f.max_tool_iterations) == (
        "first-chat",
        "Says hello.",
        0,
        ["writer"],
        ("web",),
        24,
    )
    assert p.title == "First chat"
    assert p.h1.pieces == (Prose("\nOptional H1 body: prose and ```lua blocks, run once (the H1 pass).\n", 12),)
    chat = p.section("Chat")
    assert chat.pieces[0].trimmed == "Prose, then a block."
    assert chat.pieces[1] == LuaBlock(
        "models.use('writer')\nmessages:user('hello')\nmodels.loop()\nreturn messages[#messages].content",
        20,
        "section `Chat` prologue",
    )
    assert p.source_lines[10] == "# First chat" and len(p.source_lines) == 24


def test_parse_file_keeps_the_path_and_the_folder(tmp_path):
    f = tmp_path / "sub" / "first-chat.md"
    f.parent.mkdir()
    f.write_text(SPEC_EXAMPLE, encoding="utf-8")
    p = read_prompt(f)
    assert p.path == f and p.folder == f.parent
    assert read_prompt(str(f)).path == f


def test_relative_paths_get_an_absolute_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = parse_text(SPEC_EXAMPLE, "x.md")
    assert p.path == Path("x.md") and p.folder == tmp_path


def test_parse_error_fields_and_text(tmp_path):
    f = tmp_path / "bad.md"
    f.write_text(doc("# T\n## A\n## A\n"), encoding="utf-8")
    with pytest.raises(ParseError) as info:
        read_prompt(f)
    e = info.value
    assert (e.kind, e.line, e.path) == ("Structure", 8, str(f))
    assert e.message == "duplicate section name `A` (first on line 7)"
    assert str(e) == f"{f}:8: duplicate section name `A` (first on line 7)"
    assert check_file(f) == [e]


def test_check_text_returns_every_error_in_line_order():
    text = "---\nname: Bad Name\ndescription: d\nruntime: 0\n---\n# T\n## A\n```lua\nx = = 1\n```\n## A\n```\n"
    errors = check_text(text, "p.md")
    assert [(e.kind, e.line) for e in errors] == [
        ("Frontmatter", 1),  # missing runvil
        ("Frontmatter", 2),  # name
        ("Frontmatter", 4),  # unknown key runtime
        ("Lua", 9),
        ("Structure", 11),  # duplicate A
        ("Structure", 12),  # unterminated fence
    ]
    assert [str(e) for e in errors][3] == "p.md:9: section `A` prologue:9: unexpected symbol near '='"


def test_a_valid_prompt_has_no_errors():
    assert check_text(SPEC_EXAMPLE) == []


def test_a_file_that_is_not_utf8(tmp_path):
    f = tmp_path / "latin1.md"
    f.write_bytes(doc("# T\n## A\ncaf\xe9\n").encode("latin-1"))
    with pytest.raises(ParseError) as info:
        read_prompt(f)
    assert (info.value.kind, info.value.message, info.value.line) == (
        "Structure",
        "the file is not valid UTF-8 (byte 0xe9)",
        8,
    )
    assert check_file(f) == [info.value]


def test_a_missing_file_raises_oserror(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_prompt(tmp_path / "nope.md")


def test_parse_errors_compare_by_value():
    a = ParseError("Lua", "m", 3, "p.md")
    assert a == ParseError("Lua", "m", 3, "p.md") != ParseError("Lua", "m", 4, "p.md")
    with pytest.raises(ValueError):
        ParseError("Yaml", "m", 1, "p.md")


def test_prompts_are_immutable():
    p = parse_text(SPEC_EXAMPLE)
    with pytest.raises(AttributeError):
        p.title = "x"
    assert isinstance(p.sections, tuple) and isinstance(p.sections[0].pieces, tuple)


def test_lf_crlf_and_cr_newlines_parse_alike():
    lf = parse_text(SPEC_EXAMPLE)
    for newline in ("\r\n", "\r"):
        other = parse_text(SPEC_EXAMPLE.replace("\n", newline))
        assert other.sections == lf.sections and other.h1 == lf.h1


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_parse(path):
    assert check_file(path) == []
    p = read_prompt(path)
    assert p.frontmatter.name == path.stem


def test_hello_example_is_one_section_chat():
    p = read_prompt(Path(__file__).parents[2] / "examples" / "hello.md")
    [chat] = p.sections
    [block] = chat.pieces
    assert "messages:user('hello')" in block.code and "models.loop()" in block.code
