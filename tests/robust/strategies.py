"""Hypothesis strategies for hostile inputs: prompt files, scripted worlds,
provider replies and Lua programs. Each mixes the known hostile pieces of
inputs.py with generated ones, so a run finds both old classes and new."""

from __future__ import annotations

import json

import yaml
from hypothesis import strategies as st

from .inputs import FRONTMATTER, LUA, PROSE, prompt, section

# ------------------------------------------------------------------ text

#: characters that trouble parsers: controls, quotes, YAML and Markdown
#: syntax, a BOM, lone surrogates, non-ASCII
NASTY = st.sampled_from(list("\x00\x01\x07\x1b\t\r\n\"'`\\{}[]:#&*!|>-~%@,?<") +
                        ["\ufeff", "\ud800", "\udfff", "é", "\u2028", "---", "```", "{{", "}}", "## ", "]]"])
PIECE = st.one_of(st.characters(codec="utf-8"), st.characters(categories=["Cs", "Cc"]), NASTY)
TEXT = st.lists(PIECE, max_size=30).map("".join)
SHORT_TEXT = st.lists(PIECE, max_size=8).map("".join)

# ------------------------------------------------------------------ Lua

NUMERALS = st.one_of(
    st.integers(-2**70, 2**70).map(str),
    st.sampled_from(["0x7fffffffffffffff", "0xffffffffffffffffff", "1e308", "1e309", "0x1p-1074", "0x1p99999",
                     "9" * 400, "0.5", "3e-400", "0x.8p1", "-0"]),
)


def lua_string(text: str) -> str:
    """A Lua string literal for any text (escapes as \\u{XXXX})."""
    return "'" + "".join(c if " " <= c <= "~" and c not in "'\\" else f"\\u{{{ord(c):X}}}" for c in text) + "'"


STRINGS = st.one_of(
    SHORT_TEXT.map(lua_string),
    st.sampled_from(["'\\255\\0'", "'%b()'", "'\\u{10FFFF}'", "[[a]]", "[==[x]]==]", "'%'", "'(('"]),
)
CALLEES = st.sampled_from([
    "tostring", "tonumber", "type", "select", "rawlen", "rawequal", "next", "pcall", "error", "assert",
    "string.rep", "string.format", "string.byte", "string.char", "string.find", "string.gsub", "string.sub",
    "table.concat", "table.unpack", "math.floor", "math.tointeger", "utf8.char", "utf8.len", "json.encode",
    "json.decode", "setmetatable", "getmetatable", "ipairs", "pairs", "coroutine.wrap", "require",
])
BINOPS = st.sampled_from(["+", "-", "*", "/", "//", "%", "^", "..", "==", "<", "<=", "and", "or", "&", "|", "<<", ">>"])


def _expr(children):
    return st.one_of(
        st.tuples(children, BINOPS, children).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(CALLEES, st.lists(children, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.lists(children, max_size=3).map(lambda xs: "{" + ", ".join(xs) + "}"),
        children.map(lambda e: f"(function(...) return {e} end)(1, nil)"),
        children.map(lambda e: f"#{e}"),
        children.map(lambda e: f"-{e}"),
        children.map(lambda e: f"not {e}"),
    )


EXPR = st.recursive(st.one_of(NUMERALS, STRINGS, st.sampled_from(["nil", "true", "x", "...", "_G", "{}"])),
                    _expr, max_leaves=8)
STATEMENT = st.one_of(
    EXPR.map(lambda e: f"x = {e}"),
    EXPR.map(lambda e: f"local ok, err = pcall(function() return {e} end)"),
    st.tuples(EXPR, st.integers(0, 50)).map(lambda t: f"for i = 1, {t[1]} do x = {t[0]} end"),
    EXPR.map(lambda e: f"if {e} then x = 1 else x = 2 end"),
    EXPR.map(lambda e: f"print({e})"),
)
#: a Lua program that always ends: no unbounded loop or recursion
LUA_PROGRAM = st.lists(STATEMENT, min_size=1, max_size=5).map(lambda ss: "\n".join(["local x", *ss, "return x"]))

#: Engine calls with hostile arguments (prompt blocks only)
ENGINE_CALL = st.tuples(st.sampled_from([
    "messages:user({e})", "messages:system({e})", "messages:append({e})", "messages:replace(1, 1, {e})",
    "var.v = {e}", "local v = var[{e}]", "json.decode({e})", "json.encode({e})", "models.use({e})",
    "models.infer({e})", "tools.offer_local({e}, 'd', {{}}, function() return 1 end)", "tools.offer({e})",
    "jump({e})", "tasks.spawn({e})", "tasks.await({e})", "require({e})", "local m = messages[{e}]",
    "x = tostring(messages[1] and messages[1][{e}])", "models.loop({e})", "prose = {e}",
]), EXPR, st.booleans()).map(lambda t: f"pcall(function() {t[0].format(e=t[1])} end)" if t[2] else t[0].format(e=t[1]))
ENGINE_PROGRAM = st.lists(st.one_of(ENGINE_CALL, STATEMENT), min_size=1, max_size=5).map(
    lambda ss: "\n".join(["local x", "models.use('writer')", *ss, "return x"]))

# ------------------------------------------------------------------ prompts

FRONTMATTER_LINES = st.one_of(
    st.sampled_from(list(FRONTMATTER.values())),
    st.lists(TEXT.map(lambda t: t.replace("\n", " ")), max_size=3),
    st.tuples(st.sampled_from(["x-a", "models", "uses", "max_tool_iterations", "name", "~", "[1]"]), TEXT).map(
        lambda t: [f"{t[0]}: {json.dumps(t[1])}"]),
)
LUA_BLOCK = st.one_of(st.sampled_from(list(LUA.values())), LUA_PROGRAM, ENGINE_PROGRAM)
PROSE_TEXT = st.one_of(st.sampled_from(PROSE), TEXT)


@st.composite
def prompt_files(draw) -> str:
    """A prompt file: hostile frontmatter lines, sections of hostile prose
    and Lua, sometimes cut short or salted with stray text."""
    lines = [line for chunk in draw(st.lists(FRONTMATTER_LINES, max_size=2)) for line in chunk]
    names = draw(st.lists(st.one_of(st.just("A"), SHORT_TEXT.map(lambda s: s.replace("\n", ""))), min_size=1,
                          max_size=3))
    body = "# T\n" + "".join(section(n or "A", draw(LUA_BLOCK), draw(PROSE_TEXT)) for n in names)
    text = prompt(lines, body)
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(text)))
        text = text[:cut] + draw(TEXT) + text[cut:] if draw(st.booleans()) else text[:cut]
    return text


# ------------------------------------------------------------------ worlds

YAML_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-2**80, 2**80), st.floats(allow_nan=True, allow_infinity=True), TEXT,
)
YAML_DATA = st.recursive(
    YAML_SCALARS,
    lambda kids: st.one_of(st.lists(kids, max_size=3),
                           st.dictionaries(st.one_of(SHORT_TEXT, st.integers(-3, 3), st.none()), kids, max_size=3)),
    max_leaves=10,
)
CALL = st.fixed_dictionaries({}, optional={"id": YAML_DATA, "name": st.one_of(st.just("f"), YAML_DATA),
                                           "arguments": YAML_DATA})
REPLY = st.fixed_dictionaries({}, optional={
    "text": YAML_DATA, "tool_calls": st.one_of(st.lists(CALL, max_size=2), YAML_DATA),
    "finish_reason": YAML_DATA, "usage": YAML_DATA, "fragments": YAML_DATA, "reasoning": YAML_DATA,
    "error": st.one_of(YAML_DATA, st.fixed_dictionaries({"status": YAML_DATA, "body": YAML_DATA})),
    "model": YAML_DATA, "stream_error": YAML_DATA,
})
WORLD = st.fixed_dictionaries({}, optional={
    "input": YAML_DATA, "replies": st.one_of(st.lists(REPLY, max_size=3), YAML_DATA),
    "models": st.one_of(st.dictionaries(st.just("writer"), YAML_DATA, max_size=1), YAML_DATA),
    "tools": st.one_of(st.dictionaries(st.sampled_from(["f", "web/search"]), st.lists(YAML_DATA, max_size=2)),
                       YAML_DATA),
})


def world_text(data) -> str:
    """The world as YAML text (PyYAML writes NaN as .nan, escapes what it
    must); a world PyYAML cannot write is written as JSON-ish text."""
    try:
        return yaml.dump(data, allow_unicode=False, default_flow_style=None)
    except yaml.YAMLError:
        return json.dumps(data, default=str)


# ------------------------------------------------------------------ provider replies

JSON_DATA = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False), TEXT),
    lambda kids: st.one_of(st.lists(kids, max_size=3), st.dictionaries(SHORT_TEXT, kids, max_size=3)),
    max_leaves=10,
)
#: stands for an argument text nested 150,000 deep (kept out of the example
#: hypothesis prints on a failure)
DEEP = "<deep>"
TOOL_CALL = st.fixed_dictionaries({"id": st.one_of(st.just("c1"), JSON_DATA), "type": st.just("function"),
                                   "function": st.fixed_dictionaries({
                                       "name": st.one_of(st.just("f"), JSON_DATA),
                                       "arguments": st.one_of(
                                           st.sampled_from(['{"x": NaN}', '{"x": Infinity}', "{", "[1]", "null",
                                                            DEEP, '{"a": "\\ud800"}']),
                                           JSON_DATA.map(json.dumps), JSON_DATA)})})
MESSAGE = st.fixed_dictionaries({}, optional={"role": st.one_of(st.just("assistant"), JSON_DATA),
                                              "content": st.one_of(TEXT, JSON_DATA),
                                              "tool_calls": st.one_of(st.lists(TOOL_CALL, max_size=2), JSON_DATA)})
COMPLETION = st.fixed_dictionaries({"choices": st.one_of(
    st.lists(st.fixed_dictionaries({"message": MESSAGE, "finish_reason": st.one_of(st.just("stop"), JSON_DATA)}),
             max_size=2), JSON_DATA)}, optional={"usage": JSON_DATA, "model": JSON_DATA})
CHUNK = st.one_of(COMPLETION, JSON_DATA.map(lambda d: {"choices": [{"delta": d}]}),
                  st.sampled_from(["data: {", "data: [[[[[[", ": comment", "event: x"]))
RAW = st.one_of(TEXT, st.sampled_from([DEEP, '{"choices": NaN}', "{" * 10,
                                       '{"choices": [{"message": {"content": "\\ud800"}}]}']))

#: a reply of a loopback Chat Completions server, as a compact spec (see
#: `reply_of`): a completion with hostile fields, a stream of hostile
#: chunks, an error status, or raw text (deeply nested, invalid JSON, NaN)
PROVIDER_REPLY = st.one_of(
    st.tuples(st.just("json"), COMPLETION),
    st.tuples(st.just("stream"), st.lists(CHUNK, max_size=4), st.booleans()),
    st.tuples(st.just("error"), st.sampled_from([400, 401, 404, 413, 429, 500, 503]), st.one_of(TEXT, JSON_DATA)),
    st.tuples(st.just("raw"), RAW, st.sampled_from(["application/json", "text/html", None])),
)


def _sendable(text: str) -> str:
    """Text the test server can send (it writes bodies as UTF-8), with the
    deep stand-in expanded."""
    deep = json.dumps("[" * 150_000 + "]" * 150_000)
    return text.encode("utf-8", "replace").decode("utf-8").replace(json.dumps(DEEP), deep).replace(DEEP, deep[1:-1])


def reply_of(spec):
    """The chat_server Reply for a PROVIDER_REPLY spec."""
    from tests.harness.chat_server import Reply, error, stream

    kind = spec[0]
    if kind == "json":
        return Reply(body=_sendable(json.dumps(spec[1])), content_type="application/json")
    if kind == "stream":
        return stream(*[json.loads(_sendable(json.dumps(c))) if isinstance(c, dict) else c for c in spec[1]],
                      done=spec[2])
    if kind == "error":
        body = spec[2]
        return error(spec[1], _sendable(body if isinstance(body, str) else json.dumps(body)))
    return Reply(body=_sendable(spec[1]), content_type=spec[2])
