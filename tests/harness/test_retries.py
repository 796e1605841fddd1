"""Retries against a real loopback server (the specification:
"A request that fails with status 408, 409, 429 or 5xx, or
whose connection fails before any reply byte, is retried: at most 2
retries by default, exponential backoff from 0.5 s (with jitter) up to
8 s, and a `retry-after` / `retry-after-ms` header honoured up to 60 s.
Nothing is retried once reply content has been streamed." """

from __future__ import annotations

import socket
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from runvil.engine.effects import ModelFailure, ModelRound
from runvil.harness.openai import STREAM_ENDED, OpenAIProvider
from runvil.harness.retries import RetryPolicy, header_wait, retryable_status

from .chat_server import chunk, dropped, error, stream, text_stream

KEY = "sk-test-RETRY-0123456789"
FAST = RetryPolicy(backoff_start=0.02)  # the spec's shape, with short waits


def rnd() -> ModelRound:
    return ModelRound(id=1, role="writer", model="m", origin="chat", messages=({"role": "user", "content": "hi"},))


def ask(url: str, policy: RetryPolicy = FAST, timeout: float = 5.0):
    """Answers one round; returns the answer and the on_retry calls."""
    retries = []
    with OpenAIProvider(url, KEY, "m", timeout=timeout, retry=policy) as p:
        answer = p.answer(rnd(), on_retry=lambda attempt, status, wait: retries.append((attempt, status, wait)))
    return answer, retries


def gaps(server) -> list[float]:
    times = [r["time"] for r in server.requests]
    return [b - a for a, b in zip(times, times[1:])]


# ------------------------------------------------------------------ the policy


def test_backoff_from_half_a_second_doubling_to_eight_with_jitter():
    p = RetryPolicy()
    assert p.max_retries == 2
    assert [p.backoff(n, rand=lambda: 0.0) for n in range(1, 8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert [p.backoff(n, rand=lambda: 1.0) for n in (1, 5)] == [0.375, 6.0]  # jitter takes off at most a quarter
    assert len({p.backoff(1) for _ in range(20)}) > 1


def test_retry_after_headers_seconds_ms_and_http_date():
    now = datetime(2026, 12, 1, 14, 20, 15, tzinfo=timezone.utc)
    assert header_wait({"retry-after": "1"}) == 1.0
    assert header_wait({"retry-after": "0.25"}) == 0.25
    assert header_wait({"retry-after-ms": "150", "retry-after": "9"}) == 0.15  # the finer one wins
    assert header_wait({"retry-after": format_datetime(now + timedelta(seconds=7), usegmt=True)}, now=now) == 7.0
    assert header_wait({"retry-after": format_datetime(now - timedelta(seconds=7), usegmt=True)}, now=now) == 0.0
    assert header_wait({"retry-after": "3600"}) == 60.0  # honoured up to 60 s
    assert header_wait({"retry-after-ms": "90000"}) == 60.0
    assert header_wait({"retry-after": "soon"}) is None
    assert header_wait({"retry-after-ms": "nan"}) is None
    assert header_wait({}) is None


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 599])
def test_retried_statuses(status):
    assert retryable_status(status, "busy")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_statuses_not_retried(status):
    assert not retryable_status(status, "no")


def test_a_request_too_large_for_the_per_minute_limit_is_not_retried(server):
    text = ("Request too large for gpt-4o in organization org-abc on tokens per min (TPM): "
            "Limit 30000, Requested 50000. The input or output tokens must be reduced in order to run successfully.")
    server.reply(error(429, {"error": {"message": text, "type": "tokens", "code": "rate_limit_exceeded"}}),
                 text_stream("never"))
    answer, retries = ask(server.base_url)
    assert retries == [] and len(server.requests) == 1
    assert answer.message == f"the model backend rejected the request (status 429): {text}"


# ------------------------------------------------------------------ against the server


def test_429_with_retry_after_then_success(server):
    server.reply(error(429, {"error": {"message": "Rate limit reached"}}, headers={"retry-after": "1"}),
                 text_stream("bonjour"))
    answer, retries = ask(server.base_url)
    assert answer.text == "bonjour"
    assert retries == [(1, 429, 1.0)]
    assert gaps(server)[0] >= 1.0  # the second request comes no sooner than the header says


def test_retry_after_ms(server):
    server.reply(error(503, "overloaded", headers={"retry-after-ms": "150"}), text_stream("ok"))
    answer, retries = ask(server.base_url)
    assert answer.text == "ok" and retries == [(1, 503, 0.15)]
    assert gaps(server)[0] >= 0.15


def test_503_then_success_waits_the_backoff(server):
    server.reply(error(503, "Service Unavailable"), text_stream("ok"))
    answer, retries = ask(server.base_url)
    assert answer.text == "ok"
    ((attempt, status, wait),) = retries
    assert (attempt, status) == (1, 503) and 0.015 <= wait <= 0.02
    assert gaps(server)[0] >= 0.015


@pytest.mark.parametrize("status", [408, 409, 500, 502])
def test_each_retried_status_then_success(server, status):
    server.reply(error(status, "try again", headers={"retry-after-ms": "0"}), text_stream("ok"))
    answer, retries = ask(server.base_url)
    assert answer.text == "ok" and retries == [(1, status, 0.0)]


def test_endless_429s_fail_after_two_retries_with_the_providers_text(server):
    for _ in range(5):
        server.reply(error(429, {"error": {"message": "Rate limit reached for requests"}},
                           headers={"retry-after-ms": "10"}))
    answer, retries = ask(server.base_url)
    assert len(server.requests) == 3
    assert [(a, s) for a, s, _ in retries] == [(1, 429), (2, 429)]
    assert answer.status == 429
    assert answer.message == "the model backend rejected the request (status 429): Rate limit reached for requests"


def test_backoff_grows_between_tries(server):
    server.reply(error(500, "a"), error(500, "b"), error(500, "c"))
    answer, retries = ask(server.base_url, RetryPolicy(backoff_start=0.05))
    assert answer.message.endswith("(status 500): c")
    (_, _, first), (_, _, second) = retries
    assert 0.0375 <= first <= 0.05 and 0.075 <= second <= 0.1


def test_max_retries_zero_and_five(server):
    server.reply(error(502, "bad gateway"))
    answer, retries = ask(server.base_url, RetryPolicy(max_retries=0))
    assert retries == [] and len(server.requests) == 1 and answer.status == 502
    server.requests.clear()
    server.reply(*[error(502, "x", headers={"retry-after-ms": "1"}) for _ in range(5)], text_stream("at last"))
    answer, retries = ask(server.base_url, RetryPolicy(max_retries=5))
    assert answer.text == "at last" and len(retries) == 5


def test_400_is_never_retried(server):
    server.reply(error(400, "Invalid value for 'temperature'."), text_stream("never"))
    answer, retries = ask(server.base_url)
    assert retries == [] and len(server.requests) == 1
    assert answer.message == "the model backend rejected the request (status 400): Invalid value for 'temperature'."


def test_a_connection_closed_before_any_byte_is_retried(server):
    server.reply(dropped(), text_stream("ok"))
    answer, retries = ask(server.base_url)
    assert answer.text == "ok"
    assert [(a, s) for a, s, _ in retries] == [(1, None)]


def test_a_refused_connection_is_retried_then_fails():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    answer, retries = ask(f"http://127.0.0.1:{port}/v1")
    assert answer == ModelFailure(unreachable="connection refused")
    assert [(a, s) for a, s, _ in retries] == [(1, None), (2, None)]


def test_nothing_is_retried_once_content_streamed(server):
    server.reply(stream(chunk({"content": "half"}), done=False), text_stream("never"))
    seen = []
    with OpenAIProvider(server.base_url, KEY, "m", timeout=5.0, retry=FAST) as p:
        answer = p.answer(rnd(), on_fragment=seen.append, on_retry=lambda *a: seen.append(a))
    assert answer == ModelFailure(message=STREAM_ENDED, partial="half")
    assert seen == ["half"] and len(server.requests) == 1


def test_a_timeout_before_the_reply_is_retried(server):
    from .chat_server import Reply

    # the retry's reply must come within the timeout: seconds, however loaded the machine (stop ends the delay)
    server.reply(Reply(delay=60.0, chunks=[chunk({"content": "late"}, finish="stop")]), text_stream("ok"))
    answer, retries = ask(server.base_url, timeout=3.0)
    assert answer.text == "ok" and [(a, s) for a, s, _ in retries] == [(1, None)]
