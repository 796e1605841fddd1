"""Tasks and fan-out (docs/reference/tasks.md) and what they leave in the list
(docs/reference/conversations.md "Task notices and task tools in the list", "Batches of
tool calls"), run through `runvil run --script --json`."""

from __future__ import annotations

import pytest

from runvil.host.conformance import run_case

from .prompts import source


def prompt(*sections: tuple[str, str], extra: str = "") -> str:
    return source(*sections, uses=("web",), extra=extra, name="tasks")


def run(sections, replies=(), tools=None, **world):
    got = run_case({"prompt": prompt(*sections), "world": {"replies": list(replies), "tools": tools or {}, **world}})
    return got


def result(*args, **kw):
    got = run(*args, **kw)
    assert got["ok"], got["error"]
    return got["result"]


def call(cid, name, **args):
    return {"id": cid, "name": name, "arguments": args}


CHILD = ("Child", "return 'child done with ' .. tostring(input)")


def test_the_roles_a_task_round_leaves_with_its_notice():
    # docs/reference/conversations.md "Reading a record by position": user,assistant,tool,
    # assistant,tool,user,assistant, where the second user is a task notice
    main = """
    models.use('writer')
    tasks.offer()
    messages:user('start the child and wait')
    models.loop()
    local roles = {}
    for i = 1, #messages do roles[i] = messages[i].role end
    jump('End')
    """
    got = run([("Main", main.replace("jump('End')", "var.out = table.concat(roles, ',') .. '|' .. "
                                     "messages[3].content .. '|' .. messages[5].content .. '|' .. "
                                     "messages[6].role .. ':' .. messages[6].content\njump('End')")),
               CHILD, ("End", "return var.out")],
              [{"tool_calls": [call("c1", "task", section="Child", input="x")]},
               {"tool_calls": [call("c2", "await_tasks")]},
               {"text": "all done"}])
    assert got["ok"], got
    assert got["result"] == ("user,assistant,tool,assistant,tool,user,assistant"
                             "|Task id=0.0 (## Child) started"
                             "|Task id=0.0 (## Child) completed: child done with x"
                             "|user:Task id=0.0 (## Child) completed: child done with x")
    # the notice reaches the model in the round after await_tasks answered
    last = got["requests"][-1]["messages"]
    assert last[-1] == {"role": "user", "content": "Task id=0.0 (## Child) completed: child done with x"}
    assert [m["role"] for m in got["requests"][1]["messages"]] == ["user", "assistant", "tool"]


def test_spawn_and_await_in_lua_with_ids_in_spawn_order():
    main = """
    local a = tasks.spawn('Child', 'one')
    local b = tasks.spawn('Child', 'two')
    local results = tasks.await({ b, a })
    return a .. ',' .. b .. '|' .. results[1] .. '|' .. results[2] .. '|' .. tasks.await(a)
    """
    got = run([("Main", main.replace("return a", "var.r = a") + "\njump('End')"), CHILD, ("End", "return var.r")])
    assert got["result"] == "0.0,0.1|child done with two|child done with one|child done with one"


def test_await_with_no_ids_returns_every_result_and_json_data_crosses_over():
    main = """
    tasks.spawn('Data', { n = 2 })
    tasks.spawn('Data', 'plain')
    local all = tasks.await()
    return json.encode(all)
    """
    data = """
    local v = input == 'plain' and 'p' or json.decode(input)
    if type(v) == 'table' then return { got = v.n * 2 } end
    return 'x'
    """
    got = run([("Main", main.replace("return json.encode(all)", "var.r = json.encode(all) jump('End')")),
               ("Data", data), ("End", "return var.r")])
    assert got["result"] == '[{"got":4},"x"]'


def test_a_failed_task_raises_again_when_awaited_and_its_notice_says_failed():
    main = """
    models.use('writer')
    local id = tasks.spawn('Bad')
    local ok, err = pcall(tasks.await, id)
    messages:user('go')
    models.loop()
    var.r = tostring(ok) .. '|' .. tostring(err) .. '|' .. messages[2].content
    jump('End')
    """
    got = run([("Main", main), ("Bad", "error('boom')"), ("End", "return var.r")], [{"text": "ok"}])
    assert got["ok"], got
    msg = "section `Bad` prologue:27: boom"
    assert got["result"] == f"false|{msg}|Task id=0.0 (## Bad) failed: {msg}"


def test_cancel_queues_a_canceled_notice_and_await_raises_cancelled():
    main = """
    models.use('writer')
    local id = tasks.spawn('Slow')
    local was = tasks.cancel(id, 'no longer needed')
    local again = tasks.cancel(id, 'twice')
    local ok, err = pcall(tasks.await, id)
    messages:user('go')
    models.loop()
    var.r = tostring(was) .. ',' .. tostring(again) .. '|' .. err.kind .. '|' .. messages[2].content
    jump('End')
    """
    slow = "models.use('writer') messages:user('never sent') models.loop() return 'late'"
    got = run([("Main", main), ("Slow", slow), ("End", "return var.r")], [{"text": "ok"}])
    assert got["ok"], got
    assert got["result"] == "true,false|cancelled|Task id=0.0 (## Slow) was canceled: no longer needed"
    assert len(got["requests"]) == 1  # the cancelled task never sent its round


def test_cancelling_a_task_waiting_on_its_model_round_drops_that_round():
    main = """
    models.use('writer')
    local id = tasks.spawn('Slow')
    messages:user('first')
    models.loop()          -- the task's round is posted alongside this one
    tasks.cancel(id, 'stop')
    var.r = messages[#messages].content
    jump('End')
    """
    slow = "models.use('writer') messages:user('task question') models.loop() return messages[2].content"
    got = run([("Main", main), ("Slow", slow), ("End", "return var.r")],
              [{"text": "main reply"}, {"text": "task reply"}])
    assert got["ok"], got
    assert got["result"] == "main reply"


def test_fanout_returns_results_in_input_order_each_arm_with_its_own_list():
    main = """
    models.use('writer')
    local out = tasks.fanout('Arm', { 'a', 'b', 'c' })
    var.r = table.concat(out, ',')
    jump('End')
    """
    arm = "models.use('writer') messages:user(input) models.loop() return input .. '=' .. messages[#messages].content .. '#' .. #messages"
    got = run([("Main", main), ("Arm", arm), ("End", "return var.r")],
              [{"text": "x"}, {"text": "y"}, {"text": "z"}])
    assert got["ok"], got
    assert got["result"] == "a=x#2,b=y#2,c=z#2"
    assert [r["messages"] for r in got["requests"]] == [[{"role": "user", "content": c}] for c in "abc"]


def test_fanout_raises_the_failing_arms_error():
    main = """
    local ok, err = pcall(tasks.fanout, 'Arm', { 'fine', 'bad' })
    var.r = tostring(ok) .. '|' .. tostring(err)
    jump('End')
    """
    arm = "if input == 'bad' then error('arm failed', 0) end return input"
    assert result([("Main", main), ("Arm", arm), ("End", "return var.r")]) == "false|arm failed"
    assert result([("Main", "var.r = json.encode(tasks.fanout('Arm', {})) jump('End')"), ("Arm", arm),
                   ("End", "return var.r")]) == "[]"


def test_an_out_of_scope_call_to_task_appends_nothing():
    # docs/reference/conversations.md "Batches of tool calls"
    main = """
    models.use('writer')
    messages:user('hello')
    local ok, err = pcall(models.loop)
    return err.kind .. '|' .. err.name .. '|' .. #messages
    """
    assert result([("Main", main)], [{"tool_calls": [call("c1", "task", section="Main")]}]) == "out_of_scope_tool|task|1"


def test_a_task_tool_call_runs_alone_between_bound_batches():
    main = """
    models.use('writer')
    tools.offer('web/search')
    tasks.offer()
    tools.offer_local('note', 'Note.', {}, function(args) return 'noted' end)
    messages:user('go')
    models.loop()
    local out = {}
    for i = 3, 6 do out[#out + 1] = messages[i].tool_call_id .. '=' .. messages[i].content end
    return table.concat(out, ';')
    """
    got = run([("Main", main)],
              [{"tool_calls": [call("a", "web_search", q="1"), call("b", "note"), call("c", "task_status"),
                               call("d", "web_search", q="2")]}, {"text": "done"}],
              {"web/search": [{"result": "r1"}, {"result": "r2"}]})
    assert got["ok"], got
    assert got["result"] == "a=r1;b=noted;c=no tasks were started in this section;d=r2"


def test_a_dropped_tool_call_raises_cancelled_and_leaves_the_list():
    main = """
    models.use('writer')
    tools.offer('web/search')
    messages:user('go')
    local ok, err = pcall(models.loop)
    return err.kind .. '|' .. #messages .. '|' .. tostring(err)
    """
    got = run([("Main", main)], [{"tool_calls": [call("call_1", "web_search", q="x")]}],
              {"web/search": [{"dropped": True}]})
    assert got["result"] == "cancelled|1|the tool call call_1 (web_search) was dropped before it was answered"
    uncaught = run([("Main", "models.use('writer') tools.offer('web/search') messages:user('go') models.loop()")],
                   [{"tool_calls": [call("call_1", "web_search")]}], {"web/search": [{"dropped": True}]})
    assert uncaught["error"]["kind"] == "Cancelled"


def test_nested_task_ids_and_notices_go_to_the_spawner():
    main = """
    local id = tasks.spawn('Outer')
    var.r = id .. '|' .. tasks.await(id)
    jump('End')
    """
    outer = "local inner = tasks.spawn('Inner') return inner .. ':' .. tasks.await(inner)"
    got = run([("Main", main), ("Outer", outer), ("Inner", "return 'deep'"), ("End", "return var.r")])
    assert got["result"] == "0.0|0.0.0:deep"


def test_offering_task_tools_after_the_list_is_rendered_is_refused():
    main = """
    models.use('writer')
    messages:user('hi')
    models.loop()
    local ok, err = pcall(tasks.offer)
    return tostring(err)
    """
    assert result([("Main", main)], [{"text": "hello"}]) == (
        "tasks.offer: the section's tool list was rendered at its first loop round; offer tools before it")


def test_the_round_cap_error_is_kept_when_a_started_task_is_abandoned():
    src = prompt(("Main", "models.use('writer') tasks.offer() messages:user('go') models.loop()"),
                 ("Slow", "models.use('writer') messages:user('slow') models.loop() return 'x'"),
                 extra="max_tool_iterations: 1\n")
    got = run_case({"prompt": src, "world": {"replies": {"writer": [
        {"tool_calls": [call("c1", "task", section="Slow")]}]}}})
    assert got["error"] == {"kind": "Tool", "message": "tool-call loop did not converge",
                            "file": "prompt.md", "line": 16, "section": "Main",  # the models.loop() line
                            "help": ["section `Main` reached the round cap, max_tool_iterations = 1: raise it in "
                                     "the frontmatter (at most 1000), or ask the model to answer in fewer tool rounds"]}


def test_bad_arguments_and_unknown_ids():
    cases = {
        "tasks.spawn('Nope')": "tasks.spawn: no section named `Nope` (sections: Main)",
        "tasks.spawn('Mian')": "tasks.spawn: no section named `Mian` (sections: Main; did you mean 'Main'?)",
        "tasks.spawn(3)": "tasks.spawn needs a section name, got integer",
        "tasks.await('9.9')": "tasks.await: no task with id '9.9' was started in this section",
        "tasks.cancel('0.7', 'x')": "tasks.cancel: no task with id '0.7' was started in this section",
        "tasks.fanout('Main', 'x')": "tasks.fanout: inputs must be a list, got string",
        "tasks.spawn('Main', print)": "tasks.spawn: input must be JSON data, got function",
    }
    for code, message in cases.items():
        got = result([("Main", f"local ok, err = pcall(function() {code} end) return tostring(err)")])
        assert got == message, code


@pytest.mark.parametrize("answer, text", [
    ({"tool_calls": [call("c1", "task", section="Nope")]}, "task: no section named `Nope` (sections: Main)"),
    ({"tool_calls": [call("c1", "task_status", id="4.2")]}, "task_status: no task with id '4.2' was started in this section"),
])
def test_bad_task_tool_calls_are_answered_with_text(answer, text):
    main = "models.use('writer') tasks.offer() messages:user('go') models.loop() return messages[3].content"
    assert result([("Main", main)], [answer, {"text": "ok"}]) == text


def test_a_notice_joins_the_list_before_the_precheck_and_stays_when_it_refuses():
    # docs/reference/conversations.md "When the precheck runs": notices count toward the
    # request and stay on the list even when the precheck refuses it
    main = """
    models.use('writer')
    local id = tasks.spawn('Big')
    tasks.await(id)
    messages:user('hi')
    local ok, err = pcall(models.loop)
    var.r = tostring(err.reason) .. '|' .. #messages .. '|' .. messages[2].content:sub(1, 32)
    jump('End')
    """
    got = run([("Main", main), ("Big", "return string.rep('x', 20000)"), ("End", "return var.r")],
              models={"writer": {"context": 4096}})
    assert got["ok"], got
    assert got["result"] == "precheck|2|Task id=0.0 (## Big) completed: "
    assert got["requests"] == []


def test_after_a_text_reply_no_further_round_runs_when_a_task_ends_later():
    main = """
    models.use('writer')
    tasks.offer()
    messages:user('go')
    models.loop()
    var.r = #messages .. '|' .. messages[#messages].content
    jump('End')
    """
    slow = "models.use('writer') messages:user('slow') models.loop() return 'late'"
    got = run([("Main", main), ("Slow", slow), ("End", "return var.r")],
              # main's second round is posted before the task's first
              [{"tool_calls": [call("c1", "task", section="Slow")]}, {"text": "final"}, {"text": "task reply"}])
    assert got["ok"], got
    assert got["result"] == "4|final"
