"""Running conformance cases: one case in a fresh folder, on this runvil in
this process or on another command (`--impl`), and many cases at once.

A command runs in a session of its own, so that a timeout stops its whole
process group (an adapter, a shell wrapper and what they started), and
whatever it left running when it ended is stopped too. Cases run in
parallel in threads under `--impl` (each case is a process anyway) and in
worker processes for this runvil (a run changes the process's folder and
standard streams).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..threads import block_host_signals, start_child
from .cases import Case
from .expect import Mismatch, compare
from .suite import ARGS, ENV_CASE_ID, case_path, write_case_files

DEFAULT_TIMEOUT = 120.0  # seconds one case may take under --impl
GRACE = 1.0  # seconds between asking a timed-out command to end and killing it
POSIX = os.name == "posix"


class CommandError(Exception):
    """The implementation's command cannot be started at all (a usage error)."""


@dataclass
class Outcome:
    """How one case went: `pass`, `fail` (fields differ) or `error` (no
    JSON object: the command crashed, printed something else or hung)."""

    status: str
    problems: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0


def default_jobs() -> int:
    """The cores this process may use (1 where processes cannot start)."""
    if sys.platform in ("emscripten", "wasi"):
        return 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# ------------------------------------------------------------------ runners


class HereRunner:
    """`runvil run` on a case folder, in this process."""

    words = ["runvil", "run"]

    def __call__(self, folder: Path, case_id: str) -> tuple[int, str, str]:
        from .exits import guarded
        from .runcmd import run_command

        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(folder), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = guarded(run_command, list(ARGS))  # as `runvil run` does
        return code, out.getvalue(), err.getvalue()


def run_here(folder: Path | None = None, case_id: str = "") -> tuple[int, str, str]:
    """`runvil run` on a case folder (default: the current one), in this process."""
    return HereRunner()(Path.cwd() if folder is None else folder, case_id)


class CommandRunner:
    """`--impl CMD`: the command split like a shell's words, the case's
    arguments appended, run in the case's folder with RUNVIL_CASE_ID set.
    A word with a `/` naming a file or folder from where the runner started
    (`./impl`, `adapters/x.py`) is made absolute, since each case runs elsewhere."""

    def __init__(self, impl: str, timeout: float = DEFAULT_TIMEOUT):
        try:
            words = shlex.split(impl)
        except ValueError as e:
            raise CommandError(f"--impl: {e}") from None
        if not words:
            raise CommandError("--impl needs a command")
        self.words = [str(Path(w).absolute()) if "/" in w and not w.startswith("/") and Path(w).exists() else w
                      for w in words]
        self.timeout = timeout
        self.running: set[subprocess.Popen] = set()  # the commands under way, stopped on an interrupt

    def stop_all(self) -> None:
        """Kills every command under way and what it started."""
        for p in list(self.running):
            kill_group(p)

    def __call__(self, folder: Path, case_id: str) -> tuple[int | None, str, str]:
        try:
            p = start_child(self.words + ARGS, cwd=folder, env={**os.environ, ENV_CASE_ID: case_id},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=POSIX)
        except FileNotFoundError:
            raise CommandError(f"cannot run {self.words[0]}: no such command") from None
        except PermissionError:
            raise CommandError(f"cannot run {self.words[0]}: permission denied") from None
        self.running.add(p)
        try:
            out, err = p.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            stop_group(p)
            out, err = _rest_of_output(p)
            return None, _text(out), _text(err) + f"\n(stopped after {self.timeout:g} seconds)"
        finally:
            kill_group(p)  # what it left running
            self.running.discard(p)
        return p.returncode, _text(out), _text(err)


def _rest_of_output(p: subprocess.Popen) -> tuple[bytes, bytes]:
    """What a stopped command printed; nothing, if a process that left its
    group (a daemon in a session of its own) keeps the output open."""
    try:
        return p.communicate(timeout=5 * GRACE)
    except subprocess.TimeoutExpired:
        for stream in (p.stdout, p.stderr):
            stream.close()
        p.wait()
        return b"", b"(a process outside the command's process group kept its output open)"


def stop_group(p: subprocess.Popen) -> None:
    """Asks the command's process group to end (SIGTERM), then kills it
    after GRACE seconds (SIGKILL). Elsewhere than POSIX, kills the command."""
    if not POSIX:
        p.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE
    while p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    kill_group(p)


def kill_group(p: subprocess.Popen) -> None:
    if POSIX:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)
    elif p.poll() is None:
        p.kill()


def _text(b) -> str:
    if b is None:
        return ""
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else b


# ------------------------------------------------------------------ one case


def output_json(out: str) -> dict | None:
    """The one JSON object the command printed, or None."""
    try:
        data = json.loads(out)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def check(case: Case, runner=None, keep: Path | None = None) -> tuple[list[Mismatch], dict | None]:
    """Runs a case; returns the fields that differ and the parsed output."""
    outcome, got = run_one(case, runner or HereRunner(), keep)
    return outcome.problems, got


def run_one(case: Case, runner, keep: Path | None = None) -> tuple[Outcome, dict | None]:
    """Lays the case's files out in a fresh folder and runs them there, so
    file names in messages read `prompt.md:5: ...` wherever the folder is.
    With `keep`, a failing case's folder is copied there with its output."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="runvil-case-") as tmp:
        case.lay_out(Path(tmp))
        code, out, err = runner(Path(tmp), case.id)
        got = output_json(out)
        if got is None:
            status = "no exit status (stopped)" if code is None else f"exit status {code}"
            detail = f"{out.strip() or '(nothing on stdout)'}\n--- stderr ({status}) ---\n{err.strip()}"
            outcome = Outcome("error", [Mismatch("output", "one JSON object on stdout", detail)])
        else:
            problems = compare(case.expect, got)
            outcome = Outcome("fail" if problems else "pass", problems)
        if keep is not None and outcome.status != "pass":
            keep_case(case, keep, runner.words, out, err)
    outcome.seconds = time.monotonic() - start
    return outcome, got


def keep_case(case: Case, keep: Path, words: list[str], out: str, err: str) -> None:
    """The case's files, its command line and what it printed, in
    KEEP/folder/file/name (-2, -3 ... when that is taken)."""
    path = base = case_path(case, set())
    n = 1
    while (keep / path).exists():
        n += 1
        path = f"{base}-{n}"
    folder = keep / path
    write_case_files(case, folder, words)
    (folder / "stdout.txt").write_text(out, encoding="utf-8", errors="surrogateescape")
    (folder / "stderr.txt").write_text(err, encoding="utf-8", errors="surrogateescape")


# ------------------------------------------------------------------ many cases


def run_cases(cases: list[Case], runner, jobs: int, keep: Path | None, on_result) -> None:
    """Runs the cases, `jobs` at a time, calling on_result(case, outcome)
    in this thread as each ends (in the order they end)."""
    jobs = max(1, min(jobs, len(cases)))
    if jobs > 1 and isinstance(runner, HereRunner):
        if _in_workers(cases, jobs, keep, on_result):
            return
        jobs = 1  # one process, one case at a time: a run changes its folder and streams
    if jobs == 1:
        for case in cases:
            on_result(case, run_one(case, runner, keep)[0])
        return
    from concurrent.futures import ThreadPoolExecutor, as_completed

    with ThreadPoolExecutor(jobs, initializer=block_host_signals) as pool:  # Ctrl-C reaches the main thread
        futures = {pool.submit(run_one, c, runner, keep): c for c in cases}
        try:
            for f in as_completed(futures):
                on_result(futures[f], f.result()[0])
        except BaseException:  # an interrupt, or a command that cannot start: stop the others
            for f in futures:
                f.cancel()
            runner.stop_all()
            raise


def _in_workers(cases: list[Case], jobs: int, keep: Path | None, on_result) -> bool:
    """This runvil's cases in `jobs` worker processes; False when worker
    processes cannot start here (the caller then runs them one by one). If
    the workers die, the cases not yet done run in this process."""
    try:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    except (ImportError, OSError, NotImplementedError, ValueError):
        return False
    done: set[str] = set()
    with pool:
        futures = {pool.submit(_worker_run, c, keep): c for c in cases}
        try:
            for f in as_completed(futures):
                outcome = f.result()
                done.add(futures[f].id)
                on_result(futures[f], outcome)
        except BrokenProcessPool:
            pass
        except BaseException:
            for f in futures:
                f.cancel()
            raise
    for case in (c for c in cases if c.id not in done):
        on_result(case, run_one(case, HereRunner(), keep)[0])
    return True


def _worker_run(case: Case, keep: Path | None) -> Outcome:
    return run_one(case, HereRunner(), keep)[0]
