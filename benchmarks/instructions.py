"""Instruction counts: how many machine instructions one bench(n) costs on
runvil and on its plain-Python twin, counted by valgrind's cachegrind.

    .venv/bin/python -m benchmarks.instructions [--only NAME[,NAME]] [--output PATH]

A full run writes benchmarks/INSTRUCTIONS.md; --only or --engines, stdout.

CPU time on a shared machine moves by half or more between two processes
seconds apart; an instruction count moves by about 1%. So this is the
measure to compare two versions of runvil by, and the CPU tables of
`python -m benchmarks` are the one to compare engines by.

Each count is (the count of a process making three bench(n) calls − that
of one making one) / 2: loading, compiling and the first call (where a
coroutine's twin is made) cancel out, and what is left is one later call.
Runs use `RUNVIL_CACHE=0` and `PYTHONHASHSEED=0`; Python's hash
randomisation alone moves some counts by up to 4%. Needs `valgrind`
(Debian: `apt-get install valgrind`); without it the command says so.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # when run as `python benchmarks/instructions.py`
    sys.path.insert(0, str(ROOT))

from benchmarks.run import PROGRAMS, geomean, machine_info  # noqa: E402

#: n for each benchmark: a call of about 20-1000 M instructions on runvil
SIZES: dict[str, int] = {
    "json": 300, "report": 4000, "textproc": 600, "textwork": 600, "oop": 8000, "dijkstra": 30, "pipeline": 10000,
    "fib": 20, "loop": 200000, "while": 200000, "table": 40000, "arrays": 20000, "string": 20000, "method": 60000,
    "closure": 80000, "pattern": 4000, "format": 20000, "sort": 20000, "coroutine": 20000, "textops": 2000,
    "bits": 2000, "unittest": 800, "testfw": 600, "hashes": 3000,
}  # fmt: skip
ENGINES = ("runvil", "python")
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def child(engine: str, name: str, n: int, calls: int) -> None:
    """This process's work under cachegrind: load the benchmark, call it."""
    from benchmarks.engines import load_python, load_runvil

    folder = "lua" if engine == "runvil" else "python"
    ext = "lua" if engine == "runvil" else "py"
    source = (HERE / folder / f"{name}.{ext}").read_text(encoding="utf-8")
    bench = (load_runvil if engine == "runvil" else load_python)(source)
    for _ in range(calls):
        bench(n)


def refs(text: str) -> int:
    """The instruction count in cachegrind's report (its stderr)."""
    m = _REFS.search(text)
    if m is None:
        raise RuntimeError("no instruction count in valgrind's output:\n" + text[-2000:])
    return int(m.group(1).replace(",", ""))


def count(engine: str, name: str, n: int, root: Path = ROOT) -> float:
    """Millions of instructions of one bench(n) call, (3 calls - 1 call) / 2."""
    env = dict(os.environ, RUNVIL_CACHE="0", PYTHONHASHSEED="0", PYTHONPATH=str(root))
    got = []
    for calls in (1, 3):
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, "-m", "benchmarks.instructions", "--child", engine, name, str(n), str(calls)]
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"{engine} {name}: exit {p.returncode}\n{p.stderr[-2000:]}")
        got.append(refs(p.stderr))
    return (got[1] - got[0]) / 2 / 1e6


def render(rows: dict[str, dict[str, float]]) -> str:
    """The tables: each benchmark's counts and ratio, then the geometric
    means of the whole programs and of the micro-benchmarks."""
    out = ["# Instruction counts\n",
           "Millions of instructions of one `bench(n)` (`python -m benchmarks.instructions`: cachegrind, "
           "(3 calls − 1 call) / 2, `RUNVIL_CACHE=0`, `PYTHONHASHSEED=0`).\n"]
    out += [f"- {k}: {v}" for k, v in machine_info() if k != "peers"]
    for title, names in (("Whole programs", [k for k in rows if k in PROGRAMS]),
                         ("Micro-benchmarks", [k for k in rows if k not in PROGRAMS])):
        if not names:
            continue
        out += ["", f"## {title}", "", "| benchmark | n | runvil M | python M | × python |", "|---|---:|---:|---:|---:|"]
        ratios = []
        for k in names:
            r, p = rows[k].get("runvil"), rows[k].get("python")
            ratio = r / p if r is not None and p else None
            if ratio is not None:
                ratios.append(ratio)
            cells = [f"{v:.1f}" if v is not None else "—" for v in (r, p)]
            out.append(f"| {k} | {SIZES[k]} | {cells[0]} | {cells[1]} | "
                       f"{f'{ratio:.2f}×' if ratio is not None else '—'} |")
        if ratios:
            out += ["", f"- geometric mean: {geomean(ratios):.2f}× plain Python ({len(ratios)} benchmarks), "
                        f"highest {max(ratios):.2f}×"]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    p.add_argument("--only", help="NAME[,NAME...] (default: all)")
    p.add_argument("--engines", default=",".join(ENGINES), help="runvil,python")
    p.add_argument("--output", help="a file, or - for stdout (default: benchmarks/INSTRUCTIONS.md for a full "
                                    "run, stdout for --only or --engines)")
    p.add_argument("--child", nargs=4, metavar=("ENGINE", "NAME", "N", "CALLS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        engine, name, n, calls = args.child
        child(engine, name, int(n), int(calls))
        return 0
    if shutil.which("valgrind") is None:
        print("benchmarks.instructions needs valgrind (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    names = [s.strip() for s in args.only.split(",")] if args.only else list(SIZES)
    unknown = [s for s in names if s not in SIZES]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if unknown or any(e not in ENGINES for e in engines):
        p.error(f"unknown benchmark or engine: {', '.join(unknown + [e for e in engines if e not in ENGINES])}")
    rows: dict[str, dict[str, float]] = {}
    for name in names:
        rows[name] = {e: count(e, name, SIZES[name]) for e in engines}
        print(f"{name}: " + ", ".join(f"{e} {m:.1f} M" for e, m in rows[name].items()), file=sys.stderr, flush=True)
    text = render(rows)
    output = args.output or ("-" if args.only or args.engines != ",".join(ENGINES) else str(HERE / "INSTRUCTIONS.md"))
    if output == "-":
        sys.stdout.write(text)
    else:
        Path(output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
