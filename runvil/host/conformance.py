"""`runvil conformance [options] [DIR...]` (docs/reference/commands.md "Conformance for any
implementation"; the case format is runvil/conformance/FORMAT.md, shipped in the
package as runvil/conformance/).

Without a folder it runs the suite shipped in the package. Each case runs
as `CMD prompt.md --script world.yaml --json` in a fresh folder holding the
case's files; the JSON printed is compared with the case's `expect`.
Without `--impl` the cases run this implementation in this process or in
worker processes (the same files, folder and arguments as `--impl "runvil
run"`, without a process start-up per case).

Selecting: `-k` and `--exclude` (ids and headings), `--features` and
`--skip-features` (feature tags), `--skip FILE`; `--expect-fail FILE` lists
the ids that may fail. Besides running: `--list [--json]`, `--export DIR`.
Output: casereport.py. Exit status: 0 all passed (or failed as expected),
1 any failed, 2 no case found or a usage error.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from .argparsing import Parser
from .caserun import (DEFAULT_TIMEOUT, CommandError, CommandRunner, HereRunner, Outcome, check,  # noqa: F401
                      default_jobs, output_json, run_cases, run_here)
from .casereport import Console, Result, json_report, write_json_report, write_junit
from .cases import Case, CaseError, load_cases
from .features import FEATURES
from .suite import export, is_the_suite, manifest, suite_folder, suite_info

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: fewer cases than this run in this process even with -j above 1: worker processes cost more to start
WORKERS_FROM = 16

EXAMPLES = """examples:
  runvil conformance -j 2 --junit report.xml      the shipped suite on this runvil, two cases at a time
  runvil conformance --impl "mylang run" --skip-features tasks,fan-out --expect-fail known.txt
  runvil conformance examples/tests -k crash      your own prompt tests whose id or heading has "crash\""""


def command_runner(impl: str, timeout: float = DEFAULT_TIMEOUT) -> CommandRunner:
    return CommandRunner(impl, timeout)


def run_case(case: dict) -> dict:
    """Runs a case given as data (`prompt`, `world`, `input`) on this
    implementation; returns its `--json` output with its exit status."""
    import tempfile

    from ..harness.scripted import dump_world

    world = dict(case.get("world") or {})
    if case.get("input") is not None:
        world["input"] = case["input"]
    c = Case(id="case", name="case", file=Path("case.yaml"), prompt=case["prompt"], world=dump_world(world))
    with tempfile.TemporaryDirectory(prefix="runvil-case-") as tmp:
        c.lay_out(Path(tmp))
        code, out, err = run_here(Path(tmp))
    data = output_json(out)
    if data is None:
        data = {"ok": False, "result": None, "error": {"kind": "NoJSON", "message": err.strip()}}
    data["exit"] = code
    return data


# ------------------------------------------------------------------ the command


def parser() -> Parser:
    p = Parser(prog="runvil conformance", description="Run conformance cases.", epilog=EXAMPLES)
    p.add_argument("dirs", nargs="*", metavar="DIR", help="case folders or files (default: the shipped suite)")
    p.add_argument("--impl", metavar="CMD", help="the implementation's command (default: this runvil)")
    p.add_argument("-k", dest="patterns", action="append", default=[], metavar="PATTERN",
                   help="only the cases whose id or heading contains PATTERN (repeatable; any matches)")
    p.add_argument("--exclude", action="append", default=[], metavar="PATTERN",
                   help="leave out the cases whose id or heading contains PATTERN (repeatable)")
    p.add_argument("--features", action="append", default=[], metavar="TAGS",
                   help="only the cases with one of these feature tags (comma-separated, repeatable)")
    p.add_argument("--skip-features", action="append", default=[], metavar="TAGS",
                   help="skip the cases with any of these feature tags (comma-separated, repeatable)")
    p.add_argument("--skip", metavar="FILE", help="skip the cases whose ids FILE lists (one a line)")
    p.add_argument("--expect-fail", metavar="FILE",
                   help="the ids FILE lists may fail without failing the run; a pass among them is reported")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="cases run at once (default: the number of cores)")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"seconds one case may take under --impl (default {DEFAULT_TIMEOUT:g})")
    p.add_argument("--keep", metavar="DIR", help="keep each failing case's folder, with its command line, in DIR")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    p.add_argument("--json-report", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--list", action="store_true", help="list the selected cases' ids instead of running them")
    p.add_argument("--json", action="store_true", help="with --list: the manifest as JSON")
    p.add_argument("--export", metavar="DIR", help="write each selected case as a folder, and manifest.json")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("-q", "--quiet", action="store_true",
                       help="one line per failing case (its id and the fields that differ), then the summary")
    shown.add_argument("-v", "--verbose", action="store_true", help="also a `PASS id` line per passing case")
    return p


def conformance_command(argv: list[str]) -> int:
    args = parser().parse(argv)
    if isinstance(args, int):
        return args
    dirs = args.dirs or [str(suite_folder())]
    shipped = is_the_suite(dirs)
    info = suite_info() if shipped else {}
    try:
        if args.export and Path(args.export).exists() and (not Path(args.export).is_dir()
                                                          or any(Path(args.export).iterdir())):
            raise CaseError(f"--export: {args.export} is not an empty folder")
        cases = load_cases(dirs, shipped)
        selected, skipped = select(cases, args)
        expected = read_id_list(args.expect_fail, "--expect-fail") if args.expect_fail else set()
        runner = CommandRunner(args.impl, args.timeout) if args.impl is not None else HereRunner()
        if args.json and not args.list:
            raise CaseError("--json goes with --list (the results as JSON: --json-report FILE)")
        if args.jobs is not None and args.jobs < 1:
            raise CaseError("-j needs a number of cases from 1")
    except (CaseError, CommandError) as e:
        return _usage(str(e))
    if not selected:
        if not cases:
            return _usage(f"no conformance cases found in {', '.join(args.dirs) or 'the shipped suite'}")
        if args.patterns:
            return _usage(f"no conformance case matches {' or '.join(map(repr, args.patterns))}")
        return _usage("no conformance case is left by the selection")
    from .outputs import clash

    case_files = [(f"the case file {f}", str(f)) for f in dict.fromkeys(c.file for c in cases)]
    clashing = clash([("--junit", args.junit), ("--json-report", args.json_report)], case_files)
    if clashing:
        return _usage(clashing)
    if shipped:
        for c in cases:
            c.reference = info.get("reference", {}).get(c.section)
    else:
        info = exported_info(dirs)
    if args.list or args.export:
        return list_or_export(args, [c for c in selected if c.id not in skipped], info, runner.words, shipped)
    return run(args, selected, skipped, expected, runner, info)


def exported_info(dirs: list[str]) -> dict:
    """The suite's name and version, for a run of one folder --export wrote."""
    manifest_file = Path(dirs[0]) / "manifest.json"
    if len(dirs) != 1 or not manifest_file.is_file():
        return {}
    try:
        data = json.loads(manifest_file.read_text(encoding="utf-8"))
        return {"name": data["suite"], "version": data["version"]} if data.get("version") else {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def select(cases: list[Case], args) -> tuple[list[Case], dict[str, str]]:
    """The cases the options select, and those of them to skip (id -> why)."""
    def hit(c: Case, patterns) -> bool:
        return any(p.lower() in c.id.lower() or p.lower() in c.section.lower() for p in patterns)

    wanted, unwanted = feature_list(args.features), feature_list(args.skip_features)
    out = [c for c in cases if (not args.patterns or hit(c, args.patterns)) and not hit(c, args.exclude)
           and (not wanted or wanted & set(c.features))]
    skip_ids = read_id_list(args.skip, "--skip") if args.skip else set()
    skipped = {}
    for c in out:
        if c.id in skip_ids:
            skipped[c.id] = "listed in --skip"
        elif unwanted & set(c.features):
            skipped[c.id] = "feature " + ", ".join(f for f in c.features if f in unwanted)
    return out, skipped


def feature_list(values: list[str]) -> set[str]:
    names = {n.strip() for v in values for n in v.split(",") if n.strip()}
    unknown = sorted(names - set(FEATURES))
    if unknown:
        raise CaseError(f"unknown feature {unknown[0]!r} (the features: {', '.join(FEATURES)})")
    return names


def read_id_list(path: str, option: str) -> set[str]:
    """Case ids, one a line; blank lines and `#` comments are passed over."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise CaseError(f"{option}: cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    return {line for line in (re.sub(r"(^|\s)#.*", "", raw).strip() for raw in text.splitlines()) if line}


def list_or_export(args, cases: list[Case], info: dict, words: list[str], shipped: bool) -> int:
    if args.export:
        try:
            n = export(cases, Path(args.export), info, words, with_readme=shipped)
        except (CaseError, OSError) as e:
            return _usage(str(e) if isinstance(e, CaseError) else f"--export: {e.strerror or e}")
        version = f" (suite {info['version']})" if info.get("version") else ""
        print(f"{n} cases written to {args.export}{version}")
    elif args.json:
        print(json.dumps(manifest(cases, info), ensure_ascii=False, indent=1))
    else:
        print("\n".join(c.id for c in cases))
    return EXIT_PASSED


def run(args, cases: list[Case], skipped: dict[str, str], expected: set[str], runner, info: dict) -> int:
    jobs = args.jobs or default_jobs()
    if isinstance(runner, HereRunner) and len(cases) < WORKERS_FROM:
        jobs = 1
    keep = Path(args.keep).absolute() if args.keep else None
    console = Console(sys.stdout, len(cases), quiet=args.quiet, verbose=args.verbose)
    results: dict[str, Result] = {}

    def ended(case: Case, outcome) -> None:
        kind = outcome.status
        if case.id in expected:
            kind = "xpass" if kind == "pass" else "xfail"
        results[case.id] = r = Result(case, kind, outcome)
        console.add(r)

    start = time.monotonic()
    for c in (c for c in cases if c.id in skipped):
        results[c.id] = r = Result(c, "skip", Outcome("skip"), why=skipped[c.id])
        console.add(r)
    try:
        run_cases([c for c in cases if c.id not in skipped], runner, jobs, keep, ended)
    except CommandError as e:
        console.clear()
        return _usage(str(e))
    seconds = time.monotonic() - start
    ordered = [results[c.id] for c in cases]
    suite = f"{info.get('name')} {info.get('version')}" if info.get("version") else None
    unknown = sorted(expected - {c.id for c in cases}) if unfiltered(args) else []
    console.end(ordered, suite and f"suite {suite}", unknown)
    implementation = args.impl or "runvil run (in process)"
    try:
        if args.junit:
            write_junit(args.junit, ordered, suite)
        if args.json_report:
            write_json_report(args.json_report, json_report(ordered, info, implementation, jobs, seconds))
    except OSError as e:
        return _usage(f"cannot write the report {e.filename}: {e.strerror or e}")
    failed = any(r.kind in ("fail", "error") for r in ordered)
    return EXIT_FAILED if failed else EXIT_PASSED


def unfiltered(args) -> bool:
    """Whether the run is unfiltered, so an id the expect-fail list names
    that is not among its cases is a stale entry worth a note."""
    return not (args.patterns or args.exclude or args.features)


def _usage(message: str) -> int:
    print(f"runvil: {message}", file=sys.stderr)
    return EXIT_USAGE
