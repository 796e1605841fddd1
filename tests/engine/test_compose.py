"""What the model receives: the cross-record rules and same-role merging
(docs/reference/conversations.md "What the model receives", "Cross-record
errors"). Each spec example that states a composed request or an error is a
test quoting its sentence; hypothesis covers random valid lists and single
corruptions."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runvil.engine.conversation.compose import ComposeError, compose
from runvil.engine.conversation.records import Record


def sys_(c, meta=None):
    return Record("system", c, meta=meta)


def user(c, meta=None):
    return Record("user", c, meta=meta)


def asst(c, calls=None, meta=None):
    return Record("assistant", c, calls, meta=meta)


def tool(cid, c="ok"):
    return Record("tool", c, tool_call_id=cid)


def call(cid, name="read", arguments=None):
    return {"id": cid, "name": name, "arguments": {} if arguments is None else arguments}


def text(t):
    return {"type": "text", "text": t}


def img(u):
    return {"type": "image_url", "image_url": {"url": u}}


SEP = text("\n\n")


def err(records) -> str:
    with pytest.raises(ComposeError) as e:
        compose(records)
    return str(e.value)


def as_records(messages):
    return [Record(m["role"], m["content"], m.get("tool_calls"), m.get("tool_call_id")) for m in messages]


# ---------------------------------------------------------------- composed requests


def test_first_chat_two_messages():
    """The list holds four records, but the model receives two: { role = 'system', content =
    'You are terse.\\n\\nAnswer in French.' } { role = 'user', content = 'Hello.\\n\\nWhat time is it?' }"""
    records = [sys_("You are terse."), sys_("Answer in French."), user("Hello."), user("What time is it?")]
    assert compose(records) == [
        {"role": "system", "content": "You are terse.\n\nAnswer in French."},
        {"role": "user", "content": "Hello.\n\nWhat time is it?"},
    ]
    assert len(records) == 4


def test_list_unchanged_by_sending():
    """Sending a list never changes it. Composing system records and merging same-role records happen
    on a copy and change only what the model receives. The list keeps its own records, count, and order."""
    records = [sys_("a"), sys_("b"), user("u1"), user([text("p")]), asst("x"), asst("y")]
    before = list(records)
    forms = [r.as_json() for r in records]
    compose(records)
    compose(records)
    assert records == before and all(a is b for a, b in zip(records, before))
    assert [r.as_json() for r in records] == forms


def test_well_formed_list_as_written():
    """A list built as system be terse, user hi, assistant hello, user thanks reaches the model as
    those same four messages."""
    records = [sys_("be terse"), user("hi"), asst("hello"), user("thanks")]
    assert compose(records) == [r.sent_form() for r in records]


def test_plain_text_record_form():
    """A record whose content is a string reaches the model as plain text, so
    { role = "system", content = "be terse" } arrives as: { "role": "system", "content": "be terse" }"""
    out = compose([sys_("be terse")])
    assert out == [{"role": "system", "content": "be terse"}]
    assert list(out[0]) == ["role", "content"]


def test_meta_never_sent():
    """It adds no system message or other text of its own, and it never sends a record's meta. ... A record
    that differs from an earlier send only in its meta therefore sends the same message."""
    a = compose([sys_("s", meta={"k": 1}), user("hi", meta={"draft": True}), asst("yo", meta=[1, 2])])
    b = compose([sys_("s"), user("hi"), asst("yo", meta={"other": "x"})])
    assert a == b == [{"role": "system", "content": "s"}, {"role": "user", "content": "hi"},
                      {"role": "assistant", "content": "yo"}]


def test_streaming_fragments_reassemble():
    """streaming fragments of one reply that you append as they arrive, such as Hello, , world, and !,
    reach the model as one assistant message, Hello, world!."""
    records = [user("q"), asst("Hello"), asst(", "), asst("world"), asst("!")]
    assert compose(records) == [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Hello, world!"}]


def test_text_before_tool_calls_becomes_content():
    """A text-only assistant record let me check, followed by an assistant record whose content is empty
    and whose tool_calls hold one call, reaches the model as one assistant message whose content is let me
    check and whose tool calls are that call."""
    c = call("call_1", "read", {"path": "notes.txt"})
    out = compose([user("q"), asst("let me check"), asst("", [c]), tool("call_1", "first line")])
    assert out[1] == {"role": "assistant", "content": "let me check", "tool_calls": [c]}
    assert out[2] == {"role": "tool", "content": "first line", "tool_call_id": "call_1"}


def test_tool_records_never_merge():
    """Tool records never merge, so each tool result reaches the model as its own message, even when
    several sit side by side."""
    calls = [call("a"), call("b"), call("c")]
    out = compose([user("q"), asst("", calls), tool("a", "1"), tool("b", "2"), tool("c", "3")])
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "tool"]
    assert [m["content"] for m in out[2:]] == ["1", "2", "3"]


def test_eight_records_heal():
    """These eight records: system 's1', system 's2', user '', user 'hi', assistant '', assistant 'answer',
    assistant '', user 'next' reach the model as four messages: system 's1\\n\\ns2', user 'hi',
    assistant 'answer', user 'next'"""
    records = [sys_("s1"), sys_("s2"), user(""), user("hi"), asst(""), asst("answer"), asst(""), user("next")]
    assert compose(records) == [
        {"role": "system", "content": "s1\n\ns2"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "answer"},
        {"role": "user", "content": "next"},
    ]


def test_user_parts_merge_with_separator_part():
    """When either record being merged uses content parts, the model receives a parts array holding every
    part of both records in arrival order. Between user records, the blank-line separator goes in as its
    own text part."""
    out = compose([user("look"), user([text("at"), img("http://x/i.png")]), user("now")])
    assert out == [{"role": "user", "content": [text("look"), SEP, text("at"), img("http://x/i.png"), SEP,
                                                 text("now")]}]


def test_user_separator_even_beside_empty_text():
    """Between user records, the blank-line separator goes in as its own text part, even when the other
    side is empty text. (§12: an empty-string side adds no part.)"""
    assert compose([user([img("u")]), user("")]) == [{"role": "user", "content": [img("u"), SEP]}]
    assert compose([user(""), user([img("u")])]) == [{"role": "user", "content": [SEP, img("u")]}]


def test_assistant_parts_no_separator():
    """Assistant records have no separator, so their parts follow one another directly. Consecutive
    assistant fragments that mix plain text and content parts merge into one parts array in arrival
    order, and an empty fragment among them is absorbed."""
    out = compose([user("q"), asst("a"), asst(""), asst([text("b"), img("u")]), asst(""), asst("c")])
    assert out[1] == {"role": "assistant", "content": [text("a"), text("b"), img("u"), text("c")]}


def test_assistant_parts_before_tool_calls():
    """Assistant text written just before an assistant record with tool_calls merges into that record as
    its visible content (§12: parts in arrival order)."""
    c = call("call_1")
    out = compose([user("q"), asst([img("u")]), asst("then", [c]), tool("call_1")])
    assert out[1] == {"role": "assistant", "content": [img("u"), text("then")], "tool_calls": [c]}


def test_lone_system_with_parts_unchanged():
    """A lone leading system record reaches the model unchanged: it may use plain text or content parts,
    and its parts stay intact rather than being flattened to text."""
    parts = [text("be terse"), img("http://x/logo.png")]
    assert compose([sys_(parts), user("hi")]) == [{"role": "system", "content": parts},
                                                  {"role": "user", "content": "hi"}]


def test_refine_sends_system_then_user():
    """so the loop sends the system record first and the draft as the user message after it."""
    assert compose([sys_("Refine this."), user("draft")]) == [
        {"role": "system", "content": "Refine this."}, {"role": "user", "content": "draft"}]


def test_tool_exchange_verbatim():
    """A complete tool exchange ... reaches the model verbatim. One assistant record can hold several tool
    calls, and all of them replay to the model in that one message, with their ids unchanged and their
    arguments intact. ... The results may come in any order, so call_2 is answered before call_1 here."""
    calls = [call("call_1", "read", {"path": "notes.txt", "limit": 3}),
             call("call_2", "search", {"query": "tool_calls", "recursive": True})]
    records = [user("Read the notes."), asst("", calls), tool("call_2", "two matches"), tool("call_1", "first line")]
    assert compose(records) == [
        {"role": "user", "content": "Read the notes."},
        {"role": "assistant", "content": "", "tool_calls": calls},
        {"role": "tool", "content": "two matches", "tool_call_id": "call_2"},
        {"role": "tool", "content": "first line", "tool_call_id": "call_1"},
    ]
    assert compose(records)[1]["tool_calls"][0]["arguments"] == {"path": "notes.txt", "limit": 3}


def test_text_and_calls_sent_together():
    """One assistant record can carry visible reply text in content together with several tool calls, as
    Let me check both. does beside call_1 and call_2, and the text and every call are sent to the model
    together. The calls keep the order they were written in, so call_1 stays first."""
    calls = [call("call_1", "web_search", {"query": "hi"}), call("call_2", "clock")]
    out = compose([user("q"), asst("Let me check both.", calls), tool("call_1"), tool("call_2")])
    assert out[1] == {"role": "assistant", "content": "Let me check both.", "tool_calls": calls}
    assert [c["id"] for c in out[1]["tool_calls"]] == ["call_1", "call_2"]


def test_default_arguments_sent_as_empty_object():
    """A call whose arguments is left out or nil gets the empty object {} and is sent that way."""
    out = compose([user("q"), asst("", [call("c1", "clock")]), tool("c1")])
    assert out[1]["tool_calls"][0]["arguments"] == {}


def test_exhausted_rounds_compose():
    """The list holds only complete rounds, each with its assistant tool-call record and a tool record for
    each call, so one user record with max_tool_iterations: 2 leaves 5 records."""
    records = [user("go"), asst("", [call("c1")]), tool("c1"), asst("", [call("c2")]), tool("c2")]
    assert len(compose(records)) == 5


def test_adjacent_users_after_dropped_reply_merge():
    """After a compaction runs messages:replace(#messages, #messages) to remove the reply and
    messages:user(...) adds a new user record, the two adjacent user records merge into one in the request."""
    assert compose([user("first"), user("again")]) == [{"role": "user", "content": "first\n\nagain"}]


def test_empty_list_passes():
    """An empty list passes them."""
    assert compose([]) == []


def test_whole_empty_run_is_kept():
    """A list with one leading system record followed by alternating user and assistant records reaches the
    model exactly as written: unchanged, in order, one message for each record. (Decision: a run of only
    empty records is one message with content "", so its neighbours never merge.)"""
    records = [sys_("s"), user("hi"), asst(""), user("next")]
    assert compose(records) == [r.sent_form() for r in records]
    assert compose([user(""), user(""), asst("a")]) == [{"role": "user", "content": ""},
                                                        {"role": "assistant", "content": "a"}]


# ---------------------------------------------------------------- cross-record errors


def test_missing_result_at_end():
    """The list ends while the assistant record at position 2 still has an unanswered call ...
    messages[2] tool call "call_1" has no tool result"""
    records = [user("hi"), asst("", [call("call_1", "read", {"path": "notes.txt"})])]
    assert err(records) == 'messages[2] tool call "call_1" has no tool result'


def test_missing_result_before_user():
    """When that record at position 1 has calls call_1 and call_2, and only call_1 is answered before a
    user record, the message is messages[1] tool call "call_2" has no tool result."""
    records = [asst("", [call("call_1"), call("call_2")]), tool("call_1"), user("u")]
    assert err(records) == 'messages[1] tool call "call_2" has no tool result'


def test_missing_result_before_new_batch_and_text():
    """a call gets no tool record before a record of another message role arrives, before a new assistant
    record with tool_calls starts, or before the list ends."""
    a = [user("q"), asst("", [call("c1"), call("c2")]), tool("c2"), asst("", [call("c3")]), tool("c3")]
    assert err(a) == 'messages[2] tool call "c1" has no tool result'
    b = [user("q"), asst("", [call("c1")]), asst("text")]
    assert err(b) == 'messages[2] tool call "c1" has no tool result'


def test_nothing_between_call_and_results():
    """nothing else comes between the assistant record and its last tool record."""
    records = [user("q"), asst("", [call("c1"), call("c2")]), tool("c1"), user("x"), tool("c2")]
    assert err(records) == 'messages[2] tool call "c2" has no tool result'


@pytest.mark.parametrize("role", ["user", "system", "tool"])
def test_placement(role):
    """such as messages[1] sets tool_calls but is not an assistant message for a user record at position 1"""
    r = Record(role, "x", [call("c1")], "c0" if role == "tool" else None)
    assert err([r]) == "messages[1] sets tool_calls but is not an assistant message"


def test_placement_later_position():
    """Adding a system, user, or tool record that sets tool_calls with append succeeds ... but the next
    models.loop call fails naming that record."""
    records = [user("q"), asst("a"), Record("user", "u", [call("c1")])]
    assert err(records) == "messages[3] sets tool_calls but is not an assistant message"


def test_duplicate_in_one_record():
    """Two calls with id call_1 in the first record give messages[1] tool call id "call_1" duplicates an
    earlier tool call"""
    assert err([asst("", [call("call_1"), call("call_1")])]) == \
        'messages[1] tool call id "call_1" duplicates an earlier tool call'


def test_duplicate_in_later_record():
    """a later assistant record at position 3 that reuses call_1 gives messages[3] tool call id "call_1"
    duplicates an earlier tool call. This holds even after the first call was answered."""
    records = [asst("", [call("call_1")]), tool("call_1"), asst("", [call("call_1")]), tool("call_1")]
    assert err(records) == 'messages[3] tool call id "call_1" duplicates an earlier tool call'


def test_orphan_after_user():
    """A tool record at position 2 answering call_9 right after a user record gives messages[2] is an
    orphan tool record: no pending assistant tool call with id "call_9"."""
    assert err([user("u"), tool("call_9")]) == \
        'messages[2] is an orphan tool record: no pending assistant tool call with id "call_9"'


def test_orphan_cases():
    """That covers a tool record with no assistant tool call before it, a tool_call_id that is not among
    the open calls, a second answer to a call that already has its result, and an answer to a call whose
    assistant record is already fully answered."""
    msg = 'messages[{n}] is an orphan tool record: no pending assistant tool call with id "{id}"'
    assert err([tool("c1")]) == msg.format(n=1, id="c1")
    assert err([sys_("s"), tool("c1")]) == msg.format(n=2, id="c1")
    assert err([user("q"), asst("", [call("c1"), call("c2")]), tool("c3")]) == msg.format(n=3, id="c3")
    assert err([user("q"), asst("", [call("c1"), call("c2")]), tool("c1"), tool("c1")]) == msg.format(n=4, id="c1")
    assert err([user("q"), asst("", [call("c1")]), tool("c1"), tool("c1")]) == msg.format(n=4, id="c1")
    # a call of an earlier, closed assistant record is no longer pending
    assert err([asst("", [call("c1")]), tool("c1"), user("u"), tool("c1")]) == msg.format(n=4, id="c1")


def test_system_block_with_parts():
    """When the block holds two or more records and any of them uses content parts, the models.loop call
    fails and names the first such record by its position: messages[N] is a system message with content
    parts; only plain text system messages can be composed"""
    records = [sys_("a"), sys_([text("b")]), sys_([text("c")]), user("u")]
    assert err(records) == ("messages[2] is a system message with content parts; "
                            "only plain text system messages can be composed")


def test_system_parts_rule_runs_first():
    """The plain-text check on a leading block of two or more system records. It runs before every other
    cross-record rule, so it is the error reported even when later records also break another rule."""
    records = [Record("system", "a", [call("x")]), sys_([text("b")]), tool("c9")]
    assert err(records).startswith("messages[2] is a system message with content parts")


def test_placement_before_role_rules():
    """Each record in list order, with the tool_calls placement rule checked before the rules for that
    record's own message role. (§12: a record of any role other than tool arriving while an assistant
    record still has open calls reports that assistant record's has no tool result.)"""
    # a tool record with tool_calls that would also be an orphan
    assert err([user("q"), Record("tool", "x", [call("c1")], "c9")]) == \
        "messages[2] sets tool_calls but is not an assistant message"
    # a user record with tool_calls while calls are open: placement first
    assert err([asst("", [call("c1")]), Record("user", "x", [call("c2")])]) == \
        "messages[2] sets tool_calls but is not an assistant message"
    # an assistant record that both closes an open batch and repeats an id: the open batch first
    assert err([asst("", [call("c1"), call("c2")]), tool("c1"), asst("", [call("c1")])]) == \
        'messages[1] tool call "c2" has no tool result'


def test_records_in_list_order():
    """Only the first broken rule is reported, record by record in list order; the open calls at the end
    of the list come last."""
    records = [tool("c9"), Record("user", "x", [call("c1")])]
    assert err(records).startswith("messages[1] is an orphan")
    records = [asst("", [call("c1"), call("c1")]), asst("", [call("c2")])]
    assert err(records).startswith('messages[1] tool call id "c1" duplicates')
    records = [user("q"), asst("", [call("c1")]), tool("c1"), asst("", [call("c2")])]
    assert err(records) == 'messages[4] tool call "c2" has no tool result'


def test_positions_are_list_positions():
    """messages[N] names the offending record by its 1-based position in the list, not in the composed
    request."""
    records = [sys_("a"), sys_("b"), user("1"), user("2"), asst("x"), asst("y"), tool("c5")]
    assert err(records).startswith("messages[7] is an orphan")


# ---------------------------------------------------------------- properties


def ref_merge(a, b, sep):
    """The pairwise merge as §12 reads, written plainly."""
    if isinstance(a, str) and isinstance(b, str):
        return b if not a else a if not b else a + sep + b

    def parts(c):
        return list(c) if isinstance(c, list) else ([text(c)] if c else [])

    return parts(a) + ([text(sep)] if sep else []) + parts(b)


def ref_compose(records):
    """A plain reference composition of a valid list."""
    out = []
    lead = [r for r in records if r.role == "system"]
    if len(lead) == 1:
        out.append({"role": "system", "content": lead[0].content})
    elif lead:
        out.append({"role": "system", "content": "\n\n".join(r.content for r in lead)})
    for r in records[len(lead):]:
        prev = out[-1] if out else None
        mergeable = prev is not None and prev["role"] == r.role and r.role in ("user", "assistant") \
            and "tool_calls" not in prev
        if mergeable:
            prev["content"] = ref_merge(prev["content"], r.content, "\n\n" if r.role == "user" else "")
            if r.tool_calls:
                prev["tool_calls"] = r.tool_calls
        else:
            m = {"role": r.role, "content": r.content}
            if r.tool_calls:
                m["tool_calls"] = r.tool_calls
            if r.tool_call_id is not None:
                m["tool_call_id"] = r.tool_call_id
            out.append(m)
    return out


texts = st.sampled_from(["", "", "a", "bc", "hello world", "é"])
part_lists = st.lists(st.one_of(texts.map(text), st.sampled_from(["u1", "u2"]).map(img)), min_size=1, max_size=3)
contents = st.one_of(texts, texts, part_lists)


@st.composite
def conversations(draw):
    """A valid list: a leading system block, then user records, assistant fragments and tool exchanges
    (fresh ids, results in any order)."""
    records = []
    nsys = draw(st.integers(0, 3))
    if nsys == 1:
        records.append(sys_(draw(contents)))
    else:
        records += [sys_(draw(texts)) for _ in range(nsys)]
    counter = 0
    for kind in draw(st.lists(st.sampled_from(["user", "asst", "exchange"]), max_size=12)):
        if kind == "user":
            records.append(user(draw(contents)))
        elif kind == "asst":
            records.append(asst(draw(contents)))
        else:
            k = draw(st.integers(1, 3))
            ids = [f"call_{counter + j}" for j in range(k)]
            counter += k
            records.append(asst(draw(contents), [call(i, "f", {"n": j}) for j, i in enumerate(ids)]))
            records += [tool(i, draw(contents)) for i in draw(st.permutations(ids))]
    return records


@settings(max_examples=300)
@given(conversations())
def test_valid_lists_compose_and_are_idempotent(records):
    out = compose(records)
    assert out == ref_compose(records)
    assert compose(as_records(out)) == out
    roles = [m["role"] for m in out]
    assert not any(a == b and a in ("user", "assistant") for a, b in itertools.pairwise(roles))
    assert roles.count("tool") == sum(r.role == "tool" for r in records)
    assert all("meta" not in m for m in out)


@st.composite
def corrupted(draw):
    """A valid list with one corruption, and the first message it must give."""
    records = draw(conversations())
    kinds = ["orphan", "placement"]
    tools = [i for i, r in enumerate(records) if r.role == "tool"]
    if tools:
        kinds.append("missing")
    callers = [i for i, r in enumerate(records) if r.tool_calls]
    if callers and (len(callers) > 1 or len(records[callers[0]].tool_calls) > 1):
        kinds.append("duplicate")
    kind = draw(st.sampled_from(kinds))
    if kind == "orphan":
        at = draw(st.integers(0, len(records)))
        records.insert(at, tool("stray"))
        return records, f'messages[{at + 1}] is an orphan tool record: no pending assistant tool call with id "stray"'
    if kind == "placement":
        at = draw(st.integers(0, len(records)))
        # a system record may only go first, and not before a lone parts system record (rule 1 would win)
        lone_parts = records and records[0].role == "system" and not isinstance(records[0].content, str)
        role = draw(st.sampled_from(["user", "tool"] + (["system"] if at == 0 and not lone_parts else [])))
        r = Record(role, "x", [call("zz")], "zz" if role == "tool" else None)
        records.insert(at, r)
        return records, f"messages[{at + 1}] sets tool_calls but is not an assistant message"
    if kind == "missing":
        at = draw(st.sampled_from(tools))
        cid = records[at].tool_call_id
        del records[at]
        owner = max(i for i in callers if i < at)
        return records, f'messages[{owner + 1}] tool call "{cid}" has no tool result'
    # duplicate: a call takes the id of an earlier call
    at = draw(st.sampled_from([i for i in callers if i != callers[0] or len(records[i].tool_calls) > 1]))
    calls = [dict(c) for c in records[at].tool_calls]
    earlier = [c["id"] for i in callers if i < at for c in records[i].tool_calls]
    j = draw(st.integers(0 if earlier else 1, len(calls) - 1))
    earlier += [c["id"] for c in calls[:j]]
    dup = draw(st.sampled_from(earlier))
    calls[j]["id"] = dup
    r = records[at]
    records[at] = Record("assistant", r.content, calls)
    return records, f'messages[{at + 1}] tool call id "{dup}" duplicates an earlier tool call'


@settings(max_examples=400)
@given(corrupted())
def test_single_corruption_gives_its_message(case):
    records, expected = case
    assert err(records) == expected


# ---------------------------------------------------------------- cost


def test_long_list_is_cheap():
    """Composing is one pass; 10,000 records compose well within a round's budget."""
    records = [sys_("s"), sys_("t")]
    for n in range(1666):
        records += [user("question"), asst("let me "), asst("check", [call(f"c{n}"), call(f"d{n}")]),
                    tool(f"d{n}"), tool(f"c{n}"), asst("answer")]
    records += [user("end"), user([text("with"), img("u")])]
    assert len(records) == 10_000
    compose(records)
    start = time.process_time()  # CPU time: the suite's other workers do not move it
    for _ in range(5):
        out = compose(records)
    per_call = (time.process_time() - start) / 5
    assert len(out) == 1 + 1666 * 5 + 1
    assert out[-1] == {"role": "user", "content": [text("end"), SEP, text("with"), img("u")]}
    assert per_call < 0.25, per_call


def test_unmerged_messages_share_record_objects():
    """Records never change, so a message composed from one record hands on that record's own content and
    tool_calls objects (the precheck's identity cache relies on it); merged messages are built fresh."""
    parts = [text("p"), img("u")]
    calls = [call("c1")]
    records = [sys_(parts), user("q"), asst("x", calls), tool("c1", parts)]
    out = compose(records)
    assert out[0]["content"] is parts and out[3]["content"] is parts
    assert out[2]["tool_calls"] is calls
    assert compose([user(parts), user("z")])[0]["content"] is not parts
