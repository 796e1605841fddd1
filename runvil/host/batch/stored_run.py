"""One ended run as the `runs` table holds it (docs/reference/commands.md "runvil batch"), for a
batch's rows and for `runvil run --db FILE`."""

from __future__ import annotations

import json
import time

from ...engine.events import utc_now
from ..termtext import valid_utf8
from ..usage import USAGE_FIELDS
from .key import modules_json
from .store import Store, StoreError, bindings_json, sha256_text

INTERNAL = "internal error: {name}: {error}"


class RunClock:
    """When a run started, as stored (`started`, UTC) and measured."""

    def __init__(self, started: str | None = None, t0: float | None = None):
        self.started = started or utc_now()
        self.t0 = time.monotonic() if t0 is None else t0


def run_log_text(run, limit: int | None = None) -> str:
    """The run's events as JSON Lines, as `--log` writes them (what
    `json.dumps(event, ensure_ascii=False)` gives for each, with one
    encoder for them all: a batch writes a log a row); with `limit`, the
    events whose lines fit in about that many characters, then a last
    line saying how many were left out."""
    encode = json.JSONEncoder(ensure_ascii=False).encode
    lines, size = [], 0
    events = run.events.events
    for i, ev in enumerate(events):
        line = encode(ev.as_json()) + "\n"
        size += len(line)
        if limit is not None and size > limit:
            lines.append(encode({"type": "log_cut", "events_left_out": len(events) - i}) + "\n")
            break
        lines.append(line)
    return valid_utf8("".join(lines))


def stored_usage(usage: dict) -> dict:
    """A run's usage as `runs` stores it: the token counts NULL (unknown,
    not 0) when no round of the run reported usage."""
    rounds = usage.get("rounds", 0)
    without = usage.get("rounds_without_usage", 0)
    known = rounds > without
    return {"rounds": rounds, "rounds_without_usage": without,
            **{k: usage.get(k, 0) if known else None for k in USAGE_FIELDS}}


def run_record(run, clock: RunClock, usage: dict, *, error: BaseException | None = None, **fields) -> dict:
    """The `runs` row of an ended run; `error` is the Python exception that
    stopped it (an Engine bug), stored as a failure of kind `internal`."""
    outcome = run.outcome
    rec = {
        "ok": 0, "result": None, "error_kind": None, "error_message": None,
        "started": clock.started, "ended": utc_now(), "seconds": round(time.monotonic() - clock.t0, 6),
        "log": fields.pop("log") if "log" in fields else run_log_text(run),
        **stored_usage(usage), "modules": modules_json(getattr(run, "required", {})),
        **fields,
    }
    if error is not None:
        rec["error_kind"] = "internal"
        rec["error_message"] = INTERNAL.format(name=type(error).__name__, error=error)
    elif outcome is not None and outcome.ok:
        rec["ok"] = 1
        rec["result"] = None if outcome.result is None else valid_utf8(outcome.result)
    elif outcome is not None:
        rec["error_kind"] = outcome.error.kind
        rec["error_message"] = valid_utf8(outcome.error.message)
    for k in ("input", "result", "error_message"):
        if isinstance(rec.get(k), str):
            rec[k] = valid_utf8(rec[k])
    return rec


def single_run_record(run, meter, prompt_path: str, prompt_sha256: str | None, **fields) -> dict:
    """The record of a run that ran alone (no batch, no row), timed from
    its first event and its usage meter; `fields` adds columns (`log`)."""
    events = run.events.events
    clock = RunClock(events[0].time if events else None, meter.started)
    return run_record(run, clock, meter.as_json(), batch_id=None, row_id=None, input=run.input, metadata=None,
                      prompt_path=prompt_path, prompt_sha256=prompt_sha256, bindings=bindings_json(run.bindings),
                      **fields)


def store_single_run(db_path: str, prompt_path: str, prompt_text: bytes, run, meter) -> int | None:
    """`runvil run --db FILE`: stores the run just ended (no batch), with
    the hash of the prompt's bytes; says on stderr why it cannot, and
    returns its id or None."""
    import sys

    try:
        store = Store(db_path)
    except StoreError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return None
    try:
        return store.add_run(single_run_record(run, meter, prompt_path, sha256_text(prompt_text)))
    except StoreError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return None
    finally:
        store.close()
