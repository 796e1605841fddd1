"""Prose in sections (docs/reference/prompt-file.md): which prose is filled,
how `{{...}}` reads JSON data, Engine objects and nil, the type names in
the Engine's refusals, and HTML comments (each case failed before its fix)."""

from __future__ import annotations

from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

from .prompts import head

HEAD = head()


def outcome(body: str, path: str = "t.md"):
    run = Run(parse_text(HEAD + body, path=path), bindings={"writer": ModelBinding("w")})
    effects = run.step()
    assert run.done, effects  # no model rounds in these cases
    return run.outcome


def result(body: str) -> str | None:
    out = outcome(body)
    assert out.ok, out.error
    return out.result


# --- §3: the H1 body's trailing prose is neither `prose` nor sent -----------


def test_h1_prose_without_blocks_is_not_filled():
    """Nothing reads H1 prose that no block follows: a reference in it (here
    an example for the reader) does not fail the run."""
    body = "\nThis prompt shows {{name}} filling.\n\n## A\n\n```lua\nreturn 'ok'\n```\n"
    assert result(body) == "ok"


def test_h1_trailing_prose_after_its_blocks_is_not_filled():
    body = "\n```lua\nvar.x = 1\n```\n\nNotes: {{missing}}\n\n## A\n\n```lua\nreturn 'ok'\n```\n"
    assert result(body) == "ok"


def test_h1_pending_prose_is_still_filled():
    body = "\nAbout {{missing}}\n\n```lua\nvar.x = 1\n```\n\n## A\n\n```lua\nreturn 'ok'\n```\n"
    out = outcome(body)
    assert not out.ok and out.error.kind == "Lua"
    assert out.error.message == "global `missing` is nil"


# --- §3: json.null is JSON data, inserted as null ---------------------------


def test_json_null_in_prose_is_null_not_nil():
    body = (
        "\n## A\n\n```lua\nn = json.null\nt = {a = json.null}\nvar.x = json.null\nvar.l = {json.null}\n```\n\n"
        "N={{n}} T={{t}} TA={{t.a}} VX={{var.x}} VL={{var.l}} VL1={{var.l.1}}\n\n"
        "```lua\nreturn prose\n```\n"
    )
    assert result(body) == 'N=null T={"a":null} TA=null VX=null VL=[null] VL1=null'


def test_nil_in_prose_still_fails():
    body = "\n## A\n\n```lua\nvar.x = 1\n```\n\nX={{var.y}}\n\n```lua\nreturn prose\n```\n"
    out = outcome(body)
    assert out.error.message == "global `var.y` is nil"


# --- §3: {{name.field}} reads an Engine object's fields as Lua does ---------


def test_prose_reads_fields_through_engine_objects():
    body = (
        "\n## A\n\n```lua\nmessages:user('hello'):assistant('hi')\nv = messages[2]\n"
        "local ok\nok, e = pcall(models.loop)\nh = models.get('some/model')\n```\n\n"
        "M={{messages.1.content}} V={{v.content}} E={{e.kind}} H={{h.name}}/{{h.context}}\n\n"
        "```lua\nreturn prose\n```\n"
    )
    assert result(body) == "M=hello V=hi E=missing_model H=some/model/8192"


def test_a_view_itself_is_still_refused_in_prose():
    body = "\n## A\n\n```lua\nmessages:user('hello')\n```\n\nX={{messages.1}}\n\n```lua\nreturn prose\n```\n"
    out = outcome(body)
    assert out.error.message == "global `messages.1` is a userdata; bare globals in prose must be JSON data"


def test_missing_record_in_prose_is_nil():
    body = "\n## A\n\n```lua\nmessages:user('hello')\n```\n\nX={{messages.2.content}}\n\n```lua\nreturn prose\n```\n"
    assert outcome(body).error.message == "global `messages.2.content` is nil"


# --- §12: type names in Engine messages --------------------------------------


def test_var_and_json_decode_name_integers_integer():
    body = "\n## A\n\n```lua\nlocal _, a = pcall(function() var[1] = 2 end)\nlocal _, b = pcall(json.decode, 5)\nreturn tostring(a) .. '|' .. tostring(b)\n```\n"
    assert result(body) == "var names must be strings, got integer|json.decode: the argument must be a string, got integer"


# --- §4 / §10: "got {type}" is the Lua type alone ----------------------------


def test_refusals_name_the_lua_type_only():
    body = (
        "\n## A\n\n```lua\nlocal out = {}\n"
        "for _, f in ipairs({function() var.n = 0/0 end, function() var.m = {1, x = 2} end,\n"
        "  function() return json.encode({a = {[1] = 1, [3] = 3}}) end, function() return json.encode(math.huge) end}) do\n"
        "  local _, e = pcall(f)\n  out[#out + 1] = tostring(e)\nend\nreturn table.concat(out, '|')\n```\n"
    )
    assert result(body) == (
        "var.n must be JSON data, got number|var.m must be JSON data, got table|"
        "json.encode: value.a must be JSON data, got table|json.encode: value must be JSON data, got number"
    )


# --- HTML comments in prose are invisible, as in Markdown -------------------


def test_comments_are_dropped_from_prose():
    body = ("\n## A\n\n<!-- a note for authors: {{missing}} -->\nSay <!-- inline -->hi.\n<!--\n## Old\nold text\n-->\n\n"
            "```lua\nreturn prose\n```\n")
    assert result(body) == "Say hi."


def test_a_section_of_only_comments_sends_nothing():
    body = "\n## A\n\n```lua\nvar.x = 1\n```\n\n<!-- nothing to send -->\n"
    assert result(body) is None
