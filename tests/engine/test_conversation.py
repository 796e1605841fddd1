"""Examples of the specification's conversations chapter, run through the Engine: each block and the
result the chapter states for it."""

from __future__ import annotations

import pytest

from runvil.engine.effects import ModelReply
from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

from .prompts import head

HEAD = head() + "\n## Build\n\n```lua\n"


def run_block(lua: str, replies=(), context: int = 8192):
    prompt = parse_text(HEAD + lua.strip("\n") + "\n```\n", path="t.md")
    run = Run(prompt, bindings={"writer": ModelBinding("w", context=context)})
    replies = list(replies)
    requests = []
    while True:
        effects = run.step()
        if run.done:
            break
        answers = {}
        for e in effects:
            requests.append(e)
            answers[e.id] = replies.pop(0)
        run.resume(answers)
    out = run.outcome
    return (out.result if out.ok else f"error[{out.error.kind}]: {out.error.message}"), requests


def result(lua: str, replies=(), **kw) -> str:
    return run_block(lua, replies, **kw)[0]


# ----------------------------------------------------------- message records


def test_records_one_per_role():
    lua = """
messages:append({ role = 'system', content = 'be terse' })
messages:append({ role = 'user', content = 'say hi' })
messages:append({
  role = 'assistant',
  content = 'working',
  tool_calls = { { id = 'call_1', name = 'web_search', arguments = { query = 'hi' } } },
})
messages:append({ role = 'tool', content = 'three results for hi', tool_call_id = 'call_1' })
return #messages .. '|' .. messages[1].role .. '|' .. messages[4].tool_call_id
"""
    assert result(lua) == "4|system|call_1"


def test_content_parts():
    lua = """
messages:user({
  { type = 'text', text = 'look' },
  { type = 'image_url', image_url = { url = 'data:image/png;base64,AA==' } },
})
local content = messages[1].content
return type(content) .. '|' .. #content .. '|' .. content[1].text
"""
    assert result(lua) == "table|2|look"


def test_tool_calls_fields():
    lua = """
messages:append({ role = 'user', content = 'What is the weather in Paris, and the time?' })
messages:append({
  role = 'assistant',
  content = 'Let me check both.',
  tool_calls = {
    { id = 'call_1', name = 'weather', arguments = { city = 'Paris' } },
    { id = 'call_2', name = 'clock' },
  },
})
local calls = messages[2].tool_calls
return #calls .. '|' .. calls[1].id .. '|' .. calls[2].name .. '|' .. type(calls[2].arguments)
"""
    assert result(lua) == "2|call_1|clock|table"


def test_meta():
    lua = """
messages:user('hi', { source = 'form', id = 7 })
messages:append({ role = 'assistant', content = 'hello', meta = { draft = true } })
messages:user('more', json.null)
return messages[1].meta.source .. '|' .. tostring(messages[2].meta.draft) .. '|' .. tostring(messages[3].meta)
"""
    assert result(lua) == "form|true|nil"


def test_meta_too_large():
    lua = "local ok, e = pcall(function() messages:user('hi', string.rep('x', 9000)) end) return tostring(e) .. '|' .. #messages"
    assert result(lua) == "messages[1] meta is 9002 bytes as JSON; the limit is 8192 bytes|0"


def test_dropped_fields():
    lua = """
messages:user('u1'):append({ role = 'user', content = 'u2', extra = 1 })
return tostring(messages[2].extra) .. '|' .. messages[2].content
"""
    assert result(lua) == "nil|u2"


def test_builders_chain():
    lua = """
local same = messages:system('be terse')
  :user('hi')
  :assistant('working', { { id = 'call_1', name = 'web_search', arguments = { query = 'hi' } } })
  :tool('three results for hi', 'call_1')
  :assistant('done')
  :append({ role = 'user', content = 'thanks' })
return tostring(same == messages) .. '|' .. #messages .. '|' .. messages[6].content
"""
    assert result(lua) == "true|6|thanks"


def test_system_first():
    lua = """
messages:system('s1'):system('s2'):user('u')
local ok, err = pcall(function() messages:system('late') end)
return tostring(ok) .. '|' .. err.kind .. '|' .. #messages .. '|' .. tostring(err)
"""
    assert result(lua) == (
        "false|lua|3|messages[4] is a system message after a non-system message; system messages lead the list,"
        " and only a compactor can change the leading block"
    )


@pytest.mark.parametrize(
    "call, message",
    [
        ("messages:append(function() end)", "messages[2] must be a JSON-representable message table: unsupported value type `function`"),
        ("messages:assistant('x', { { id = 'c', name = 'n', arguments = { f = print } } })",
         "messages[2] tool_calls must be JSON-representable: unsupported value type `function`"),
        ("messages:tool('x', print)", "messages[2] tool_call_id must be JSON-representable: unsupported value type `function`"),
        ("messages:user(print)", "messages[2] content must be JSON-representable: unsupported value type `function`"),
        ("messages:user('x', print)", "messages[2] meta must be JSON-representable: unsupported value type `function`"),
        ("messages:append('x')", "messages[2] must be a message table"),
        ("messages:append({ content = 'x' })", "messages[2] role must be a string, one of: system, user, assistant, tool"),
        ("messages:append({ role = 'bot', content = 'x' })",
         'messages[2] role "bot" is unknown; known roles: system, user, assistant, tool'),
        ("messages:user()", "messages[2] content must be a string or a non-empty array of content parts"),
        ("messages:user(5)", "messages[2] content must be a string or a non-empty array of content parts"),
        ("messages:user({ 'x' })", "messages[2] content part 1 must be a table with a string type field"),
        ("messages:user({ { type = 'text', text = 'a' }, { type = 'audio' } })",
         'messages[2] content part 2 has unknown type "audio"; known types: text, image_url'),
        ("messages:user({ { type = 'text' } })", "messages[2] content part 1 is a text part and must set a string text field"),
        ("messages:user({ { type = 'image_url', image_url = { alt = 'x' } } })",
         "messages[2] content part 1 is an image_url part and must set an image_url table with a string url field"),
        ("messages:append({ role = 'user', content = 'x', tool_call_id = 5 })", "messages[2] tool_call_id must be a string"),
        ("messages:tool('x')", "messages[2] is a tool message and must set a string tool_call_id"),
        ("messages:append({ role = 'user', content = 'x', tool_call_id = 'c' })",
         "messages[2] sets a tool_call_id but is not a tool message"),
        ("messages:assistant('x', { id = 'c', name = 'n' })", "messages[2] tool_calls must be an array"),
        ("messages:assistant('x', { 'c' })", "messages[2] tool_calls[1] must be a table"),
        ("messages:assistant('x', { { name = 'n' } })", "messages[2] tool_calls[1] must set a string id"),
        ("messages:assistant('x', { { id = 'c' } })", "messages[2] tool_calls[1] must set a string name"),
        ("messages:assistant('x', { { id = 'c', name = 'n', arguments = 'q' } })",
         "messages[2] tool_calls[1] arguments must be a table"),
    ],
)
def test_record_errors(call, message):
    lua = f"messages:user('first')\nlocal ok, e = pcall(function() {call} end)\nreturn e.kind .. '|' .. tostring(e) .. '|' .. #messages"
    assert result(lua) == f"lua|{message}|1"


# ----------------------------------------------------------- reading records


def test_read_records():
    lua = """
messages:user('u1'):assistant('a1'):user('u2')
local seen = {}
for i, record in pairs(messages) do
  seen[#seen + 1] = i .. ':' .. record.role .. ':' .. record.content
end
return #messages .. '|' .. messages[#messages].content .. '|' .. table.concat(seen, ' ')
"""
    assert result(lua) == "3|u2|1:user:u1 2:assistant:a1 3:user:u2"


def test_positions_outside_the_list():
    lua = """
messages:user('u1'):assistant('a1')
return tostring(messages[0]) .. '|' .. tostring(messages[-1]) .. '|' .. tostring(messages[3]) .. '|' .. tostring(messages[1.5]) .. '|' .. messages[2.0].content
"""
    assert result(lua) == "nil|nil|nil|nil|a1"


def test_pairs_stops_at_the_starting_count():
    lua = """
messages:user('u1'):assistant('a1'):user('u2')
local n = 0
for _ in pairs(messages) do
  n = n + 1
  messages:user('x')
end
return n .. '|' .. #messages
"""
    assert result(lua) == "3|6"


def test_views_are_read_only_and_fresh():
    lua = """
messages:user('say hi')
  :assistant('working', { { id = 'call_1', name = 'web_search', arguments = { query = 'hi' } } })
local view = messages[2]
local calls = view.tool_calls
calls[1].arguments.query = 'changed'
return type(view) .. '|' .. view.tool_calls[1].arguments.query .. '|' .. tostring(view.tool_calls == view.tool_calls)
"""
    assert result(lua) == "userdata|hi|false"


def test_pairs_of_a_view():
    lua = """
messages:user('say hi')
  :assistant('working', { { id = 'call_1', name = 'web_search' } })
  :tool('three results', 'call_1', { source = 'search' })
local function fields(view)
  local keys = {}
  for key in pairs(view) do keys[#keys + 1] = key end
  return table.concat(keys, ',')
end
return fields(messages[2]) .. '|' .. fields(messages[3])
"""
    assert result(lua) == "role,content,tool_calls|role,content,tool_call_id,meta"


def test_assignments_are_refused():
    lua = """
messages:user('u')
local a = select(2, pcall(function() messages = {} end))
local b = select(2, pcall(function() messages[1] = nil end))
local c = select(2, pcall(function() messages[1].content = 'x' end))
return tostring(a) .. '|' .. tostring(b) .. '|' .. tostring(c) .. '|' .. #messages .. '|' .. type(messages)
"""
    assert result(lua) == (
        "messages is the section's conversation and cannot be reassigned; add records with append(record),"
        " or rewrite history with models.compact(compactor, reason)|"
        "messages cannot be assigned to by index; add records with append(record),"
        " or rewrite history with models.compact(compactor, reason)|"
        "records read from messages are read-only; rewrite history with models.compact(compactor, reason)|1|userdata"
    )


# ---------------------------------------------------------------- replace


EDIT = """
messages:user('u1')
messages:append({ role = 'assistant', content = 'a1' })
messages:user('u2')
messages:append({ role = 'assistant', content = 'a2' })
models.compact(function(reason)
  %s
end, 'rewrite the second question')
local out = {}
for i = 1, #messages do out[i] = messages[i].content end
return table.concat(out, ' ')
"""


@pytest.mark.parametrize(
    "edit, expected",
    [
        ("messages:replace(3, 3, { role = 'user', content = 'u2b' })", "u1 a1 u2b a2"),
        ("messages:replace(2, 3)", "u1 a2"),
        ("messages:replace(3, 2, { role = 'user', content = 'mid' })", "u1 a1 mid u2 a2"),
        ("messages:replace(1, #messages, { role = 'system', content = 's' }, { role = 'user', content = 'summary' })",
         "s summary"),
        ("messages:replace(#messages + 1, #messages, { role = 'user', content = 'end' })", "u1 a1 u2 a2 end"),
        ("messages:replace(2.0, 4.0)", "u1"),
    ],
)
def test_replace(edit, expected):
    assert result(EDIT % edit) == expected


@pytest.mark.parametrize(
    "edit, message",
    [
        ("messages:replace(2, 5)", "replace(2, 5) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5"),
        ("messages:replace(0, 0)", "replace(0, 0) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5"),
        ("messages:replace(-1, 0)", "replace(-1, 0) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5"),
        ("messages:replace(3, 1)", "replace(3, 1) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5"),
        ("messages:replace(6, 5)", "replace(6, 5) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5"),
        ("messages:replace(1.5, 2)", "replace first must be an integer, got 1.5"),
        ("messages:replace('2', 3)", "replace first must be an integer, got string"),
        ("messages:replace(2)", "replace last must be an integer, got nil"),
        ("messages:replace(1, 1, { role = 'user', content = 'ok' }, { role = 'user' })",
         "messages[2] content must be a string or a non-empty array of content parts"),
        ("messages:replace(4, 3, { role = 'system', content = 'late' })",
         "messages[4] is a system message after a non-system message; system messages lead the list,"
         " and only a compactor can change the leading block"),
    ],
)
def test_replace_refusals_leave_the_list(edit, message):
    lua = EDIT % f"local ok, e = pcall(function() {edit} end) error(e)"
    got = result(lua)
    assert got.startswith("error[Lua]: ") and got.endswith(message)


def test_replace_outside_a_compactor():
    lua = "messages:user('u') local ok, e = pcall(function() messages:replace(1, 1) end) return tostring(e)"
    assert result(lua) == "replace works only inside a compactor; rewrite history with models.compact(compactor, reason)"


# ------------------------------------------------------------- compaction


@pytest.mark.parametrize(
    "call, message",
    [
        ("models.compact(compactors.clear, 'a', 'b')", "models.compact takes (compactor, reason)"),
        ("models.compact(nil, 'why')", "compactor must be a function, got nil"),
        ("models.compact(3, 'why')", "compactor must be a function, got integer"),
        ("models.compact(compactors.clear)", "reason must be a string, got nil"),
        ("models.compact(compactors.clear, 2.5)", "reason must be a string, got number"),
        ("compactors.clear('x')",
         "compactors.clear works only inside a compactor; empty messages with models.compact(compactors.clear, reason)"),
        ("models.compact(function() models.compact(compactors.clear, 'x') end, 'y')",
         "models.compact cannot start while a loop or a compactor is running in this section"),
    ],
)
def test_compact_refusals(call, message):
    lua = f"messages:user('u')\nlocal ok, e = pcall(function() {call} end)\nreturn tostring(e) .. '|' .. #messages"
    assert result(lua) == f"{message}|1"


def test_compactors_fail_and_clear():
    lua = """
local ok, e = pcall(compactors.fail, 'the notes are too long')
local a = e.kind .. ':' .. e.reason .. ':' .. tostring(e)
local ok2, e2 = pcall(compactors.fail, 'precheck')
messages:user('x'):user('y')
models.compact(compactors.clear, 'new topic')
return a .. '|' .. tostring(e2) .. '|' .. #messages
"""
    assert result(lua) == (
        "context_exhausted:the notes are too long:context exhausted: the notes are too long|"
        "context exhausted: the request precheck overflowed the model's context window|0"
    )


def test_a_failed_compaction_restores_the_records():
    lua = """
messages:user(string.rep('x', 100))
local ok, err = pcall(models.compact, function(reason)
  messages:replace(1, 1, { role = 'user', content = 'short' })
  error('gave up', 0)
end, 'why')
return tostring(err) .. '|' .. #messages .. '|' .. #messages[1].content
"""
    assert result(lua) == "gave up|1|100"


def test_uncaught_context_exhausted_ends_the_run():
    assert result("compactors.fail('manual')") == "error[ContextExhausted]: context exhausted: manual"


# ------------------------------------------------------- precheck and anchor


NOTES = "models.use('writer')\nmessages:user(string.rep('x', 100000))\n"


def test_precheck_refusal_without_a_compactor():
    lua = NOTES + "local ok, err = pcall(models.loop)\nif ok then return 'sent' end\nreturn err.kind .. ': ' .. tostring(err.reason)"
    got, requests = run_block(lua, context=4096)
    assert got == "context_exhausted: precheck" and requests == []


def test_a_compactor_rewrites_and_the_round_is_retried():
    lua = NOTES + """
local seen
models.loop(function(reason)
  seen = reason
  messages:replace(1, 1, { role = 'user', content = 'Summarize the notes in one line.' })
end)
return seen .. '|' .. #messages .. '|' .. messages[1].content
"""
    got, requests = run_block(lua, [ModelReply(text="notes")], context=4096)
    assert got == "precheck|2|Summarize the notes in one line."
    assert len(requests) == 1


def test_trimming_compactor():
    lua = """
models.use('writer')
local function trim(reason)
  local first = 1
  while messages[first] and messages[first].role == 'system' do
    first = first + 1
  end
  local last = #messages
  while last > first and messages[last].role ~= 'user' do
    last = last - 1
  end
  if last == first then return compactors.fail(reason) end
  messages:replace(first, last - 1)
end
messages:system('Answer briefly.')
messages:user(string.rep('x', 100000))
messages:assistant('noted')
messages:user('What were the notes about?')
models.loop(trim)
return #messages .. '|' .. messages[2].content
"""
    assert result(lua, [ModelReply(text="x")], context=4096) == "3|What were the notes about?"


def test_clear_passed_to_the_loop_leaves_an_empty_list():
    lua = NOTES + "local ok, err = pcall(models.loop, compactors.clear)\nreturn tostring(ok) .. '|' .. err.kind .. ':' .. tostring(err) .. '|' .. #messages"
    assert result(lua, context=4096) == "false|lua:messages must not be empty|0"


def test_a_raising_compactor_restores_the_list():
    lua = NOTES + """
local ok, err = pcall(models.loop, function(reason)
  messages:replace(1, 1, { role = 'user', content = 'short' })
  error('gave up', 0)
end)
return tostring(err) .. '|' .. #messages .. '|' .. #messages[1].content
"""
    assert result(lua, context=4096) == "gave up|1|100000"


def test_a_compaction_that_does_not_shrink_fails():
    lua = NOTES + """
local ok, err = pcall(models.loop, function(reason) end)
return err.kind .. '|' .. err.reason .. '|' .. #messages
"""
    assert result(lua, context=4096) == "context_exhausted|precheck|1"


def test_replacing_the_default_compactor():
    lua = "models.use('writer')\ncompactors.fail = function(reason) error('replaced: ' .. reason, 0) end\n" + (
        "messages:user(string.rep('x', 100000))\nlocal ok, err = pcall(models.loop)\nreturn err"
    )
    assert result(lua, context=4096) == "replaced: precheck"
    lua = "models.use('writer')\ncompactors.fail = 5\nmessages:user(string.rep('x', 100000))\nlocal ok, err = pcall(models.loop)\nreturn err"
    assert result(lua, context=4096) == "attempt to call a number value"


def test_uncaught_precheck_exhaustion_ends_the_run():
    assert result(NOTES + "models.loop()", context=4096) == (
        "error[ContextExhausted]: context exhausted: the request precheck overflowed the model's context window"
    )


def test_the_provider_anchor():
    lua = """
models.use('writer')
messages:user('xxxxx')
models.loop()
messages:user(string.rep('y', 400))
local ok, err = pcall(models.loop)
return tostring(ok) .. '|' .. tostring(err and err.reason)
"""
    usage = {"prompt_tokens": 3400, "completion_tokens": 100, "reasoning_tokens": 0}
    assert result(lua, [ModelReply(text="ok", usage=usage)], context=4096) == "false|precheck"
    # without usage, the estimate admits the same request
    assert result(lua, [ModelReply(text="ok"), ModelReply(text="fine")], context=4096) == "true|nil"


def test_provider_overflow_goes_to_the_compactor():
    from runvil.engine.effects import ModelFailure

    lua = "models.use('writer')\nmessages:user('hi')\nlocal ok, err = pcall(models.loop)\nreturn err.kind .. '|' .. err.reason .. '|' .. tostring(err)"
    fail = ModelFailure(status=400, body="This model's maximum context length is 4096 tokens.")
    assert result(lua, [fail]) == (
        "context_exhausted|provider|context exhausted: the provider rejected the request as exceeding the model's context window"
    )
    fail = ModelFailure(status=400, body="bad request")
    lua = "models.use('writer')\nmessages:user('hi')\nlocal ok, err = pcall(models.loop)\nreturn err.kind .. '|' .. tostring(err)"
    assert result(lua, [fail]) == "internal|the model backend rejected the request (status 400)"


# ----------------------------------------------------------- argument errors


@pytest.mark.parametrize(
    "call, message",
    [
        ("models.loop(1, 5)", "models.loop takes (compactor?)"),
        ("models.loop(nil, nil)", "models.loop takes (compactor?)"),
        ("models.loop(1)", "compactor must be a function, got integer"),
        ("models.loop(1.5)", "compactor must be a function, got number"),
        ("models.loop('f')", "compactor must be a function, got string"),
        ("models.loop(messages)", "compactor must be a function, got userdata"),
        ("models.loop(models.get('writer'))",
         "models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle"),
        ("models.get('writer').loop()", "call loop on a model handle with a colon: handle:loop(compactor?)"),
        ("local run = models.get('writer').loop; run()", "call loop on a model handle with a colon: handle:loop(compactor?)"),
        ("models.get('writer'):loop(nil, nil)", "handle:loop takes (compactor?)"),
        ("local h = models.get('writer') h:loop(h)", "compactor must be a function, got userdata"),
    ],
)
def test_loop_argument_errors(call, message):
    lua = f"models.use('writer')\nmessages:user('u')\nlocal ok, e = pcall(function() {call} end)\nreturn e.kind .. '|' .. tostring(e) .. '|' .. #messages"
    got, requests = run_block(lua)
    assert got == f"lua|{message}|1" and requests == []


def test_a_handle_loop_with_nil_runs():
    lua = "messages:user('u')\nmodels.get('writer'):loop(nil)\nreturn messages[2].content"
    assert result(lua, [ModelReply(text="fine")]) == "fine"
