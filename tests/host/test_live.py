"""Live output on a terminal's stderr (host.md): streamed text, tool calls,
a spinner while a round waits."""

from __future__ import annotations

import io
import time

from runvil.engine.effects import ModelReply, ModelRound, ToolCall, ToolResult
from runvil.engine.events import Event
from runvil.host.live import FRAMES, Live


def test_the_spinner_turns_while_a_round_waits_and_is_cleared():
    out = io.StringIO()
    live = Live(out, interval=0.005)

    def slow(effect):
        time.sleep(0.05)
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
