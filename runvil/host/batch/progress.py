"""What a batch shows (docs/reference/commands.md "runvil batch"): on a terminal a progress bar
(done, failed, total, rows per second, tokens, time left), nothing in a pipe
(no carriage return ever reaches a file), and at the end one summary line:

    1000 rows: 990 ok, 10 failed (7 Completion, 3 ContextExhausted) · 31,200 prompt + 9,800 completion tokens · 42.1 s
"""

from __future__ import annotations

import time
from collections import Counter

from ..usage import USAGE_FIELDS


class Tally:
    """The rows a batch ran: counts, error kinds, token sums."""

    def __init__(self):
        self.started = time.monotonic()
        self.ok = 0
        self.failed = 0
        self.kinds: Counter = Counter()
        self.tokens = dict.fromkeys(USAGE_FIELDS, 0)
        self.reported = 0  # rounds that carried usage

    @property
    def rows(self) -> int:
        return self.ok + self.failed

    def add(self, ok: bool, error_kind: str | None, usage: dict, reported: int) -> None:
        if ok:
            self.ok += 1
        else:
            self.failed += 1
            self.kinds[error_kind or "internal"] += 1
        for k in USAGE_FIELDS:
            self.tokens[k] += usage.get(k) or 0
        self.reported += reported

    def summary(self, now: float | None = None) -> str:
        seconds = (time.monotonic() if now is None else now) - self.started
        # as the specification writes it: counts of rows plain, tokens with thousands separators
        head = f"{self.rows} row{'' if self.rows == 1 else 's'}: {self.ok} ok, {self.failed} failed"
        if self.kinds:
            head += " (" + ", ".join(f"{n} {kind}" for kind, n in _by_count(self.kinds)) + ")"
        return " · ".join([head, self.token_text(), f"{seconds:.1f} s"])

    def token_text(self) -> str:
        if not self.reported:
            return "tokens unknown"
        t = self.tokens
        text = f"{t['prompt_tokens']:,} prompt + {t['completion_tokens']:,} completion tokens"
        if t["reasoning_tokens"]:
            text += f" ({t['reasoning_tokens']:,} reasoning)"
        return text


def _by_count(kinds: Counter):
    return sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))


class ProgressBar:
    """A rich progress bar on a terminal (stderr)."""

    def __init__(self, stream, total: int, tally: Tally):
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.tally = tally
        console = Console(file=stream, highlight=False, markup=False, emoji=False)
        self.progress = Progress(
            TextColumn("batch"), BarColumn(), TextColumn("{task.completed:,}/{task.total:,}"),
            TextColumn("{task.fields[failed]}"), TextColumn("{task.fields[rate]}"),
            TextColumn("{task.fields[tokens]}"), TimeRemainingColumn(),
            console=console, transient=True, refresh_per_second=8)
        self.task = self.progress.add_task("batch", total=total, failed="0 failed", rate="", tokens="")
        self.progress.start()

    def update(self) -> None:
        t = self.tally
        elapsed = max(time.monotonic() - t.started, 1e-6)
        tokens = t.tokens["prompt_tokens"] + t.tokens["completion_tokens"]
        self.progress.update(self.task, completed=t.rows, failed=f"{t.failed:,} failed",
                             rate=f"{t.rows / elapsed:,.1f} rows/s",
                             tokens=f"{tokens:,} tokens" if t.reported else "")

    def close(self) -> None:
        self.progress.stop()


def progress_for(stream, total: int, tally: Tally):
    """The progress bar on a terminal; None anywhere else."""
    isatty = getattr(stream, "isatty", None)
    if isatty is None or not isatty():
        return None
    return ProgressBar(stream, total, tally)
