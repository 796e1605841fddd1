"""Spec §2: "Frontmatter messages read `invalid frontmatter: {detail}`",
"Frontmatter keys starting with `x-` are ignored; any other unknown key is
refused", and the two max_tool_iterations details, "where {raw} echoes the
value as written"."""

from __future__ import annotations

import pytest

from runvil.prompt import ParseError, RoleOptions, check_text, parse_text

from .util import fm

FM = "invalid frontmatter: "

# (extra frontmatter lines, expected detail, line of the error)
REFUSED = [
    # max_tool_iterations: "must be a whole number, got {raw}"
    (["max_tool_iterations: 2.5"], "max_tool_iterations must be a whole number, got 2.5", 5),
    (["max_tool_iterations: 24.0"], "max_tool_iterations must be a whole number, got 24.0", 5),
    (["max_tool_iterations: 1e3"], "max_tool_iterations must be a whole number, got 1e3", 5),
    (["max_tool_iterations: ten"], "max_tool_iterations must be a whole number, got ten", 5),
    (['max_tool_iterations: "ten"'], 'max_tool_iterations must be a whole number, got "ten"', 5),
    (['max_tool_iterations: "24"'], 'max_tool_iterations must be a whole number, got "24"', 5),
    (["max_tool_iterations: true"], "max_tool_iterations must be a whole number, got true", 5),
    (["max_tool_iterations: yes"], "max_tool_iterations must be a whole number, got yes", 5),
    (["max_tool_iterations:"], "max_tool_iterations must be a whole number, got nothing", 5),
    (["max_tool_iterations: null"], "max_tool_iterations must be a whole number, got null", 5),
    (["max_tool_iterations: [1]"], "max_tool_iterations must be a whole number, got [1]", 5),
    (["max_tool_iterations: .inf"], "max_tool_iterations must be a whole number, got .inf", 5),
    (["max_tool_iterations: 2.5  # a comment"], "max_tool_iterations must be a whole number, got 2.5", 5),
    # "must be between 1 and 1000, got {raw}" — for any integer out of range, however large
    (["max_tool_iterations: 0"], "max_tool_iterations must be between 1 and 1000, got 0", 5),
    (["max_tool_iterations: -5"], "max_tool_iterations must be between 1 and 1000, got -5", 5),
    (["max_tool_iterations: 1001"], "max_tool_iterations must be between 1 and 1000, got 1001", 5),
    (["max_tool_iterations: 100000000000"], "max_tool_iterations must be between 1 and 1000, got 100000000000", 5),
    (
        ["max_tool_iterations: 99999999999999999999"],
        "max_tool_iterations must be between 1 and 1000, got 99999999999999999999",
        5,
    ),
    (["max_tool_iterations: 0x7fffffff"], "max_tool_iterations must be between 1 and 1000, got 0x7fffffff", 5),
    # required keys and their types
    (["name: t2"], "duplicate key 'name'", 5),
    (["foo: 1"], "unknown key 'foo' (only keys starting with 'x-' may be added)", 5),
    (["Name: t"], "unknown key 'Name' (only keys starting with 'x-' may be added); did you mean 'name'?", 5),
    (["1: t"], "unknown key '1' (only keys starting with 'x-' may be added)", 5),
    # models
    (["models: [writer]"], "models must be a mapping of role names to options, got [writer]", 5),
    (["models: {writer: 3}"], "models.writer must be a mapping of options, got 3", 5),
    (["models: {1: {}}"], "models: a role name must be a non-empty string, got 1", 5),
    (["models:", "  writer:", "    foo: 1"], "models.writer: unknown option 'foo'", 7),
    (["models:", "  writer:", "    model: ''"], "models.writer.model must be a non-empty string, got ''", 7),
    (["models:", "  writer:", "    temperature: hot"], "models.writer.temperature must be a number, got hot", 7),
    (["models:", "  writer:", "    temperature: .nan"], "models.writer.temperature must be a number, got .nan", 7),
    (["models:", "  writer:", "    top_p: true"], "models.writer.top_p must be a number, got true", 7),
    (["models:", "  w:", "    max_tokens: 0"], "models.w.max_tokens must be a positive whole number, got 0", 7),
    (["models:", "  w:", "    max_tokens: 1.5"], "models.w.max_tokens must be a positive whole number, got 1.5", 7),
    (["models:", "  w:", "    context: -1"], "models.w.context must be a positive whole number, got -1", 7),
    (
        ["models:", "  w:", "    thinking: none"],
        "models.w.thinking must be one of off, low, medium, high, got none",
        7,
    ),
    (
        ["models:", "  w:", "    thinking: false"],
        "models.w.thinking must be one of off, low, medium, high, got false",
        7,
    ),
    (["models:", "  w: {}", "  w: {}"], "duplicate key 'w'", 7),
    # uses
    (["uses: web"], "uses must be a list of pack names, got web", 5),
    (["uses: [web, web]"], "uses lists pack 'web' twice", 5),
    (["uses:", "  - web", "  - 3"], "uses: a pack name must be a non-empty string, got 3", 7),
    (["uses: ['']"], "uses: a pack name must be a non-empty string, got ''", 5),
    # YAML itself
    (["foo: a: b"], "mapping values are not allowed here", 5),
    (["uses: [web"], "expected ',' or ']', but got '<stream end>'", 5),
    (["\tx: 1"], "found character '\\t' that cannot start any token", 5),
    (["x-a: *nope"], "found undefined alias 'nope'", 5),
    (
        ["x-a: !!python/object:os.system 1"],
        "could not determine a constructor for the tag 'tag:yaml.org,2002:python/object:os.system'",
        5,
    ),
]


@pytest.mark.parametrize("lines, detail, line", REFUSED, ids=[" / ".join(c[0]) for c in REFUSED])
def test_refused_frontmatter(lines, detail, line):
    errors = check_text(fm(*lines), "p.md")
    assert [(e.kind, e.message, e.line) for e in errors] == [("Frontmatter", FM + detail, line)]


BASE_REFUSED = [
    (["name: First Chat"], "name must be lowercase letters, digits and '-', got First Chat", 2),
    (["name: first_chat"], "name must be lowercase letters, digits and '-', got first_chat", 2),
    (["name: 123"], "name must be lowercase letters, digits and '-', got 123", 2),
    (["name:"], "name must be lowercase letters, digits and '-', got nothing", 2),
    (["description: ''"], "description must be a non-empty string, got ''", 3),
    (["description: '   '"], "description must be a non-empty string, got '   '", 3),
    (["description: 5"], "description must be a non-empty string, got 5", 3),
    (["description: [a]"], "description must be a non-empty string, got [a]", 3),
    (["runvil: 1"], "runvil must be 0, got 1", 4),
    (["runvil: 0.0"], "runvil must be 0, got 0.0", 4),
    (["runvil: '0'"], "runvil must be 0, got '0'", 4),
    (["runvil: false"], "runvil must be 0, got false", 4),
]


@pytest.mark.parametrize("line_text, detail, line", BASE_REFUSED, ids=[c[0][0] for c in BASE_REFUSED])
def test_refused_required_key(line_text, detail, line):
    base = {"name": "name: t", "description": "description: A test prompt.", "runvil": "runvil: 0"}
    key = line_text[0].split(":")[0]
    base[key] = line_text[0]
    errors = check_text(fm(*base.values(), base=False), "p.md")
    assert [(e.kind, e.message, e.line) for e in errors] == [("Frontmatter", FM + detail, line)]


def test_missing_required_keys_are_reported_on_the_opening_line():
    errors = check_text(fm("name: t", base=False), "p.md")
    assert [(e.message, e.line) for e in errors] == [
        (FM + "missing required key 'description'", 1),
        (FM + "missing required key 'runvil'", 1),
    ]


def test_empty_frontmatter_misses_every_required_key():
    errors = check_text("---\n---\n\n# T\n", "p.md")
    expected = [FM + f"missing required key '{k}'" for k in ("name", "description", "runvil")]
    assert [e.message for e in errors] == expected


def test_no_frontmatter_at_all():
    errors = check_text("# T\n\n## A\n", "p.md")
    assert [(e.kind, e.message, e.line) for e in errors] == [
        ("Frontmatter", FM + "the file must start with a '---' line that opens the frontmatter", 1)
    ]


def test_unclosed_frontmatter():
    errors = check_text("---\nname: t\n\n# T\n", "p.md")
    assert [(e.message, e.line) for e in errors] == [
        (FM + "the frontmatter opened on line 1 is never closed with a '---' line", 1)
    ]


def test_frontmatter_must_be_a_mapping():
    errors = check_text("---\n- a\n---\n# T\n", "p.md")
    assert [(e.message, e.line) for e in errors] == [(FM + "the frontmatter must be a mapping of keys, got - a", 2)]


def test_every_problem_is_collected():
    text = fm("foo: 1", "max_tool_iterations: 0", "uses: web", "models: {w: {thinking: none}}")
    details = [e.message.removeprefix(FM) for e in check_text(text, "p.md")]
    assert details == [
        "unknown key 'foo' (only keys starting with 'x-' may be added)",
        "max_tool_iterations must be between 1 and 1000, got 0",
        "uses must be a list of pack names, got web",
        "models.w.thinking must be one of off, low, medium, high, got none",
    ]


def test_parse_raises_the_first_error_with_its_location():
    with pytest.raises(ParseError) as info:
        parse_text(fm("max_tool_iterations: 2.5", "foo: 1"), "dir/p.md")
    e = info.value
    assert (e.kind, e.line, e.path) == ("Frontmatter", 5, "dir/p.md")
    assert str(e) == "dir/p.md:5: invalid frontmatter: max_tool_iterations must be a whole number, got 2.5"


# --- accepted values -------------------------------------------------------------


@pytest.mark.parametrize(
    "written, value",
    [("1", 1), ("1000", 1000), ("24", 24), ("+5", 5), ("010", 10), ("0x10", 16), ("0o17", 15)],
)
def test_max_tool_iterations_accepts_whole_numbers_1_through_1000(written, value):
    assert parse_text(fm(f"max_tool_iterations: {written}")).frontmatter.max_tool_iterations == value


def test_defaults():
    f = parse_text(fm()).frontmatter
    assert (f.name, f.description, f.runvil) == ("t", "A test prompt.", 0)
    assert (f.models, f.uses, f.max_tool_iterations, f.extra) == ({}, (), 24, {})


def test_x_keys_are_ignored_but_kept():
    f = parse_text(fm("x-author: me", "x-tags: [a, b]", "x-nested: {a: {b: 1}}")).frontmatter
    assert f.extra == {"x-author": "me", "x-tags": ["a", "b"], "x-nested": {"a": {"b": 1}}}


def test_models_and_their_options():
    text = fm(
        "models:",
        "  writer: {}",
        "  quick:",
        "  reviewer:",
        "    model: openai/gpt-4o-mini",
        "    temperature: 0.2",
        "    top_p: 1",
        "    max_tokens: 400",
        "    thinking: off",
        "    context: 8192",
    )
    models = parse_text(text).frontmatter.models
    assert list(models) == ["writer", "quick", "reviewer"]
    assert models["writer"] == RoleOptions() == models["quick"]
    assert models["reviewer"] == RoleOptions("openai/gpt-4o-mini", 0.2, 1, 400, "off", 8192)


@pytest.mark.parametrize("level", ["off", "low", "medium", "high"])
def test_thinking_levels(level):
    assert parse_text(fm(f"models: {{w: {{thinking: {level}}}}}")).frontmatter.models["w"].thinking == level


def test_empty_models_and_uses_mean_none():
    f = parse_text(fm("models:", "uses:")).frontmatter
    assert (f.models, f.uses) == ({}, ())


def test_uses_lists_packs_in_order():
    assert parse_text(fm("uses: [web, files]")).frontmatter.uses == ("web", "files")


@pytest.mark.parametrize("name", ["t", "first-chat", "a1-b2", "42"])
def test_name_lowercase_letters_digits_and_dashes(name):
    text = fm(f"name: '{name}'", "description: d", "runvil: 0", base=False)
    assert parse_text(text).frontmatter.name == name


def test_yaml_1_2_core_schema_words_are_strings():
    """`description: No` and `name: yes` are text, as a reader sees them."""
    text = fm("name: yes", "description: No", "runvil: 0", base=False)
    f = parse_text(text).frontmatter
    assert (f.name, f.description) == ("yes", "No")


def test_windows_newlines_and_bom():
    text = "\ufeff" + fm("max_tool_iterations: 0").replace("\n", "\r\n")
    assert [(e.message, e.line) for e in check_text(text)] == [
        (FM + "max_tool_iterations must be between 1 and 1000, got 0", 5)
    ]


# ------------------------------------------- any number, through the CLI: a named error, never `internal error`

NUMBERS = ["0x" + "f" * 400, "9" * 400, "-" + "9" * 400, "-1", "-0", "0", ".nan", ".inf", "-.inf", "0x1f", "0o17",
           "1_000", "1e999", "-1e999", "1e-400", "2.5", "+5", "00012", "9" * 4300]


@pytest.mark.parametrize("option", ["temperature", "top_p", "max_tokens", "context"])
def test_no_number_in_a_role_option_is_an_internal_error(tmp_path, capsys, option):
    from runvil.host.cli import main

    for number in NUMBERS:
        p = tmp_path / "p.md"
        p.write_text("---\nname: t\ndescription: t\nrunvil: 0\n"
                     + f"models:\n  writer: {{{option}: {number}}}\n---\n\n# T\n\n## A\n\n```lua\n"
                     "models.use('writer')\nmessages:user('hi')\nmodels.loop()\nreturn 'done'\n```\n",
                     encoding="utf-8")
        for argv in (["check", str(p)], ["run", str(p)]):
            code = main(argv)
            err = capsys.readouterr().err
            assert code in (0, 3) and "internal error" not in err, (option, number, err)
            if code == 3:
                assert "p.md:6: invalid frontmatter: models.writer." in err, err


def test_a_hex_temperature_too_large_for_a_float_is_not_a_number(tmp_path):
    from runvil.prompt import check_file

    p = tmp_path / "p.md"
    p.write_text("---\nname: t\ndescription: t\nrunvil: 0\nmodels:\n  writer: {temperature: 0x" + "f" * 400
                 + "}\n---\n\n# T\n\n```lua\nreturn 'x'\n```\n", encoding="utf-8")
    (error,) = check_file(p)
    assert error.line == 6 and "models.writer.temperature must be a number, got 0xfff" in str(error)
