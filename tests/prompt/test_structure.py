"""Spec §2 and §3: the H1, the sections, their pieces, chunk names, and the
Structure errors ("no H1, H1 after H2, duplicate section names,
unterminated fence"), each with its file line."""

from __future__ import annotations

import pytest

from runvil.prompt import LuaBlock, Prose, check_text, parse_text

from .util import doc

F = "```"


def kinds(section):
    return [type(p).__name__ for p in section.pieces]


def structure_errors(body):
    return [(e.kind, e.message, e.line) for e in check_text(doc(body), "p.md")]


# --- headings ---------------------------------------------------------------------


def test_exactly_one_h1_then_sections_in_file_order():
    p = parse_text(doc("# First chat\n\n## Chat\n\nhello\n\n## Second\n\nbye\n"))
    assert p.title == "First chat"
    assert (p.h1.name, p.h1.line, p.h1.pieces) == (None, 6, ())
    assert [(s.name, s.line) for s in p.sections] == [("Chat", 8), ("Second", 12)]
    assert p.sections[0].pieces == (Prose("\nhello\n", 9),)


@pytest.mark.parametrize(
    "heading, name",
    [
        ("## Chat", "Chat"),
        ("##   Chat  ", "Chat"),
        ("## Chat ##", "Chat"),
        ("##\tTwo words\t", "Two words"),
        ("   ## Indented", "Indented"),
        ("## C#", "C#"),
        ("## The *Chat*", "The *Chat*"),
        ("## Étape 1", "Étape 1"),
    ],
)
def test_section_names_are_the_trimmed_heading_text(heading, name):
    p = parse_text(doc(f"# T\n{heading}\n"))
    assert [s.name for s in p.sections] == [name]


def test_h1_title_drops_closing_hashes():
    assert parse_text(doc("# A title #\n")).title == "A title"


@pytest.mark.parametrize("line", ["### Sub", "#### Deeper", "###### Six", "#hashtag", "    ## code", "\\## escaped"])
def test_h3_and_deeper_and_non_headings_belong_to_the_enclosing_sections_prose(line):
    """"H3 and deeper belong to the enclosing section's prose.\""""
    p = parse_text(doc(f"# T\n## A\nbefore\n{line}\nafter\n"))
    assert [s.name for s in p.sections] == ["A"]
    assert p.sections[0].pieces == (Prose(f"before\n{line}\nafter", 8),)


def test_setext_underlines_are_prose():
    p = parse_text(doc("# T\n## A\nNot a heading\n---\nText\n===\n"))
    assert [s.name for s in p.sections] == ["A"]


def test_a_prompt_with_only_an_h1():
    p = parse_text(doc("# Only\n\n" + F + "lua\nreturn 1\n" + F + "\n"))
    assert p.sections == ()
    assert [b.chunkname for b in p.h1.blocks] == ["h1 prologue"]


# --- fences ------------------------------------------------------------------------


def test_fenced_blocks_tagged_lua_are_lua_any_other_fence_is_prose():
    body = (
        "# T\n## A\n"  # 6, 7
        "```lua\nlocal a = 1\n```\n"  # 8-10
        "```python\nprint(1)\n```\n"  # 11-13
        "```\nplain\n```\n"  # 14-16
        "~~~lua\nlocal b = 2\n~~~\n"  # 17-19
        "```lua {.numberLines}\nlocal c = 3\n```\n"  # 20-22
        "```Lua\nnot lua\n```\n"  # 23-25
        "````lua\nlocal s = [[\n```\n]]\n````\n"  # 26-30
    )
    s = parse_text(doc(body)).sections[0]
    assert kinds(s) == ["LuaBlock", "Prose", "LuaBlock", "LuaBlock", "Prose", "LuaBlock"]
    lua = s.blocks
    assert [(b.code, b.line) for b in lua] == [
        ("local a = 1", 9),
        ("local b = 2", 18),
        ("local c = 3", 21),
        ("local s = [[\n```\n]]", 27),
    ]
    assert s.pieces[1] == Prose("```python\nprint(1)\n```\n```\nplain\n```", 11)
    assert s.pieces[4] == Prose("```Lua\nnot lua\n```", 23)


def test_a_hash_line_inside_any_fence_is_not_a_heading():
    body = "# T\n## A\n```lua\n-- ok\n## not a section\n```\n```md\n# not an h1\n## nor a section\n```\n"
    p = parse_text(doc(body.replace("## not a section", "local x = 1 -- ## not a section")))
    assert [s.name for s in p.sections] == ["A"]
    errors = check_text(doc(body))
    assert [e.kind for e in errors] == ["Lua"]  # `## not a section` is Lua, and bad Lua


def test_fence_closing_rules():
    """A closing fence uses the same character, at least as long, alone."""
    body = "# T\n## A\n````lua\nlocal a = [[\n```\n~~~~\n```` x\n]]\n````  \nafter\n"
    s = parse_text(doc(body)).sections[0]
    assert s.blocks[0].code == "local a = [[\n```\n~~~~\n```` x\n]]"
    assert s.pieces[1] == Prose("after", 15)


def test_indented_fence_code_is_dedented():
    body = "# T\n## A\n  ```lua\n  local a = 1\n    local b = 2\n local c = 3\n  ```\n"
    assert parse_text(doc(body)).sections[0].blocks[0].code == "local a = 1\n  local b = 2\nlocal c = 3"


def test_fence_indented_four_spaces_is_not_a_fence():
    p = parse_text(doc("# T\n## A\n    ```lua\n    x = 1\n    ```\n"))
    assert kinds(p.sections[0]) == ["Prose"]


def test_empty_lua_block():
    b = parse_text(doc("# T\n## A\n```lua\n```\n")).sections[0].blocks[0]
    assert (b.code, b.line, b.chunkname) == ("", 9, "section `A` prologue")
    assert b.compiled is not None


def test_html_comment_hides_headings_and_fences():
    body = "# T\n## A\n<!--\n## Old\n```lua\nbroken(\n```\n-->\ntext\n"
    p = parse_text(doc(body))
    assert [s.name for s in p.sections] == ["A"]
    assert kinds(p.sections[0]) == ["Prose"]


def test_html_comment_on_one_line():
    p = parse_text(doc("# T\n<!-- note -->\n## A\n"))
    assert p.h1.pieces == (Prose("<!-- note -->", 7),)


# --- pieces and chunk names ------------------------------------------------------------


def test_chunk_names():
    """"A section's first Lua block is its prologue, later ones block 2,
    block 3, ...; H1 blocks are h1 prologue, h1 block 2, ...\""""
    block = F + "lua\nlocal x = 1\n" + F + "\n"
    p = parse_text(doc("# T\n" + block * 3 + "## Chat\n" + block * 3 + "## Other one\n" + block))
    assert [b.chunkname for b in p.h1.blocks] == ["h1 prologue", "h1 block 2", "h1 block 3"]
    assert [b.chunkname for b in p.section("Chat").blocks] == [
        "section `Chat` prologue",
        "section `Chat` block 2",
        "section `Chat` block 3",
    ]
    assert [b.chunkname for b in p.section("Other one").blocks] == ["section `Other one` prologue"]


def test_pieces_in_order_with_their_file_lines():
    body = (
        "# T\n"  # 6
        "\n"  # 7
        "H1 prose.\n"  # 8
        "```lua\n"  # 9
        "local h = 1\n"  # 10
        "```\n"  # 11
        "## Chat\n"  # 12
        "\n"  # 13
        "Pending prose.\n"  # 14
        "### A sub-heading\n"  # 15
        "\n"  # 16
        "```lua\n"  # 17
        "local a = 1\n"  # 18
        "local b = 2\n"  # 19
        "```\n"  # 20
        "```lua\n"  # 21
        "local c = 3\n"  # 22
        "```\n"  # 23
        "\n"  # 24
        "Sent prose.\n"  # 25
        "\n"  # 26
    )
    p = parse_text(doc(body))
    assert p.h1.pieces == (Prose("\nH1 prose.", 7), LuaBlock("local h = 1", 10, "h1 prologue"))
    assert p.section("Chat").pieces == (
        Prose("\nPending prose.\n### A sub-heading\n", 13),
        LuaBlock("local a = 1\nlocal b = 2", 18, "section `Chat` prologue"),
        LuaBlock("local c = 3", 22, "section `Chat` block 2"),
        Prose("\nSent prose.\n", 24),
    )
    assert p.section("Chat").pieces[0].trimmed == "Pending prose.\n### A sub-heading"
    assert p.source_lines[17] == "local a = 1"  # file line 18


def test_blank_only_stretches_are_not_pieces():
    p = parse_text(doc("# T\n\n\n## A\n\n   \n## B\n" + F + "lua\n" + F + "\n\n\n"))
    assert p.h1.pieces == ()
    assert p.section("A").pieces == ()
    assert kinds(p.section("B")) == ["LuaBlock"]


def test_prose_trimmed_keeps_inner_blank_lines_and_indentation():
    assert Prose("\n  \n  indented\n\n  more\n \n", 1).trimmed == "  indented\n\n  more"
    assert Prose("one", 1).trimmed == "one"


def test_section_lookup():
    p = parse_text(doc("# T\n## A\n## B\n"))
    assert p.section("B").line == 8
    assert p.section("b") is None and p.section("C") is None
    assert (p.index_of("A"), p.index_of("B"), p.index_of("C")) == (0, 1, None)


# --- Structure errors ------------------------------------------------------------------

NO_H1 = "no H1 heading: a prompt needs one '# Title' line before its sections"
H1_AFTER_H2 = "H1 heading after a section: the '# Title' line must come before every '## Section'"
TEXT_BEFORE_H1 = "text before the H1 heading: the body starts with its '# Title' line"
EMPTY_NAME = "a section heading needs a name"
UNTERMINATED = "unterminated code fence: {} is never closed"

STRUCTURE_ERRORS = [
    ("no H1, sections only", "\n## A\ntext\n", [(NO_H1, 7)]),
    ("no H1, prose only", "\nsome text\n", [(NO_H1, 7)]),
    ("no H1, prose then sections", "\ntext\n## A\n", [(NO_H1, 7)]),
    ("no H1, empty body", "", [(NO_H1, 5)]),
    # the H1 exists, only too late: "no H1 heading" would be false, and
    # would come first (line 6) in `runvil run`'s single error
    ("H1 after H2", "## A\n# T\n## B\n", [(H1_AFTER_H2, 7)]),
    ("H1 after H2, text first", "\nintro\n## A\n# T\n", [(TEXT_BEFORE_H1, 7), (H1_AFTER_H2, 9)]),
    ("H1 after H2 and an H1", "# T\n## A\n# U\n", [("a second H1 heading (the first is on line 6)", 8)]),
    ("second H1", "# T\n# U\n## A\n", [("a second H1 heading (the first is on line 6)", 7)]),
    ("duplicate sections", "# T\n## A\n## B\n##  A \n", [("duplicate section name `A` (first on line 7)", 9)]),
    ("empty section name", "# T\n##\n## ##\n", [(EMPTY_NAME, 7), (EMPTY_NAME, 8)]),
    ("unterminated lua fence", "# T\n## A\n```lua\nx = 1\n", [(UNTERMINATED.format("```lua"), 8)]),
    ("unterminated other fence", "# T\n## A\n~~~~ text\n~~~\n", [(UNTERMINATED.format("~~~~ text"), 8)]),
    ("fence closed by the other char", "# T\n```lua\nx = 1\n~~~\n", [(UNTERMINATED.format("```lua"), 7)]),
    ("text before the H1", "intro\n# T\n", [(TEXT_BEFORE_H1, 6)]),
    ("lua before the H1", "```lua\nx = 1\n```\n# T\n", [(TEXT_BEFORE_H1, 6)]),
]


@pytest.mark.parametrize("body, expected", [c[1:] for c in STRUCTURE_ERRORS], ids=[c[0] for c in STRUCTURE_ERRORS])
def test_structure_errors(body, expected):
    assert structure_errors(body) == [("Structure", m, line) for m, line in expected]


def test_blank_lines_and_comments_may_precede_the_h1():
    p = parse_text(doc("\n<!-- a prompt -->\n\n# T\n"))
    assert p.title == "T" and p.h1.line == 9


def test_no_h1_without_frontmatter_is_still_found():
    assert [(e.kind, e.line) for e in check_text("## A\n")] == [("Frontmatter", 1), ("Structure", 1)]
