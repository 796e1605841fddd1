"""Tools (spec/runvil.md §7): offers, the tool list rendered at the first
loop round, and running the calls of a tool round."""

from __future__ import annotations

from .conversation.records import Record


def render_tools(vm) -> list:
    """The section's tool list, fixed at its first loop round."""
    if vm.rendered_tools is None:
        vm.rendered_tools = []
    return vm.rendered_tools


def run_tool_calls(vm, calls: list) -> None:
    """Answers each call of a tool round with a tool record."""
    for call in calls:
        vm.messages.records.append(Record("tool", f"unknown tool {call['name']}", tool_call_id=call["id"]))
