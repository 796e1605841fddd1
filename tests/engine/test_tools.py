"""Tools (docs/reference/tools.md): offers, the rendered list, bound and local
calls, failures as untrusted text, tools.call, scope."""

from __future__ import annotations

import re

from runvil.engine.effects import ModelReply, ToolCall, ToolFailure, ToolResult
from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

from .prompts import head

HEAD = head(uses=("web",)) + "\n## A\n\n```lua\n"

PACKS = {"web": {"search": {"description": "Search.", "parameters": {"type": "object"}},
                 "fetch": {"description": "Fetch.", "parameters": {"type": "object"}}}}


def run_block(lua, replies=(), tools=None):
    run = Run(parse_text(HEAD + lua.strip("\n") + "\n```\n", path="t.md"), bindings={"writer": ModelBinding("w")},
              packs=PACKS)
    replies, tools = list(replies), dict(tools or {})
    rounds, calls = [], []
    while True:
        effects = run.step()
        if run.done:
            out = run.outcome
            return (out.result if out.ok else f"error[{out.error.kind}]: {out.error.message}"), rounds, calls
        answers = {}
        for e in effects:
            if isinstance(e, ToolCall):
                calls.append(e)
                answers[e.id] = tools[e.name].pop(0)
            else:
                rounds.append(e)
                answers[e.id] = replies.pop(0)
        run.resume(answers)


def call(cid, name, **args):
    return {"id": cid, "name": name, "arguments": args}


def test_bound_tools_and_a_failure_as_untrusted_text():
    lua = """
models.use('writer')
tools.offer('web/search')
messages:user('go')
models.loop()
return messages[3].content .. '|' .. messages[4].content .. '|' .. messages[5].content
"""
    replies = [ModelReply(text="", tool_calls=(call("c1", "web_search", q="a"), call("c2", "web_search", q="b"))),
               ModelReply(text="done")]
    tools = {"web/search": [ToolResult("r1"), ToolFailure("backend down")]}
    got, rounds, calls = run_block(lua, replies, tools)
    first, second, last = got.split("|")
    assert first == "r1" and last == "done"
    m = re.fullmatch(r"<untrusted_input_([0-9a-f]{16})>backend down</untrusted_input_\1>", second)
    assert m, second
    assert [c.name for c in calls] == ["web/search", "web/search"] and calls[0].arguments == {"q": "a"}
    assert [t["name"] for t in rounds[0].tools] == ["web_search"]


def test_packs_offer_and_local_tools_in_one_round():
    lua = """
models.use('writer')
packs.offer('web')
tools.offer_local('shout', 'Shouts.', { type = 'object' }, function(args) return args.text:upper() end)
messages:user('go')
models.loop()
local out = {}
for i = 1, #messages do out[i] = messages[i].role .. ':' .. messages[i].content end
return table.concat(out, ' ')
"""
    replies = [ModelReply(text="", tool_calls=(call("c1", "web_fetch", url="u"), call("c2", "shout", text="hi"))),
               ModelReply(text="ok")]
    got, rounds, _ = run_block(lua, replies, {"web/fetch": [ToolResult("page")]})
    assert got == "user:go assistant: tool:page tool:HI assistant:ok"
    assert [t["name"] for t in rounds[0].tools] == ["web_search", "web_fetch", "shout"]


def test_offers_are_refused_after_the_first_round():
    lua = """
models.use('writer')
messages:user('go')
models.loop()
local ok, e = pcall(tools.offer, 'web/search')
return tostring(e)
"""
    got, _, _ = run_block(lua, [ModelReply(text="x")])
    assert got == "tools.offer: the section's tool list was rendered at its first loop round; offer tools before it"


def test_offer_errors():
    lua = "local a = select(2, pcall(tools.offer, 'files/read'))\nlocal b = select(2, pcall(tools.offer, 'web/nope'))\nreturn tostring(a) .. '|' .. tostring(b)"
    got, _, _ = run_block(lua)
    assert got == ("tools.offer: pack 'files' is not listed in the frontmatter's uses|"
                   "tools.offer: pack 'web' has no tool 'nope' (its tools: search, fetch)")


def test_out_of_scope_call_appends_nothing():
    lua = """
models.use('writer')
messages:user('go')
local ok, e = pcall(models.loop)
return e.kind .. '|' .. e.name .. '|' .. #messages
"""
    got, _, _ = run_block(lua, [ModelReply(text="", tool_calls=(call("c1", "task"),))])
    assert got == "out_of_scope_tool|task|1"


def test_a_raising_local_handler_ends_the_loop_and_appends_nothing():
    lua = """
models.use('writer')
tools.offer_local('bad', 'Fails.', {}, function() error('handler broke', 0) end)
messages:user('go')
local ok, e = pcall(models.loop)
return tostring(e) .. '|' .. #messages
"""
    got, _, _ = run_block(lua, [ModelReply(text="", tool_calls=(call("c1", "bad"),))])
    assert got == "handler broke|1"


def test_a_loop_inside_a_handler_is_refused_but_infer_works():
    lua = """
models.use('writer')
tools.offer_local('nested', 'Starts another loop', {}, function()
  local ok, err = pcall(models.loop)
  return tostring(err) .. ' / ' .. models.infer('side question')
end)
messages:user('Call the nested tool once, then answer done.')
models.loop()
return messages[3].content
"""
    replies = [ModelReply(text="", tool_calls=(call("c1", "nested"),)), ModelReply(text="side answer"),
               ModelReply(text="done")]
    got, _, _ = run_block(lua, replies)
    assert got == ("a loop or a compactor is already running in this section; ask a side question with"
                   " models.infer(prompt) / side answer")


def test_round_cap():
    head_cap = HEAD.replace("uses: [web]", "uses: [web]\nmax_tool_iterations: 2")
    lua = """
models.use('writer')
tools.offer('web/search')
messages:user('go')
local ok, e = pcall(models.loop)
return e.kind .. '|' .. tostring(e) .. '|' .. #messages
"""
    run = Run(parse_text(head_cap + lua.strip("\n") + "\n```\n", path="t.md"), bindings={"writer": ModelBinding("w")},
              packs=PACKS)
    n = 0
    while not run.done:
        answers = {}
        for e in run.step():
            if isinstance(e, ToolCall):
                answers[e.id] = ToolResult("r")
            else:
                n += 1
                answers[e.id] = ModelReply(text="", tool_calls=(call(f"c{n}", "web_search"),))
        if answers:
            run.resume(answers)
    assert run.outcome.result == "tool_loop_exhausted|tool-call loop did not converge|5"
    assert n == 2


def test_tools_call_from_lua():
    lua = "return tools.call('web/search', { query = 'x' })"
    got, _, calls = run_block(lua, tools={"web/search": [ToolResult("found")]})
    assert got == "found" and calls[0].arguments == {"query": "x"}


def test_tools_call_reports_its_calls_as_events():
    lua = """
local found = tools.call('web/search', { query = 'x' })
local ok = pcall(tools.call, 'web/search', { query = 'y' })
return found .. '|' .. tostring(ok)
"""
    run = Run(parse_text(HEAD + lua.strip("\n") + "\n```\n", path="t.md"), bindings={"writer": ModelBinding("w")},
              packs=PACKS)
    answers = iter([ToolResult("found"), ToolFailure("backend down")])
    while not run.done:
        effects = run.step()
        run.resume({e.id: next(answers) for e in effects})
    assert run.outcome.result == "found|false"
    events = [(e.type, e.data["name"], e.data.get("message")) for e in run.events.events if e.type.startswith("tool_call")]
    assert events == [("tool_call_succeeded", "web/search", None), ("tool_call_failed", "web/search", "backend down")]


def test_a_bound_tool_name_is_quoted_as_written_not_as_a_python_repr():
    got, _, _ = run_block("""
local _, a = pcall(tools.offer, "it's")
local _, b = pcall(tools.call, 'a/b/c', {})
return tostring(a) .. '|' .. tostring(b)
""")
    assert got == ("tools.offer: a bound tool is named 'pack/tool', got 'it's'"
                   "|tools.call: a bound tool is named 'pack/tool', got 'a/b/c'")
