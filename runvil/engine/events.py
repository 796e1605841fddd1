"""Run events (spec/runvil.md §11): reported in order, each with the
execution id, the section and a sequence number. The Host writes them as
JSON Lines (the run log) and may show them live."""

from __future__ import annotations

from attrs import frozen

EVENT_TYPES = (
    "run_started",
    "section_started",
    "model_turn_completed",
    "model_turn_failed",
    "model_turn_truncated",
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


@frozen
class Event:
    seq: int
    type: str
    execution_id: str
    section: str | None
    data: dict

    def as_json(self) -> dict:
        return {"seq": self.seq, "type": self.type, "execution_id": self.execution_id, "section": self.section, **self.data}


class EventLog:
    """The run's events in order; listeners see each as it is reported."""

    def __init__(self):
        self.events: list[Event] = []
        self.listeners: list = []

    def emit(self, type: str, execution_id: str, section: str | None, **data) -> Event:
        assert type in EVENT_TYPES, type
        ev = Event(len(self.events) + 1, type, execution_id, section, data)
        self.events.append(ev)
        for listener in self.listeners:
            listener(ev)
        return ev

    def of_type(self, type: str) -> list[Event]:
        return [e for e in self.events if e.type == type]
