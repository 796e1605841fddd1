"""The context precheck and the provider anchor (docs/reference/conversations.md "The
context precheck"), with the chapter's numbers."""

from __future__ import annotations

import json
import time

from hypothesis import given
from hypothesis import strategies as st

from runvil.engine.conversation.precheck import (
    CONTEXT_EXHAUSTED,
    RAW_MODEL_CONTEXT,
    Anchor,
    ByteCache,
    admit,
    estimate,
    exhausted_detail,
    exhausted_message,
    message_bytes,
    output_reserve,
    tokens_for,
    usage_total,
)


def user(text):
    return {"role": "user", "content": text}


def assistant(text, calls=None):
    m = {"role": "assistant", "content": text}
    if calls is not None:
        m["tool_calls"] = calls
    return m


def tool(text, call_id):
    return {"role": "tool", "content": text, "tool_call_id": call_id}


def system(text):
    return {"role": "system", "content": text}


USAGE = {"prompt_tokens": 3400, "completion_tokens": 100}


# ------------------------------------------------------------------ texts


def test_exhausted_messages_from_the_chapter():
    assert exhausted_message("precheck") == (
        "context exhausted: the request precheck overflowed the model's context window")
    assert exhausted_message("provider") == (
        "context exhausted: the provider rejected the request as exceeding the model's context window"
    )
    assert exhausted_message("manual") == "context exhausted: manual"
    assert exhausted_message("the notes are too long") == "context exhausted: the notes are too long"
    assert exhausted_detail("precheck") == "the request precheck overflowed the model's context window"
    assert CONTEXT_EXHAUSTED.format(detail="x") == "context exhausted: x"


def test_raw_model_context():
    assert RAW_MODEL_CONTEXT == 8192


# ------------------------------------------------------------------ the reserve


def test_reserve_examples():
    assert output_reserve(4096, None) == 512
    assert output_reserve(4096, 1000) == 1000
    assert output_reserve(4096, 100_000) == 2048  # stops at half the window
    assert output_reserve(4096, 4096) == 2048
    assert output_reserve(1_000_000, None) == 8192  # one eighth, capped
    assert output_reserve(65536, None) == 8192
    assert output_reserve(65535, None) == 8191
    assert output_reserve(123, 20) == 20
    assert output_reserve(7, None) == 0
    assert output_reserve(4096, 0) == 0  # set, so it is the reserve


@given(st.integers(0, 10**7), st.one_of(st.none(), st.integers(0, 10**7)))
def test_reserve_bounds(window, max_tokens):
    r = output_reserve(window, max_tokens)
    assert 0 <= r <= window // 2
    if max_tokens is None:
        assert r == min(window // 8, 8192)
    else:
        assert r == min(max_tokens, window // 2)


# ------------------------------------------------------------------ the admission rule


def test_admission_examples():
    # 103 tokens with max_tokens 20 pass a 123 window, fail a 122 window
    assert admit(123, 20, 103)
    assert not admit(122, 20, 103)


@given(st.integers(0, 10**7), st.one_of(st.none(), st.integers(0, 10**7)))
def test_admission_edges(window, max_tokens):
    room = window - output_reserve(window, max_tokens)
    assert admit(window, max_tokens, room)  # equal to the window passes
    assert not admit(window, max_tokens, room + 1)  # one over is refused
    assert admit(window, max_tokens, 0)


@given(st.integers(1, 10**6), st.one_of(st.none(), st.integers(0, 10**6)), st.integers(0, 10**6))
def test_admission_is_the_sum(window, max_tokens, tokens):
    assert admit(window, max_tokens, tokens) == (tokens + output_reserve(window, max_tokens) <= window)


# ------------------------------------------------------------------ the estimate


def test_estimate_examples():
    assert estimate([user("x" * 396)]) == 103
    assert estimate([user("x" * 100_000)]) == 25_004
    assert estimate([user("x" * 12_000)]) == 3004
    assert estimate([user("x" * 12_400)]) == 3104
    assert estimate([user("x" * 400)]) == 104
    assert estimate([user("x" * 8400)]) == 2104
    assert estimate([]) == 0


def test_long_notes_is_refused():
    tokens = estimate([user("x" * 100_000)])
    assert not admit(4096, None, tokens)


def test_max_tokens_examples():
    assert admit(4096, 1000, estimate([user("x" * 12_000)]))  # 3004 + 1000 = 4004
    assert not admit(4096, 1000, estimate([user("x" * 12_400)]))  # 3104 + 1000 = 4104
    assert admit(4096, None, estimate([user("x" * 12_400)]))  # 3104 + 512 = 3616
    assert admit(4096, 100_000, estimate([user("x" * 400)]))  # 104 + 2048
    assert admit(4096, 100_000, estimate([]))
    assert not admit(4096, 100_000, estimate([user("x" * 8400)]))  # 2104 + 2048 = 4152


def test_division_runs_once():
    # 3 + 3 bytes: 6 // 4 = 1, not 0 + 0
    assert estimate([user("abc"), assistant("abc")]) == 1 + 8
    assert estimate([user("a"), user("b"), user("c"), user("d")]) == 1 + 16


def test_utf8_bytes():
    assert message_bytes(user("é")) == 2
    assert message_bytes(user("€")) == 3
    assert message_bytes(user("😀")) == 4
    assert estimate([user("€" * 132)]) == 99 + 4  # 396 bytes
    # a Lua string's invalid byte (surrogate-escaped) counts as one byte
    assert message_bytes(user("a\udcffb")) == 3


def test_parts_count_text_only():
    m = user(
        [
            {"type": "text", "text": "hello"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 10_000}},
            {"type": "text", "text": "\n\n"},
            {"type": "text", "text": "wörld"},
        ]
    )
    assert message_bytes(m) == 5 + 2 + 6
    assert message_bytes(user([{"type": "image_url", "image_url": {"url": "x" * 400}}])) == 0
    assert estimate([user([{"type": "image_url", "image_url": {"url": "x" * 400}}])]) == 4


def test_other_content_counts_zero():
    assert message_bytes({"role": "assistant", "content": None}) == 0
    assert message_bytes({"role": "assistant"}) == 0
    assert message_bytes({"role": "user", "content": 12345}) == 0
    assert message_bytes({"role": "user", "content": {"text": "abc"}}) == 0


def test_tool_calls_serialized_whole():
    call = {"id": "call_1", "name": "search", "arguments": {"q": "cats", "n": 3}}
    form = '{"id":"call_1","name":"search","arguments":{"q":"cats","n":3}}'
    m = assistant("", [call])
    assert message_bytes(m) == len(form)
    assert estimate([m]) == len(form) // 4 + 4
    # visible text and several calls add up
    call2 = {"id": "c2", "name": "t", "arguments": {}}
    m2 = assistant("ok", [call, call2])
    assert message_bytes(m2) == 2 + len(form) + len('{"id":"c2","name":"t","arguments":{}}')


def test_tool_call_form_is_id_name_arguments():
    # key order and extra keys do not change the serialized form
    call = {"arguments": {"a": "é"}, "type": "function", "name": "f", "id": "x"}
    assert message_bytes(assistant("", [call])) == len('{"id":"x","name":"f","arguments":{"a":"é"}}'.encode())
    # arguments missing or an empty array serialize as {}
    assert message_bytes(assistant("", [{"id": "x", "name": "f"}])) == len('{"id":"x","name":"f","arguments":{}}')
    assert message_bytes(assistant("", [{"id": "x", "name": "f", "arguments": []}])) == len(
        '{"id":"x","name":"f","arguments":{}}'
    )
    assert message_bytes(assistant("", [{"id": "x", "name": "f", "arguments": {"v": 2.0}}])) == len(
        '{"id":"x","name":"f","arguments":{"v":2.0}}'
    )


def test_system_and_tool_messages_count():
    msgs = [
        system("Be brief."),
        user("hi"),
        assistant("", [{"id": "1", "name": "t", "arguments": {}}]),
        tool("42", "1"),
    ]
    total = 9 + 2 + len('{"id":"1","name":"t","arguments":{}}') + 2
    assert estimate(msgs) == total // 4 + 16


def test_tokens_for_precomputed_sums():
    assert tokens_for(396, 1) == 103
    assert tokens_for(100_000, 1) == 25_004
    assert tokens_for(0, 0) == 0


TEXT = st.text(max_size=40)
PART = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, TEXT),
    st.builds(lambda u: {"type": "image_url", "image_url": {"url": u}}, TEXT),
)
JSONV = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), TEXT),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(TEXT, c, max_size=3)),
    max_leaves=8,
)
CALL = st.builds(
    lambda i, n, a: {"id": i, "name": n, "arguments": a}, TEXT, TEXT, st.dictionaries(TEXT, JSONV, max_size=3)
)
MESSAGE = st.one_of(
    st.builds(user, st.one_of(TEXT, st.lists(PART, min_size=1, max_size=4))),
    st.builds(assistant, TEXT, st.one_of(st.none(), st.lists(CALL, min_size=1, max_size=3))),
    st.builds(tool, TEXT, TEXT),
)


def reference_bytes(m):
    n = 0
    c = m.get("content")
    if isinstance(c, str):
        n += len(c.encode())
    elif isinstance(c, list):
        n += sum(len(p["text"].encode()) for p in c if p["type"] == "text")
    for call in m.get("tool_calls") or ():
        form = {"id": call["id"], "name": call["name"], "arguments": call["arguments"]}
        n += len(json.dumps(form, separators=(",", ":"), ensure_ascii=False).encode())
    return n


@given(st.lists(MESSAGE, max_size=8))
def test_estimate_matches_reference(msgs):
    msgs = [m for m in msgs if all("\ud800" > ch or ch > "\udfff" for ch in json.dumps(m, ensure_ascii=False))]
    total = sum(reference_bytes(m) for m in msgs)
    assert estimate(msgs) == total // 4 + 4 * len(msgs)
    cache = ByteCache()
    assert estimate(msgs, cache) == estimate(msgs)
    assert estimate(msgs, cache) == estimate(msgs)  # warm


def test_cache_hits_on_shared_parts_and_stays_bounded():
    calls = [{"id": "c", "name": "t", "arguments": {"q": "x" * 50}}]
    text = "naïve " * 10
    cache = ByteCache(capacity=4)
    first = estimate([assistant("", calls), user(text)], cache)
    assert cache.misses == 2 and cache.hits == 0
    # freshly composed dicts holding the same record objects hit
    again = estimate([assistant("", calls), user(text)], cache)
    assert again == first and cache.hits == 2
    for i in range(10):
        cache.bytes(user("é" * (i + 1)))
    assert len(cache) == 4


def test_cache_never_confuses_reused_ids():
    cache = ByteCache()
    for i in range(2000):
        s = "é" * (i % 7 + 1) + str(i)
        assert cache.bytes(user(s)) == len(s.encode())


# ------------------------------------------------------------------ the anchor


def test_usage_totals():
    assert usage_total({"prompt_tokens": 3400, "completion_tokens": 100}) == 3500
    assert usage_total({"prompt_tokens": 3000, "completion_tokens": 1200, "reasoning_tokens": 800}) == 3400
    assert usage_total({"prompt_tokens": 3000, "completion_tokens": 1200}) == 4200
    assert usage_total({"prompt_tokens": 3000, "completion_tokens": 1200, "reasoning_tokens": None}) == 4200
    assert usage_total({"prompt_tokens": 10, "completion_tokens": 5, "reasoning_tokens": 100}) == 0
    assert usage_total(None) is None
    assert usage_total({}) is None
    assert usage_total({"reasoning_tokens": 3}) is None
    assert usage_total({"prompt_tokens": 7}) == 7


def example_anchor():
    """The chapter's example: xxxxx answered with ok, 3400 + 100."""
    sent = [user("xxxxx")]
    a = Anchor()
    a.measured("m1", sent, USAGE)
    return a, sent + [assistant("ok"), user("x" * 400)]


def test_anchor_example():
    a, request = example_anchor()
    assert a.total == 3500
    assert a.count("m1", request) == 3604  # 3500 + 104 for the new record
    assert not admit(4096, None, a.count("m1", request))  # 3604 + 512 = 4116
    assert not a.admits("m1", request, 4096, None)
    assert estimate(request) == 113  # the plain estimate would pass
    assert admit(4096, None, estimate(request))


def test_anchor_reply_is_not_counted_twice():
    a, request = example_anchor()
    long_reply = assistant("y" * 4000)
    req = [request[0], long_reply, user("x" * 400)]
    assert a.count("m1", req) == 3604
    # the reply alone after the sent records: the total covers it
    assert a.count("m1", [request[0], long_reply]) == 3500


def test_anchor_reasoning():
    a = Anchor()
    a.measured("m", [user("q")], {"prompt_tokens": 3000, "completion_tokens": 1200, "reasoning_tokens": 800})
    assert a.count("m", [user("q"), assistant("a")]) == 3400
    a.measured("m", [user("q")], {"prompt_tokens": 3000, "completion_tokens": 1200})
    assert a.count("m", [user("q"), assistant("a")]) == 4200


def test_anchor_can_admit_what_the_estimate_refuses():
    sent = [user("x" * 15_000)]
    a = Anchor()
    a.measured("m", sent, {"prompt_tokens": 2000, "completion_tokens": 10})
    request = sent + [assistant("ok"), user("more")]
    assert not admit(4096, None, estimate(request))
    assert a.admits("m", request, 4096, None)


def test_anchor_needs_an_assistant_next():
    a, request = example_anchor()
    assert a.count("m1", [request[0], user("x" * 400)]) == estimate([request[0], user("x" * 400)])
    calls = [{"id": "1", "name": "t", "arguments": {}}]
    b = Anchor()
    b.measured("m1", [user("q"), assistant("", calls)], USAGE)
    req = [user("q"), assistant("", calls), tool("r", "1")]
    assert b.count("m1", req) == estimate(req)


def test_anchor_needs_more_records():
    a, request = example_anchor()
    assert a.count("m1", request[:1]) == estimate(request[:1])  # the exact sent request again
    assert a.count("m1", []) == 0


def test_anchor_needs_the_same_leading_records():
    a, request = example_anchor()
    rewritten = [user("xxxxy")] + request[1:]
    assert a.count("m1", rewritten) == estimate(rewritten)
    reroled = [system("xxxxx")] + request[1:]
    assert a.count("m1", reroled) == estimate(reroled)
    # dropping the reply and adding a user message merges two user records
    merged = [user("xxxxx\n\nnext")]
    assert a.count("m1", merged) == estimate(merged)
    # a compaction that kept a system block in front
    trimmed = [system("s")] + request
    assert a.count("m1", trimmed) == estimate(trimmed)


def test_anchor_compares_composed_fields_not_identity():
    a = Anchor()
    a.measured(
        "m", [user("q"), assistant("", [{"id": "1", "name": "t", "arguments": {"a": 1}}]), tool("r", "1")], USAGE
    )
    fresh = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "1", "name": "t", "arguments": {"a": 1}}]},
        {"role": "tool", "content": "r", "tool_call_id": "1", "tool_calls": None},
        assistant("done"),
        user("more"),
    ]
    assert a.count("m", fresh) == 3500 + estimate([user("more")])
    changed = [dict(m) for m in fresh]
    changed[2]["tool_call_id"] = "2"
    assert a.count("m", changed) == estimate(changed)


def test_anchor_none_before_usage():
    a = Anchor()
    req = [user("q"), assistant("a"), user("b")]
    assert a.count("m", req) == estimate(req)
    a.measured("m", [user("q")], None)  # the first reply reports none
    assert a.count("m", req) == estimate(req)


def test_round_without_usage_keeps_the_measurement():
    a, request = example_anchor()
    later = request + [assistant("sure")]
    a.measured("m1", request, None)  # the next round reports no usage
    req = later + [user("x" * 400)]
    assert a.count("m1", req) == 3500 + estimate(req[2:])
    a.measured("m1", request, {})  # an empty usage object is no usage
    assert a.count("m1", req) == 3500 + estimate(req[2:])


def test_latest_usage_replaces_the_measurement():
    a, request = example_anchor()
    a.measured("m1", request, {"prompt_tokens": 200, "completion_tokens": 7})
    req = request + [assistant("r"), user("x" * 40)]
    assert a.count("m1", req) == 207 + 14
    # the earlier measurement no longer applies to a list extending it only
    old = request[:2] + [user("y")]
    assert a.count("m1", old) == estimate(old)


def test_anchor_belongs_to_the_model():
    a, request = example_anchor()
    assert a.count("m2", request) == estimate(request)  # a different model
    assert a.count("m1", request) == 3604  # the same model under another role


def test_returning_to_an_earlier_model_estimates():
    a, request = example_anchor()
    a.measured("m2", request, {"prompt_tokens": 900, "completion_tokens": 9})
    req = request + [assistant("b"), user("c")]
    assert a.count("m2", req) == 909 + estimate([user("c")])
    assert a.count("m1", req) == estimate(req)


def test_a_round_without_usage_on_another_model_keeps_the_measurement():
    # docs/reference/conversations.md: a round without usage leaves the remembered pair
    # unchanged; "only the latest round's measurement is kept"
    a, request = example_anchor()
    a.measured("m2", request, None)  # m2 served a round and reported nothing
    req = request + [assistant("b"), user("c")]
    assert a.count("m1", req) == a.total + estimate(req[2:])  # after [xxxxx, ok]
    assert a.count("m2", req) == estimate(req)  # the measurement is m1's own
    a.measured("m2", request, USAGE)  # a measured round on m2 replaces it
    assert a.count("m1", req) == estimate(req)


def test_anchor_keeps_its_own_copy_of_sent():
    sent = [user("xxxxx")]
    a = Anchor()
    a.measured("m1", sent, USAGE)
    sent.append(assistant("later"))  # the caller's list changes, not the anchor
    assert a.count("m1", [user("xxxxx"), assistant("ok"), user("x" * 400)]) == 3604


def test_reset():
    a, request = example_anchor()
    a.reset()
    assert a.count("m1", request) == estimate(request)


# ------------------------------------------------------------------ speed


def build(n):
    msgs = [system("You are terse.")]
    for i in range(n - 1):
        if i % 4 == 3:
            msgs.append(
                assistant("", [{"id": f"c{i}", "name": "pack/search", "arguments": {"q": f"query {i}", "k": 5}}])
            )
        elif i % 4 == 0 and i > 0 and msgs[-1].get("tool_calls"):
            msgs.append(tool(f"result {i} " * 8, msgs[-1]["tool_calls"][0]["id"]))
        elif i % 2:
            msgs.append(assistant(f"reply number {i} — ünïcode " * 3))
        else:
            msgs.append(user(f"question number {i} " * 5))
    return msgs


def test_speed_10k_messages():
    msgs = build(10_000)
    cache = ByteCache()
    t0 = time.process_time()
    cold = estimate(msgs, cache)
    t1 = time.process_time()
    # a freshly composed list of the same records, plus one appended message
    fresh = [dict(m) for m in msgs] + [user("one more")]
    t2 = time.process_time()
    warm = estimate(fresh, cache)
    t3 = time.process_time()
    assert warm == estimate(msgs + [user("one more")])
    assert cold == estimate(msgs)
    a = Anchor(cache)
    a.measured("m", fresh, {"prompt_tokens": 1000, "completion_tokens": 10})
    request = [dict(m) for m in fresh] + [assistant("r"), user("again")]
    t4 = time.process_time()
    anchored = a.count("m", request)
    t5 = time.process_time()
    assert anchored == 1010 + estimate([user("again")])
    print(f"\ncold {1e3 * (t1 - t0):.2f} ms, warm+1 {1e3 * (t3 - t2):.2f} ms, anchored {1e3 * (t5 - t4):.2f} ms")
    assert t3 - t2 < 2 and t5 - t4 < 2  # CPU seconds: a loaded machine does not stretch them
