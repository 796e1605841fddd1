"""What the model receives (conversations.md "What the model receives"):
the records composed into the request's messages.

For now each record is sent in its record form (role, content, tool_calls,
tool_call_id; never meta); same-role merging and the cross-record checks of
the chapter come with its full implementation.
"""

from __future__ import annotations


def compose(records: list) -> list[dict]:
    return [r.sent_form() for r in records]
