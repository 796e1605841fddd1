"""Start-up: whole-process wall times of short runvil commands against
`python -c pass`, the floor any Python program pays.

    .venv/bin/python -m benchmarks.startup [--reps N] [--output PATH]

Each command runs once to warm the caches (the OS page cache, the modules'
bytecode, runvil's parser tables and compiled-chunk cache), then N times;
the median wall time is reported with its ratio to `python -c pass`.

Bytecode is cached as in an installed runvil (PYTHONDONTWRITEBYTECODE is
dropped; the .pyc files go to a folder under the temporary directory, not
into the checkout): without it every run compiles runvil's modules from
source, which `python -c pass`, whose standard library is precompiled,
never does. `--no-bytecode` measures that case.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNVIL = [sys.executable, "-m", "runvil.host.cli"]

COMMANDS: list[tuple[str, list[str]]] = [
    ("python -c pass", [sys.executable, "-c", "pass"]),
    ("runvil lua -e ''", [*RUNVIL, "lua", "-e", ""]),
    ("runvil run examples/hello.md", [*RUNVIL, "run", "examples/hello.md"]),
    ("runvil check examples/hello.md", [*RUNVIL, "check", "examples/hello.md"]),
]


def time_command(cmd: list[str], reps: int, bytecode: bool = True) -> list[float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "runvil-bench-pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    times = []
    for i in range(reps + 1):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if i:  # the first run only warms the caches
            times.append(time.perf_counter() - start)
    return times


def measure(reps: int, bytecode: bool = True) -> list[tuple[str, float]]:
    return [(label, statistics.median(time_command(cmd, reps, bytecode))) for label, cmd in COMMANDS]


def render(rows: list[tuple[str, float]], reps: int, bytecode: bool = True) -> str:
    base = rows[0][1]
    how = "" if bytecode else ", with no bytecode cache (`--no-bytecode`)"
    out = ["## Start-up (whole process, warm caches)\n",
           f"Median wall time of {reps} runs after one warm-up run "
           f"(`python -m benchmarks.startup`){how}.\n",
           "| command | median ms | × `python -c pass` |", "|---|---:|---:|"]
    out += [f"| `{label}` | {t * 1000:.0f} | {t / base:.1f}× |" for label, t in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.startup")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--output", default="-", help="a file, or - for stdout")
    p.add_argument("--no-bytecode", action="store_true", help="no .pyc cache: every run compiles runvil's modules")
    args = p.parse_args(argv)
    text = render(measure(args.reps, not args.no_bytecode), args.reps, not args.no_bytecode)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
