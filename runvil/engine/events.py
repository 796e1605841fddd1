"""Run events (docs/reference/conversations.md): reported in order, each with the
execution id, the section, a sequence number and the time (UTC,
ISO 8601 with milliseconds). The Host writes them as JSON Lines (the run
log) and may show them live.

The Harness may report events too (a `model_retry` while a provider is
retried), from the threads that answer effects: `emit` is thread-safe, so
sequence numbers stay in order and unique."""

from __future__ import annotations

import threading
import time

from ..structs import Struct

EVENT_TYPES = (
    "run_started",
    "section_started",
    "model_turn_completed",
    "model_turn_failed",
    "model_turn_truncated",
    "model_reply_partial",  # the text a failed round streamed (docs/reference/configuration.md)
    "model_retry",  # the Harness retries a round (docs/reference/configuration.md)
    "thinking",
    "assistant_reply",
    "tool_call_succeeded",
    "tool_call_failed",
    "reply",
    "chat",
    "task_notice",
    "section_ended",
    "run_ended",
    "debug_request",
    "debug_response",
    "print",  # a line the prompt's Lua printed: `print` writes to the run log
)


def utc_now(_last=[(None, "")]) -> str:
    """The time now as the specification writes it: `2026-12-01T14:20:15.123Z`."""
    seconds, ns = divmod(time.time_ns(), 1_000_000_000)  # as datetime.now(timezone.utc), without importing it
    # the second last formatted and its text, swapped whole (threads stamp
    # events too): a batch stamps thousands of events a second
    got = _last[0]
    if got[0] != seconds:
        got = _last[0] = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds)))
    return f"{got[1]}{ns // 1_000_000:03d}Z"


class Event(Struct, frozen=True):
    seq: int
    type: str
    execution_id: str
    section: str | None
    data: dict
    time: str = ""

    def as_json(self) -> dict:
        return {"seq": self.seq, "time": self.time, "type": self.type, "execution_id": self.execution_id,
                "section": self.section, **self.data}


class EventLog:
    """The run's events in order; listeners see each as it is reported."""

    def __init__(self):
        self.events: list[Event] = []
        self.listeners: list = []
        self._lock = threading.RLock()

    def emit(self, type: str, execution_id: str, section: str | None, **data) -> Event:
        assert type in EVENT_TYPES, type
        with self._lock:
            ev = Event(len(self.events) + 1, type, execution_id, section, data, utc_now())
            self.events.append(ev)
            for listener in self.listeners:
                listener(ev)
        return ev

    def of_type(self, type: str) -> list[Event]:
        return [e for e in self.events if e.type == type]
