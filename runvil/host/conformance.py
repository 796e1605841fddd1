"""`runvil conformance [--impl CMD] [-k PATTERN] [--junit FILE] [DIR...]`
(docs/reference/commands.md "runvil conformance"; the case format is
conformance/FORMAT.md).

Each case runs as `CMD prompt.md --script world.yaml --json` in a fresh
folder holding the case's files; the JSON printed is compared with the
case's `expect`. Without `--impl` the cases run this implementation in this
process (the same files, folder and arguments as `--impl "runvil run"`,
without a process start-up per case).

Output: a progress bar when stdout is a terminal; each failing case with
its id and every field that differs (`-q`: one line, its id and the
fields' names); `-v` adds a `PASS id` line per passing case (and no bar);
then `N passed, N failed`. Exit status: 0 all passed, 1 any failed, 2 no case
found or a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .cases import Case, CaseError, load_cases
from .expect import Mismatch, compare

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_TIMEOUT = 120.0  # seconds one case may take under --impl
ARGS = ["prompt.md", "--script", "world.yaml", "--json"]


EXAMPLES = """examples:
  runvil conformance                          the spec's cases in ./conformance
  runvil conformance examples/tests -k crash  your own prompt tests whose id has "crash"
  runvil conformance --impl "mylang run" -q   another implementation, one line per failure"""


class CommandError(Exception):
    """The implementation's command cannot be started at all (a usage error)."""


# ------------------------------------------------------------------ running one case


def run_here() -> tuple[int, str, str]:
    """`runvil run` on the current folder's case files, in this process."""
    from .exits import guarded
    from .runcmd import run_command

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = guarded(run_command, list(ARGS))  # as `runvil run` does
    return code, out.getvalue(), err.getvalue()


def command_runner(impl: str, timeout: float = DEFAULT_TIMEOUT):
    """A runner for `--impl CMD`: the command split like a shell's words,
    the case's arguments appended, run in the current folder. A word with a
    `/` naming a file or folder from where the runner started (`./impl`,
    `adapters/x.py`) is made absolute, since each case runs elsewhere."""
    try:
        words = shlex.split(impl)
    except ValueError as e:
        raise CommandError(f"--impl: {e}") from None
    if not words:
        raise CommandError("--impl needs a command")
    words = [str(Path(w).absolute()) if "/" in w and not w.startswith("/") and Path(w).exists() else w
             for w in words]

    def run() -> tuple[int, str, str]:
        try:
            p = subprocess.run(words + ARGS, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except FileNotFoundError:
            raise CommandError(f"cannot run {words[0]}: no such command") from None
        except PermissionError:
            raise CommandError(f"cannot run {words[0]}: permission denied") from None
        except subprocess.TimeoutExpired as e:
            return None, _text(e.stdout), _text(e.stderr) + f"\n(stopped after {timeout:g} seconds)"
        return p.returncode, _text(p.stdout), _text(p.stderr)

    return run


def _text(b) -> str:
    if b is None:
        return ""
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else b


def run_in_folder(case: Case, runner) -> tuple[int | None, str, str]:
    """Lays the case's files out in a fresh folder and runs them there, so
    file names in messages read `prompt.md:5: ...` wherever the folder is."""
    with tempfile.TemporaryDirectory(prefix="runvil-case-") as tmp, contextlib.chdir(tmp):
        case.lay_out(Path(tmp))
        return runner()


def output_json(out: str) -> dict | None:
    """The one JSON object the command printed, or None."""
    try:
        data = json.loads(out)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def check(case: Case, runner=run_here) -> tuple[list[Mismatch], dict | None]:
    """Runs a case; returns the fields that differ and the parsed output."""
    code, out, err = run_in_folder(case, runner)
    got = output_json(out)
    if got is None:
        status = "no exit status (stopped)" if code is None else f"exit status {code}"
        detail = f"{out.strip() or '(nothing on stdout)'}\n--- stderr ({status}) ---\n{err.strip()}"
        return [Mismatch("output", "one JSON object on stdout", detail)], None
    return compare(case.expect, got), got


def run_case(case: dict) -> dict:
    """Runs a case given as data (`prompt`, `world`, `input`) on this
    implementation; returns its `--json` output with its exit status."""
    from ..harness.scripted import dump_world

    world = dict(case.get("world") or {})
    if case.get("input") is not None:
        world["input"] = case["input"]
    c = Case(id="case", name="case", file=Path("case.yaml"), prompt=case["prompt"], world=dump_world(world))
    code, out, err = run_in_folder(c, run_here)
    data = output_json(out)
    if data is None:
        data = {"ok": False, "result": None, "error": {"kind": "NoJSON", "message": err.strip()}}
    data["exit"] = code
    return data


# ------------------------------------------------------------------ the command


def conformance_command(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="runvil conformance", description="Run conformance cases.", epilog=EXAMPLES,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="*", metavar="DIR", help="case folders or files (default: conformance/)")
    p.add_argument("--impl", metavar="CMD", help="the implementation's command (default: this runvil)")
    p.add_argument("-k", dest="patterns", action="append", default=[], metavar="PATTERN",
                   help="run only the cases whose id contains PATTERN (repeatable; any matches)")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"seconds one case may take under --impl (default {DEFAULT_TIMEOUT:g})")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("-q", "--quiet", action="store_true",
                       help="one line per failing case (its id and the fields that differ), then the summary")
    shown.add_argument("-v", "--verbose", action="store_true", help="also a `PASS id` line per passing case")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_PASSED
    dirs = args.dirs or ["conformance"]
    try:
        cases = load_cases(dirs)
        runner = command_runner(args.impl, args.timeout) if args.impl is not None else run_here
    except (CaseError, CommandError) as e:
        return _usage(str(e))
    if args.patterns:
        cases = [c for c in cases if any(k.lower() in c.id.lower() for k in args.patterns)]
        if not cases:
            return _usage(f"no conformance case matches {' or '.join(map(repr, args.patterns))}")
    elif not cases:
        return _usage(f"no conformance cases found in {', '.join(dirs)}")
    report = Report(sys.stdout, len(cases), quiet=args.quiet, verbose=args.verbose)
    try:
        for case in cases:
            start = time.monotonic()
            problems, _ = check(case, runner)
            report.add(case, problems, time.monotonic() - start)
    except CommandError as e:
        report.clear()
        return _usage(str(e))
    report.end()
    if args.junit:
        try:
            write_junit(args.junit, report.results)
        except OSError as e:
            return _usage(f"cannot write the JUnit report {args.junit}: {e.strerror or e}")
    return EXIT_FAILED if report.failed else EXIT_PASSED


def _usage(message: str) -> int:
    print(f"runvil: {message}", file=sys.stderr)
    return EXIT_USAGE


class Report:
    """What the command prints: a progress bar redrawn in place on a
    terminal, plain lines otherwise (no carriage returns in a pipe)."""

    WIDTH = 30

    def __init__(self, stream, total: int, quiet: bool = False, verbose: bool = False):
        self.stream, self.total = stream, total
        self.quiet, self.verbose = quiet, verbose
        self.bar = stream.isatty() and not verbose
        self.results: list[tuple[Case, list[Mismatch], float]] = []
        self.failed = 0

    def add(self, case: Case, problems: list[Mismatch], seconds: float) -> None:
        self.results.append((case, problems, seconds))
        self.failed += bool(problems)
        if self.bar:
            if problems:
                self._write("\r\x1b[K" + self._failure(case, problems))
            done = len(self.results)
            filled = self.WIDTH * done // self.total
            self._write(f"\r\x1b[K[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done}/{self.total}"
                        + (f" · {self.failed} failed" if self.failed else ""))
        elif problems:
            self._write(self._failure(case, problems))
        elif self.verbose:
            self._write(f"PASS {case.id}\n")

    def _failure(self, case: Case, problems: list[Mismatch]) -> str:
        if self.quiet:
            return f"FAIL {case.id}: {', '.join(m.field for m in problems)}\n"
        lines = [f"FAIL {case.id}"] + [line for m in problems for line in m.lines()]
        return "\n".join(lines) + "\n"

    def clear(self) -> None:
        """Takes the progress bar off the terminal's last line."""
        if self.bar:
            self._write("\r\x1b[K")

    def end(self) -> None:
        self.clear()
        passed = len(self.results) - self.failed
        self._write(f"{passed} passed, {self.failed} failed\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def write_junit(path: str, results) -> None:
    """A JUnit XML report: one testcase per case (classname its file, name
    its name), a failure element listing the fields that differ."""
    import xml.etree.ElementTree as ET

    failures = sum(1 for _, problems, _ in results if problems)
    total_time = sum(s for _, _, s in results)
    suites = ET.Element("testsuites", tests=str(len(results)), failures=str(failures), time=f"{total_time:.3f}")
    suite = ET.SubElement(suites, "testsuite", name="runvil conformance", tests=str(len(results)),
                          failures=str(failures), errors="0", skipped="0", time=f"{total_time:.3f}")
    for case, problems, seconds in results:
        tc = ET.SubElement(suite, "testcase", classname=_xml_text(case.group), name=_xml_text(case.name),
                           time=f"{seconds:.3f}")
        if problems:
            fields = ", ".join(m.field for m in problems)
            failure = ET.SubElement(tc, "failure", message=_xml_text(f"differs: {fields}"))
            failure.text = _xml_text("\n".join(line for m in problems for line in m.lines()))
    ET.indent(suites)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """The text with the characters XML 1.0 cannot hold written as escapes."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
