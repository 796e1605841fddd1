"""`runvil logs` (docs/reference/commands.md "The history of runs"): list, show, draw and
delete the runs kept by `runvil run` and `runvil chat`; say where they
are; switch storing off and on."""

from __future__ import annotations

import json
import os
import sqlite3
import sys

from .argparsing import Parser
from .exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from .history import history_path, off_marker, storing

LOGS_EXAMPLES = """examples:
  runvil logs                      the latest 20 runs
  runvil logs -n 5 --q haiku       the latest 5 whose prompt, input or result holds 'haiku'
  runvil logs show 12              one run: prompt, bindings, input, result, usage
  runvil logs view 12 -o run.html  its run viewer page
  runvil logs off                  keep no more runs (runvil logs on: keep them again)"""

LIST_COLUMNS = "id, started, prompt_path, ok, result, error_kind, error_message, rounds, seconds"
NO_HISTORY = "no run is kept yet ({path} does not exist)"
CANNOT_READ = "cannot read the history {path}: {reason}"


def logs_parser() -> Parser:
    p = Parser(prog="runvil logs", description="The history of runs of `runvil run` and `runvil chat`.",
               epilog=LOGS_EXAMPLES)
    p.add_argument("action", nargs="?", default="list", choices=("list", "show", "view", "rm", "path", "on", "off"),
                   help="what to do (default: list)")
    p.add_argument("id", nargs="?", type=int, help="the run's id (show, view, rm)")
    p.add_argument("-n", type=int, default=20, metavar="N", help="list the latest N runs (default 20; 0: all)")
    p.add_argument("--q", metavar="TEXT", help="list only runs whose prompt path, input, result or error holds TEXT")
    p.add_argument("--json", action="store_true", help="print JSON (list: one object per line)")
    p.add_argument("-o", "--output", metavar="FILE.html", help="view: where to write the page (default: run-ID.html)")
    return p


def logs_command(argv: list[str]) -> int:
    args = logs_parser().parse(argv)
    if isinstance(args, int):
        return args
    path = history_path()
    if args.action == "path":
        print(path)
        return EXIT_OK
    if args.action in ("on", "off"):
        return switch(path, args.action == "on")
    if args.action in ("show", "view", "rm") and args.id is None:
        print(f"runvil: logs {args.action} needs a run id (runvil logs lists them)", file=sys.stderr)
        return EXIT_USAGE
    if not os.path.exists(path):
        if args.action == "list":
            print(NO_HISTORY.format(path=path), file=sys.stderr)
            return EXIT_OK
        print(f"runvil: {NO_HISTORY.format(path=path)}", file=sys.stderr)
        return EXIT_FAILED
    from .batch.store import StoreError, opened

    try:
        with opened(path, "rw" if args.action == "rm" else "ro", CANNOT_READ) as db:
            db.row_factory = sqlite3.Row
            act = {"list": list_runs, "show": show_run, "view": view_run, "rm": remove_run}[args.action]
            return act(db, args, path)
    except StoreError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_FAILED


def switch(path: str, on: bool) -> int:
    marker = off_marker(path)
    try:
        if on:
            if os.path.exists(marker):
                os.remove(marker)
        else:
            os.makedirs(os.path.dirname(marker) or ".", exist_ok=True)
            with open(marker, "w", encoding="utf-8") as f:
                f.write("runvil keeps no run here while this file exists (runvil logs on removes it)\n")
    except OSError as e:
        print(f"runvil: cannot switch the history {'on' if on else 'off'}: {e.strerror or e}", file=sys.stderr)
        return EXIT_FAILED
    print(f"the history of runs is {'on' if storing(path) else 'off'} ({path})")
    return EXIT_OK


def list_runs(db, args, path: str) -> int:
    where, params = "", []
    if args.q:
        like = "%" + args.q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where = " WHERE " + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in
                                        ("prompt_path", "input", "result", "error_message"))
        params = [like] * 4
    limit = " LIMIT ?" if args.n > 0 else ""
    rows = db.execute(f"SELECT {LIST_COLUMNS} FROM runs{where} ORDER BY id DESC{limit}",
                      params + ([args.n] if args.n > 0 else [])).fetchall()
    for row in rows:
        if args.json:
            print(json.dumps(dict(row), ensure_ascii=False))
        else:
            print(list_line(row))
    if not rows and not args.json:
        print("no run matches" if args.q else "no run is kept yet", file=sys.stderr)
    return EXIT_OK


def list_line(row) -> str:
    """`12  2026-12-06T19:40:01  hello.md  ok  Hello, world` (one line)."""
    outcome = "ok" if row["ok"] else f"error[{row['error_kind']}]"
    text = (row["result"] if row["ok"] else row["error_message"]) or ""
    text = " ".join(text.split())
    if len(text) > 60:
        text = text[:59] + "…"
    prompt = os.path.basename(row["prompt_path"] or "") or "?"
    return f"{row['id']:>5}  {row['started'][:19]}  {prompt}  {outcome}  {text}"


def fetch_run(db, run_id: int, path: str):
    row = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    if row is None:
        print(f"runvil: the history has no run {run_id} ({path})", file=sys.stderr)
    return row


def show_run(db, args, path: str) -> int:
    row = fetch_run(db, args.id, path)
    if row is None:
        return EXIT_FAILED
    fields = {k: row[k] for k in row.keys() if k != "log"}
    text = db.execute("SELECT text FROM prompts WHERE sha256 = ?", (row["prompt_sha256"],)).fetchone()
    fields["prompt_text"] = text[0] if text else None
    if args.json:
        print(json.dumps(fields, ensure_ascii=False, indent=2))
        return EXIT_OK
    from .usage import usage_parts

    outcome = "ok" if row["ok"] else f"error[{row['error_kind']}]: {row['error_message']}"
    for label, value in (("run", row["id"]), ("started", row["started"]), ("seconds", row["seconds"]),
                         ("prompt", row["prompt_path"]), ("sha256", row["prompt_sha256"]),
                         ("bindings", row["bindings"]), ("input", row["input"]), ("outcome", outcome),
                         ("usage", " · ".join(usage_parts(row)))):
        print(f"{label}: {value}")
    if row["ok"] and row["result"] is not None:
        print("result:")
        print(row["result"])
    return EXIT_OK


def view_run(db, args, path: str) -> int:
    """The run's viewer page, as `runvil view DB --run ID` draws it."""
    if fetch_run(db, args.id, path) is None:
        return EXIT_FAILED
    from .view import view_command

    return view_command([path, "--run", str(args.id), "-o", args.output or f"run-{args.id}.html"])


def remove_run(db, args, path: str) -> int:
    row = fetch_run(db, args.id, path)
    if row is None:
        return EXIT_FAILED
    with db:
        db.execute("DELETE FROM runs WHERE id = ?", (args.id,))
        db.execute("DELETE FROM prompts WHERE sha256 NOT IN (SELECT DISTINCT prompt_sha256 FROM runs "
                   "WHERE prompt_sha256 IS NOT NULL)")
    print(f"run {args.id} removed from the history")
    return EXIT_OK
