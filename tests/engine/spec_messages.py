"""Every message text the spec quotes, with where it quotes it and how a
prompt makes the code say it (test_spec_messages.py runs each one).

The spec's words are exact: a message it quotes may never get a word added
(extra help goes on the Host's `help:` lines). This list lets the test run
without the spec beside the repo; with the spec there, the test also checks
that each text is still quoted and that every quoted text is listed.

Each entry: `spec`, the text as the spec quotes it (with its placeholders);
`where`, the spec file and heading; `example`, the text a prompt makes
(the spec's own example where it gives one; `spec` when it has no
placeholder); and how to make it, one of
- `lua`: a section block run under `models.use('writer')`, inside pcall:
  the example is `tostring(err)` (after Lua's `chunk:line:` prefix for
  Lua's own errors, `prefixed`);
- `prompt`: a whole prompt file whose run (or parse) fails with the example;
- `replies` / `extra` / `sections`: the scripted world's replies, more
  frontmatter, more sections after `## A`.
"""

from __future__ import annotations

C = "conversations.md"
R = "runvil.md"
H = "host.md"


def m(spec: str, where: str, example: str | None = None, **how) -> dict:
    return {"spec": spec, "where": where, "example": spec if example is None else example, **how}


FN = "unsupported value type `function`"
TOOL_ROUND = [{"tool_calls": [{"id": "c1", "name": "t", "arguments": {}}]}] * 3
OFFER_T = "tools.offer_local('t', 'a tool', {}, function() return 'r' end)\n"

MESSAGES = [
    # the specification's conversations chapter: the list
    m("messages is the section's conversation and cannot be reassigned; add records with append(record), or rewrite "
      "history with models.compact(compactor, reason)", f"{C} § Fresh lists", lua="messages = {}"),
    m("messages cannot be assigned to by index; add records with append(record), or rewrite history with "
      "models.compact(compactor, reason)", f"{C} § Fresh lists", lua="messages[1] = 'x'"),
    # Record error messages
    m("messages[N] must be a JSON-representable message table: {reason}", f"{C} § Record error messages",
      f"messages[2] must be a JSON-representable message table: {FN}",
      lua="messages:user('a'); messages:append({role = 'user', content = 'x', extra = print})"),
    m(f"messages[2] must be a JSON-representable message table: {FN}", f"{C} § Record error messages",
      lua="messages:user('a'); messages:append({role = 'user', content = 'x', meta = {f = print}})"),
    m("messages[N] {field} must be JSON-representable: {reason}", f"{C} § Record error messages",
      f"messages[2] tool_calls must be JSON-representable: {FN}",
      lua="messages:user('a'); messages:assistant('', {{id = 'c', name = 'n', arguments = {f = print}}})"),
    m(f"messages[2] tool_calls must be JSON-representable: {FN}", f"{C} § Record error messages",
      lua="messages:user('a'); messages:assistant('', {{id = 'c', name = 'n', arguments = {f = print}}})"),
    m(f"messages[2] tool_call_id must be JSON-representable: {FN}", f"{C} § Record error messages",
      lua="messages:user('a'); messages:tool('x', print)"),
    m(f"messages[2] content must be JSON-representable: {FN}", f"{C} § Record error messages",
      lua="messages:user('a'); messages:user(print)"),
    m(f"messages[2] meta must be JSON-representable: {FN}", f"{C} § Record error messages",
      lua="messages:user('a'); messages:user('b', print)"),
    m("messages[N] must be a message table", f"{C} § Record error messages", "messages[2] must be a message table",
      lua="messages:user('a'); messages:append(5)"),
    m("messages[1] must be a message table", f"{C} § Record error messages", lua="messages:append(5)"),
    m("messages[N] role must be a string, one of: system, user, assistant, tool", f"{C} § Record error messages",
      "messages[1] role must be a string, one of: system, user, assistant, tool",
      lua="messages:append({content = 'x'})"),
    m('messages[N] role "{role}" is unknown; known roles: system, user, assistant, tool',
      f"{C} § Record error messages", 'messages[1] role "bot" is unknown; known roles: system, user, assistant, tool',
      lua="messages:append({role = 'bot', content = 'x'})"),
    m("messages[N] content must be a string or a non-empty array of content parts", f"{C} § Record error messages",
      "messages[1] content must be a string or a non-empty array of content parts", lua="messages:user()"),
    m("messages[1] content must be a string or a non-empty array of content parts", f"{C} § Record error messages",
      lua="messages:user({})"),
    m("messages[N] content part J must be a table with a string type field", f"{C} § Record error messages",
      "messages[1] content part 1 must be a table with a string type field", lua="messages:user({'x'})"),
    m("messages[1] content part 1 must be a table with a string type field", f"{C} § Record error messages",
      lua="messages:user({'x'})"),
    m('messages[N] content part J has unknown type "{type}"; known types: text, image_url',
      f"{C} § Record error messages",
      'messages[1] content part 2 has unknown type "audio"; known types: text, image_url',
      lua="messages:user({{type = 'text', text = 'a'}, {type = 'audio'}})"),
    m("messages[N] content part J is a text part and must set a string text field", f"{C} § Record error messages",
      "messages[1] content part 1 is a text part and must set a string text field",
      lua="messages:user({{type = 'text'}})"),
    m("messages[N] content part J is an image_url part and must set an image_url table with a string url field",
      f"{C} § Record error messages",
      "messages[1] content part 1 is an image_url part and must set an image_url table with a string url field",
      lua="messages:user({{type = 'image_url', image_url = {detail = 'low'}}})"),
    m("messages[N] tool_call_id must be a string", f"{C} § Record error messages",
      "messages[1] tool_call_id must be a string",
      lua="messages:append({role = 'user', content = 'x', tool_call_id = 5})"),
    m("messages[N] is a tool message and must set a string tool_call_id", f"{C} § Record error messages",
      "messages[2] is a tool message and must set a string tool_call_id", lua="messages:user('a'); messages:tool('x')"),
    m("messages[N] sets a tool_call_id but is not a tool message", f"{C} § Record error messages",
      "messages[1] sets a tool_call_id but is not a tool message",
      lua="messages:append({role = 'user', content = 'x', tool_call_id = 'c'})"),
    m("messages[N] tool_calls must be an array", f"{C} § Record error messages",
      "messages[1] tool_calls must be an array",
      lua="messages:assistant('done', {draft = true})"),
    m("messages[N] tool_calls[K] must be a table", f"{C} § Record error messages",
      "messages[1] tool_calls[1] must be a table", lua="messages:assistant('', {5})"),
    m("messages[N] tool_calls[K] must set a string id", f"{C} § Record error messages",
      "messages[2] tool_calls[1] must set a string id",
      lua="messages:user('a'); messages:assistant('', {{name = 'n'}})"),
    m("messages[N] tool_calls[K] must set a string name", f"{C} § Record error messages",
      "messages[1] tool_calls[1] must set a string name", lua="messages:assistant('', {{id = 'c'}})"),
    m("messages[N] tool_calls[K] arguments must be a table", f"{C} § Record error messages",
      "messages[1] tool_calls[1] arguments must be a table",
      lua="messages:assistant('', {{id = 'c', name = 'n', arguments = 'x'}})"),
    m("messages[N] meta is {size} bytes as JSON; the limit is 8192 bytes", f"{C} § Record error messages",
      "messages[1] meta is 9002 bytes as JSON; the limit is 8192 bytes",
      lua="messages:user('hi', string.rep('x', 9000))"),
    m("messages[1] meta is 9002 bytes as JSON; the limit is 8192 bytes", f"{C} § Record metadata with meta",
      lua="messages:user('hi', string.rep('x', 9000))"),
    m("messages[N] is a system message after a non-system message; system messages lead the list, and only a "
      "compactor can change the leading block", f"{C} § Record error messages",
      "messages[4] is a system message after a non-system message; system messages lead the list, and only a "
      "compactor can change the leading block",
      lua="messages:system('s1'):system('s2'):user('u'); messages:system('x')"),
    m("messages[4] is a system message after a non-system message; system messages lead the list, and only a "
      "compactor can change the leading block", f"{C} § System records lead the list",
      lua="messages:system('s1'):system('s2'):user('u'); messages:append({role = 'system', content = 'late'})"),
    # Editing a list with replace
    m("replace works only inside a compactor; rewrite history with models.compact(compactor, reason)",
      f"{C} § Editing a list with replace", lua="messages:user('a'); messages:replace(1, 1)"),
    m("records read from messages are read-only; rewrite history with models.compact(compactor, reason)",
      f"{C} § Editing a record through its view", lua="messages:user('a'); messages[1].content = 'x'"),
    m("replace({first}, {last}) is out of bounds on a list of {n} records: it needs 1 <= first <= last + 1 <= {n + 1}",
      f"{C} § When replace refuses an edit",
      "replace(2, 5) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5",
      lua="messages:user('a'):assistant('b'):user('c'):assistant('d')\n"
          "models.compact(function() messages:replace(2, 5) end, 'r')"),
    m("replace(2, 5) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5",
      f"{C} § When replace refuses an edit",
      lua="messages:user('a'):assistant('b'):user('c'):assistant('d')\n"
          "models.compact(function() messages:replace(2, 5) end, 'r')"),
    m("messages[2] content must be a string or a non-empty array of content parts",
      f"{C} § When replace refuses an edit",
      lua="messages:user('a')\nmodels.compact(function()\n"
          "  messages:replace(1, 1, {role = 'user', content = 'ok'}, {role = 'user'})\nend, 'r')"),
    m("replace(3, 1) is out of bounds on a list of 4 records", f"{C} § When replace refuses an edit",
      "replace(3, 1) is out of bounds on a list of 4 records: it needs 1 <= first <= last + 1 <= 5",
      lua="messages:user('a'):assistant('b'):user('c'):assistant('d')\n"
          "models.compact(function() messages:replace(3, 1) end, 'r')"),
    m("compactor must be a function, got {type}", f"{C} § Compacting between loop calls",
      "compactor must be a function, got nil", lua="models.compact(nil, 'why')"),
    m("reason must be a string, got {type}", f"{C} § Compacting between loop calls",
      "reason must be a string, got nil",
      lua="models.compact(compactors.clear)"),
    m("replace first must be an integer, got 1.5", f"{R} § 12",
      lua="messages:user('a'); models.compact(function() messages:replace(1.5, 1) end, 'r')"),
    # The loop's argument errors
    m("models.loop takes (compactor?); call handle:loop(compactor?) to run on a model handle",
      f"{C} § Argument errors",
      lua="models.loop(models.get('writer'))"),
    m("call loop on a model handle with a colon: handle:loop(compactor?)", f"{C} § Argument errors",
      lua="local h = models.get('writer'); h.loop()"),
    m("models.loop takes (compactor?)", f"{C} § Argument errors", lua="models.loop(nil, nil)"),
    m("handle:loop takes (compactor?)", f"{C} § Argument errors", lua="models.get('writer'):loop(nil, nil)"),
    m("compactor must be a function, got integer", f"{C} § Argument errors", lua="models.loop(1)"),
    m("a loop or a compactor is already running in this section; ask a side question with models.infer(prompt)",
      f"{C} § Argument errors", lua="models.compact(function() models.loop() end, 'r')"),
    m("messages must not be empty", f"{C} § Errors while a round runs", lua="models.loop()"),
    m("tool-call loop did not converge", f"{C} § Reaching the round cap", extra="max_tool_iterations: 2\n",
      lua=OFFER_T + "messages:user('go'); models.loop()", replies=TOOL_ROUND),
    # Cross-record errors
    m('messages[2] tool call "call_1" has no tool result', f"{C} § Tool exchanges in a request",
      lua="messages:user('q'):assistant('', {{id = 'call_1', name = 't'}}):user('x'); models.loop()"),
    m('messages[1] tool call "call_2" has no tool result', f"{C} § Tool exchanges in a request",
      lua="messages:assistant('', {{id = 'call_1', name = 't'}, {id = 'call_2', name = 't'}})"
          ":tool('r', 'call_1'):user('x'); models.loop()"),
    m('messages[1] tool call id "call_1" duplicates an earlier tool call', f"{C} § Tool exchanges in a request",
      lua="messages:assistant('', {{id = 'call_1', name = 't'}, {id = 'call_1', name = 't'}}); models.loop()"),
    m('messages[2] is an orphan tool record: no pending assistant tool call with id "call_9"',
      f"{C} § Tool exchanges in a request", lua="messages:user('q'):tool('r', 'call_9'); models.loop()"),
    m("messages[1] sets tool_calls but is not an assistant message", f"{C} § Tool calls",
      lua="messages:append({role = 'user', content = 'x', tool_calls = {{id = 'c', name = 'n'}}}); models.loop()"),
    m("messages[N] sets tool_calls but is not an assistant message", f"{R} § 12",
      "messages[2] sets tool_calls but is not an assistant message",
      lua="messages:user('q'):append({role = 'tool', content = 'x', tool_call_id = 'c', "
          "tool_calls = {{id = 'c', name = 'n'}}}); models.loop()"),
    m("messages[N] is a system message with content parts; only plain text system messages can be composed",
      f"{C} § How the leading system block is composed",
      "messages[2] is a system message with content parts; only plain text system messages can be composed",
      lua="messages:system('s1'):system({{type = 'text', text = 's'}}):user('u'); models.loop()"),
    # Empty replies
    m("the model replied with no text and no tool calls", f"{C} § What counts as an empty reply",
      lua="messages:user('q'); models.loop()", replies=[{"text": ""}]),
    m("the model replied with no text and no tool calls: reasoning content was present but ignored",
      f"{C} § What counts as an empty reply", lua="messages:user('q'); models.loop()",
      replies=[{"text": "", "reasoning": "thinking"}]),
    m("empty model reply", f"{C} § What counts as an empty reply", lua="messages:user('q'); models.loop()",
      harness="empty"),
    # Compactors and context exhaustion
    m("context exhausted: the request precheck overflowed the model's context window",
      f"{C} § When context exhaustion goes uncaught", lua="messages:user(string.rep('x', 100000)); models.loop()"),
    m("context exhausted: the request precheck overflowed the model's context window",
      f"{C} § The rules a compaction must pass",
      lua="messages:user(string.rep('x', 100000))\n"
          "models.loop(function() messages:assistant('noted'); messages:user('more') end)"),
    m("context exhausted: the provider rejected the request as exceeding the model's context window",
      f"{C} § When context exhaustion goes uncaught", lua="messages:user('q'); models.loop()",
      replies=[{"error": {"status": 400, "body": "This model's maximum context length is 4096 tokens."}}]),
    m("context exhausted: manual", f"{C} § When context exhaustion goes uncaught", lua="compactors.fail('manual')"),
    m("compactors.clear works only inside a compactor; empty messages with models.compact(compactors.clear, reason)",
      f"{C} § compactors.clear", lua="compactors.clear('r')"),
    m("models.compact takes (compactor, reason)", f"{C} § Compacting between loop calls",
      lua="models.compact(print, 'r', 3)"),
    m("models.compact cannot start while a loop or a compactor is running in this section",
      f"{C} § Compacting between loop calls",
      lua="models.compact(function() models.compact(function() end, 'x') end, 'r')"),
    m("reason must be a string, got {type}", f"{R} § 12", "reason must be a string, got integer",
      lua="models.compact(print, 5)"),
    m("compactor must be a function, got {type}", f"{R} § 12", "compactor must be a function, got string",
      lua="models.compact('x', 'r')"),
    m("attempt to call a number value", f"{C} § Replacing the default compactor", prefixed=True,
      lua="compactors.fail = 5\nmessages:user(string.rep('x', 100000)); models.loop()"),
    # the specification's language chapter: the prompt file, globals, var, json, models, tasks, providers
    m("invalid frontmatter: {detail}", f"{R} § 2",
      "invalid frontmatter: max_tool_iterations must be between 1 and 1000, got 0", extra="max_tool_iterations: 0\n",
      lua="return 1", parse=True),
    m("max_tool_iterations must be a whole number, got {raw}", f"{R} § 2",
      "invalid frontmatter: max_tool_iterations must be a whole number, got 1.5", extra="max_tool_iterations: 1.5\n",
      lua="return 1", parse=True),
    m("max_tool_iterations must be between 1 and 1000, got {raw}", f"{R} § 2",
      "invalid frontmatter: max_tool_iterations must be between 1 and 1000, got 100000000000",
      extra="max_tool_iterations: 100000000000\n", lua="return 1", parse=True),
    m("global `{name}` is nil", f"{R} § 3", "global `nothing` is nil",
      prompt="# T\n\n## A\n\n```lua\nmodels.use('writer')\n```\n\nSay {{nothing}}.\n"),
    m("global `{name}` is a userdata; bare globals in prose must be JSON data", f"{R} § 3",
      "global `messages` is a userdata; bare globals in prose must be JSON data",
      prompt="# T\n\n## A\n\n```lua\nmodels.use('writer')\n```\n\nSay {{messages}}.\n"),
    m("var.{name} must be JSON data, got {type}", f"{R} § 4", "var.f must be JSON data, got function",
      lua="var.f = print"),
    m("no model selected; call models.use(role) or models.default(role) first", f"{R} § 6",
      prompt="# T\n\n## A\n\nSay hello.\n"),
    m("attempt to call a nil value (global 'f')", f"{R} § 9", prefixed=True, lua="f()"),
    m("C stack overflow", f"{R} § 9", prefixed=True,
      lua="local t = setmetatable({}, {__index = function(t, k) return t[k] end}); return t.x"),
    m("json.encode: value.a[2] must be JSON data, got userdata", f"{R} § 10", lua="json.encode({a = {1, messages}})"),
    m("Task id=0.0 (## Child) completed: {result}", f"{R} § 8", "Task id=0.0 (## Child) completed: done",
      lua="tasks.spawn('Child', 'x'); tasks.await(); messages:user('go'); models.loop()\n"
          "for i = 1, #messages do if messages[i].content:find('^Task') then error(messages[i].content, 0) end end",
      first="## Child\n\n```lua\nreturn 'done'\n```\n"),
    m("Task id=0.0 (## Child) failed: {message}", f"{R} § 8", "Task id=0.0 (## Child) failed: boom",
      lua="tasks.spawn('Child', 'x'); pcall(tasks.await); messages:user('go'); models.loop()\n"
          "for i = 1, #messages do if messages[i].content:find('^Task') then error(messages[i].content, 0) end end",
      first="## Child\n\n```lua\nif input then error('boom', 0) end\nreturn 'walked'\n```\n"),
    m("Task id=0.0 (## Child) was canceled: {reason}", f"{R} § 8", "Task id=0.0 (## Child) was canceled: enough",
      lua="local id = tasks.spawn('Child', 'x'); tasks.cancel(id, 'enough'); pcall(tasks.await)\n"
          "messages:user('go'); models.loop()\n"
          "for i = 1, #messages do if messages[i].content:find('^Task') then error(messages[i].content, 0) end end",
      first="## Child\n\n```lua\nif input then models.use('writer'); messages:user('x'); models.loop() end\n"
            "return 'walked'\n```\n"),
    m("the model backend rejected the request (status {status})", f"{R} § 12",
      "the model backend rejected the request (status 500)", lua="messages:user('q'); models.loop()",
      replies=[{"error": {"status": 500, "body": ""}}]),
    m("the model backend could not be reached: {detail}", f"{R} § 12",
      "the model backend could not be reached: connection refused", lua="messages:user('q'); models.loop()",
      replies=[{"unreachable": "connection refused"}]),
    # the specification's host chapter: the scripted world
    m("the script has no reply left for {role}", f"{H} § The scripted world",
      "the script has no reply left for writer",
      lua="messages:user('q'); models.loop()", replies=[]),
]

#: texts the spec sets alone on a line (or as a bullet's message) that are
#: not messages: run results, code, prose
NOT_MESSAGES = {
    "nil|2|assistant", "4|first reply|second reply", "The length of a list", "messages:replace(2, 3)",
    "messages:replace(#messages, #messages, { role = 'user', content = 'zz' })",
    "messages:replace(1, #messages, { role = 'system', content = 's' }, { role = 'user', content = 'summary' })",
    "messages:replace(1, 1, { role = 'user', content = 'ok' }, { role = 'user' })",
    "user,assistant,tool,assistant", "call_1|tool|call_1", "5", '{ "role": "system", "content": "be terse" }',
    "system 's1', system 's2', user '', user 'hi', assistant '', assistant 'answer', assistant '', user 'next'",
    "system 's1\\n\\ns2', user 'hi', assistant 'answer', user 'next'", "Each rule has its own triggers:",
    "empty_model_reply|stop|the model replied with no text and no tool calls|1", "nil|4|tool|assistant:",
    "2|partial answer", "context_exhausted: precheck", "precheck|2|Summarize the notes in one line.",
    "3|What were the notes about?", "false|lua:messages must not be empty|0", "replaced: precheck",
    "tool-call loop did not converge after 5 records",  # a result: the message and a count
    # the language chapter's backquoted phrases that are code or names, not messages
    "h1 block 2", "var.x = v", "tools.offer_local(name, description, schema, handler)", " (all of it except ",
    "has no tool result", "window // 2",
    " prologue:14: attempt to index a nil value (global 'x')",
}
