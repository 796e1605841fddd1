"""Measures runvil's Lua against its peers and writes benchmarks/RESULTS.md.

    .venv/bin/python -m benchmarks [--quick] [--only NAME[,NAME...]] ...
    .venv/bin/python benchmarks/run.py ...        (same thing)

Every (benchmark, engine) pair runs in a fresh subprocess (benchmarks.child,
or the lua5.4 binary with benchmarks/lua_driver.lua): the program is loaded
and compiled first, then only the bench(n) calls are timed; the median of N
runs is reported.  A run that exceeds --timeout is killed and shows
`timeout`; a crash shows `error`; an engine that cannot be imported shows
`n/a`.  Only one benchmark process runs at a time.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import math
import os
import platform
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # when run as `python benchmarks/run.py`
    sys.path.insert(0, str(ROOT))

from benchmarks.gen_parse import generate  # noqa: E402

TAG = "@@BENCH "

# name -> (n for a full run, n for --quick, description)
BENCHMARKS: dict[str, tuple[int, int, str]] = {
    "fib": (25, 15, "recursive fib(n) through a local function"),
    "loop": (1_000_000, 10_000, "numeric for loop summing 1..n"),
    "while": (1_000_000, 10_000, "while loop with %, if/else per step"),
    "table": (200_000, 2_000, "t[#t+1]=i appends, array reads, string-keyed fields, small records"),
    "arrays": (100_000, 1_000, "array reads in loops: sums, prefix sums, matrix rows, a sieve, binary searches"),
    "string": (100_000, 1_000, "table.concat, `..` in loops, string.format, upper/sub/rep"),
    "method": (300_000, 3_000, "p:move(dx, dy) through a metatable __index (Point class)"),
    "closure": (400_000, 4_000, "n/4 counter closures created and called, upvalue updates"),
    "pattern": (20_000, 500, "string.gmatch/gsub (string, captures, function)/find over a text"),
    "format": (100_000, 1_000, 'string.format("%d %s %5.2f", ...)'),
    "sort": (100_000, 1_000, "table.sort of n LCG numbers, without and with a comparator"),
    "coroutine": (100_000, 1_000, "coroutine.wrap generator yielding n values + resume/yield ping-pong"),
    "textops": (10_000, 200, "issue 28's text operations: gmatch words/e-mails, gsub digits/title-case/blanks"),
    "bits": (20_000, 500, "SHA-256 of n bytes in integer bit operations (&, |, ~, <<, >>, rotations)"),
    "unittest": (4_000, 100, "a unit-test framework: assertions through pcall, error, string.format, deep equality"),
    "testfw": (3_000, 100, "a luaunit-shaped framework: xpcall + debug.traceback, pcall'd assertions, error tables, %q/%d, select('#')"),
    "hashes": (20_000, 500, "MD5 and SHA-1 of n bytes in integer bit operations (32-bit words, rotations, byte loads)"),
    # whole programs of the kinds prompts run (PROGRAMS below)
    "json": (1_700, 50, "a JSON encoder + decoder written in Lua round-tripping a ~200 KB document"),
    "report": (20_000, 500, "a sales report: grouping, sorting, money with thousands separators, padded columns"),
    "textproc": (3_000, 100, "text processing with patterns: word counts, addresses, trimming, gsub captures"),
    "textwork": (3_000, 100, "model replies: lines, fields, JSON-ish fields, templates, title-case, redaction"),
    "oop": (40_000, 500, "classes: a 3-level __index chain, __add/__eq/__lt/__le/__tostring, sorting objects"),
    "dijkstra": (120, 10, "dijkstra on an n x n grid with a hand-written binary heap"),
    "pipeline": (40_000, 500, "a coroutine generator pipeline: numbers -> filter -> map -> batches"),
}
#: the whole programs (the rest are micro-benchmarks); summarised apart
PROGRAMS = ("json", "report", "textproc", "textwork", "oop", "dijkstra", "pipeline")
PARSE_LINES = (5000, 500)  # full, quick

BENCH_ENGINES = ["runvil", "python", "lupa", "lua5.4", "abstra-lua"]
PARSE_ENGINES = ["runvil", "luaparser", "abstra-lua", "lupa", "lua5.4"]
ALL_NAMES = list(BENCHMARKS) + ["parse"]


@dataclass
class Result:
    engine: str
    status: str = "ok"  # ok | timeout | error | n/a
    times: list[float] = field(default_factory=list)  # CPU seconds per run
    walls: list[float] = field(default_factory=list)  # wall seconds (not lua5.4)
    checksum: str | None = None
    load_time: float | None = None
    message: str = ""
    mismatch: str = ""  # non-empty when the checksum differs from the reference

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.times)

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None

    @property
    def wall_median(self) -> float | None:
        return statistics.median(self.walls) if self.walls else None


# ----------------------------------------------------------------- running
def lua_binary() -> str | None:
    return shutil.which("lua5.4") or (
        "/usr/bin/lua5.4" if os.path.exists("/usr/bin/lua5.4") else None)


def command_for(engine: str, mode: str, path: Path, n: int, reps: int,
                budget: float) -> list[str] | None:
    args = [mode, str(path), str(n), str(reps), str(budget)]
    if engine == "lua5.4":
        exe = lua_binary()
        return [exe, str(HERE / "lua_driver.lua"), *args] if exe else None
    return [sys.executable, "-m", "benchmarks.child", engine, *args]


def run_child(engine: str, cmd: list[str], timeout: float) -> Result:
    """Runs one child, enforcing `timeout` for the load and for each run."""
    res = Result(engine)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONWARNINGS", None)
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=err, stdin=subprocess.DEVNULL, text=True,
                                encoding="latin-1")
        lines: queue.Queue = queue.Queue()

        def reader():
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        deadline = time.monotonic() + timeout
        timed_out = False
        while True:
            try:
                line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                timed_out = True
                proc.kill()
                break
            if line is None:
                break
            if not line.startswith(TAG):
                continue
            kind, _, rest = line[len(TAG):].rstrip("\n").partition(" ")
            if kind == "LOADED":
                res.load_time = float(rest)
            elif kind == "RUN":
                dt, _, rest = rest.partition(" ")
                wall, _, checksum = rest.partition(" ")
                res.times.append(float(dt))
                if wall != "-":
                    res.walls.append(float(wall))
                if res.checksum is None:
                    res.checksum = checksum
                elif checksum != res.checksum:
                    res.mismatch = f"runs disagree: {res.checksum!r} vs {checksum!r}"
            elif kind == "NA":
                res.status, res.message = "n/a", rest
            elif kind == "ERROR":
                res.status, res.message = "error", rest
            deadline = time.monotonic() + timeout
        proc.wait()
        err.seek(0)
        stderr = err.read().strip()
    if timed_out:
        if res.times:
            res.message = f"a later run exceeded {timeout:g}s; median of the completed runs"
        else:
            res.status = "timeout"
            res.message = f"{'load' if res.load_time is None else 'run'} exceeded {timeout:g}s"
    elif res.status == "ok" and not res.times:
        res.status = "error"
        tail = stderr.splitlines()[-1] if stderr else f"exit code {proc.returncode}"
        res.message = f"no result ({tail})"
    return res


def run_benchmark(name: str, engines: list[str], args, tmpdir: Path) -> list[Result]:
    if name == "parse":
        lines = PARSE_LINES[1] if args.quick else PARSE_LINES[0]
        src = generate(lines)
        lua_path = tmpdir / "parse_input.lua"
        lua_path.write_text(src, encoding="utf-8")
        n, mode = src.count("\n"), "parse"
    else:
        full_n, quick_n, _ = BENCHMARKS[name]
        n, mode = (quick_n if args.quick else full_n), "bench"
        lua_path = HERE / "lua" / f"{name}.lua"
    results = []
    for engine in engines:
        path = HERE / "python" / f"{name}.py" if engine == "python" else lua_path
        cmd = command_for(engine, mode, path, n, args.reps, args.budget)
        if cmd is None:
            res = Result(engine, status="n/a", message=f"{engine} is not installed")
        else:
            print(f"  {name:10s} {engine:11s} ", end="", flush=True)
            res = run_child(engine, cmd, args.timeout)
            if res.ok:
                print(f"{res.median:10.4f}s cpu  ({len(res.times)} run{'s' if len(res.times) != 1 else ''})  checksum {res.checksum}"
                      + (f"  MISMATCH {res.mismatch}" if res.mismatch else ""))
            else:
                print(f"{res.status}: {res.message}"[:200])
        results.append(res)
    if mode == "bench":
        check_checksums(results)
    return results, n


def check_checksums(results: list[Result]) -> None:
    """The reference is C Lua (lua5.4 binary, else lupa), else plain Python."""
    ref = None
    for eng in ("lua5.4", "lupa", "python"):
        for r in results:
            if r.engine == eng and r.ok and not r.mismatch:
                ref = (eng, r.checksum)
                break
        if ref:
            break
    if ref is None:
        return
    for r in results:
        if r.ok and not r.mismatch and r.checksum != ref[1]:
            r.mismatch = f"checksum {r.checksum!r}, {ref[0]} gave {ref[1]!r}"


# ----------------------------------------------------------------- reporting
def fmt_time(t: float | None) -> str:
    if t is None:
        return "—"
    if t >= 100:
        return f"{t:.0f}"
    if t >= 1:
        return f"{t:.2f}"
    if t >= 0.01:
        return f"{t:.4f}"
    return f"{t:.6f}"


def fmt_ratio(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}×"
    if x >= 10:
        return f"{x:.1f}×"
    if x >= 0.1:
        return f"{x:.2f}×"
    return f"{x:.3f}×"


def ratio(res: Result, base: Result | None) -> float | None:
    if base is None or not res.ok or not base.ok or res.mismatch or base.mismatch:
        return None
    return res.median / base.median


def find(results: list[Result], engine: str) -> Result | None:
    for r in results:
        if r.engine == engine:
            return r
    return None


def geomean(xs: list[float]) -> float | None:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def status_cell(r: Result) -> str:
    if r.status != "ok":
        return f"**{r.status}**"
    if r.mismatch:
        return f"**{fmt_time(r.median)} (MISMATCH)**"
    return fmt_time(r.median)


def loadavg() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine_info() -> list[tuple[str, str]]:
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    os_name = platform.platform()
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = f"{line.split('=', 1)[1].strip(chr(34))} ({platform.platform()})"
    except OSError:
        pass
    info = [("CPU", cpu), ("cores", str(os.cpu_count())),
            ("Python", f"{platform.python_implementation()} {platform.python_version()}"),
            ("OS", os_name),
            ("date", _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"))]
    versions = []
    try:
        from importlib.metadata import version
        for dist in ("lupa", "abstra-lua", "luaparser"):
            try:
                versions.append(f"{dist} {version(dist)}")
            except Exception:  # noqa: BLE001
                versions.append(f"{dist} not installed")
    except ImportError:
        pass
    exe = lua_binary()
    if exe:
        try:
            out = subprocess.run([exe, "-v"], capture_output=True, text=True, timeout=10)
            versions.append((out.stdout or out.stderr).split("  ")[0].strip())
        except Exception:  # noqa: BLE001
            pass
    info.append(("peers", ", ".join(versions)))
    return info


def command_line(argv: list[str]) -> str:
    exe = sys.executable
    if exe.startswith(str(ROOT) + os.sep):
        exe = os.path.relpath(exe, ROOT)
    if Path(sys.argv[0]).name == "run.py":
        return " ".join([exe, "benchmarks/run.py", *argv])
    return " ".join([exe, "-m", "benchmarks", *argv])


def render(all_results: dict, args, argv: list[str], started: float,
           load_start: str) -> str:
    out: list[str] = []
    w = out.append
    w("# runvil Lua benchmarks\n")
    w(f"Generated by `{command_line(argv)}` (run from the project root; "
      f"took {time.monotonic() - started:.0f} s).\n")
    runs = "1 run" if args.reps == 1 else f"up to {args.reps} runs, fewer when a slow " \
        f"engine would exceed the {args.budget:g} s budget"
    w("Each cell is the **median CPU time (seconds) of the timed `bench(n)` "
      f"calls** ({runs}; per-run timeout {args.timeout:g} s), "
      "measured in a fresh process per engine and benchmark, after loading "
      "and compiling the program (startup and parse/compile are excluded). "
      "`× python` = time / plain-Python time (how many times slower than "
      "hand-written Python, the practical limit for a Lua in Python); "
      "`× lupa` = time / C Lua 5.4 (lupa) time. CPU time (Python "
      "`time.process_time`, Lua `os.clock` in the lua5.4 binary) is used "
      "rather than wall time so that other load on the machine disturbs the "
      "numbers less; the per-benchmark tables also show the median wall "
      "time.\n")
    if args.quick:
        w("**Quick mode**: tiny sizes, 1 run: the numbers are only a smoke test.\n")

    w("## Machine\n")
    for k, v in machine_info():
        w(f"- {k}: {v}")
    w(f"- load average (1/5/15 min) at start: {load_start}; at end: {loadavg()}"
      + (" (other work was running: expect some noise)"
         if float(load_start.split(" / ")[0] or 0) > 0.5 * (os.cpu_count() or 1)
         else "") if load_start != "?" else "")
    w("")

    benches = [b for b in all_results if b != "parse"]
    notes: list[str] = []
    if benches:
        # ---- summary
        w("## Summary\n")
        w("Geometric means over the benchmarks where both engines ran and "
          "agreed on the checksum (n = how many benchmarks).\n")
        w("| engine | × python (geomean) | × lupa (geomean) | n |")
        w("|---|---:|---:|---:|")
        for eng in BENCH_ENGINES:
            xs_py, xs_lupa = [], []
            for b in benches:
                res = all_results[b]["results"]
                r = find(res, eng)
                if r is None:
                    continue
                x = ratio(r, find(res, "python"))
                y = ratio(r, find(res, "lupa"))
                if x is not None:
                    xs_py.append(x)
                if y is not None:
                    xs_lupa.append(y)
            if not any(find(all_results[b]["results"], eng) for b in benches):
                continue
            w(f"| {eng} | {fmt_ratio(geomean(xs_py))} | {fmt_ratio(geomean(xs_lupa))} "
              f"| {max(len(xs_py), len(xs_lupa))} |")
        w("")
        rv_ab = []
        for b in benches:
            res = all_results[b]["results"]
            r = find(res, "runvil")
            if r is not None:
                x = ratio(r, find(res, "abstra-lua"))
                if x is not None:
                    rv_ab.append(x)
        rv_py = []
        for b in benches:
            res = all_results[b]["results"]
            r = find(res, "runvil")
            if r is not None:
                x = ratio(r, find(res, "python"))
                if x is not None:
                    rv_py.append(x)
        w(f"- **runvil / python** geometric mean: {fmt_ratio(geomean(rv_py))} "
          f"(over {len(rv_py)} benchmarks)")
        for label, group in (("whole programs", [b for b in benches if b in PROGRAMS]),
                             ("micro-benchmarks", [b for b in benches if b not in PROGRAMS])):
            xs = [x for b in group
                  if (x := ratio(find(all_results[b]["results"], "runvil") or Result("runvil", "n/a"),
                                 find(all_results[b]["results"], "python"))) is not None]
            if xs:
                w(f"- **runvil / python, {label}**: geometric mean {fmt_ratio(geomean(xs))}, "
                  f"highest {fmt_ratio(max(xs))} (over {len(xs)})")
        w(f"- **runvil / abstra-lua** geometric mean: {fmt_ratio(geomean(rv_ab))} "
          f"(over {len(rv_ab)} benchmarks; < 1× means runvil is faster)")
        w("")

        # ---- overview grid
        w("### All benchmarks (median CPU seconds)\n")
        w("| benchmark | n | " + " | ".join(BENCH_ENGINES) + " |")
        w("|---|---:|" + "---:|" * len(BENCH_ENGINES))
        for b in benches:
            res = all_results[b]["results"]
            cells = []
            for eng in BENCH_ENGINES:
                r = find(res, eng)
                cells.append("—" if r is None else status_cell(r))
            w(f"| {b} | {all_results[b]['n']:,} | " + " | ".join(cells) + " |")
        w("")

        # ---- one table per benchmark
        w("## Benchmarks\n")
        for b in benches:
            res = all_results[b]["results"]
            n = all_results[b]["n"]
            w(f"### {b} (n = {n:,})\n")
            w(f"{BENCHMARKS[b][2]}. Source: `benchmarks/lua/{b}.lua`, "
              f"`benchmarks/python/{b}.py`.\n")
            w("| engine | median CPU s | wall s | runs | × python | × lupa | checksum |")
            w("|---|---:|---:|---:|---:|---:|---|")
            py, lupa = find(res, "python"), find(res, "lupa")
            for r in res:
                if r.ok:
                    chk = f"MISMATCH ({r.mismatch})" if r.mismatch else f"ok `{r.checksum}`"
                else:
                    chk = "—"
                w(f"| {r.engine} | {status_cell(r)} | {fmt_time(r.wall_median)} "
                  f"| {len(r.times) or '—'} "
                  f"| {fmt_ratio(ratio(r, py))} | {fmt_ratio(ratio(r, lupa))} | {chk} |")
                if r.message:
                    notes.append(f"- `{b}` / {r.engine}: {r.status}: {r.message}")
            w("")

    if "parse" in all_results:
        res = all_results["parse"]["results"]
        lines = all_results["parse"]["n"]
        w(f"## Parse throughput ({lines:,} generated lines)\n")
        w("A deterministic, realistic Lua 5.4 module (`benchmarks/gen_parse.py`: "
          "functions, methods, table constructors, loops, strings, comments) is "
          "parsed to an AST: runvil `runvil.lua.syntax.parser.parse(source, \"bench\")`, "
          "luaparser `ast.parse(source)`, abstra-lua `Parser(source).parse()`; "
          "lupa and lua5.4 run `load(source)` (parse + bytecode generation, "
          "the C reference).\n")
        w("| engine | median CPU s | wall s | runs | lines/s | × lupa time |")
        w("|---|---:|---:|---:|---:|---:|")
        lupa = find(res, "lupa")
        for r in res:
            lps = f"{lines / r.median:,.0f}" if r.ok and r.median > 0 else "—"
            w(f"| {r.engine} | {status_cell(r)} | {fmt_time(r.wall_median)} "
              f"| {len(r.times) or '—'} | {lps} "
              f"| {fmt_ratio(ratio(r, lupa))} |")
            if r.message:
                notes.append(f"- `parse` / {r.engine}: {r.status}: {r.message}")
        w("")

    if notes:
        w("## Notes: failures, timeouts, unavailable engines\n")
        w("`n/a` = the engine could not be imported or is not installed; "
          "`error` = loading or running raised (for abstra-lua this usually "
          "means a library or feature it lacks); `timeout` = a single run "
          f"exceeded {args.timeout:g} s.\n")
        out.extend(notes)
        w("")
    return "\n".join(out)


# ----------------------------------------------------------------- main
def parse_args(argv: list[str]):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes and 1 run per engine (smoke test)")
    p.add_argument("--only", metavar="NAME[,NAME]",
                   help=f"run only these benchmarks: {', '.join(ALL_NAMES)}")
    p.add_argument("--engines", metavar="E[,E]",
                   help="run only these engines: " + ", ".join(
                       dict.fromkeys(BENCH_ENGINES + PARSE_ENGINES)))
    p.add_argument("--reps", type=int, help="runs per engine (default 5, quick 1)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds allowed for loading and for each run (default 60)")
    p.add_argument("--budget", type=float, default=60.0,
                   help="stop repeating an engine once its runs would exceed this "
                        "many seconds (default 60; at least one run is made)")
    p.add_argument("--output", metavar="PATH",
                   help="where to write the report (default benchmarks/RESULTS.md "
                        "for a full run, benchmarks/RESULTS.partial.md with "
                        "--quick/--only/--engines; '-' = stdout only)")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 if any engine returned a wrong checksum")
    p.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    args = p.parse_args(argv)
    if args.reps is None:
        args.reps = 1 if args.quick else 5
    return args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.list:
        for name, (n, qn, desc) in BENCHMARKS.items():
            print(f"{name:10s} n={n:<9,} quick n={qn:<7,} {desc}")
        print(f"{'parse':10s} {PARSE_LINES[0]:,} generated lines (quick {PARSE_LINES[1]:,})")
        return 0
    names = ALL_NAMES
    if args.only:
        names = [s.strip() for s in args.only.split(",") if s.strip()]
        bad = [s for s in names if s not in ALL_NAMES]
        if bad:
            print(f"unknown benchmark(s): {', '.join(bad)}; known: {', '.join(ALL_NAMES)}",
                  file=sys.stderr)
            return 2
    wanted = None
    if args.engines:
        wanted = [s.strip() for s in args.engines.split(",") if s.strip()]

    started = time.monotonic()
    load_start = loadavg()
    all_results: dict = {}
    with tempfile.TemporaryDirectory(prefix="runvil-bench-") as tmp:
        for name in names:
            engines = PARSE_ENGINES if name == "parse" else BENCH_ENGINES
            if wanted is not None:
                engines = [e for e in engines if e in wanted]
            if not engines:
                continue
            print(f"[{name}]", flush=True)
            results, n = run_benchmark(name, engines, args, Path(tmp))
            all_results[name] = {"n": n, "results": results}

    report = render(all_results, args, argv, started, load_start)
    partial = args.quick or args.only or args.engines
    output = args.output or str(HERE / ("RESULTS.partial.md" if partial else "RESULTS.md"))
    if output == "-":
        print(report)
    else:
        Path(output).write_text(report + "\n", encoding="utf-8")
        print(f"wrote {output}")
    mismatches = [f"{b}/{r.engine}" for b, v in all_results.items()
                  for r in v["results"] if r.mismatch]
    if mismatches:
        print(f"checksum MISMATCH: {', '.join(mismatches)}", file=sys.stderr)
        if args.strict:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
