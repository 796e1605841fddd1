"""The exit statuses of `runvil run` and `runvil check` (docs/reference/commands.md): 0 a
result; 1 the run failed (`error[Kind]: message` on stderr); 2 a usage
error; 3 a parse error. A module of their own, so that `runvil check`
imports none of `run`'s code. `guarded` turns what a command raises into
its exit status, for `runvil` (cli.py) and for the conformance runner's
in-process `runvil run`."""

import errno
import sys

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_PARSE = 0, 1, 2, 3
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports it


def guarded(command, argv: list[str] | None = None) -> int:
    """Runs `command(argv)`; an Engine bug is reported in one line, not as a
    traceback (set RUNVIL_TRACEBACK=1 to see it). A closed pipe or a full
    disk on the output is the reader's or the machine's doing, not a bug."""
    try:
        code = command(argv)
        sys.stdout.flush()  # a late write error surfaces here, not at exit
        return code
    except KeyboardInterrupt:
        print("runvil: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _drop_stdout()
        return 141  # as a shell reports a command ended by SIGPIPE (128 + 13)
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG):
            return _internal(e)
        _drop_stdout()
        print(f"runvil: cannot write the output: {e.strerror}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as e:
        if e.name != "sqlite3":
            return _internal(e)
        # (Pyodide ships sqlite3 as a package of its own, loaded on demand)
        print("runvil: this Python has no sqlite3 module, which batches, --db and `runvil logs` need"
              " (on Pyodide: await pyodide.loadPackage('sqlite3') first)", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # a bug in runvil, not in the prompt
        return _internal(e)


def _internal(e: Exception) -> int:
    import os

    if os.environ.get("RUNVIL_TRACEBACK"):
        raise e
    print(f"runvil: internal error: {type(e).__name__}: {e} (set RUNVIL_TRACEBACK=1 for details)", file=sys.stderr)
    return 1


def _drop_stdout() -> None:
    """Points stdout at /dev/null so the interpreter's last flush of what
    is still buffered cannot fail again on the way out."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
