"""`runvil batch PROMPT.md DATA` (docs/reference/commands.md "runvil batch"): the prompt once per
row, `-j N` rows at a time, each row's run stored in the results database
as it ends.

The prompt is parsed and compiled once; the rows are checked in one pass
before any runs (a bad row is a usage error naming its line); then they
are read again, one at a time, and each row not done yet becomes a run
driven by the harness (`harness.many`), in this process or, for a large
batch, in worker processes (`processes.py`).
"""

from __future__ import annotations

import contextlib
import os
import sys

from ..argparsing import Parser
from ..exits import EXIT_FAILED, EXIT_OK, EXIT_PARSE, EXIT_TERMINATED, EXIT_USAGE
from ..runcmd import Terminated, terminated_as_interrupt

EXIT_INTERRUPTED = 130
DEFAULT_CONCURRENCY = 8

CANNOT_READ = "cannot read {path}: {reason}"
CANNOT_WRITE = "cannot write {path}: {reason}"
BAD_CONCURRENCY = "-j must be a whole number of at least 1, got {raw}"
BAD_LIMIT = "--limit must be a whole number of at least 0, got {raw}"
BAD_PROCESSES = "--processes must be a whole number of at least 1, got {raw}"


def batch_parser() -> Parser:
    p = Parser(prog="runvil batch",
               description="Run a prompt once per row of a data set, into a SQLite database.")
    p.add_argument("prompt", metavar="PROMPT.md", help="the prompt file to run")
    p.add_argument("data", metavar="DATA",
                   help="the rows: .jsonl, .csv, or plain text (one input a line); - for standard input")
    p.add_argument("--format", choices=("jsonl", "csv", "text"),
                   help="how DATA's rows are written, where its extension does not say it (as for -)")
    p.add_argument("--db", metavar="FILE", help="the results database (default: PROMPT.batch.db beside the prompt)")
    p.add_argument("-j", "--concurrency", metavar="N", default=str(DEFAULT_CONCURRENCY),
                   help=f"rows running at once (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--retry-failed", action="store_true", help="also rerun rows whose stored run failed")
    p.add_argument("--limit", metavar="N", help="run at most N rows (the first N not yet done)")
    p.add_argument("--jsonl", metavar="FILE", help="also write the results of the rows this command ran, "
                                                   "one JSON object a row")
    p.add_argument("--all", action="store_true", help="with --jsonl: every row of the data set with a stored run")
    p.add_argument("--input-column", metavar="NAME", default="input",
                   help="the field or column holding each row's input (default: input)")
    p.add_argument("--bind", action="append", default=[], metavar="ROLE=MODEL",
                   help="bind a model role to a catalog model (repeatable)")
    from ..config import add_context_option

    add_context_option(p)
    p.add_argument("--config", metavar="FILE", help="the config file, as for run")
    p.add_argument("--script", metavar="WORLD.yaml", help="answer every row from this scripted world (fresh per row)")
    p.add_argument("--workspace", metavar="DIR",
                   help="the files Pack's folder, shared by every row (default: a fresh one per row)")
    p.add_argument("--processes", metavar="N",
                   help="worker processes sharing the rows (default: one per CPU when there are at least "
                        "100 rows a worker; 1: this process alone)")
    p.add_argument("--ray", metavar="ADDRESS", nargs="?", const="", default=None,
                   help="run the rows on a Ray cluster (default: start a local one); needs runvil[ray]")
    return p


def batch_command(argv: list[str]) -> int:
    try:
        with terminated_as_interrupt():
            try:
                return _batch_command(argv)
            except Terminated:
                print("runvil: terminated", file=sys.stderr)
                return EXIT_TERMINATED
    finally:
        _skip_the_last_collection()


def _skip_the_last_collection() -> None:
    """The batch is over and its output written: everything alive now is
    frozen out of the collector's passes. The interpreter's exit ends with
    a full collection, which walked every object of the batch's world and
    took up to a second and a half on a loaded machine (after Ctrl-C too,
    which must end the process at once); the objects are freed all the
    same. In a process that goes on, they are simply never walked again."""
    import gc

    gc.freeze()


def _usage(message: str) -> int:
    print(f"runvil: {message}", file=sys.stderr)
    return EXIT_USAGE


def _whole(raw: str, least: int) -> int | None:
    try:
        n = int(raw)
    except (TypeError, ValueError):
        return None
    return n if n >= least else None


def _batch_command(argv: list[str]) -> int:
    args = batch_parser().parse(argv)
    if isinstance(args, int):
        return args
    concurrency = _whole(args.concurrency, 1)
    if concurrency is None:
        return _usage(BAD_CONCURRENCY.format(raw=args.concurrency))
    processes = None
    if args.processes is not None:
        processes = _whole(args.processes, 1)
        if processes is None:
            return _usage(BAD_PROCESSES.format(raw=args.processes))
    args.processes = processes
    limit = None
    if args.limit is not None:
        limit = _whole(args.limit, 0)
        if limit is None:
            return _usage(BAD_LIMIT.format(raw=args.limit))

    from .plan import default_db

    if args.db is None:
        args.db = default_db(args.prompt)
    clashing = _output_clash(args)
    if clashing:
        return _usage(clashing)

    from ...prompt import ParseError, read_prompt

    try:
        with open(args.prompt, "rb") as f:
            prompt_bytes = f.read()
        prompt = read_prompt(args.prompt)
    except ParseError as e:
        print(f"error[Parse]: {e}", file=sys.stderr)
        from ..diagnostics import show_parse_error

        show_parse_error(e)
        return EXIT_PARSE
    except OSError as e:
        return _usage(CANNOT_READ.format(path=e.filename or args.prompt, reason=e.strerror or e))

    from .data import BadRow
    from .plan import Plan
    from .store import StoreError

    try:
        plan = Plan.make(args, prompt, prompt_bytes, concurrency, limit)
    except (ValueError, BadRow, StoreError) as e:
        return _usage(str(e))
    except OSError as e:
        return _usage(CANNOT_READ.format(path=e.filename or args.data, reason=e.strerror or e))
    try:
        return _run_plan(plan, args)
    except StoreError as e:
        plan.close()
        return _usage(str(e))


def _output_clash(args) -> str | None:
    """The database and `--jsonl` must be none of the batch's inputs (and
    not one another)."""
    from ..outputs import clash, config_input

    inputs = [(f"the prompt {args.prompt}", args.prompt),
              (f"the data file {args.data}", None if args.data == "-" else args.data),
              (f"the world {args.script}", args.script), config_input(args.config)]
    return clash([("--db", args.db, f"the results database {args.db}"), ("--jsonl", args.jsonl)], inputs)


def _run_plan(plan, args) -> int:
    """Opens the outputs, runs the rows, says how it went."""
    note = plan.notes()
    for line in note:
        print(f"runvil: {line}", file=sys.stderr)
    made_jsonl = False
    if args.jsonl:  # written at the end; opened now (not emptied) so that an unwritable path fails first
        try:
            made_jsonl = not os.path.lexists(args.jsonl)
            open(args.jsonl, "a", encoding="utf-8").close()
        except OSError as e:
            plan.close()
            return _usage(CANNOT_WRITE.format(path=args.jsonl, reason=e.strerror or e))
    interrupted: KeyboardInterrupt | None = None
    try:
        try:
            if args.ray is not None:
                from .onray import run_on_ray

                run_on_ray(plan, args.ray)
            else:
                from .processes import run_in_processes, worker_count

                count = worker_count(args.processes, plan.todo, plan.concurrency)
                if count > 1:
                    run_in_processes(plan, count)
                else:
                    plan.run_here()
        except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM as Terminated: the finished rows are stored
            interrupted = e
        except ValueError as e:  # Ray missing or out of reach: before any row ran
            print(f"runvil: {e}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            plan.finish()
        if args.jsonl and interrupted is None:
            refused = _write_jsonl(plan, args, made_jsonl)
            if refused is not None:
                return refused
        elif made_jsonl:  # interrupted: no export, and no empty file made for it
            with contextlib.suppress(OSError):
                os.remove(args.jsonl)
    finally:
        plan.close()
    print(plan.tally.summary())
    for line in plan.end_notes():
        print(f"runvil: {line}", file=sys.stderr)
    if isinstance(interrupted, Terminated):
        print("runvil: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    if interrupted is not None:
        print("runvil: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_FAILED if plan.tally.failed or plan.failed_before else EXIT_OK


def _write_jsonl(plan, args, made: bool) -> int | None:
    """Writes `--jsonl`, unless it names a module the rows required (known
    only now that they ran); the exit status of a refusal, else None."""
    from ..outputs import clash

    clashing = clash([("--jsonl", args.jsonl)], [(f"the module {p}", p) for p in plan.module_paths()])
    if clashing:
        if made:
            with contextlib.suppress(OSError):
                os.remove(args.jsonl)
        return _usage(clashing)
    try:
        with open(args.jsonl, "w", encoding="utf-8") as out:
            plan.export_jsonl(out, every=args.all)
    except OSError as e:
        return _usage(CANNOT_WRITE.format(path=args.jsonl, reason=e.strerror or e))
    return None
