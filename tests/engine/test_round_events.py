"""What each round reports (docs/reference/conversations.md "The round counter and what
each round reports")."""

from __future__ import annotations

from runvil.engine.effects import ModelFailure, ModelReply, ToolCall, ToolResult
from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

from .prompts import source

SOURCE = source(("Chat", """
models.use('writer')
tools.offer_local('note', 'Note.', {}, function() return 'noted' end)
messages:user('hello')
local ok, err = pcall(models.loop)
return tostring(ok)
"""))


def drive(replies, debug=False):
    run = Run(parse_text(SOURCE, path="t.md"), bindings={"writer": ModelBinding("w")}, debug=debug)
    replies = list(replies)
    while True:
        effects = run.step()
        if run.done:
            return run
        run.resume({e.id: ToolResult("r") if isinstance(e, ToolCall) else replies.pop(0) for e in effects})


def note(cid):
    return {"id": cid, "name": "note", "arguments": {}}


def test_two_tool_rounds_and_a_reply_report_turns_1_2_3():
    run = drive([ModelReply(tool_calls=(note("a"),)), ModelReply(tool_calls=(note("b"),)), ModelReply(text="done")])
    assert [e.data["turn"] for e in run.events.of_type("model_turn_completed")] == [1, 2, 3]
    (reply,) = run.events.of_type("reply")
    assert (reply.data["turn"], reply.data["origin"], reply.data["finish_reason"], reply.data["text"]) == (
        3, "chat", "stop", "done")
    assert all(e.execution_id == "0" for e in run.events.events)


def test_a_served_round_reports_in_the_chapters_order():
    run = drive([ModelReply(text="partial", finish_reason="length", reasoning="hmm", model="served-model")],
                debug=True)
    kinds = [e.type for e in run.events.events if e.type not in ("run_started", "section_started", "chat",
                                                               "section_ended", "run_ended")]
    assert kinds == ["debug_request", "debug_response", "model_turn_completed", "thinking", "model_turn_truncated",
                     "assistant_reply", "reply"]
    thinking = run.events.of_type("thinking")[0]
    assert (thinking.data["model"], thinking.data["text"]) == ("served-model", "hmm")


def test_a_failed_round_keeps_the_count_and_reports_no_body():
    run = drive([ModelFailure(status=500, body="secret backend body")])
    (failed,) = run.events.of_type("model_turn_failed")
    assert failed.data["message"] == "the model backend rejected the request (status 500)"
    assert "secret" not in repr(run.events.events)
    assert run.turns == 0
