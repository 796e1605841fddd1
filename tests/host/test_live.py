"""Live output on a terminal's stderr (docs/reference/commands.md): streamed text, tool calls,
a spinner while a round waits."""

from __future__ import annotations

import io

from runvil.engine.effects import ModelReply, ModelRound, ToolCall, ToolResult
from runvil.engine.events import Event
from runvil.host.live import FRAMES, Live
from tests.harness.chat_server import wait_until


def test_the_spinner_turns_while_a_round_waits_and_is_cleared():
    out = io.StringIO()
    live = Live(out, interval=0.005)

    def slow(effect):  # the round lasts until the spinner has drawn, however loaded the machine
        assert wait_until(lambda: "waiting for writer" in out.getvalue(), timeout=60)
        return ModelReply(text="hi")

    answer = live.answerer(slow)
    assert answer(ModelRound(1, "writer", "m", "chat", ())) == ModelReply(text="hi")
    text = out.getvalue()
    assert f"\r{FRAMES[0]} waiting for writer" in text
    assert text.endswith("\r\x1b[K")
    # tool calls answer without a spinner
    out.truncate(0), out.seek(0)
    assert live.answerer(lambda e: ToolResult("r"))(ToolCall(2, "web/search", {})) == ToolResult("r")
    assert out.getvalue() == ""


def test_streamed_text_then_a_tool_call_line():
    out = io.StringIO()
    live = Live(out)
    live.fragment(None, "Let me ")
    live.fragment(None, "check.")
    live.listen(Event(1, "tool_call_succeeded", "0", "Ask", {"name": "web_search", "id": "call_1"}))
    live.listen(Event(2, "tool_call_failed", "0", "Ask", {"name": "web_fetch", "id": "call_2"}))
    assert out.getvalue() == "Let me check.\n→ web_search (call_1) ok\n→ web_fetch (call_2) failed\n"


def test_print_lines_retries_and_the_closing_line():
    out = io.StringIO()
    live = Live(out)
    live.fragment(None, "half")
    live.listen(Event(1, "print", "0", "A", {"text": "from Lua"}))
    live.listen(Event(2, "model_retry", "0", None, {"role": "writer", "attempt": 1, "status": 429, "wait": 1.0}))
    live.listen(Event(3, "model_retry", "0", None, {"role": "writer", "attempt": 2, "status": None, "wait": 0.52}))
    live.closing("1 round · 0.2 s")
    assert out.getvalue() == ("half\nfrom Lua\n↻ writer: status 429, retry 1 in 1.0 s\n"
                              "↻ writer: the connection failed, retry 2 in 0.5 s\n1 round · 0.2 s\n")


def test_the_last_streamed_reply_is_remembered_per_round():
    live = Live(io.StringIO())
    one, two = ModelRound(1, "a", "m", "chat", ()), ModelRound(2, "b", "m", "chat", ())
    live.fragment(one, "Bon")
    live.fragment(two, "other")
    live.fragment(one, "jour")
    live.listen(Event(1, "assistant_reply", "0", "A", {"round": 1, "text": "Bonjour"}))
    assert live.last_streamed == "Bonjour"
    # a StringIO is no terminal: the result is printed
    assert not live.already_shown("Bonjour", io.StringIO())


def test_usage_meter_and_closing_line():
    from runvil.engine.effects import ModelFailure
    from runvil.host.usage import UsageMeter

    replies = iter([ModelReply(text="a", usage={"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": 3}),
                    ModelFailure(unreachable="connection refused"),  # never reached: not a round
                    ModelFailure(status=500),  # reached, no usage
                    ModelReply(text="b", usage={"prompt_tokens": 20, "completion_tokens": 7, "reasoning_tokens": 1})])
    meter = UsageMeter(lambda effect: ToolResult("r") if isinstance(effect, ToolCall) else next(replies))
    for i in range(4):
        meter(ModelRound(i, "w", "m", "chat", ()))
    assert meter(ToolCall(9, "web/search", {})) == ToolResult("r")  # a tool call is no round
    assert meter.as_json() == {"rounds": 3, "prompt_tokens": 30, "completion_tokens": 12, "reasoning_tokens": 4,
                               "rounds_without_usage": 1}
    assert meter.closing_line(now=meter.started + 1.84) == \
        "3 rounds · 30 prompt + 12 completion tokens (4 reasoning) (1 round without usage) · 1.8 s"
    empty = UsageMeter(lambda e: ModelReply(text="x"))
    empty(ModelRound(1, "w", "m", "chat", ()))
    assert empty.closing_line(now=empty.started) == "1 round · tokens unknown · 0.0 s"  # docs/reference/commands.md


def test_a_reply_cut_short_for_length_is_marked():
    """Issue 25: a `length` reply is marked in live output, after its text."""
    from runvil.host.live import CUT_SHORT

    out = io.StringIO()
    live = Live(out)
    one = ModelRound(1, "w", "m", "chat", ())
    live.fragment(one, "Once upon a")
    live.listen(Event(1, "model_turn_completed", "0", "A", {"round": 1, "finish_reason": "length"}))
    live.listen(Event(2, "model_turn_truncated", "0", "A", {"round": 1}))
    live.listen(Event(3, "assistant_reply", "0", "A", {"round": 1, "text": "Once upon a"}))
    assert out.getvalue() == f"Once upon a\n{CUT_SHORT}\n"
    assert CUT_SHORT == "[cut short: the reply reached its length limit (finish reason length)]"
    assert live.last_streamed == "Once upon a"
