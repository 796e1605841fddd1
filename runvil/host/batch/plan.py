"""A batch made ready: the prompt compiled once, the rows checked, the
world every row shares, the results database, and which rows to run.

Decisions (docs/reference/commands.md "Batches" leaves them open):
- A row is done when a batch stored a successful run of it (same id and
  input) under the same run key (key.py: the prompt's text, the bound
  models' settings, the scripted world) whose required modules still hold.
  A row whose stored runs all failed is not run again unless
  `--retry-failed`; the batch's exit status still says it failed (1).
- Each invocation is one row of `batches`; its `rows`, `ok` and `failed`,
  the progress bar and the summary line count the rows it ran.
- The rows are claimed in blocks (leases.py), so two batches on one
  database share the rows and none runs twice.
"""

from __future__ import annotations

import json
import os

from ...engine.events import utc_now
from ..termtext import valid_utf8
from .data import DataFile, check_rows_and, read_rows
from .key import ModuleCheck, run_key
from .leases import BLOCK_ROWS, Blocks, Owner
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
        self.data: DataFile | None = None
        self.runner = None
        self.run_key = ""
        self.modules_hold = ModuleCheck(args.prompt)
        self.blocks: Blocks | None = None
        self.required: dict = {}  # a stored `modules` text -> the files it names (for --jsonl)
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
        plan = cls(args, prompt, prompt_bytes, concurrency, limit)
        try:
            plan._prepare()
        except BaseException:
            plan.close()
            raise
        return plan

    def _prepare(self) -> None:
        from ..config import load_config

        self.data = DataFile.open(self.args.data, getattr(self.args, "format", None))
        counts = check_rows_and(self.data, self.input_column, lambda row: None)  # no database for a bad data set
        self.runner = Runner(self.args, self.prompt, self.concurrency)
        self.bindings_json = bindings_json(self.runner.bindings)
        self.echo_note = self.runner.echo_note
        config = getattr(self.runner.shared.models, "config", None) or load_config(self.args.config)
        self.run_key = run_key(self.prompt_sha256, self.runner.bindings, config, self.args.script)
        self.store = Store(self.db_path)
        self.blocks = Blocks(self.store, Owner(), self.run_key)
        if self.store.has_runs(self.run_key):  # (else no row is done: no pass asking of each)
            counts = check_rows_and(self.data, self.input_column, self._row_state)
        self.done_before, self.failed_before = counts.get("ok", 0), counts.get("failed", 0)
        self.todo = counts.get(None, 0) + (self.failed_before if self.args.retry_failed else 0)
        if self.args.retry_failed:
            self.failed_before = 0
        if self.limit is not None:
            self.todo = min(self.todo, self.limit)

    def _row_state(self, row) -> str | None:
        return self.store.row_state(self.run_key, row.id, row.input, self.modules_hold)

    def _to_run(self, row) -> bool:
        state = self._row_state(row)
        return not (state == "ok" or (state == "failed" and not self.args.retry_failed))

    def notes(self) -> list[str]:
        lines = [self.echo_note[len("runvil: "):]] if self.echo_note else []
        if self.done_before:
            s = "" if self.done_before == 1 else "s"
            lines.append(f"{self.done_before:,} row{s} already done in {self.db_path}")
        return lines  # rows that failed before are said once, after the summary (end_notes)

    # ---------------------------------------------------------------- running

    def rows_to_run(self):
        """The rows not done, in file order, at most `limit` of them, in
        the blocks this batch could claim."""
        started = 0
        for rows in _blocks(read_rows(self.data, self.input_column), BLOCK_ROWS):
            if self.limit is not None and started >= self.limit:
                return
            block = self.blocks.claim(rows)
            if block is None:  # another batch on this database runs them
                self.blocks.left_to_others += sum(1 for row in rows if self._to_run(row))
                continue
            for row in rows:
                if self.limit is not None and started >= self.limit:
                    break
                if self._to_run(row):
                    started += 1
                    self.blocks.hand_out(block, row)
                    yield row
            self.blocks.handed_all(block)

    def begin(self, stream=None) -> None:
        import sys

        from .progress import progress_for

        self.batch_id = self.store.start_batch(self.args.prompt, self.prompt_sha256, self.data.name,
                                               self.bindings_json, utc_now())
        self.progress = progress_for(sys.stderr if stream is None else stream, self.todo, self.tally)

    def run_here(self) -> None:
        """Runs the rows in this process, `concurrency` at a time; the rows
        that end together (in one hand-over to the Engine) are stored in one
        transaction, before the batch waits on anything."""
        self.begin()
        ended: list = []
        storing = [False]  # stopped while storing: what is left is not stored twice

        def store_ended():
            if ended:
                storing[0] = True
                with self.store.together():
                    while ended:
                        self.store_row(*ended[0])
                        del ended[0]
                storing[0] = False

        try:
            for row, rec, reported in self.runner.run_rows(self.rows_to_run(), on_pass=store_ended):
                rec.update(self.row_fields(row))
                ended.append((row, rec, reported))
        finally:  # (Ctrl-C too: the rows that ended are stored)
            if not storing[0]:
                store_ended()

    def row_fields(self, row) -> dict:
        return {"batch_id": self.batch_id, "row_id": str(row.id), "input": row.input,
                "metadata": json.dumps(row.metadata, ensure_ascii=False), "prompt_path": self.args.prompt,
                "prompt_sha256": self.prompt_sha256, "bindings": self.bindings_json, "run_key": self.run_key}

    def store_row(self, row, rec: dict, reported: int) -> None:
        """Writes one ended row (committed at once, or with the rows that
        came with it: `Store.together`) and counts it."""
        self.store.add_run(rec)
        self.blocks.stored(row)
        modules = rec.get("modules")
        if modules and modules != "{}" and modules not in self.required:
            self.required[modules] = [os.path.join(self.modules_hold.folder, p) for p in json.loads(modules)]
        self.tally.add(bool(rec["ok"]), rec["error_kind"], rec, reported)
        if self.progress is not None:
            self.progress.update()

    def finish(self) -> None:
        """Closes the progress bar and records how the batch ended."""
        if self.progress is not None:
            self.progress.close()
            self.progress = None
        if self.blocks is not None:
            self.blocks.release_all()
        if self.batch_id is not None:
            t = self.tally
            self.store.end_batch(self.batch_id, utc_now(), t.rows, t.ok, t.failed)

    def end_notes(self) -> list[str]:
        """What stderr says after the summary line."""
        lines = []
        if self.blocks is not None and self.blocks.left_to_others:
            n = self.blocks.left_to_others
            lines.append(f"{n:,} row{'' if n == 1 else 's'} left to another batch running on {self.db_path}")
        if self.failed_before:
            n = self.failed_before
            lines.append(f"{n:,} row{'' if n == 1 else 's'} of this data set failed earlier: --retry-failed runs them")
        return lines

    def module_paths(self) -> list[str]:
        """The files of the modules the rows stored by this batch required."""
        return sorted({p for paths in self.required.values() for p in paths})

    def export_jsonl(self, out, every: bool = False) -> None:
        """`--jsonl`: the rows this batch ran (`every`: every row with a
        stored run), in row order."""
        if not every and self.batch_id is None:
            return
        for row in read_rows(self.data, self.input_column):
            stored = self.store.row_result(self.run_key, row.id, row.input, self.modules_hold,
                                           None if every else self.batch_id)
            if stored is not None:
                out.write(jsonl_line(row, stored))

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        if self.store is not None:
            self.store.close()
            self.store = None
        if self.data is not None:
            self.data.close()


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
           "usage": {k: stored[k] for k in ("rounds", "prompt_tokens", "completion_tokens", "reasoning_tokens",
                                            "rounds_without_usage")},
           "seconds": stored["seconds"], "run": stored["run"]}
    return valid_utf8(json.dumps(obj, ensure_ascii=False)) + "\n"


def _blocks(rows, size: int):
    """The rows in lists of `size` (the last one shorter)."""
    block = []
    for row in rows:
        block.append(row)
        if len(block) == size:
            yield block
            block = []
    if block:
        yield block
