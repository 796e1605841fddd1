"""`runvil view FILE.db` without `--run`: the runs a results database
holds, one line each, so that the id to draw can be found (`runvil view
FILE.db --run ID`). Read-only: listing never changes the database (an
older one is listed as it is, not migrated)."""

from __future__ import annotations

import sys

from .store import StoreError, opened

SQLITE_MAGIC = b"SQLite format 3\0"
INPUT_SHOWN = 40  # characters of each run's input shown
HEAD = f"{'id':>6}  {'batch':>5}  {'row':<10}  {'outcome':<18}  {'rounds':>6}  {'tokens':>13}  {'seconds':>8}  input"


def is_database(path: str) -> bool:
    """The file starts as every SQLite database does."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def list_command(path: str, output: str | None = None) -> int:
    """`runvil view FILE.db`: the list, and how to draw one; 2 for a file
    that is no results database, or for `-o` without `--run`."""
    if output is not None:
        print(f"runvil: {path} is a results database: --run ID names the run to draw "
              f"(runvil view {path} lists them)", file=sys.stderr)
        return 2
    try:
        n = list_runs(path)
    except StoreError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return 2
    print(f"runvil: {n} run{'' if n == 1 else 's'}; runvil view {path} --run ID draws one", file=sys.stderr)
    return 0


def list_runs(path: str, out=None) -> int:
    """Prints the stored runs in id order; raises StoreError for a database
    that cannot be read or is not runvil's. Returns how many it listed."""
    from ..termtext import TerminalStream

    out = TerminalStream(out or sys.stdout)  # inputs are row text: no control sequence obeyed
    n = 0
    with opened(path) as db:
        cur = db.execute("SELECT id, batch_id, row_id, ok, error_kind, rounds, prompt_tokens, completion_tokens,"
                         " seconds, input FROM runs ORDER BY id")
        out.write(HEAD + "\n")
        for row in cur:
            out.write(run_line(*row) + "\n")
            n += 1
    return n


def run_line(run_id, batch_id, row_id, ok, error_kind, rounds, prompt_tokens, completion_tokens, seconds,
             input_text) -> str:
    outcome = "ok" if ok else f"failed ({error_kind or 'internal'})"
    tokens = "unknown" if prompt_tokens is None else f"{prompt_tokens or 0:,}+{completion_tokens or 0:,}"
    text = " ".join(str(input_text or "").split())
    if len(text) > INPUT_SHOWN:
        text = text[: INPUT_SHOWN - 3] + "..."
    batch = "-" if batch_id is None else str(batch_id)
    return (f"{run_id:>6}  {batch:>5}  {str(row_id if row_id is not None else '-'):<10}  {outcome:<18}  "
            f"{rounds or 0:>6}  {tokens:>13}  {seconds or 0:>8.2f}  {text}")
