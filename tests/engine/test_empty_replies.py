"""Empty replies (docs/reference/conversations.md "What counts as an empty reply", "The
empty_model_reply error value", "Events for an empty round")."""

from __future__ import annotations

import pytest

from runvil.engine.effects import ModelReply
from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

from .prompts import source

PHRASE = "the model replied with no text and no tool calls"

SOURCE = source(("Chat", """
models.use('writer')
messages:user('hello')
local ok, err = pcall(models.loop)
if ok then return 'ok|' .. #messages end
return err.kind .. '|' .. tostring(err) .. '|' .. tostring(err.finish_reason) .. '|' .. #messages
"""))


def run_with(reply: ModelReply, debug: bool = False):
    run = Run(parse_text(SOURCE, path="first-chat.md"), bindings={"writer": ModelBinding("w")}, debug=debug)
    while True:
        effects = run.step()
        if run.done:
            return run
        run.resume({e.id: reply for e in effects})


@pytest.mark.parametrize("text", ["", " \n\t ", "\n\n"])
def test_text_that_is_only_whitespace_is_an_empty_reply(text):
    run = run_with(ModelReply(text=text, finish_reason="stop", empty_phrase=PHRASE))
    assert run.outcome.result == f"empty_model_reply|{PHRASE}|stop|1"


def test_a_reply_the_host_builds_itself_falls_back_to_its_own_message():
    run = run_with(ModelReply(text="", finish_reason=None))
    assert run.outcome.result == "empty_model_reply|empty model reply|nil|1"


def test_reasoning_only_replies_extend_the_phrase():
    run = run_with(ModelReply(text="", reasoning="thinking hard", finish_reason="stop", empty_phrase=PHRASE))
    assert run.outcome.result == (
        f"empty_model_reply|{PHRASE}: reasoning content was present but ignored|stop|1")


def test_an_empty_round_completes_with_its_finish_reason_and_message_and_no_debug_capture():
    run = run_with(ModelReply(text="", finish_reason="length", empty_phrase=PHRASE), debug=True)
    completed = run.events.of_type("model_turn_completed")
    assert [(e.data["finish_reason"], e.data["message"]) for e in completed] == [("length", PHRASE)]
    # no truncation event (there is no reply to truncate), no reply, no response body
    assert not run.events.of_type("model_turn_truncated")
    assert not run.events.of_type("assistant_reply")
    assert not run.events.of_type("debug_response")
    assert run.outcome.result == f"empty_model_reply|{PHRASE}|length|1"


def test_a_text_reply_with_whitespace_around_it_is_kept_as_written():
    run = run_with(ModelReply(text="  hi  ", finish_reason="stop", empty_phrase=PHRASE))
    assert run.outcome.result == "ok|2"


@pytest.mark.parametrize("finish", ["length", "content_filter"])
def test_a_truncated_tool_round_fails_as_internal_and_runs_no_call(finish):
    call = {"id": "call_1", "name": "web_search", "arguments": {"query": "Par"}}
    run = run_with(ModelReply(tool_calls=(call,), finish_reason=finish, empty_phrase=PHRASE))
    assert run.outcome.result == (
        f"internal|the model's tool-call reply was cut short (finish reason {finish}); its calls were not run|nil|1")
