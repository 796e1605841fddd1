"""A batch made ready: the prompt compiled once, the rows checked, the
world every row shares, the results database, and which rows to run.

Decisions (the specification leaves them open):
- A row's identity is its id and its input; it is done when a batch stored
  a successful run of it for the same prompt text (sha256 of the file's
  bytes) and the same bindings (role to model id). A row whose stored runs
  all failed is not run again unless `--retry-failed`; the batch's exit
  status still says it failed (1).
- Each invocation is one row of `batches`; its `rows`, `ok` and `failed`,
  the progress bar and the summary line count the rows it ran.
"""

from __future__ import annotations

import json
import os

from ...engine.events import utc_now
from ..termtext import valid_utf8
from .data import check_rows_and, read_rows
from .runner import Runner
from .store import Store, bindings_json, sha256_text


class Plan:
    def __init__(self, args, prompt, prompt_bytes: bytes, concurrency: int, limit: int | None):
        self.args = args
        self.prompt = prompt
        self.prompt_sha256 = sha256_text(prompt_bytes)
        self.prompt_text = prompt_bytes.decode("utf-8", "replace")  # what worker processes parse
        self.concurrency = concurrency
        self.limit = limit
        self.input_column = args.input_column
        self.db_path = args.db
        self.store: Store | None = None
        self.runner = None
        self.echo_note: str | None = None
        self.done_before = self.failed_before = self.todo = 0
        self.batch_id: int | None = None
        from .progress import Tally

        self.tally = Tally()
        self.progress = None

    @classmethod
    def make(cls, args, prompt, prompt_bytes: bytes, concurrency: int, limit: int | None) -> "Plan":
        """Raises ValueError (a bad world or config), BadRow, OSError (DATA
        cannot be read) or StoreError, each before any row runs."""
        if args.db is None:
            args.db = default_db(args.prompt)
        plan = cls(args, prompt, prompt_bytes, concurrency, limit)
        try:
            plan._prepare()
        except BaseException:
            plan.close()
            raise
        return plan

    def _prepare(self) -> None:
        from .data import open_check

        open_check(self.args.data)
        check_rows_and(self.args.data, self.input_column, lambda row: None)  # no database for a bad data set
        self.runner = Runner(self.args, self.prompt, self.concurrency)
        self.bindings_json = bindings_json(self.runner.bindings)
        self.echo_note = self.runner.echo_note
        self.store = Store(self.db_path)
        counts = check_rows_and(self.args.data, self.input_column, self._row_state)
        self.done_before, self.failed_before = counts.get("ok", 0), counts.get("failed", 0)
        self.todo = counts.get(None, 0) + (self.failed_before if self.args.retry_failed else 0)
        if self.args.retry_failed:
            self.failed_before = 0
        if self.limit is not None:
            self.todo = min(self.todo, self.limit)

    def _row_state(self, row) -> str | None:
        return self.store.row_state(self.prompt_sha256, self.bindings_json, row.id, row.input)

    def notes(self) -> list[str]:
        lines = [self.echo_note[len("runvil: "):]] if self.echo_note else []
        if self.done_before:
            s = "" if self.done_before == 1 else "s"
            lines.append(f"{self.done_before:,} row{s} already done in {self.db_path}")
        if self.failed_before:
            s, were = ("", "is") if self.failed_before == 1 else ("s", "are")
            lines.append(f"{self.failed_before:,} row{s} failed before and {were} not run again"
                         " (--retry-failed reruns them)")
        return lines

    # ---------------------------------------------------------------- running

    def rows_to_run(self):
        """The rows not done, in file order, at most `limit` of them."""
        started = 0
        for row in read_rows(self.args.data, self.input_column):
            if self.limit is not None and started >= self.limit:
                return
            state = self._row_state(row)
            if state == "ok" or (state == "failed" and not self.args.retry_failed):
                continue
            started += 1
            yield row

    def begin(self, stream=None) -> None:
        import sys

        from .progress import progress_for

        self.batch_id = self.store.start_batch(self.args.prompt, self.prompt_sha256, self.args.data,
                                               self.bindings_json, utc_now())
        self.progress = progress_for(sys.stderr if stream is None else stream, self.todo, self.tally)

    def run_here(self) -> None:
        """Runs the rows in this process, `concurrency` at a time."""
        self.begin()
        for row, rec, reported in self.runner.run_rows(self.rows_to_run()):
            rec.update(self.row_fields(row))
            self.store_row(row, rec, reported)

    def row_fields(self, row) -> dict:
        return {"batch_id": self.batch_id, "row_id": str(row.id), "input": row.input,
                "metadata": json.dumps(row.metadata, ensure_ascii=False), "prompt_path": self.args.prompt,
                "prompt_sha256": self.prompt_sha256, "bindings": self.bindings_json}

    def store_row(self, row, rec: dict, reported: int) -> None:
        """Writes one ended row (committed at once) and counts it."""
        self.store.add_run(rec)
        self.tally.add(bool(rec["ok"]), rec["error_kind"], rec, reported)
        if self.progress is not None:
            self.progress.update()

    def finish(self) -> None:
        """Closes the progress bar and records how the batch ended."""
        if self.progress is not None:
            self.progress.close()
            self.progress = None
        if self.batch_id is not None:
            t = self.tally
            self.store.end_batch(self.batch_id, utc_now(), t.rows, t.ok, t.failed)

    def export_jsonl(self, out) -> None:
        """`--jsonl`: every row with a stored run, in row order."""
        for row in read_rows(self.args.data, self.input_column):
            stored = self.store.row_result(self.prompt_sha256, self.bindings_json, row.id, row.input)
            if stored is not None:
                out.write(jsonl_line(row, stored))

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        if self.store is not None:
            self.store.close()
            self.store = None


def default_db(prompt_path: str) -> str:
    """`PROMPT.batch.db` beside the prompt: `triage.md` -> `triage.batch.db`."""
    root, ext = os.path.splitext(prompt_path)
    return (root if ext.lower() == ".md" else prompt_path) + ".batch.db"


def jsonl_line(row, stored: dict) -> str:
    """One row of `--jsonl`: the row and the stored run that answers for it."""
    error = None
    if not stored["ok"]:
        error = {"kind": stored["error_kind"], "message": stored["error_message"]}
    obj = {"id": row.id, "input": row.input, "metadata": row.metadata, "ok": bool(stored["ok"]),
           "result": stored["result"], "error": error,
           "usage": {k: stored[k] for k in ("rounds", "prompt_tokens", "completion_tokens", "reasoning_tokens")},
           "seconds": stored["seconds"], "run": stored["run"]}
    return valid_utf8(json.dumps(obj, ensure_ascii=False)) + "\n"
