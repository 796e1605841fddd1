"""When a provider request is retried, and how long to wait first
(docs/reference/configuration.md).

- Statuses 408, 409, 429 and 5xx are retried, and so is a connection that
  fails before any reply byte. A 429 whose text says the request itself is
  too large for the per-minute token limit is not: it would fail the same
  way however long we waited.
- At most `max_retries` retries (2 by default). The wait before retry n is
  an exponential backoff from 0.5 s, doubling up to 8 s, with up to 25% of
  jitter taken off so that clients do not retry in step; a `retry-after-ms`
  or `retry-after` header (seconds or an HTTP date) says the wait instead,
  honoured up to 60 s and never shortened by jitter.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

from ..structs import Struct

DEFAULT_MAX_RETRIES = 2
BACKOFF_START = 0.5  # seconds before the first retry
BACKOFF_CAP = 8.0
JITTER = 0.25  # the share of a backoff that jitter may take off
RETRY_AFTER_CAP = 60.0  # the longest wait a header is honoured for
RETRY_STATUSES = frozenset({408, 409, 429})


def retryable_status(status: int, body: str) -> bool:
    """A failure status worth another try."""
    if status == 429 and too_large_for_rate_limit(body):
        return False
    return status in RETRY_STATUSES or 500 <= status <= 599


def too_large_for_rate_limit(body: str) -> bool:
    """OpenAI's `Request too large for gpt-4o ... on tokens per min (TPM):
    Limit 30000, Requested 50000`: the request can never fit the limit."""
    low = (body or "").lower()
    return "request too large" in low and any(w in low for w in ("per min", "tpm", "per minute"))


def header_wait(headers, now: datetime | None = None) -> float | None:
    """The wait a response's headers ask for, in seconds (capped at 60), or
    None when they ask for none that can be read."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return _capped(float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return _capped(float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime  # (an HTTP date is rare: not imported at start-up)

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return _capped((when - (now or datetime.now(timezone.utc))).total_seconds())


def _capped(seconds: float) -> float | None:
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP)


class RetryPolicy(Struct, frozen=True):
    """How often a provider retries and how long it waits between tries."""

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff_start: float = BACKOFF_START
    backoff_cap: float = BACKOFF_CAP

    def backoff(self, retry: int, rand=random.random) -> float:
        """The wait before retry number `retry` (1 for the first)."""
        nominal = min(self.backoff_cap, self.backoff_start * 2 ** (retry - 1))
        return nominal * (1.0 - JITTER * rand())

    def wait(self, retry: int, headers=None) -> float:
        """The header's wait when it gives one, else the backoff."""
        asked = header_wait(headers) if headers is not None else None
        return self.backoff(retry) if asked is None else asked
