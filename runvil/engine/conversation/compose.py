"""What the model receives (docs/reference/conversations.md "What the model receives",
"Cross-record errors").

`compose(records)` runs the cross-record rules over the list as it stands
and returns the messages the model receives, in the record form: dicts with
`role` and `content`, plus `tool_calls` ({id, name, arguments}, arguments
still a dict) and `tool_call_id` when they apply; never meta. The list
itself is never changed: composing works on what the records hold.

The rules, in their fixed order, and only the first broken one reported:

1. a leading block of two or more system records holds only plain text;
2. each record in list order: tool_calls placement first; then, for any
   record that is not a tool record, the open assistant record's calls
   must all be answered ("has no tool result"); then the record's own
   role's rules (duplicate ids for an assistant record with calls, the
   pending-call match for a tool record);
3. the assistant record whose calls are still open when the list ends.

Same-role merging, per role (§12):

* system: a lone leading system record is sent unchanged (text or parts);
  a block of two or more composes into one message, texts joined by
  "\\n\\n" (every text joins, an empty one included: the empty-record rule
  is for user and assistant records);
* user: a run joins with "\\n\\n"; an empty-string record contributes
  nothing;
* assistant: text-only fragments join with no separator, an empty one
  contributing nothing; a run of fragments just before an assistant record
  with tool_calls becomes that record's content;
* tool: never merged.

When either side of a merge uses content parts, the result is a parts
array in arrival order: a text side becomes one text part, an empty-string
side adds no part, and between user records the "\\n\\n" separator is its
own text part (even when the other side is empty text). Merging folds left
over the run, pair by pair, exactly as those sentences read.

A run whose records are all empty strings still reaches the model, as one
message with content "": "a list with one leading system record followed
by alternating user and assistant records reaches the model exactly as
written", so an empty record between two others of the other role can
neither vanish nor make its neighbours merge.

Cost: one pass, O(1) work per record (a set of seen call ids, the pending
calls of the open assistant record). Records are immutable, so the composed
messages share their content lists, part dicts and tool_calls with the
records instead of copying them: callers must not mutate what compose
returns.
"""

from __future__ import annotations

from ..errors import raise_lua
from .records import LATE_SYSTEM

# The five cross-record messages (docs/reference/conversations.md "Cross-record errors";
# the placement text is §12's reading). N is the record's 1-based position
# in the list, not in the composed request; ids print in double quotes.
SYSTEM_PARTS = (
    "messages[{n}] is a system message with content parts; only plain text system messages can be composed"
)
NOT_ASSISTANT = "messages[{n}] sets tool_calls but is not an assistant message"
DUPLICATE_ID = 'messages[{n}] tool call id "{id}" duplicates an earlier tool call'
NO_RESULT = 'messages[{n}] tool call "{id}" has no tool result'
ORPHAN = 'messages[{n}] is an orphan tool record: no pending assistant tool call with id "{id}"'

USER_SEPARATOR = "\n\n"
SYSTEM_SEPARATOR = "\n\n"


class ComposeError(Exception):
    """A broken cross-record rule; `str(e)` is the exact lua-kind message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def compose(records) -> list[dict]:
    """Checks the cross-record rules over `records` (a sequence of Record)
    and returns the composed messages exactly as sent. Raises ComposeError.
    An empty list passes and composes to no messages."""
    c = Composer(records)
    c.feed(records, 0)
    return c.result()


class Composer:
    """The composing fold, resumable: records never change, so a list that
    only grew since the last send is composed from where that send stopped
    (`feed` the new records), which keeps a long tool loop's rounds cheap."""

    __slots__ = ("lead", "out", "seen", "pending", "open_at", "run", "run_role", "fed", "_last")

    def __init__(self, records):
        total = len(records)
        lead = 0
        while lead < total and records[lead].role == "system":
            lead += 1
        # Rule 1: a leading block of two or more records holds only plain text.
        if lead >= 2:
            for i in range(lead):
                if type(records[i].content) is not str:
                    raise ComposeError(SYSTEM_PARTS.format(n=i + 1))
        self.lead = lead
        self.out: list[dict] = []
        self.seen: set = set()  # every tool call id met so far
        self.pending: dict | None = None  # the open assistant record's unanswered ids
        self.open_at = 0  # 1-based position of that assistant record
        self.run: list = []  # the current user or assistant run, not yet composed
        self.run_role = None
        self.fed = 0
        self._last = None

    def can_extend(self, records) -> bool:
        """True when `records` only appends to what was fed, after the
        leading system block (which appending cannot change)."""
        n = self.fed
        # records compare by identity: a replaced record is a new object
        return n > self.lead and len(records) >= n and records[:n] == self._last

    def feed(self, records, start: int) -> None:
        lead = self.lead
        out, seen = self.out, self.seen
        pending, open_at, run, run_role = self.pending, self.open_at, self.run, self.run_role
        append = out.append
        for i in range(start, len(records)):
            r = records[i]
            role = r.role
            calls = r.tool_calls
            # Rule 2, placement first.
            if calls is not None and role != "assistant":
                raise ComposeError(NOT_ASSISTANT.format(n=i + 1))
            if role == "tool":
                tcid = r.tool_call_id
                if not pending or tcid not in pending:
                    raise ComposeError(ORPHAN.format(n=i + 1, id=tcid))
                del pending[tcid]
                if run:
                    append(_compose_run(run_role, run))
                    run = []
                    run_role = None
                append({"role": "tool", "content": r.content, "tool_call_id": tcid})
                continue
            # A record of another role closes the open assistant record.
            if pending:
                raise ComposeError(NO_RESULT.format(n=open_at, id=next(iter(pending))))
            pending = None
            if role == "system":
                if i >= lead:
                    # unreachable through the list's own edits, which refuse it
                    raise ComposeError(LATE_SYSTEM.format(n=i + 1))
                if i == 0:
                    if lead == 1:
                        append({"role": "system", "content": r.content})
                    else:
                        text = SYSTEM_SEPARATOR.join([records[k].content for k in range(lead)])
                        append({"role": "system", "content": text})
                continue
            # a user or assistant record joins the run of its role
            if run_role != role:
                if run:
                    append(_compose_run(run_role, run))
                run = []
                run_role = role
            run.append(r)
            if calls:  # only an assistant record gets here with calls
                for call in calls:
                    cid = call["id"]
                    if cid in seen:
                        raise ComposeError(DUPLICATE_ID.format(n=i + 1, id=cid))
                    seen.add(cid)
                pending = dict.fromkeys(call["id"] for call in calls)
                open_at = i + 1
                append(_compose_run("assistant", run))  # the calls end the run
                run = []
                run_role = None
        self.pending, self.open_at, self.run, self.run_role = pending, open_at, run, run_role
        self.fed = len(records)
        self._last = list(records)  # what was fed, to recognise a list that only grew

    def result(self) -> list[dict]:
        # Rule 3: calls still open when the list ends.
        if self.pending:
            raise ComposeError(NO_RESULT.format(n=self.open_at, id=next(iter(self.pending))))
        if self.run:
            return self.out + [_compose_run(self.run_role, self.run)]
        return list(self.out)


def compose_incremental(records, state: list) -> list[dict]:
    """compose(), resuming the Composer kept in `state[0]` when the list
    only grew since; the state is dropped on any error."""
    c = state[0] if state else None
    try:
        if c is not None and c.can_extend(records):
            c.feed(records, c.fed)
        else:
            c = Composer(records)
            c.feed(records, 0)
        state[:] = [c]
        return c.result()
    except ComposeError:
        state[:] = []
        raise


def composed(vm) -> list:
    """A VM's list as the model receives it; a broken cross-record rule is a
    lua-kind error."""
    try:
        return compose_incremental(vm.messages.records, vm.messages.compose_state)
    except ComposeError as e:
        raise_lua(str(e))


def _compose_run(role: str, run: list) -> dict:
    """One message from a run of user records, or of assistant records of
    which only the last may carry tool_calls."""
    last = run[-1]
    if len(run) == 1:
        content = last.content
    else:
        content = _merge(run, USER_SEPARATOR if role == "user" else "")
    msg = {"role": role, "content": content}
    if last.tool_calls:
        msg["tool_calls"] = last.tool_calls
    return msg


def _merge(run: list, sep: str):
    """The left fold of the pairwise merge over the run's contents.

    While every content so far is text, the accumulated value is the join
    of the non-empty texts. From the first parts side on, it is a parts
    array: the text so far as one part (none when empty), then for each
    later record the separator part (user runs only) and that record's
    parts (a text record as one text part, none when empty)."""
    texts: list[str] = []
    parts: list | None = None
    for r in run:
        c = r.content
        if parts is None:
            if type(c) is str:
                if c:
                    texts.append(c)
                continue
            acc = sep.join(texts)
            parts = [{"type": "text", "text": acc}] if acc else []
            if sep and r is not run[0]:
                parts.append({"type": "text", "text": sep})
            parts.extend(c)
        else:
            if sep:
                parts.append({"type": "text", "text": sep})
            if type(c) is str:
                if c:
                    parts.append({"type": "text", "text": c})
            else:
                parts.extend(c)
    if parts is None:
        return sep.join(texts)
    return parts
