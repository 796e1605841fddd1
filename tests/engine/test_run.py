"""The sans-IO run, driven directly through step() and resume() with a fake
harness (docs/architecture.md)."""

from __future__ import annotations

import threading
import time

import pytest

from runvil.engine.effects import ModelFailure, ModelReply, ModelRound
from runvil.engine.run import ModelBinding, PrepareError, Run
from runvil.lua import Limits
from runvil.prompt import parse_text

from .prompts import head

HEAD = head(models=("writer", "reviewer"))


def prompt(body: str, head: str = HEAD):
    return parse_text(head + body, path="t.md")


def start(body: str, **kw):
    kw.setdefault("bindings", {"writer": ModelBinding("w-model"), "reviewer": ModelBinding("r-model", context=4096)})
    return Run(prompt(body), **kw)


def finish(run: Run, replies: list):
    """Answers every model round with the next reply; returns (outcome, rounds)."""
    rounds = []
    while True:
        effects = run.step()
        if run.done:
            return run.outcome, rounds
        answers = {}
        for e in effects:
            assert isinstance(e, ModelRound)
            rounds.append(e)
            answers[e.id] = replies.pop(0)
        run.resume(answers)


def lua_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith(("runvil-", "lua")))


def test_one_round_step_by_step():
    run = start("## Chat\n\n```lua\nmodels.use('writer')\nmessages:user('hello')\nmodels.loop()\nreturn messages[#messages].content\n```\n")
    effects = run.step()
    assert len(effects) == 1
    e = effects[0]
    assert (e.role, e.model, e.origin) == ("writer", "w-model", "chat")
    assert e.messages == ({"role": "user", "content": "hello"},)
    assert run.step() == [] or True  # stepping again before resume changes nothing
    run.resume({e.id: ModelReply(text="bonjour")})
    assert run.step() == []
    assert run.done and run.outcome.ok and run.outcome.result == "bonjour"


def test_an_unbound_role_refuses_the_run():
    with pytest.raises(PrepareError, match="model role 'reviewer' is not bound"):
        Run(prompt("## A\n\n```lua\nreturn 1\n```\n"), bindings={"writer": ModelBinding("w")})


def test_the_h1_pass_ends_the_run_when_a_block_returns():
    run = start("```lua\nreturn 'from h1'\n```\n\n## A\n\n```lua\nreturn 'never'\n```\n")
    outcome, _ = finish(run, [])
    assert outcome.result == "from h1"


def test_the_walk_result_is_the_last_sections_result():
    body = "## A\n\n```lua\nvar.n = 1\nreturn 'a'\n```\n\n## B\n\n```lua\nvar.n = var.n + 1\n```\n"
    outcome, _ = finish(start(body), [])
    assert outcome.ok and outcome.result is None
    body = "## A\n\n```lua\nreturn 'a'\n```\n\n## B\n\n```lua\nreturn 42\n```\n"
    assert finish(start(body), [])[0].result == "42"


def test_results_as_text():
    for value, text in [("true", "true"), ("1.5", "1.5"), ("{a = 1}", '{"a":1}'), ("{1, 2}", "[1,2]"), ("'é'", "é")]:
        outcome, _ = finish(start(f"## A\n\n```lua\nreturn {value}\n```\n"), [])
        assert outcome.result == text


def test_jump_continues_the_walk_at_the_named_section():
    body = (
        "## A\n\n```lua\nvar.seen = 'a'\njump('C')\n```\n\n"
        "## B\n\n```lua\nvar.seen = var.seen .. 'b'\n```\n\n"
        "## C\n\n```lua\nreturn var.seen .. 'c'\n```\n"
    )
    assert finish(start(body), [])[0].result == "ac"


def test_prose_global_is_the_pending_prose_with_references_filled():
    body = "```lua\nvar.topic = 'the sea'\n```\n\n## A\n\nWrite about {{var.topic}}.\n\n```lua\nreturn prose\n```\n"
    assert finish(start(body), [])[0].result == "Write about the sea."


def test_trailing_prose_is_sent_and_its_reply_is_the_result():
    body = "## A\n\n```lua\nmodels.use('writer')\n```\n\nSay hi to {{input}}.\n"
    run = start(body, input="Ann")
    outcome, rounds = finish(run, [ModelReply(text="Hi Ann")])
    assert outcome.result == "Hi Ann"
    assert rounds[0].messages == ({"role": "user", "content": "Say hi to Ann."},)


def test_a_nil_reference_fails_with_the_spec_text():
    outcome, _ = finish(start("## A\n\nHello {{missing}}.\n\n```lua\nreturn 1\n```\n"), [])
    assert outcome.error.kind == "Lua"
    assert outcome.error.message == "global `missing` is nil"


def test_models_infer_sends_one_user_message_and_leaves_messages_alone():
    body = "## A\n\n```lua\nmodels.use('writer')\nlocal r = models.infer('2+2?')\nreturn r .. '|' .. #messages\n```\n"
    outcome, rounds = finish(start(body), [ModelReply(text="4")])
    assert outcome.result == "4|0"
    assert rounds[0].origin == "infer"
    assert rounds[0].messages == ({"role": "user", "content": "2+2?"},)
    assert rounds[0].tools == ()


def test_models_default_and_handles():
    body = (
        "```lua\nmodels.default('writer')\n```\n\n"
        "## A\n\n```lua\nlocal h = models.get('reviewer')\nlocal raw = models.get('qwen/qwen3-8b')\n"
        "return models.infer('a') .. h:infer('b') .. '|' .. h.name .. h.context .. '|' .. raw.context\n```\n"
    )
    outcome, rounds = finish(start(body), [ModelReply(text="x"), ModelReply(text="y")])
    assert outcome.result == "xy|reviewer4096|8192"
    assert [r.role for r in rounds] == ["writer", "reviewer"]


def test_missing_model():
    outcome, _ = finish(start("## A\n\n```lua\nreturn models.infer('hi')\n```\n"), [])
    assert outcome.error.kind == "Lua"
    # a Lua run error's message holds the error text and the prompt line
    assert outcome.error.message == (
        "section `A` prologue:14: no model selected; call models.use(role) or models.default(role) first"
    )
    body = "## A\n\n```lua\nlocal ok, e = pcall(models.infer, 'x')\nreturn e.kind\n```\n"
    assert finish(start(body), [])[0].result == "missing_model"


def test_empty_reply_is_a_completion_error_with_its_finish_reason():
    body = "## A\n\n```lua\nmodels.use('writer')\nreturn models.infer('hi')\n```\n"
    phrase = "the model replied with no text and no tool calls"
    outcome, _ = finish(start(body), [ModelReply(text="", finish_reason="length", empty_phrase=phrase)])
    assert outcome.error.as_json() == {"kind": "Completion", "message": phrase, "finish_reason": "length"}
    outcome, _ = finish(start(body), [ModelReply(text="", finish_reason=None)])
    assert "finish_reason" not in outcome.error.as_json()


def test_provider_failures_are_internal():
    body = "## A\n\n```lua\nmodels.use('writer')\nreturn models.infer('hi')\n```\n"
    outcome, _ = finish(start(body), [ModelFailure(status=503, body="busy")])
    assert outcome.error.as_json() == {
        "kind": "Completion",
        "message": "the model backend rejected the request (status 503)",
        "status": 503,
    }
    outcome, _ = finish(start(body), [ModelFailure(unreachable="connection refused")])
    assert outcome.error.message == "the model backend could not be reached: connection refused"


def test_lua_errors_point_into_the_prompt_file():
    outcome, _ = finish(start("## Chat\n\n```lua\nlocal x\nreturn x.y\n```\n"), [])
    assert outcome.error.kind == "Lua"
    assert outcome.error.message == "section `Chat` prologue:15: attempt to index a nil value (local 'x')"


def test_a_runaway_block_is_stopped_by_the_step_limit():
    run = start("## A\n\n```lua\nwhile true do end\n```\n", limits=Limits(steps=100_000))
    outcome, _ = finish(run, [])
    assert outcome.error.kind == "Lua"
    assert "step limit exceeded" in outcome.error.message


def test_print_goes_to_the_run_log():
    run = start("## A\n\n```lua\nprint('hi', 1)\nreturn 'ok'\n```\n")
    finish(run, [])
    assert [e.data["text"] for e in run.events.of_type("print")] == ["hi\t1"]


def test_events_are_in_order_with_sequence_numbers():
    run = start("## A\n\n```lua\nreturn 1\n```\n")
    finish(run, [])
    types = [e.type for e in run.events.events]
    assert types == ["run_started", "section_started", "section_ended", "run_ended"]
    assert [e.seq for e in run.events.events] == [1, 2, 3, 4]


def test_a_failed_section_still_reports_its_end():
    run = start("## A\n\n```lua\nerror('boom')\n```\n")
    finish(run, [])
    ended = run.events.of_type("section_ended")
    assert [(e.section, e.data) for e in ended] == [("A", {"failed": True})]
    assert run.events.events[-1].type == "run_ended"


def test_no_threads_are_left_after_a_run_ends_fails_or_is_cancelled():
    before = lua_threads()
    finish(start("## A\n\n```lua\nreturn 1\n```\n"), [])
    finish(start("## A\n\n```lua\nerror('boom')\n```\n"), [])
    run = start("## A\n\n```lua\nmodels.use('writer')\nreturn models.infer('x')\n```\n")
    assert len(run.step()) == 1
    run.cancel()
    assert run.outcome.error.kind == "Cancelled"
    for _ in range(50):
        if lua_threads() == before:
            break
        time.sleep(0.01)
    assert lua_threads() == before


def test_require_loads_a_module_beside_the_prompt_once_per_vm(tmp_path):
    (tmp_path / "util").mkdir()
    (tmp_path / "util" / "text.lua").write_text(
        "count = (count or 0) + 1\nlocal M = {}\nfunction M.shout(s) return s:upper() .. '!' end\nM.n = #messages\nreturn M\n"
    )
    body = (
        "## A\n\n```lua\nmessages:user('x')\nlocal t = require('util.text')\nlocal again = require('util.text')\n"
        "return t.shout('hi') .. '|' .. t.n .. '|' .. count .. '|' .. tostring(t == again)\n```\n"
    )
    p = parse_text(HEAD + body, path=str(tmp_path / "p.md"))
    run = Run(p, bindings={"writer": ModelBinding("w"), "reviewer": ModelBinding("r")})
    assert finish(run, [])[0].result == "HI!|1|1|true"
    body = "## A\n\n```lua\nreturn require('../secret')\n```\n"
    p = parse_text(HEAD + body, path=str(tmp_path / "p.md"))
    outcome, _ = finish(Run(p, bindings={"writer": ModelBinding("w"), "reviewer": ModelBinding("r")}), [])
    assert outcome.error.kind == "Lua" and "not found" in outcome.error.message


def test_round_events():
    run = start("## Chat\n\n```lua\nmodels.use('writer')\nmessages:user('hello')\nmodels.loop()\n```\n")
    finish(run, [ModelReply(text="hi", finish_reason="stop", usage={"prompt_tokens": 3, "completion_tokens": 1})])
    types = [e.type for e in run.events.events]
    assert types == ["run_started", "section_started", "chat", "model_turn_completed", "assistant_reply", "reply",
                     "section_ended", "run_ended"]
    chat = run.events.of_type("chat")[0]
    assert chat.data["messages"] == [{"role": "user", "content": "hello"}]
    assert run.events.of_type("reply")[0].data["text"] == "hi"


def test_a_userdata_reference_in_prose_fails_with_the_spec_text():
    body = "## A\n\n```lua\nthing = messages\n```\n\nSee {{thing}}.\n\n```lua\nreturn prose\n```\n"
    outcome, _ = finish(start(body), [])
    assert outcome.error.kind == "Lua"
    assert outcome.error.message == "global `thing` is a userdata; bare globals in prose must be JSON data"
    body = "```lua\nvar.n = {1, 2}\n```\n\n## A\n\nn={{var.n}} \\{{x}}\n\n```lua\nreturn prose\n```\n"
    assert finish(start(body), [])[0].result == "n=[1,2] {{x}}"


# ------------------------------------------------- the run's own budget (§9)
# "A run also has a budget of its own across all its blocks (steps, wall
# time, section entries), so `jump` loops end with a `lua` error that names it."

from runvil.engine.limits import RunLimits  # noqa: E402

SELF_JUMP = "## A\n\n```lua\njump('A')\n```\n"
PING_PONG = ("## A\n\n```lua\nlocal n = 0\nfor i = 1, 50000 do n = n + i end\njump('B')\n```\n"
             "## B\n\n```lua\nlocal n = 0\nwhile n < 50000 do n = n + 1 end\njump('A')\n```\n")


def test_default_run_limits():
    assert RunLimits() == RunLimits(steps=200_000_000, seconds=1800.0, section_entries=1_000)


def test_a_jump_to_itself_ends_at_the_section_entry_limit():
    run = start(SELF_JUMP, run_limits=RunLimits(section_entries=30))
    outcome, _ = finish(run, [])
    assert (outcome.error.kind, outcome.error.message) == (
        "Lua", "section `A` prologue:14: section entry limit exceeded (30 section entries)")
    assert run.budget.entries == 30


def test_the_section_entry_limit_is_catchable_where_the_jump_is():
    body = ("## A\n\n```lua\nvar.n = (var.n or 0) + 1\n"
            "local ok, err = pcall(jump, 'A')\nreturn tostring(var.n) .. ' ' .. tostring(err)\n```\n")
    outcome, _ = finish(start(body, run_limits=RunLimits(section_entries=3)), [])
    assert outcome.result == "3 section entry limit exceeded (3 section entries)"


def test_jumps_between_sections_end_at_the_run_step_limit():
    run = start(PING_PONG, run_limits=RunLimits(steps=1_000_000))
    outcome, _ = finish(run, [])
    assert outcome.error.kind == "Lua"
    assert outcome.error.message.endswith("run step limit exceeded (1000000 steps across the run's blocks)")
    assert 1_000_000 <= run.budget.steps <= 1_000_000 + 200_000  # caught within one check interval


def test_one_block_that_spends_the_run_steps_stops_inside_the_block():
    body = "## A\n\n```lua\nlocal n = 0\nwhile true do n = n + 1 end\n```\n"
    outcome, _ = finish(start(body, run_limits=RunLimits(steps=500_000)), [])
    assert outcome.error.message == "section `A` prologue:15: run step limit exceeded (500000 steps across the run's blocks)"


def test_a_spent_run_budget_stays_spent_after_pcall():
    body = ("## A\n\n```lua\nlocal function spin() while true do end end\n"
            "local ok1, e1 = pcall(spin)\nlocal ok2, e2 = pcall(spin)\nreturn tostring(ok1) .. tostring(ok2) .. e2\n```\n")
    outcome, _ = finish(start(body, run_limits=RunLimits(steps=300_000)), [])
    assert outcome.result.startswith("falsefalsesection `A` prologue:14: run step limit exceeded")


@pytest.mark.parametrize("body", [SELF_JUMP, PING_PONG, "## A\n\n```lua\nwhile true do end\n```\n"])
def test_the_run_time_limit_stops_each_runaway_within_two_seconds(body):
    # no block step budget either: the run's time, not 20M steps, must stop it
    run = start(body, limits=Limits(steps=None), run_limits=RunLimits(seconds=1.0, steps=None, section_entries=None))
    t0 = time.process_time()  # CPU time: the limit is the run's wall time, which a spin spends as CPU
    outcome, _ = finish(run, [])
    elapsed = time.process_time() - t0
    assert outcome.error.message.endswith("run time limit exceeded (1 s)")
    assert elapsed < 1.0 + 2.0 + 2.0  # the budget, the 2 s the issue allows, and slack


def test_the_run_time_limit_counts_waits_on_models():
    body = "## A\n\n```lua\nmodels.use('writer')\nmessages:user('hi')\nmodels.loop()\nreturn 'done'\n```\n"
    run = start(body, run_limits=RunLimits(seconds=0.2))
    effects = run.step()
    time.sleep(0.3)  # the model takes longer than the run may
    run.resume({effects[0].id: ModelReply(text="late")})
    assert run.step() == [] and run.done
    assert (run.outcome.error.kind, run.outcome.error.message) == ("Lua", "run time limit exceeded (0.2 s)")
    assert run.events.events[-1].type == "run_ended"


# ------------------------------------------- the messages global stays fixed
# the specification: "Assigning to the global itself, as in messages = {},
# raises this error and leaves the global holding the same list"

ASSIGN = ("messages is the section's conversation and cannot be reassigned; add records with append(record),"
          " or rewrite history with models.compact(compactor, reason)")


def test_rawset_on_G_cannot_replace_messages():
    body = ("## A\n\n```lua\nlocal before = messages\nlocal ok, err = pcall(rawset, _G, 'messages', 5)\n"
            "rawset(_G, 'other', 1)\nreturn tostring(ok) .. '|' .. tostring(err) .. '|' .. tostring(messages == before)"
            " .. other\n```\n")
    outcome, _ = finish(start(body), [])
    assert outcome.result == f"false|{ASSIGN}|true1"


def test_the_globals_metatable_is_protected():
    body = ("## A\n\n```lua\nlocal ok, err = pcall(setmetatable, _G, nil)\n"
            "return tostring(getmetatable(_G)) .. '|' .. err .. '|' .. type(messages)\n```\n")
    outcome, _ = finish(start(body), [])
    assert outcome.result == "false|cannot change a protected metatable|userdata"


def test_a_chat_has_no_default_wall_clock_limit():
    run = start("## A\n\n```lua\nreturn 1\n```\n", chat=True)
    assert run.budget.limits == RunLimits(seconds=None)
    finish(run, [])


def test_a_jump_loop_at_the_default_limits_ends_within_a_few_seconds():
    run = start(SELF_JUMP)
    t0 = time.process_time()  # CPU time, which a loaded machine does not stretch
    outcome, _ = finish(run, [])
    assert outcome.error.message.endswith("section entry limit exceeded (1000 section entries)")
    assert time.process_time() - t0 < 2 + 6  # about two seconds, and slack
